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


def test_threads_sharing_one_cache_never_fail() -> None:
    """Eight threads reading and writing overlapping keys of a tiny cache (eviction on nearly
    every write), switching threads as often as the interpreter allows: no KeyError from a key
    evicted between lookup and move-to-end (without the lock this fails now and then: 1 error
    in 1.6 M operations measured; the test is a smoke check, not a proof)."""
    import sys
    import threading

    cache: LRU[int, int] = LRU(4)
    errors: list[BaseException] = []

    def work(seed: int) -> None:
        try:
            for i in range(25_000):
                k = (i * 7 + seed) % 9
                if cache.get(k) is None:
                    cache[k] = k
        except BaseException as exc:  # a failure in a thread must reach the test
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(s,)) for s in range(8)]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(interval)
    assert not errors and len(cache) <= 4
