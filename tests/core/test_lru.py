"""The bounded cache behind the engine's query and unsaved-text vectors."""

from __future__ import annotations

import pytest

from vaultheat.core.lru import LRU


def test_lru_drops_the_least_recently_used_entry_beyond_its_bound() -> None:
    c: LRU[str, int] = LRU(3)
    for i, k in enumerate("abc"):
        c[k] = i
    assert c.get("a") == 0  # "a" is now the most recent
    c["d"] = 3
    assert len(c) == 3
    assert "b" not in c and c.get("b") is None
    assert [c.get(k) for k in "acd"] == [0, 2, 3]


def test_lru_stays_bounded_over_many_distinct_keys_and_clears() -> None:
    c: LRU[int, int] = LRU(100)
    for i in range(10_000):
        c[i] = i
    assert len(c) == 100
    assert 9_999 in c and 0 not in c
    c.clear()
    assert len(c) == 0


def test_lru_refuses_a_size_below_one() -> None:
    with pytest.raises(ValueError):
        LRU(0)
