"""Link heat: notes close to the open note *through its own links* rise.

Link votes (``core/query/votes.py``) start from the notes whose text is closest; link heat starts
from the note's own links (the notes it links to and the notes that link to it) and spreads over the
vault's link graph, read as undirected: two notes are neighbours when either links to the other.
``S`` is the open note Q's neighbourhood, ``N(z)`` a note's neighbours, ``d(z) = |N(z)|``.

- ``ppr``: personalized PageRank from Q. A walker starts on a note of S (uniformly), follows a
  random link with probability ``1 - alpha`` and jumps back to S with ``alpha``; ``h(T)`` is
  the share of time it spends on T. Q itself is taken out of the graph (its edges gone, the
  degrees ``d`` counted without them), so Q's stored links change nothing: only S, as the
  caller states it, does.
- ``ra``: resource allocation, ``h(T) = Σ_{z ∈ S ∩ N(T)} 1 / d(z)``: shared neighbours count,
  a hub shared with everyone counts little.

With ``chance`` c > 0 (``ppr`` only), ``h(T)`` is first reduced to ``max(0, h(T) - c × d(T) /
Σ d)``: a walk from anywhere spends ``d(T) / Σ d`` of its time on T (the stationary share), so
only heat above that says T is near Q rather than merely well linked (as votes beyond chance
do for votes).

``bonus(T) = weight × h(T) / max_T' h(T')`` over the notes outside S ∪ {Q}: the note best
connected to Q gets the whole weight. Notes of S get no bonus (they are linked already; their
content score places them), so link heat suggests notes the user has not linked yet. ``via``
names the notes of S next to T, most telling first (largest 1/d), which is the path the heat
took in one of its two hops and the receipt a reader sees.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import NamedTuple

import numpy as np

KINDS = ("off", "ppr", "ra")
ITERATIONS = 30  # power iterations; at alpha >= 0.1 the error after 30 is below 0.9**30 ≈ 4%
TOLERANCE = 1e-6  # stop earlier once an iteration moves less than this (L1)


@dataclass(frozen=True)
class LinkGraph:
    """The undirected note link graph of one index generation, as arrays (built once)."""

    index: Mapping[str, int]  # path -> node
    paths: tuple[str, ...]  # node -> path
    offsets: np.ndarray  # CSR: neighbours of node i are nbrs[offsets[i]:offsets[i + 1]]
    nbrs: np.ndarray
    degree: np.ndarray  # float64, distinct neighbours per node

    @classmethod
    def from_out_links(cls, out_links: Mapping[str, Collection[str]]) -> LinkGraph:
        pairs = {(min(s, t), max(s, t)) for s, ts in out_links.items() for t in ts if s != t}
        paths = tuple(sorted({p for pair in pairs for p in pair}))
        index = {p: i for i, p in enumerate(paths)}
        n = len(paths)
        if pairs:
            a = np.fromiter((index[x] for x, _ in pairs), dtype=np.int64, count=len(pairs))
            b = np.fromiter((index[y] for _, y in pairs), dtype=np.int64, count=len(pairs))
            src, dst = np.concatenate((a, b)), np.concatenate((b, a))
        else:
            src = dst = np.zeros(0, dtype=np.int64)
        order = np.lexsort((dst, src))
        src, dst = src[order], dst[order]
        offsets = np.zeros(n + 1, dtype=np.int64)
        np.add.at(offsets, src + 1, 1)
        np.cumsum(offsets, out=offsets)
        return cls(index, paths, offsets, dst, np.diff(offsets).astype(np.float64))

    @cached_property
    def path_array(self) -> np.ndarray:
        """``paths`` as a numpy array of objects, to pick many at once by node."""
        return np.array(self.paths, dtype=object)

    @cached_property
    def counts(self) -> np.ndarray:
        """The number of entries of ``nbrs`` per node (int64; ``degree`` as a count)."""
        return np.diff(self.offsets)

    def neighbours(self, path: str) -> list[str]:
        i = self.index.get(path)
        if i is None:
            return []
        return [self.paths[j] for j in self.nbrs[self.offsets[i] : self.offsets[i + 1]]]


class LinkHeat(NamedTuple):
    """The link heat one note received: ``bonus == weight * heat / top``, as computed."""

    target: str
    kind: str  # "ppr" | "ra"
    heat: float
    top: float  # the largest heat of any candidate (the normaliser)
    weight: float
    bonus: float
    via: tuple[str, ...]  # Q's neighbours next to the target, most telling first


def link_heat(
    graph: LinkGraph,
    query: str,
    seeds: Collection[str],
    *,
    kind: str,
    weight: float,
    alpha: float = 0.3,
    chance: float = 0.0,
    via: int = 3,
) -> HeatMap:
    """Link heat from ``query`` whose neighbourhood is ``seeds`` (its links both ways, as the
    caller knows them: unsaved text has links the stored graph lacks). Empty when the kind is
    ``off``, the weight 0 or no seed is in the graph. (Dividing heat by a power of the degree,
    and starting less heat from well-linked seeds, both lost on held-out links: docs/eval.md.)"""
    if kind not in KINDS:
        raise ValueError(f"unknown link heat kind {kind!r}; use one of {', '.join(KINDS)}")
    start = sorted({graph.index[p] for p in seeds if p in graph.index and p != query})
    if kind == "off" or weight <= 0 or not start:
        return HeatMap(graph, graph.degree, [], np.zeros(len(graph.paths)), kind, weight, via)
    q = graph.index.get(query, -1)
    degree = graph.degree.copy()
    if q >= 0:  # the open note is not part of the graph: its stored links change nothing
        degree[graph.nbrs[graph.offsets[q] : graph.offsets[q + 1]]] -= 1.0
        degree[q] = 0.0
    heat = _ppr(graph, degree, start, q, alpha) if kind == "ppr" else _ra(graph, degree, start, q)
    if chance > 0 and kind == "ppr" and degree.sum() > 0:
        # beyond chance: a walk from anywhere ends on a note in proportion to its degree (the
        # stationary distribution); only heat above that share is evidence of closeness
        heat = np.maximum(0.0, heat - chance * degree / degree.sum())
    blocked = np.zeros(len(graph.paths), dtype=bool)
    blocked[start] = True
    if q >= 0:
        blocked[q] = True
    heat[blocked] = 0.0
    return HeatMap(graph, degree, start, heat, kind, weight, via)


class HeatMap(Mapping[str, LinkHeat]):
    """``link_heat``'s answer: a ``LinkHeat`` for every note with heat above 0, each made when
    asked. Heat reaches thousands of notes (most of a 50,000-note vault) and a sidebar shows
    ten, so the bonuses come as one dict (``bonuses``) and the receipts one by one."""

    def __init__(
        self,
        graph: LinkGraph,
        degree: np.ndarray,
        start: list[int],
        heat: np.ndarray,
        kind: str,
        weight: float,
        via: int,
    ) -> None:
        hot = np.flatnonzero(heat > 0)
        self._graph, self._degree, self._heat = graph, degree, heat
        self._kind, self._weight, self._via = kind, weight, via
        self._seeds = set(start)
        self._top = float(heat[hot].max()) if len(hot) else 0.0
        self._hot = hot
        self._node = dict(zip(graph.path_array[hot].tolist(), hot.tolist(), strict=True))

    def __getitem__(self, target: str) -> LinkHeat:
        i = self._node[target]
        h = float(self._heat[i])
        near = [s for s, nbrs in self._by_seed if i in nbrs][: self._via]
        return LinkHeat(target, self._kind, h, self._top, self._weight,
                        self._weight * h / self._top,
                        tuple(self._graph.paths[j] for j in near))  # fmt: skip

    @cached_property
    def _by_seed(self) -> list[tuple[int, set[int]]]:
        """The seeds most telling first (lowest degree, then path: nodes are numbered in path
        order), each with its neighbours: a target's ``via`` is the first seeds next to it.
        Made on the first receipt; a receipt then reads the seeds (a handful), not the
        target's neighbours (thousands, for a hub)."""
        g = self._graph
        order = sorted(self._seeds, key=lambda j: (self._degree[j], j))
        return [(s, set(g.nbrs[g.offsets[s] : g.offsets[s + 1]].tolist())) for s in order]

    def __contains__(self, target: object) -> bool:
        # Mapping's own would build the target's LinkHeat (its ``via``) just to answer
        return target in self._node

    def __iter__(self) -> Iterator[str]:
        return iter(self._node)

    def __len__(self) -> int:
        return len(self._node)

    def bonuses(self) -> dict[str, float]:
        """target -> its bonus, ``weight × heat / top`` as ``LinkHeat.bonus`` computes it."""
        # float64 arithmetic element by element, the same operations in the same order
        bonus = self._weight * self._heat[self._hot] / self._top
        return dict(zip(self._node, bonus.tolist(), strict=True))


