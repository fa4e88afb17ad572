"""The second vector space's slot (issue #40 slice 1): a file and a generation of its own,
empty until multilingual indexing fills it, with the first file's crash safety (a file behind
its generation is reconciled from the embedding cache), counted by status and check.

The filling is done here by hand, as slice 2's pass will: a batch commits its vectors to the
cache and bumps the space's generation in one transaction, the file is saved now and then."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from tests.conftest import status_doc
from vaultheat.check import check_index
from vaultheat.engine import Engine
from vaultheat.status_lines import spaces_line
from vaultheat.storage.store import Store
from vaultheat.storage.vectorsync import (
    MULTILINGUAL,
    bump_space_generation,
    open_space,
    save_vectors,
    space_state,
    start_space,
    vector_file_generation,
)

FP2 = "second-model:dim:8"
DIM2 = 8


@pytest.fixture
def engine(fake_engine: Engine) -> Iterator[Engine]:
    yield fake_engine


def fill(store: Store, keys: list[tuple[int, str]]) -> int:
    """One batch of the second pass: vectors of these chunks' inputs, one transaction."""
    rng = np.random.default_rng(len(keys))
    with store.transaction():
        store.put_vectors(FP2, {h: rng.normal(size=DIM2).astype(np.float32) for _, h in keys})
        return bump_space_generation(store, MULTILINGUAL)


def test_the_second_space_is_empty_until_filled(engine: Engine) -> None:
    doc = status_doc(engine)
    assert doc["spaces"] == {"multilingual": {"state": "empty", "vectors": 0}}
    report = check_index(engine)
    assert report["state"] == "clean"
    assert report["spaces"] == {"multilingual": {"vectors": 0, "vectors_ok": None}}
    store = Store(engine.paths.db)
    try:
        assert open_space(store, engine.paths.space_vectors(MULTILINGUAL), MULTILINGUAL) is None
    finally:
        store.close()
    assert not engine.paths.space_vectors(MULTILINGUAL).exists()
    assert spaces_line(doc["spaces"], doc["chunks"]) == "multilingual vectors: none yet"


@pytest.mark.usefixtures("hnsw_files")
def test_the_second_space_has_its_own_generation_and_survives_a_crash(engine: Engine) -> None:
    path = engine.paths.space_vectors(MULTILINGUAL)
    store = Store(engine.paths.db)
    try:
        first_gen = store.generation()
        keys = sorted(store.all_chunk_vectors_keys())
        half, rest = keys[: len(keys) // 2], keys[len(keys) // 2 :]
        with store.transaction():
            start_space(store, path, MULTILINGUAL, FP2, DIM2)
        gen = fill(store, half)
        index = open_space(store, path, MULTILINGUAL)  # no file yet: built from the cache
        assert index is not None and index.labels() == {cid for cid, _ in half}
        save_vectors(index, path, gen)
        # filling the second space leaves the first file as it was: not stale
        assert store.generation() == first_gen
        assert vector_file_generation(engine.paths.vectors) == first_gen
    finally:
        store.close()
    report = check_index(engine)
    assert report["state"] == "clean", report
    assert report["spaces"][MULTILINGUAL] == {"vectors": len(half), "vectors_ok": True}
    doc = status_doc(engine)
    assert doc["spaces"][MULTILINGUAL] == {"state": "filling", "vectors": len(half)}
    assert spaces_line(doc["spaces"], doc["chunks"]) == (
        f"multilingual vectors: {len(half):,} of {len(keys):,} chunks"
    )

    store = Store(engine.paths.db)
    try:  # the next batch commits, then the process dies before the file is saved
        gen = fill(store, rest)
    finally:
        store.close()
    report = check_index(engine)
    assert report["state"] == "interrupted" and not report["problems"]
    assert f"the multilingual vector file (generation {gen - 1}) is behind" in " ".join(
        report["pending"]
    )
    assert report["spaces"][MULTILINGUAL]["vectors_ok"] is False
    store = Store(engine.paths.db)
    try:  # the next opener reconciles it from the cache
        index = open_space(store, path, MULTILINGUAL)
        assert index is not None and index.labels() == {cid for cid, _ in keys}
        save_vectors(index, path, gen)
    finally:
        store.close()
    report = check_index(engine)
    assert report["state"] == "clean", report
    assert status_doc(engine)["spaces"][MULTILINGUAL] == {"state": "done", "vectors": len(keys)}


def test_a_file_ahead_of_its_space_is_a_problem(engine: Engine) -> None:
    path = engine.paths.space_vectors(MULTILINGUAL)
    store = Store(engine.paths.db)
    try:
        keys = sorted(store.all_chunk_vectors_keys())
        with store.transaction():
            start_space(store, path, MULTILINGUAL, FP2, DIM2)
        gen = fill(store, keys)
        index = open_space(store, path, MULTILINGUAL)
        assert index is not None
        save_vectors(index, path, gen + 5)
    finally:
        store.close()
    report = check_index(engine)
    assert report["state"] == "inconsistent"
    assert any("multilingual vector file" in p and "ahead" in p for p in report["problems"])


def test_another_model_empties_the_space_and_the_cache_keeps_its_vectors(engine: Engine) -> None:
    path = engine.paths.space_vectors(MULTILINGUAL)
    store = Store(engine.paths.db)
    try:
        keys = sorted(store.all_chunk_vectors_keys())
        with store.transaction():
            start_space(store, path, MULTILINGUAL, FP2, DIM2)
        gen = fill(store, keys)
        index = open_space(store, path, MULTILINGUAL)
        assert index is not None
        save_vectors(index, path, gen)
        # the cache's garbage collection keeps the second space's vectors
        rng = np.random.default_rng(0)
        dead = {f"dead{i}": rng.normal(size=4).astype(np.float32) for i in range(1200)}
        fp = store.manifest()["stored"]["fingerprint"]
        with store.transaction():
            store.put_vectors("a-gone-model", dead)
            assert store.gc_embeddings(fp, [FP2]) == len(dead)
        assert store.unembedded_count(FP2) == 0 and store.unembedded_count(fp) == 0
        # another model for the space: its file goes, its generation moves on, nothing is kept
        with store.transaction():
            state = start_space(store, path, MULTILINGUAL, "third-model", DIM2)
        assert state["generation"] == gen + 1 and not path.exists()
        assert space_state(store.manifest(), MULTILINGUAL) == state
        index = open_space(store, path, MULTILINGUAL)
        assert index is not None and index.labels() == set()
    finally:
        store.close()
    assert status_doc(engine)["spaces"][MULTILINGUAL] == {"state": "filling", "vectors": 0}
