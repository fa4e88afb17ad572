"""kNN lists over a real VectorIndex with constructed vectors of known cosines."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vaultheat.core.vault.knn import affected_ids, keep_neighbours, knn_lists
from vaultheat.storage.vectors import VectorIndex


def at_angle(cos: float) -> list[float]:
    """A unit vector in 3-d whose cosine with (1, 0, 0) is ``cos``."""
    return [cos, math.sqrt(1 - cos * cos), 0.0]


# node 0 is the anchor; the others have known cosines to it
COSINES = {1: 0.95, 2: 0.9, 3: 0.8, 4: 0.7, 5: 0.5, 6: 0.2}


@pytest.fixture
def index() -> VectorIndex:
    idx = VectorIndex.create(3)
    rows = [[1.0, 0.0, 0.0]] + [at_angle(c) for c in COSINES.values()]
    idx.add([0, *COSINES], np.array(rows, dtype=np.float32))
    return idx


@pytest.mark.parametrize(
    ("k", "min_sim", "expected"),
    [
        (3, 0.0, [1, 2, 3]),
        (10, 0.75, [1, 2, 3]),
        (10, 0.0, [1, 2, 3, 4, 5, 6]),
        (2, 0.99, []),
        (0, 0.0, []),
    ],
    ids=["k-cap", "min-sim", "all", "nothing-above-floor", "k-zero"],
)
def test_anchor_lists(index: VectorIndex, k: int, min_sim: float, expected: list[int]) -> None:
    got = knn_lists(index, [0], k=k, min_sim=min_sim)[0]
    assert [n for n, _ in got] == expected
    for n, sim in got:
        assert sim == pytest.approx(COSINES[n], abs=1e-5)


def test_self_is_never_listed(index: VectorIndex) -> None:
    lists = knn_lists(index, list(index.labels()), k=10, min_sim=-1.0)
    for node, hits in lists.items():
        assert node not in {n for n, _ in hits}
        assert len(hits) == 6


def test_exclusion_widens_the_search(index: VectorIndex) -> None:
    # exclude the best 5 hits for node 0: a plain k+1 search would come back empty
    def same_note(a: int, b: int) -> bool:
        return {a, b} <= {0, 1, 2, 3, 4, 5}

    got = knn_lists(index, [0], k=1, min_sim=0.0, exclude=same_note)[0]
    assert [n for n, _ in got] == [6]


def test_ties_break_by_lower_id() -> None:
    idx = VectorIndex.create(2)
    idx.add([9, 4, 7, 1], np.array([[1, 0], [1, 1], [1, 1], [1, 1]], dtype=np.float32))
    got = knn_lists(idx, [9], k=3, min_sim=0.0)[9]
    assert [n for n, _ in got] == [1, 4, 7]


def test_unknown_and_empty_ids(index: VectorIndex) -> None:
    assert knn_lists(index, [], k=3, min_sim=0.0) == {}
    assert set(knn_lists(index, [0, 42], k=3, min_sim=0.0)) == {0}


def test_keep_neighbours_filters_and_orders() -> None:
    hits = [(5, 0.9), (1, 0.9), (3, 1.0), (2, 0.4), (4, 0.95)]
    got = keep_neighbours(3, hits, min_sim=0.5, exclude=lambda a, b: b == 4)
    assert got == [(1, 0.9), (5, 0.9)]


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(2, 60),
    k=st.integers(1, 8),
    min_sim=st.floats(-0.5, 0.9),
    groups=st.integers(1, 6),
)
def test_matches_brute_force(seed: int, n: int, k: int, min_sim: float, groups: int) -> None:
    """Small indexes: HNSW is exact at this size, so lists equal the brute-force lists."""
    data = np.random.default_rng(seed).standard_normal((n, 8)).astype(np.float32)
    idx = VectorIndex.create(8)
    idx.add(list(range(n)), data)
    unit = data / np.linalg.norm(data, axis=1, keepdims=True)
    sims = unit @ unit.T

    def exclude(a: int, b: int) -> bool:
        return a % groups == b % groups  # "same note"

    got = knn_lists(idx, list(range(n)), k=k, min_sim=min_sim, exclude=exclude)
    for a in range(n):
        allowed = [b for b in range(n) if not exclude(a, b)]
        if any(abs(sims[a, b] - min_sim) < 1e-4 for b in allowed):
            continue  # float32 rounding may put a borderline pair on either side of the floor
        want = sorted((sims[a, b] for b in allowed if sims[a, b] >= min_sim), reverse=True)[:k]
        assert [s for _, s in got[a]] == pytest.approx(want, abs=1e-5)
        assert all(not exclude(a, b) for b, _ in got[a])


@pytest.mark.parametrize(
    ("lists", "deleted", "expected"),
    [
        ({1: [(2, 0.9), (3, 0.8)]}, set(), {2, 3}),
        ({1: [(2, 0.9)], 2: [(1, 0.9), (4, 0.7)]}, set(), {4}),
        ({1: [(2, 0.9), (3, 0.8)]}, {3}, {2}),
        ({}, set(), set()),
        ({1: []}, {1}, set()),
    ],
    ids=["neighbours", "minus-keys", "minus-deleted", "empty", "no-neighbours"],
)
def test_affected_ids(lists: dict, deleted: set[int], expected: set[int]) -> None:
    assert affected_ids(lists, deleted) == expected