def _spread(graph: LinkGraph, degree: np.ndarray, x: np.ndarray, query: int) -> np.ndarray:
    """One random-walk step: each node's mass split evenly over its neighbours other than the
    open note (``degree`` counts those; the open note sends and receives nothing)."""
    share = np.divide(x, degree, out=np.zeros_like(x), where=degree > 0)
    if query >= 0:
        share[query] = 0.0
    # each entry's source node's share: entries are grouped by source node, so repeating each
    # share ``counts`` times copies them in order (3x faster than gathering by source node)
    per_edge = np.repeat(share, graph.counts)
    out = np.bincount(graph.nbrs, weights=per_edge, minlength=len(x))
    if query >= 0:
        out[query] = 0.0
    return out


def _ppr(
    graph: LinkGraph, degree: np.ndarray, start: list[int], query: int, alpha: float
) -> np.ndarray:
    restart = np.zeros(len(graph.paths))
    restart[start] = 1.0 / len(start)
    p = restart.copy()
    for _ in range(ITERATIONS):
        nxt = alpha * restart + (1 - alpha) * _spread(graph, degree, p, query)
        moved = float(np.abs(nxt - p).sum())
        p = nxt
        if moved < TOLERANCE:
            break
    return p


def _ra(graph: LinkGraph, degree: np.ndarray, start: list[int], query: int) -> np.ndarray:
    x = np.zeros(len(graph.paths))
    x[start] = 1.0
    # each seed z hands 1/d(z) to every neighbour: Σ over shared neighbours of 1/d(z)
    return _spread(graph, degree, x, query)
