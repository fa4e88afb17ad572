"""Link votes (core/query/votes.py): table tests, a brute-force reference, and the document (its
words are the shell's: ``tests/cli/test_render.py``)."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from vaultheat.core.query.votes import (
    NoteLinks,
    beyond_chance,
    link_votes,
    recompute_bonus,
)
from vaultheat.documents import vote_document

SCORES = [("A", 0.9), ("B", 0.6), ("C", 0.3), ("D", 0.2)]
LINKS = {"A": {"T", "B"}, "B": {"T"}, "C": {"U", "Q"}, "D": {"T"}, "Q": {"U", "T"}}


@pytest.mark.parametrize(
    ("k", "target", "count", "share"),
    [
        pytest.param(2, "T", 2, (0.9 + 0.6) / 1.5, id="top-2: both neighbours link T"),
        pytest.param(2, "B", 1, 0.9 / 1.5, id="a neighbour can receive a vote from another"),
        pytest.param(2, "U", 0, 0.0, id="U is linked only from outside the top 2"),
        pytest.param(3, "U", 1, 0.3 / 1.8, id="top-3: C votes for U"),
        pytest.param(4, "T", 3, (0.9 + 0.6 + 0.2) / 2.0, id="top-4: D adds its vote"),
        pytest.param(4, "Q", 0, 0.0, id="the query note never receives a vote"),
        pytest.param(0, "T", 0, 0.0, id="k 0: no neighbours, no votes"),
    ],
)
def test_shares(k: int, target: str, count: int, share: float) -> None:
    res = link_votes(SCORES, LINKS, k=k, weight=2.0, query="Q")
    vote = res.votes.get(target)
    if count == 0:
        assert vote is None
        return
    assert vote is not None
    assert vote.count == count and vote.k == min(k, len(SCORES))
    assert vote.share == pytest.approx(share)
    assert vote.bonus == pytest.approx(2.0 * share)


def test_query_links_never_vote_even_when_the_query_is_among_the_scores() -> None:
    res = link_votes([("Q", 5.0), *SCORES], LINKS, k=2, weight=1.0, query="Q")
    assert [v.path for v in res.neighbours] == ["A", "B"]
    assert "U" not in res.votes  # Q -> U would be the leak


def test_self_links_and_unlinked_vaults_give_no_votes() -> None:
    assert link_votes(SCORES, {"A": {"A"}}, k=4, weight=2.0).votes == {}
    assert link_votes(SCORES, {}, k=4, weight=2.0).votes == {}


def test_hub_damping_discounts_only_hubs_and_ignores_the_query_links() -> None:
    indeg = {"T": 40, "B": 3}
    res = link_votes(SCORES, LINKS, k=2, weight=2.0, query="Q", in_degree=indeg, hub_degree=10)
    assert res.votes["B"].hub_factor == 1.0
    assert res.votes["T"].hub_factor == pytest.approx(math.sqrt(10 / 40))
    # Q links T: that link must not count toward T's in-degree
    res2 = link_votes(SCORES, LINKS, k=2, weight=2.0, query="Q", query_links={"T"},
                      in_degree=indeg, hub_degree=10)  # fmt: skip
    assert res2.votes["T"].hub_factor == pytest.approx(math.sqrt(10 / 39))


def test_votes_beyond_chance_take_away_what_popularity_explains() -> None:
    # T is linked from 3 of the vault's 4 other notes: a random neighbour links it with p 0.75;
    # B is linked from 1 of 4 (p 0.25). Top 2 = A (0.9), B (0.6): T's share 1.0, B's 0.6.
    indeg = {"T": 4, "B": 1}  # Q's own link to T is taken out below: 3 other notes
    res = link_votes(SCORES, LINKS, k=2, weight=2.0, query="Q", query_links={"T", "U"},
                     in_degree=indeg, notes=5, chance=1.0)  # fmt: skip
    assert res.votes["T"].hub_factor == pytest.approx(1 - 0.75 / 1.0)
    assert res.votes["B"].hub_factor == pytest.approx(1 - 0.25 / 0.6)
    # the bonus is weight x (share - expected): the vote random neighbours would give is gone
    assert res.votes["T"].bonus == pytest.approx(2.0 * (1.0 - 0.75))
    half = link_votes(SCORES, LINKS, k=2, weight=2.0, query="Q", query_links={"T", "U"},
                      in_degree=indeg, notes=5, chance=0.5)  # fmt: skip
    assert half.votes["T"].hub_factor == pytest.approx(1 - 0.5 * 0.75)
    off = link_votes(SCORES, LINKS, k=2, weight=2.0, query="Q", in_degree=indeg, notes=5)
    assert off.votes["T"].hub_factor == 1.0  # chance 0 (the default): off


def test_linked_hub_damping_touches_only_hubs_the_query_links_now() -> None:
    # T (in-degree 9) and B (in-degree 1) both get votes; the query links T and B now
    indeg = {"T": 9, "B": 1}
    base = link_votes(SCORES, LINKS, k=2, weight=2.0, query="Q", in_degree=indeg)
    res = link_votes(SCORES, LINKS, k=2, weight=2.0, query="Q", in_degree=indeg,
                     linked={"T", "B"}, linked_hub_degree=4)  # fmt: skip
    assert res.votes["T"].hub_factor == pytest.approx(math.sqrt(4 / 9))
    assert res.votes["T"].bonus == pytest.approx(base.votes["T"].bonus * math.sqrt(4 / 9))
    assert res.votes["B"].hub_factor == 1.0  # linked, but no hub
    # a hub the query does not link to keeps its whole vote; degree 0 turns it off
    unlinked = link_votes(SCORES, LINKS, k=2, weight=2.0, query="Q", in_degree=indeg,
                          linked={"B"}, linked_hub_degree=4)  # fmt: skip
    assert unlinked.votes["T"].hub_factor == 1.0
    off = link_votes(SCORES, LINKS, k=2, weight=2.0, query="Q", in_degree=indeg,
                     linked={"T"}, linked_hub_degree=0)  # fmt: skip
    assert off.votes["T"].hub_factor == 1.0


@pytest.mark.parametrize(
    ("share", "degree", "notes", "strength", "want"),
    [
        pytest.param(1.0, 99, 100, 1.0, 0.0, id="every note links it: nothing beyond chance"),
        pytest.param(0.2, 50, 101, 1.0, 0.0, id="share below chance: clipped at 0"),
        pytest.param(0.5, 1, 101, 1.0, 0.98, id="a rare target keeps almost all"),
        pytest.param(0.5, 50, 101, 0.5, 0.5, id="strength 0.5 takes half the expected share"),
        pytest.param(0.0, 3, 10, 1.0, 0.0, id="no share, no vote"),
    ],
)
def test_beyond_chance(share: float, degree: int, notes: int, strength: float, want: float) -> None:
    assert beyond_chance(share, degree, notes, strength) == pytest.approx(want)


def brute_force(scores, links, k, weight, query):  # type: ignore[no-untyped-def]
    """The formula of the issue, spelled out over every (neighbour, target) pair."""
    order = sorted(((p, c) for p, c in scores if p != query and c > 0), key=lambda x: (-x[1], x[0]))
    top = order[:k]
    total = sum(c for _, c in top)
    targets = {t for p, _ in top for t in links.get(p, ())}
    out = {}
    for t in targets:
        if t == query:
            continue
        num = sum(c for p, c in top if t in links.get(p, ()) and t != p)
        if num > 0:
            out[t] = weight * num / total
    return out


@pytest.mark.parametrize("seed", range(20))
def test_matches_a_brute_force_reference(seed: int) -> None:
    rng = random.Random(seed)
    notes = [f"n{i}" for i in range(rng.randint(3, 40))]
    scores = [(p, rng.random()) for p in notes]
    links = {p: set(rng.sample(notes, rng.randint(0, min(8, len(notes))))) for p in notes}
    k, weight, query = rng.randint(1, 25), rng.choice([0.5, 2.0]), rng.choice(notes)
    got = link_votes(scores, links, k=k, weight=weight, query=query)
    want = brute_force(scores, links, k, weight, query)
    assert set(got.votes) == set(want)
    for t, bonus in want.items():
        assert got.votes[t].bonus == pytest.approx(bonus, rel=1e-12)


def test_document_recomputes() -> None:
    res = link_votes(SCORES, LINKS, k=4, weight=2.0, query="Q")
    doc = vote_document(res.votes["T"], {"A": "Views", "B": "Bases syntax"})
    assert doc is not None
    assert recompute_bonus(doc) == doc["bonus"]
    assert doc["share"] == sum(v["score"] for v in doc["voters"]) / doc["total"]
    assert vote_document(None, {}) is None


def test_note_links_from_pairs() -> None:
    nl = NoteLinks.from_pairs(
        [("a", "b"), ("a", "b"), ("c", "b"), ("a", "a"), ("b", "c")], {"a": np.array([1])}
    )
    assert nl.out_links == {"a": frozenset({"b"}), "c": frozenset({"b"}), "b": frozenset({"c"})}
    assert nl.in_degree == {"b": 2, "c": 1}
