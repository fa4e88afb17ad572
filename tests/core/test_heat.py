"""Heat propagation: hand-built graphs, a dense reference implementation, trace faithfulness."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vaultheat.core.query.heat import (
    EDGE_TYPES,
    HeatResult,
    Trace,
    hub_factor,
    path_heat,
    propagate_heat,
    trace_path,
)
from vaultheat.errors import NotFoundError

ONES = dict.fromkeys(EDGE_TYPES, 1.0)
Edges = dict[int, list[tuple[int, float, str]]]


class Graph:
    """Adjacency lists plus query similarities, recording how the callbacks are used."""

    def __init__(self, edges: Edges, sims: Mapping[int, float | None] | None = None) -> None:
        self.edges = edges
        self.sims = dict(sims or {})
        self.neighbor_calls: list[int] = []
        self.sim_calls: list[list[int]] = []

    def neighbors(self, u: int) -> list[tuple[int, float, str]]:
        self.neighbor_calls.append(u)
        return self.edges.get(u, [])

    def query_sim(self, ids: Sequence[int]) -> dict[int, float]:
        self.sim_calls.append(list(ids))
        answer = {i: self.sims.get(i, 1.0) for i in ids}
        return {i: sim for i, sim in answer.items() if sim is not None}  # None: left out

    def run(self, seeds: Mapping[int, float], **kwargs: object) -> HeatResult:
        options: dict = {"type_weights": ONES, "hub_degree": 0, **kwargs}
        return propagate_heat(seeds, self.neighbors, self.query_sim, **options)


def link(*targets: int, w: float = 1.0, kind: str = "link") -> list[tuple[int, float, str]]:
    return [(t, w, kind) for t in targets]


# --------------------------------------------------------------------------- hand-built graphs


def test_max_not_sum_at_a_hub() -> None:
    g = Graph({1: link(3), 2: link(3)})
    result = g.run({1: 1.0, 2: 0.5}, hops=1)
    assert result.heat[3] == 0.5  # max(1.0 * 0.5, 0.5 * 0.5), not the sum 0.75
    assert result.trace[3].parent == 1


def test_exact_decay_per_hop() -> None:
    g = Graph({1: link(2, w=0.8), 2: link(3, w=0.8)})
    result = g.run({1: 1.0}, hops=2, decay=0.5)
    assert result.heat == {
        1: 1.0,
        2: pytest.approx(0.4, abs=1e-15),
        3: pytest.approx(0.16, abs=1e-15),
    }
    assert [result.trace[n].hop for n in (1, 2, 3)] == [0, 1, 2]
    assert trace_path(result, 3) == [1, 2, 3]


def test_query_floor_excludes_and_blocks_relay() -> None:
    g = Graph({1: link(2, 4), 2: link(3), 4: link(5)}, sims={2: 0.1, 3: 0.9, 4: 0.35, 5: 0.9})
    result = g.run({1: 1.0}, hops=3, query_floor=0.35)
    assert 2 not in result.heat and 3 not in result.heat  # 2 below the floor, so 3 unreachable
    assert result.heat[4] == 0.5 and result.heat[5] == 0.25  # exactly at the floor is admitted
    assert 2 not in g.neighbor_calls


def test_seeds_are_exempt_from_the_floor_and_keep_their_score() -> None:
    g = Graph({1: link(2, w=1.0), 2: link(3)}, sims={1: 0.0, 2: 0.0, 3: 0.9})
    result = g.run({1: 1.0, 2: 0.1}, hops=2, decay=0.9)
    assert result.heat[2] == 0.1  # a seed relays in hop 1 and is final: not raised to 0.9
    assert result.heat[3] == pytest.approx(0.09)
    assert all(1 not in call and 2 not in call for call in g.sim_calls)


def test_missing_query_similarity_means_excluded() -> None:
    g = Graph({1: link(2, 3)}, sims={2: None})
    result = g.run({1: 1.0}, hops=1)
    assert set(result.heat) == {1, 3}


def test_query_sim_is_batched_per_hop_and_cached() -> None:
    g = Graph({1: link(2, 3), 2: link(3, 4, 1), 3: link(4, 5)})
    g.run({1: 1.0}, hops=3)
    assert g.sim_calls == [[2, 3], [4, 5]]  # 3 is cached in hop 2; hop 3 has nothing new


def test_frontier_cap_keeps_the_hottest_ties_by_lower_id() -> None:
    edges: Edges = {0: [(1, 0.9, "link"), (2, 0.5, "link"), (3, 0.7, "link"), (4, 0.7, "link")]}
    for n in range(1, 5):
        edges[n] = link(10 + n)
    g = Graph(edges)
    result = g.run({0: 1.0}, hops=2, max_frontier=2)
    assert set(g.neighbor_calls) == {0, 1, 3}  # 0.9 first; 3 and 4 tie, 3 wins
    assert {n for n in result.heat if n > 10} == {11, 13}
    assert result.heat[2] == 0.25 and result.heat[4] == 0.35  # capped out: keep their heat


def test_capped_out_node_can_still_be_raised_later() -> None:
    edges: Edges = {0: [(1, 1.0, "link"), (2, 0.2, "link")], 1: link(2)}
    result = Graph(edges).run({0: 1.0}, hops=2, max_frontier=1, decay=0.8)
    assert result.heat[2] == pytest.approx(0.64)  # 0.16 in hop 1, raised in hop 2 via 1
    assert result.trace[2].parent == 1 and result.trace[2].hop == 2


def test_relayed_node_is_final_so_traces_add_up() -> None:
    # 1 reaches 3 directly (weak) and via 2 (strong); 3 relays to 4 in hop 2
    edges: Edges = {1: [(2, 1.0, "link"), (3, 0.1, "link")], 2: link(3), 3: link(4)}
    result = Graph(edges).run({1: 1.0}, hops=2)
    assert result.heat[3] == pytest.approx(0.05)  # not 0.25: 3 had already relayed in hop 2
    assert result.heat[4] == pytest.approx(0.025)
    assert path_heat(result, 4, decay=0.5) == pytest.approx(result.heat[4], abs=1e-15)


def test_hops_zero_returns_the_seeds_only() -> None:
    g = Graph({1: link(2)})
    result = g.run({1: 0.7, 5: 0.2}, hops=0)
    assert result.heat == {1: 0.7, 5: 0.2}
    assert result.trace[1] == Trace(1, None, 0.0, None, 1.0, 1.0, 0)
    assert g.neighbor_calls == [] and g.sim_calls == []


@pytest.mark.parametrize(
    ("kind", "expected"),
    [("similar", 0.5), ("link", 0.45), ("backlink", 0.4), ("tag", 0.25)],
    ids=list(EDGE_TYPES),
)
def test_type_weights_scale_the_contribution(kind: str, expected: float) -> None:
    weights = {"similar": 1.0, "link": 0.9, "backlink": 0.8, "tag": 0.5}
    result = Graph({1: [(2, 1.0, kind)]}).run({1: 1.0}, hops=1, type_weights=weights)
    assert result.heat[2] == pytest.approx(expected)
    assert result.trace[2].edge_type == kind
    assert result.trace[2].type_weight == weights[kind]


def test_unknown_edge_type_is_refused() -> None:
    with pytest.raises(ValueError, match="wormhole"):
        Graph({1: [(2, 1.0, "wormhole")]}).run({1: 1.0}, hops=1)


@pytest.mark.parametrize(
    ("degree", "hub_degree", "expected"),
    [(5, 20, 1.0), (20, 20, 1.0), (80, 20, 0.5), (45, 5, 1 / 3), (1000, 0, 1.0)],
    ids=["small", "at-limit", "quarter", "ninth", "off"],
)
def test_hub_factor_values(degree: int, hub_degree: int, expected: float) -> None:
    assert hub_factor(degree, hub_degree) == pytest.approx(expected)


def test_hub_damping_applies_to_the_sender() -> None:
    edges: Edges = {1: link(*range(100, 180)), 100: link(2)}
    result = Graph(edges).run({1: 1.0}, hops=2, hub_degree=20)
    assert result.heat[100] == pytest.approx(0.5 * 0.5)  # 80 edges: sqrt(20/80) = 0.5
    assert result.trace[100].hub_factor == pytest.approx(0.5)
    assert result.heat[2] == pytest.approx(0.25 * 0.5)  # 100 has one edge: undamped
    assert result.trace[2].hub_factor == 1.0


def test_trace_path_of_seed_and_unknown() -> None:
    result = Graph({1: link(2)}).run({1: 1.0}, hops=1)
    assert trace_path(result, 1) == [1]
    with pytest.raises(NotFoundError):
        trace_path(result, 99)


@pytest.mark.parametrize("bad", [{"hops": -1}, {"decay": -0.1}, {"max_frontier": -1}])
def test_negative_parameters_are_refused(bad: dict) -> None:
    with pytest.raises(ValueError):
        Graph({}).run({1: 1.0}, **bad)


# ---------------------------------------------------------------------- dense reference model


def dense_reference(
    n: int,
    edges: Edges,
    sims: np.ndarray,
    seeds: Mapping[int, float],
    *,
    hops: int,
    decay: float,
    query_floor: float,
    type_weights: Mapping[str, float],
    hub_degree: int,
) -> dict[int, float]:
    """The same semantics with matrices, no frontier cap: a node relays once, then is final."""
    factor = np.full((n, n), -np.inf)
    for u, out in edges.items():
        deg = len(out)
        hub = 1.0 if hub_degree == 0 or deg <= hub_degree else math.sqrt(hub_degree / deg)
        for v, w, kind in out:
            factor[u, v] = max(factor[u, v], w * decay * type_weights[kind] * hub)
    heat = np.zeros(n)
    has = np.zeros(n, dtype=bool)
    for s, score in seeds.items():
        heat[s], has[s] = score, True
    relayed = np.zeros(n, dtype=bool)
    frontier = has.copy()
    for _ in range(hops):
        if not frontier.any():
            break
        relayed |= frontier
        rows = factor[frontier]
        pushed = np.where(np.isfinite(rows), heat[frontier][:, None] * rows, -np.inf).max(axis=0)
        improved = ~relayed & (sims >= query_floor) & (pushed > np.where(has, heat, 0.0))
        heat[improved] = pushed[improved]
        has |= improved
        frontier = improved
    return {int(i): float(heat[i]) for i in np.flatnonzero(has)}


@st.composite
def graphs(draw: st.DrawFn) -> dict:
    n = draw(st.integers(1, 12))
    node = st.integers(0, n - 1)
    edge = st.tuples(
        node, node, st.sampled_from([0.0, 0.3, 0.55, 0.8, 1.0]), st.sampled_from(EDGE_TYPES)
    )
    edges: Edges = {}
    for u, v, w, kind in draw(st.lists(edge, max_size=40)):
        edges.setdefault(u, []).append((v, w, kind))
    sims = draw(st.lists(st.floats(0.0, 1.0), min_size=n, max_size=n))
    missing = draw(st.sets(node, max_size=2))  # query_sim leaves these out
    seeds = draw(st.dictionaries(node, st.floats(0.01, 1.0), min_size=1, max_size=4))
    return {
        "n": n,
        "edges": edges,
        "sims": np.array([-np.inf if i in missing else s for i, s in enumerate(sims)]),
        "seeds": seeds,
        "hops": draw(st.integers(0, 4)),
        "decay": draw(st.sampled_from([0.25, 0.5, 0.9, 1.0])),
        "query_floor": draw(st.sampled_from([0.0, 0.2, 0.35, 0.6])),
        "type_weights": dict(
            zip(
                EDGE_TYPES,
                draw(st.lists(st.sampled_from([0.0, 0.5, 0.8, 1.0, 1.5]), min_size=4, max_size=4)),
                strict=True,
            )
        ),
        "hub_degree": draw(st.integers(0, 4)),
    }


def run_case(case: dict, max_frontier: int) -> tuple[HeatResult, Graph]:
    sims = {i: (None if np.isinf(s) else float(s)) for i, s in enumerate(case["sims"])}
    g = Graph(case["edges"], sims)
    result = propagate_heat(
        case["seeds"],
        g.neighbors,
        g.query_sim,
        hops=case["hops"],
        decay=case["decay"],
        query_floor=case["query_floor"],
        max_frontier=max_frontier,
        type_weights=case["type_weights"],
        hub_degree=case["hub_degree"],
    )
    return result, g


def assert_faithful(case: dict, result: HeatResult) -> None:
    seeds = case["seeds"]
    for node, value in result.heat.items():
        path = trace_path(result, node)
        t = result.trace[node]
        assert path[0] in seeds and t.seed == path[0]
        assert t.hop == len(path) - 1 <= case["hops"]
        assert path_heat(result, node, decay=case["decay"]) == pytest.approx(value, abs=1e-12)
        if node in seeds:
            assert value == seeds[node] and t.parent is None
            continue
        assert case["sims"][node] >= case["query_floor"]
        assert t.parent is not None
        out = case["edges"][t.parent]
        assert (node, t.edge_weight, t.edge_type) in out
        assert t.type_weight == case["type_weights"][t.edge_type]
        assert t.hub_factor == hub_factor(len(out), case["hub_degree"])


@settings(max_examples=300, deadline=None)
@given(case=graphs())
def test_matches_dense_reference_without_cap(case: dict) -> None:
    result, g = run_case(case, max_frontier=10_000)
    ref_keys = {k: case[k] for k in ("hops", "decay", "query_floor", "type_weights", "hub_degree")}
    want = dense_reference(case["n"], case["edges"], case["sims"], case["seeds"], **ref_keys)
    assert set(result.heat) == set(want)
    for node, value in want.items():
        assert result.heat[node] == pytest.approx(value, rel=1e-12, abs=1e-15)
    assert_faithful(case, result)
    asked = [i for call in g.sim_calls for i in call]
    assert len(asked) == len(set(asked)) and not set(asked) & set(case["seeds"])
    assert all(call for call in g.sim_calls)


@settings(max_examples=300, deadline=None)
@given(case=graphs(), max_frontier=st.integers(0, 3))
def test_capped_runs_keep_the_invariants(case: dict, max_frontier: int) -> None:
    result, g = run_case(case, max_frontier)
    assert_faithful(case, result)
    relays = g.neighbor_calls
    assert len(relays) == len(set(relays))  # a node relays at most once
    seeds = set(case["seeds"]) if case["hops"] else set()
    assert set(relays[: len(seeds)]) == seeds
    assert len(relays) <= len(seeds) + max_frontier * max(0, case["hops"] - 1)
    uncapped, _ = run_case(case, max_frontier=10_000)
    assert set(result.heat) <= set(uncapped.heat)
    again, _ = run_case(case, max_frontier)
    assert again == result  # deterministic
