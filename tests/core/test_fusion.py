"""RRF: hand-computed values, weights, determinism of the ranking."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from vaultheat.core.query.fusion import ranked, rrf


@pytest.mark.parametrize(
    ("rankings", "kwargs", "expected"),
    [
        ([[1, 2, 3]], {}, {1: 1 / 61, 2: 1 / 62, 3: 1 / 63}),
        ([[1, 2], [2, 1]], {}, {1: 1 / 61 + 1 / 62, 2: 1 / 62 + 1 / 61}),
        ([[1, 2], [3]], {"k": 0}, {1: 1.0, 2: 0.5, 3: 1.0}),
        ([[1, 2], [2]], {"weights": [1.0, 0.5]}, {1: 1 / 61, 2: 1 / 62 + 0.5 / 61}),
        ([[7, 7, 8]], {}, {7: 1 / 61, 8: 1 / 63}),
        ([], {}, {}),
        ([[], [4]], {"k": 10}, {4: 1 / 11}),
    ],
    ids=["single", "symmetric", "k0", "weighted", "duplicate-keeps-best", "none", "empty-ranking"],
)
def test_rrf_values(rankings: list[list[int]], kwargs: dict, expected: dict[int, float]) -> None:
    got = rrf(rankings, **kwargs)
    assert got.keys() == expected.keys()
    for doc, value in expected.items():
        assert got[doc] == pytest.approx(value, rel=1e-15)


@pytest.mark.parametrize(
    ("rankings", "kwargs"),
    [([[1]], {"weights": [1.0, 2.0]}), ([[1]], {"k": -1})],
    ids=["weights-length", "negative-k"],
)
def test_rrf_refuses_bad_arguments(rankings: list[list[int]], kwargs: dict) -> None:
    with pytest.raises(ValueError):
        rrf(rankings, **kwargs)


def test_ranked_orders_by_score_then_id() -> None:
    assert ranked({5: 0.1, 3: 0.5, 9: 0.5, 1: 0.1}) == [3, 9, 1, 5]
    assert ranked({}) == []


def test_agreement_beats_a_single_first_place() -> None:
    scores = rrf([[1, 2, 3], [2, 3, 1], [2, 1, 3]])
    assert ranked(scores)[0] == 2


rankings_st = st.lists(st.lists(st.integers(0, 30), max_size=15), max_size=4)


@given(rankings=rankings_st, k=st.integers(1, 100))
def test_rrf_properties(rankings: list[list[int]], k: int) -> None:
    scores = rrf(rankings, k=k)
    assert set(scores) == {d for r in rankings for d in r}
    for score in scores.values():
        assert 0 < score <= len(rankings) / (k + 1) * (1 + 1e-12)  # fsum of k terms rounds
    # order does not depend on the order of the rankings
    assert ranked(scores) == ranked(rrf(list(reversed(rankings)), k=k))
    # moving a document up in one ranking never lowers its score
    for r_index, r in enumerate(rankings):
        if len(r) >= 2 and r[1] not in r[:1]:
            swapped = [list(x) for x in rankings]
            swapped[r_index][0], swapped[r_index][1] = r[1], r[0]
            assert rrf(swapped, k=k)[r[1]] >= scores[r[1]]


def test_exact_ties_do_not_depend_on_ranking_order() -> None:
    rankings = [[0], [1, 0], [1, 0], [1, 0]]  # 1/2 + 3 * 1/3 == 3 * 1/2 exactly
    assert ranked(rrf(rankings, k=1)) == ranked(rrf(list(reversed(rankings)), k=1)) == [0, 1]
