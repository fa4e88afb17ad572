"""Bounded memory (issue 41 item 3): the dense copy of the vectors and a vector file rebuilt
from the embedding cache are filled a block at a time; any block size gives the same vectors."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import vaultheat.storage.vectorsync as vectorsync
import vaultheat.views as views
from vaultheat.storage.store import Store
from vaultheat.storage.vectorsync import open_vectors


@pytest.mark.parametrize("block", [1, 5, 4096])
def test_fill_dense_by_blocks_holds_every_cached_vector(
    fake_engine: Any, monkeypatch: pytest.MonkeyPatch, block: int
) -> None:
    fp = fake_engine.models.embedder.fingerprint
    store = Store(fake_engine.paths.db, readonly=True)
    try:
        dim = int(store.manifest()["dimension"])
        keys = store.all_chunk_vectors_keys()
        cache = store.cached_vectors(fp, [h for _, h in keys])
        monkeypatch.setattr(views, "DENSE_BLOCK", block)
        dense = views.fill_dense(None, store, dim, fp)
        again = views.fill_dense(dense, store, dim, fp)  # nothing new: unchanged
    finally:
        store.close()
    assert again is dense
    for cid, h in keys:
        assert np.array_equal(dense[cid], cache[h])


@pytest.mark.usefixtures("hnsw_files")
def test_a_vector_file_rebuilt_by_blocks_has_every_chunk(
    fake_engine: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    fp = fake_engine.models.embedder.fingerprint
    monkeypatch.setattr(vectorsync, "RECONCILE_BLOCK", 3)
    store = Store(fake_engine.paths.db, readonly=True)
    try:
        dim = int(store.manifest()["dimension"])
        keys = dict(store.embedded_chunk_keys(fp))
        cache = store.cached_vectors(fp, list(keys.values()))
        fake_engine.paths.vectors.unlink()
        index = open_vectors(store, fake_engine.paths.vectors, dim, fp)
    finally:
        store.close()
    assert index.labels() == set(keys)
    ids = sorted(keys)
    got = index.get_vectors(ids)
    want = np.stack([cache[keys[c]] for c in ids])
    assert np.allclose(got, want / np.linalg.norm(want, axis=1, keepdims=True), atol=1e-6)
