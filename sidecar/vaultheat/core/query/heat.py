"""Heat propagation: seed chunks pass heat along graph edges, a few hops, with a query floor.

Seeds (the fused top results) start with their seed score. Each hop, the frontier pushes
``heat[u] * w * decay * type_weight * hub_factor(u)`` to its neighbours; a node keeps the MAX of
what reaches it (a chunk linked from ten weak seeds is not hotter than one linked from a strong
one). Non-seed nodes must be similar enough to the query (``query_floor``) to take heat at all,
and a node that is refused does not relay either: this keeps heat from leaking through
off-topic hubs. Query similarity is asked in one batch per hop, only for nodes seen for the first
time, and cached. Only the ``max_frontier`` hottest newly improved nodes relay in the next hop
(ties: lower id), bounding the work. Hubs (more than ``hub_degree`` edges) pass on heat scaled by
``sqrt(hub_degree / degree)``, so a daily-notes index does not heat the whole vault.

One deliberate difference from plain hop-bounded max-propagation: **a node that has relayed is
final**. Otherwise a node could be raised later (by a longer, stronger path) after it had heated
its neighbours, and their trace, which names it as parent, would no longer multiply out to their
heat. No parent-link trace can be faithful for hop-bounded best paths in general, and an
``explain`` that does not add up is worse than a slightly lower heat. Consequences: seeds keep
exactly their seed score (they relay in hop 1), and without the frontier cap each node takes its
heat in the hop that first reaches it (BFS layer), as the max over the previous layer. A node
that was capped out of the frontier has not relayed and may still be raised in a later hop.

Exact ties keep the first contribution found: frontier nodes are visited by ascending id and
their edges in the order ``neighbors`` gives. The function is deterministic for equal inputs.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from vaultheat.errors import NotFoundError

EDGE_TYPES = ("similar", "link", "backlink", "tag")

Edge = tuple[int, float, str]  # (neighbour, edge weight, edge type)


@dataclass(frozen=True)
class Trace:
    """How a node got its heat: from ``parent`` over one edge (seeds: parent None, hop 0)."""

    seed: int
    parent: int | None
    edge_weight: float
    edge_type: str | None
    type_weight: float
    hub_factor: float
    hop: int


@dataclass(frozen=True)
class HeatResult:
    heat: dict[int, float]
    trace: dict[int, Trace]


def hub_factor(degree: int, hub_degree: int) -> float:
    """1 up to ``hub_degree`` edges, then ``sqrt(hub_degree / degree)``; ``hub_degree`` 0 = off."""
    if hub_degree <= 0 or degree <= hub_degree:
        return 1.0
    return math.sqrt(hub_degree / degree)


def propagate_heat(
    seeds: Mapping[int, float],
    neighbors: Callable[[int], Sequence[Edge]],
    query_sim: Callable[[Sequence[int]], Mapping[int, float]],
    *,
    hops: int = 2,
    decay: float = 0.5,
    query_floor: float = 0.35,
    max_frontier: int = 150,
    type_weights: Mapping[str, float],
    hub_degree: int = 20,
) -> HeatResult:
    """Spread heat from ``seeds``; see the module docstring for the exact semantics.

    ``query_sim(ids)`` returns cosine similarity to the query for (some of) ``ids``; an id it
    leaves out is treated as below the floor.
    """
    if hops < 0 or max_frontier < 0 or decay < 0:
        raise ValueError("hops, max_frontier and decay must not be negative")
    heat = {int(s): float(score) for s, score in seeds.items()}
    trace = {s: Trace(s, None, 0.0, None, 1.0, 1.0, 0) for s in heat}
    relayed: set[int] = set()
    sims: dict[int, float] = {}
    frontier = sorted(heat)
    for hop in range(1, hops + 1):
        if not frontier:
            break
        relayed.update(frontier)
        edges = {u: list(neighbors(u)) for u in frontier}
        _ask_query_sim(edges, relayed, sims, query_sim)
        improved: set[int] = set()
        for u in frontier:
            factor = hub_factor(len(edges[u]), hub_degree)
            for v, w, kind in edges[u]:
                if v in relayed or sims[v] < query_floor:
                    continue
                tw = _type_weight(type_weights, kind)
                contribution = heat[u] * w * decay * tw * factor
                if contribution > heat.get(v, 0.0):
                    heat[v] = contribution
                    trace[v] = Trace(trace[u].seed, u, float(w), kind, tw, factor, hop)
                    improved.add(v)
        frontier = sorted(sorted(improved, key=lambda v: (-heat[v], v))[:max_frontier])
    return HeatResult(heat=heat, trace=trace)


def _ask_query_sim(
    edges: Mapping[int, Sequence[Edge]],
    relayed: set[int],
    sims: dict[int, float],
    query_sim: Callable[[Sequence[int]], Mapping[int, float]],
) -> None:
    """One batched call for the candidates of this hop not seen before; results are cached."""
    fresh = sorted(
        {v for hits in edges.values() for v, _, _ in hits if v not in relayed and v not in sims}
    )
    if not fresh:
        return
    answer = query_sim(fresh)
    for v in fresh:
        sims[v] = float(answer[v]) if v in answer else -math.inf


def _type_weight(type_weights: Mapping[str, float], kind: str) -> float:
    try:
        return float(type_weights[kind])
    except KeyError:
        raise ValueError(f"no type weight for edge type {kind!r}") from None


def trace_path(result: HeatResult, node: int) -> list[int]:
    """The chain of nodes that carried heat to ``node``, seed first, ``node`` last."""
    if node not in result.trace:
        raise NotFoundError(f"chunk {node} received no heat", chunk_id=node)
    path = [node]
    parent = result.trace[node].parent
    while parent is not None:
        if len(path) > len(result.trace):
            raise ValueError(f"the heat trace of {node} has a cycle")
        path.append(parent)
        parent = result.trace[parent].parent
    path.reverse()
    return path


def path_heat(result: HeatResult, node: int, *, decay: float) -> float:
    """Recompute ``node``'s heat from its trace: seed score times each edge's factor."""
    path = trace_path(result, node)
    value = result.heat[path[0]]
    for step in path[1:]:
        t = result.trace[step]
        value *= t.edge_weight * decay * t.type_weight * t.hub_factor
    return value
