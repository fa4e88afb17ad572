"""Link heat (core/query/linkheat.py): the formulas of the module docstring on hand-made graphs.

Expectations are computed by hand (RA) or by solving the PPR fixed point exactly with a dense
linear solve (the reference below); floats compare at abs 1e-9 for RA (exact sums) and at
abs 1e-4 for PPR (30 power iterations at alpha 0.3 leave an error below 0.7**30 ≈ 2e-5).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

import numpy as np
import pytest

from vaultheat.core.query.linkheat import LinkGraph, link_heat
from vaultheat.core.query.votes import NoteLinks

RA_TOL = 1e-9
PPR_TOL = 1e-4

# Q links A and D; A links T and U; D links T; E links Q and F; G is far away (F - G).
#   S = N(Q) = {A, D, E}; Q is taken out of the graph, so degrees count no edge to Q:
#   N(A) = {T, U} (d 2), N(D) = {T} (d 1), N(E) = {F} (d 1)
#   RA: h(T) = 1/2 + 1 = 3/2, h(U) = 1/2, h(F) = 1, h(G) = 0 (no seed next to it)
OUT = {
    "Q": {"A", "D"},
    "A": {"T", "U"},
    "D": {"T"},
    "E": {"Q", "F"},
    "F": {"G"},
}
SEEDS = {"A", "D", "E"}


def graph(out: Mapping[str, Collection[str]] = OUT) -> LinkGraph:
    return LinkGraph.from_out_links(out)


def test_graph_is_undirected_and_counts_distinct_neighbours() -> None:
    g = LinkGraph.from_out_links({"A": {"B"}, "C": {"B"}, "B": {"A"}, "D": {"D"}})
    assert sorted(g.neighbours("A")) == ["B"]
    assert sorted(g.neighbours("B")) == ["A", "C"]  # A -> B and B -> A count once
    assert sorted(g.neighbours("C")) == ["B"]  # C -> B makes C a neighbour of B and B of C
    assert g.neighbours("D") == []  # a self link is no edge
    assert g.neighbours("missing") == []
    assert g.degree[g.index["B"]] == 2.0 and g.degree[g.index["A"]] == 1.0
    assert "D" not in g.index


def test_empty_graph() -> None:
    g = LinkGraph.from_out_links({})
    assert g.paths == () and g.neighbours("A") == []
    assert link_heat(g, "Q", {"A"}, kind="ra", weight=1.0) == {}
    assert link_heat(g, "Q", {"A"}, kind="ppr", weight=1.0) == {}


def test_ra_is_the_sum_of_inverse_seed_degrees() -> None:
    heat = link_heat(graph(), "Q", SEEDS, kind="ra", weight=1.0)
    assert set(heat) == {"T", "U", "F"}
    expected = {"T": 1 / 2 + 1, "U": 1 / 2, "F": 1.0}
    for t, h in expected.items():
        assert heat[t].heat == pytest.approx(h, abs=RA_TOL)
        assert heat[t].kind == "ra" and heat[t].target == t


def test_ra_bonus_is_weight_times_heat_over_the_top() -> None:
    heat = link_heat(graph(), "Q", SEEDS, kind="ra", weight=0.8)
    top = 3 / 2
    assert heat["T"].bonus == pytest.approx(0.8, abs=RA_TOL)  # the best connected gets it all
    for h in heat.values():
        assert h.top == pytest.approx(top, abs=RA_TOL) and h.weight == 0.8
        assert h.bonus == pytest.approx(0.8 * h.heat / top, abs=RA_TOL)
    assert heat["U"].bonus == pytest.approx(0.8 * (1 / 2) / top, abs=RA_TOL)
    assert max(h.bonus for h in heat.values()) == pytest.approx(0.8, abs=RA_TOL)


@pytest.mark.parametrize("kind", ["ra", "ppr"])
def test_seeds_and_the_query_get_no_heat(kind: str) -> None:
    heat = link_heat(graph(), "Q", SEEDS, kind=kind, weight=1.0)
    assert heat
    assert not (set(heat) & (SEEDS | {"Q"}))
    # a seed next to another seed still gets none (A and D are both linked already)
    out = {**OUT, "A": {"T", "U", "D"}}
    heat = link_heat(graph(out), "Q", SEEDS, kind=kind, weight=1.0)
    assert not (set(heat) & (SEEDS | {"Q"}))


def test_the_query_among_the_seeds_is_not_a_seed() -> None:
    with_q = link_heat(graph(), "Q", SEEDS | {"Q"}, kind="ra", weight=1.0)
    assert with_q == link_heat(graph(), "Q", SEEDS, kind="ra", weight=1.0)


def test_via_lists_the_seed_neighbours_lowest_degree_first() -> None:
    heat = link_heat(graph(), "Q", SEEDS, kind="ra", weight=1.0)
    assert heat["T"].via == ("D", "A")  # d(D) = 1 < d(A) = 2 (edges to Q not counted)
    assert heat["U"].via == ("A",)
    assert heat["F"].via == ("E",)
    # equal degrees: by path; and ``via`` caps the list
    out = {"Q": {"B", "C", "A"}, "A": {"T"}, "B": {"T"}, "C": {"T"}}
    h = link_heat(graph(out), "Q", {"A", "B", "C"}, kind="ra", weight=1.0)
    assert h["T"].via == ("A", "B", "C")
    h1 = link_heat(graph(out), "Q", {"A", "B", "C"}, kind="ra", weight=1.0, via=1)
    assert h1["T"].via == ("A",)
    assert h1["T"].heat == pytest.approx(3.0, abs=RA_TOL)  # the cap is on the receipt only


def test_ppr_via_names_only_seeds_next_to_the_target() -> None:
    heat = link_heat(graph(), "Q", SEEDS, kind="ppr", weight=1.0)
    assert heat["G"].via == ()  # two hops from E: no seed beside it
    assert heat["T"].via == ("D", "A")


def ppr_reference(
    out: Mapping[str, Collection[str]], query: str, seeds: Collection[str], alpha: float
) -> dict[str, float]:
    """The exact fixed point p = alpha r + (1 - alpha) W p on the graph without the query
    (its edges removed): W[i, j] = 1 / d(j) for each edge j - i, r uniform over the seeds, by
    a dense solve."""
    edges = {(min(s, t), max(s, t)) for s, ts in out.items() for t in ts
             if s != t and query not in (s, t)}  # fmt: skip
    nodes = sorted({x for e in edges for x in e})
    ix = {n: i for i, n in enumerate(nodes)}
    n = len(nodes)
    adj = np.zeros((n, n))
    for a, b in edges:
        adj[ix[a], ix[b]] = adj[ix[b], ix[a]] = 1.0
    deg = adj.sum(axis=0)
    w = np.divide(adj, deg, out=np.zeros_like(adj), where=deg > 0)  # column j spreads j's mass
    start = [ix[s] for s in seeds if s in ix and s != query]
    r = np.zeros(n)
    r[start] = 1 / len(start)
    keep = np.ones(n)
    if query in ix:
        keep[ix[query]] = 0.0  # the query's row: its mass is dropped every step
    m = np.eye(n) - (1 - alpha) * (keep[:, None] * w)
    p = np.linalg.solve(m, alpha * keep * r)
    return {node: float(p[ix[node]]) for node in nodes}


@pytest.mark.parametrize("alpha", [0.3, 0.5, 1.0])
def test_ppr_matches_the_fixed_point_without_the_query(alpha: float) -> None:
    heat = link_heat(graph(), "Q", SEEDS, kind="ppr", weight=1.0, alpha=alpha)
    ref = ppr_reference(OUT, "Q", SEEDS, alpha)
    assert "Q" not in ref  # the query is not part of the graph
    outside = {t: h for t, h in ref.items() if t not in SEEDS | {"Q"} and h > 0}
    if alpha == 1.0:
        assert heat == {}  # the walker never leaves the seeds: nobody outside gets heat
        return
    assert set(heat) == set(outside)
    top = max(outside.values())
    for t, h in outside.items():
        assert heat[t].heat == pytest.approx(h, abs=PPR_TOL)
        assert heat[t].bonus == pytest.approx(h / top, abs=PPR_TOL)
        assert heat[t].kind == "ppr"


def test_ppr_on_a_path_ranks_nearer_notes_higher() -> None:
    # Q - A - B - C - D: B is two hops from Q, C three, D four
    out = {"Q": {"A"}, "A": {"B"}, "B": {"C"}, "C": {"D"}}
    heat = link_heat(graph(out), "Q", {"A"}, kind="ppr", weight=1.0)
    assert set(heat) == {"B", "C", "D"}
    assert heat["B"].heat > heat["C"].heat > heat["D"].heat > 0
    assert heat["B"].bonus == pytest.approx(1.0, abs=1e-12)
    assert sum(h.heat for h in heat.values()) <= 1.0


def test_ppr_on_a_star_ranks_a_two_hop_leaf_above_a_three_hop_note() -> None:
    # Q links hub H; H has leaves L1..L4; L1 links X (three hops from Q)
    out = {"Q": {"H"}, "H": {"L1", "L2", "L3", "L4"}, "L1": {"X"}}
    heat = link_heat(graph(out), "Q", {"H"}, kind="ppr", weight=1.0)
    for leaf in ("L1", "L2", "L3", "L4"):
        assert heat[leaf].heat > heat["X"].heat > 0
        assert heat[leaf].via == ("H",)
    assert heat["L2"].heat == pytest.approx(heat["L3"].heat, abs=1e-12)
    total = sum(h.heat for h in heat.values())
    assert 0 < total <= 1.0


def test_ppr_heat_sums_to_at_most_one_and_the_query_absorbs() -> None:
    heat = link_heat(graph(), "Q", SEEDS, kind="ppr", weight=1.0)
    ref = ppr_reference(OUT, "Q", SEEDS, 0.3)
    assert sum(h.heat for h in heat.values()) <= 1.0
    # absorbing: the whole vector (seeds included) holds less than 1, since walks into Q end
    assert sum(ref.values()) < 1.0
    assert "Q" not in heat


def test_ppr_absorbing_query_blocks_paths_through_it() -> None:
    """P is reached from the seed only through Q: an absorbing Q gives it no heat."""
    out = {"Q": {"A", "P"}, "P": {"R"}}
    heat = link_heat(graph(out), "Q", {"A"}, kind="ppr", weight=1.0)
    assert heat == {}
    # the same graph with P a seed: R gets heat through P
    heat = link_heat(graph(out), "Q", {"P"}, kind="ppr", weight=1.0)
    assert set(heat) == {"R"}


@pytest.mark.parametrize("kind", ["ra", "ppr"])
def test_a_seed_outside_the_graph_is_ignored(kind: str) -> None:
    base = link_heat(graph(), "Q", SEEDS, kind=kind, weight=1.0)
    more = link_heat(graph(), "Q", SEEDS | {"Nowhere"}, kind=kind, weight=1.0)
    assert set(more) == set(base)
    for t in base:
        assert more[t].heat == pytest.approx(base[t].heat, abs=1e-12)
    assert link_heat(graph(), "Q", {"Nowhere"}, kind=kind, weight=1.0) == {}


@pytest.mark.parametrize("kind", ["ra", "ppr"])
def test_no_seeds_no_heat(kind: str) -> None:
    assert link_heat(graph(), "Q", set(), kind=kind, weight=1.0) == {}


def test_a_query_outside_the_graph_still_spreads_from_its_seeds() -> None:
    """Unsaved text: the note is not in the graph yet; its links are the seeds."""
    heat = link_heat(graph(), "New", {"A"}, kind="ra", weight=1.0)
    # N(A) = {Q, T, U}: each gets 1/3 (Q is an ordinary note here)
    assert set(heat) == {"Q", "T", "U"}
    assert all(h.heat == pytest.approx(1 / 3, abs=RA_TOL) for h in heat.values())
    assert all(h.bonus == pytest.approx(1.0, abs=RA_TOL) for h in heat.values())


@pytest.mark.parametrize(
    ("kind", "weight"), [("off", 1.0), ("ra", 0.0), ("ppr", 0.0), ("ra", -1.0)]
)
def test_off_or_no_weight_gives_nothing(kind: str, weight: float) -> None:
    assert link_heat(graph(), "Q", SEEDS, kind=kind, weight=weight) == {}


@pytest.mark.parametrize("kind", ["bogus", "PPR", ""])
def test_unknown_kind_raises(kind: str) -> None:
    with pytest.raises(ValueError, match="unknown link heat kind"):
        link_heat(graph(), "Q", SEEDS, kind=kind, weight=1.0)
    with pytest.raises(ValueError):
        link_heat(graph(), "Q", SEEDS, kind=kind, weight=0.0)


def test_direction_does_not_matter() -> None:
    """A -> B and B -> A give the same heat: the graph is read undirected."""
    forward = {"Q": {"A"}, "A": {"T"}}
    backward = {"A": {"Q"}, "T": {"A"}}
    for kind in ("ra", "ppr"):
        f = link_heat(graph(forward), "Q", {"A"}, kind=kind, weight=1.0)
        b = link_heat(graph(backward), "Q", {"A"}, kind=kind, weight=1.0)
        assert set(f) == set(b) == {"T"}
        assert f["T"].heat == pytest.approx(b["T"].heat, abs=1e-12)


def test_note_links_graph_and_linking_to() -> None:
    pairs = [("Q", "A"), ("Q", "D"), ("E", "Q"), ("A", "Q"), ("F", "G"), ("Q", "Q")]
    links = NoteLinks.from_pairs(pairs, {})
    assert links.linking_to("Q") == {"E", "A"}  # D is linked from Q but does not link back
    assert links.linking_to("A") == {"Q"}
    assert links.linking_to("G") == {"F"}
    assert links.linking_to("F") == set()
    assert links.linking_to("nowhere") == set()
    assert sorted(links.graph.neighbours("Q")) == ["A", "D", "E"]
    assert sorted(links.graph.neighbours("G")) == ["F"]
    assert NoteLinks().linking_to("Q") == set() and NoteLinks().graph.paths == ()


@pytest.mark.parametrize("kind", ["ra", "ppr"])
def test_the_querys_stored_links_change_nothing(kind: str) -> None:
    """Seeds come from the caller; Q's own edges in the graph (say a link to U the caller does
    not state) neither seed nor reshape the walk: the heat is the one without them."""
    with_link = {**OUT, "Q": {"A", "D", "U", "G"}}
    a = link_heat(graph(with_link), "Q", SEEDS, kind=kind, weight=1.0)
    b = link_heat(graph(), "Q", SEEDS, kind=kind, weight=1.0)
    assert set(a) == set(b)
    for t in a:
        assert a[t].heat == pytest.approx(b[t].heat, abs=1e-12)


def test_ppr_beyond_chance_takes_off_the_stationary_share() -> None:
    """chance c: heat(T) = max(0, ppr(T) - c × d(T) / Σd), the degrees counted without Q
    (the share of time a walk from anywhere spends on T); RA ignores it."""
    g = graph()
    plain = link_heat(g, "Q", SEEDS, kind="ppr", weight=1.0)
    # degrees without Q: A 2 (T, U), D 1, E 1, T 2, U 1, F 2 (E, G), G 1 -> Σ 10
    deg = {"A": 2, "D": 1, "E": 1, "T": 2, "U": 1, "F": 2, "G": 1}
    total = sum(deg.values())
    for c in (0.5, 1.0):
        got = link_heat(g, "Q", SEEDS, kind="ppr", weight=1.0, chance=c)
        expected = {t: h.heat - c * deg[t] / total for t, h in plain.items()}
        expected = {t: h for t, h in expected.items() if h > 0}
        assert set(got) == set(expected)
        for t, h in expected.items():
            assert got[t].heat == pytest.approx(h, abs=1e-12)
    assert link_heat(g, "Q", SEEDS, kind="ra", weight=1.0, chance=1.0) == link_heat(
        g, "Q", SEEDS, kind="ra", weight=1.0
    )


def _random_out_links(seed: int, notes: int = 300) -> dict[str, set[str]]:
    rng = np.random.default_rng(seed)
    names = [f"n{i:03d}" for i in range(notes)]
    hubs = names[:3]  # a few notes many link to, as in a real vault
    return {n: {names[j] for j in rng.integers(0, notes, rng.integers(1, 8))} | {hubs[i % 3]}
            for i, n in enumerate(names)}  # fmt: skip


def test_one_step_adds_each_share_in_the_order_a_gather_by_source_would() -> None:
    """``_spread`` copies the shares by node rather than gathering them by edge: bit for bit
    the sums the gather gave (the heat of a request does not move in the last digit)."""
    from vaultheat.core.query.linkheat import _spread

    g = LinkGraph.from_out_links(_random_out_links(3))
    x = np.random.default_rng(4).random(len(g.paths))
    degree = g.degree.copy()
    src = np.repeat(np.arange(len(g.paths)), np.diff(g.offsets))
    for q in (-1, 7):
        share = np.divide(x, degree, out=np.zeros_like(x), where=degree > 0)
        if q >= 0:
            share[q] = 0.0
        want = np.bincount(g.nbrs, weights=share[src], minlength=len(x))
        if q >= 0:
            want[q] = 0.0
        assert np.array_equal(_spread(g, degree, x, q), want)


def test_membership_and_bonuses_need_no_receipts(monkeypatch: pytest.MonkeyPatch) -> None:
    """``in`` and ``bonuses`` make no ``LinkHeat`` (its ``via``: a request asks thousands)."""
    from vaultheat.core.query.linkheat import HeatMap

    g = LinkGraph.from_out_links(_random_out_links(5))
    heat = link_heat(g, "n010", {"n011", "n012", "n200"}, kind="ppr", weight=0.3, chance=0.5)
    receipts = {p: heat[p] for p in heat}
    monkeypatch.setattr(HeatMap, "__getitem__", lambda *a: pytest.fail("a receipt was made"))
    assert "n010" not in heat and "n011" not in heat and "nowhere" not in heat
    hot = [p for p in g.paths if p in heat]
    assert hot == list(receipts) and len(hot) > 50
    assert heat.bonuses() == {p: r.bonus for p, r in receipts.items()}  # the same floats
    seeds = {"n011", "n012", "n200"}
    degree = {p: len(set(g.neighbours(p)) - {"n010"}) for p in seeds}  # Q is out of the graph
    for p, r in receipts.items():  # via: the seeds next to it, lowest degree, then path, first
        near = sorted(seeds & set(g.neighbours(p)), key=lambda s: (degree[s], s))
        assert r.via == tuple(near[:3])
