"""The embedding cache (storage/embedcache.py): vectors come back as float16 rounds them, bit
for bit once rounded (``as_stored``), under their own model; a float32 blob from before m007
still reads; a newer vector replaces an older one, and garbage collection and a rebuild with another
model drop only what they should, fingerprints included."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from vaultheat.engine import Engine
from vaultheat.providers.fake import FakeEmbedder
from vaultheat.storage.embedcache import as_stored, decode, encode
from vaultheat.storage.store import Store


def vec(seed: int) -> np.ndarray:
    """A vector as the cache stores it (float16-rounded), so it comes back bit for bit."""
    return as_stored(np.random.default_rng(seed).standard_normal(384).astype(np.float32))


def fingerprints(store: Store) -> list[str]:
    return sorted(r[0] for r in store.db.execute("SELECT fingerprint FROM fingerprints"))


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    s = Store(tmp_path / "index.sqlite")
    yield s
    s.close()


@pytest.fixture
def indexed(fake_engine: Engine) -> Iterator[Store]:
    """The store of a real (fake-model) index, closed by the engine first."""
    fake_engine.close()
    s = Store(fake_engine.paths.db)
    yield s
    s.close()


def test_vectors_come_back_bit_for_bit_under_their_model(store: Store) -> None:
    with store.transaction():
        store.put_vectors("model-a", {"h1": vec(1), "h2": vec(2)})
        store.put_vectors("model-b", {"h1": vec(3)})
    got = store.cached_vectors("model-a", ["h1", "h2", "h3", "h1"])
    assert sorted(got) == ["h1", "h2"]
    assert got["h1"].tobytes() == vec(1).tobytes() and got["h2"].tobytes() == vec(2).tobytes()
    assert store.cached_vectors("model-b", ["h1", "h2"])["h1"].tobytes() == vec(3).tobytes()
    assert store.cached_vectors("model-c", ["h1"]) == {}
    with store.transaction():  # a newer vector for the same input replaces the older one
        store.put_vectors("model-a", {"h1": vec(4)})
        store.put_vectors("model-a", {})
    assert store.all_cached_vectors("model-a")["h1"].tobytes() == vec(4).tobytes()
    assert sorted(store.all_cached_vectors("model-a")) == ["h1", "h2"]
    assert fingerprints(store) == ["model-a", "model-b"]  # each stored once


def test_float16_on_disk_float32_back_and_old_float32_blobs_still_read(store: Store) -> None:
    raw = np.random.default_rng(7).standard_normal(384).astype(np.float32)
    raw /= np.linalg.norm(raw)
    assert len(encode(raw)) == 2 * 384 + 1  # odd: never taken for a float32 blob
    with store.transaction():
        store.put_vectors("model-a", {"h": raw})
    (blob,) = store.db.execute("SELECT vector FROM embeddings").fetchone()
    assert len(blob) == 769
    got = store.cached_vectors("model-a", ["h"])["h"]
    assert got.dtype == np.float32 and got.shape == (384,)
    assert got.tobytes() == as_stored(raw).tobytes()
    assert np.abs(got - raw).max() < 1e-3 and abs(float(got @ raw) - 1.0) < 1e-3
    with store.transaction():  # a row written before m007: float32, read as it is
        store.db.execute("UPDATE embeddings SET vector = ?", (raw.tobytes(),))
    assert store.all_cached_vectors("model-a")["h"].tobytes() == raw.tobytes()
    assert decode(raw.tobytes()).tobytes() == raw.tobytes()
    assert decode(encode(raw)).tobytes() == as_stored(raw).tobytes()


def test_gc_drops_dead_entries_and_other_models_once_they_outnumber_the_live(
    indexed: Store,
) -> None:
    fp = FakeEmbedder().fingerprint
    live = dict(indexed.all_cached_vectors(fp))
    assert live and indexed.unembedded_count(fp) == 0
    with indexed.transaction():
        indexed.put_vectors("old-model", {h: vec(0) for h in live})
        indexed.put_vectors(fp, {f"dead{i}": vec(i) for i in range(10)})
    assert indexed.gc_embeddings(fp) == 0  # few dead entries: kept (bounded growth only)
    with indexed.transaction():
        indexed.put_vectors(fp, {f"dead{i}": vec(i) for i in range(1001)})
        dropped = indexed.gc_embeddings(fp)
    assert dropped == 1001 + len(live)
    kept = indexed.all_cached_vectors(fp)
    assert {h: v.tobytes() for h, v in kept.items()} == {h: v.tobytes() for h, v in live.items()}
    assert fingerprints(indexed) == [fp] and indexed.unembedded_count(fp) == 0


def test_a_rebuild_with_another_model_keeps_only_its_cache(indexed: Store) -> None:
    fp = FakeEmbedder().fingerprint
    live = indexed.all_cached_vectors(fp)
    with indexed.transaction():
        indexed.put_vectors("new-model", {"h": vec(5)})
    indexed.clear(keep_fingerprint="new-model")
    assert fingerprints(indexed) == ["new-model"] and indexed.all_cached_vectors(fp) == {}
    assert indexed.cached_vectors("new-model", ["h"])["h"].tobytes() == vec(5).tobytes()
    assert live and indexed.unembedded_count(fp) == 0  # no chunks left to await a vector


def test_a_chunk_awaits_its_vector_until_the_cache_holds_it(indexed: Store) -> None:
    fp = FakeEmbedder().fingerprint
    keys = indexed.embedded_chunk_keys(fp)
    chunk_id, h = keys[0]
    vector = indexed.cached_vectors(fp, [h])[h]
    with indexed.transaction():
        indexed.db.execute("DELETE FROM embeddings WHERE input_hash = ?", (h,))
    waiting = sum(1 for _, k in keys if k == h)
    assert indexed.unembedded_count(fp) == waiting
    assert indexed.unembedded_count("another-model") == len(keys)
    assert chunk_id not in {c for c, _ in indexed.embedded_chunk_keys(fp)}
    note_id = indexed.db.execute("SELECT note_id FROM chunks WHERE id = ?", (chunk_id,))
    nid = note_id.fetchone()[0]
    assert indexed.unembedded_hashes(fp, [nid]) == {nid: {h}}
    assert [n[0] for n in indexed.unembedded_notes(fp)] == [nid]
    with indexed.transaction():
        indexed.put_vectors(fp, {h: vector})
    assert indexed.unembedded_count(fp) == 0 and indexed.unembedded_notes(fp) == []


def test_a_384_dimension_vector_fits_in_its_leaf_page(store: Store) -> None:
    """m001's WITHOUT ROWID table spilled every such vector into an overflow page of its own."""
    fp = "local:pkg:some-model==1.0.0|tok:be50c3628f2b|fold2|backend=onnx|int8|x2|q=''|norm=l2"
    with store.transaction():
        store.put_vectors(fp * 2, {f"{i:032x}": vec(i) for i in range(50)})
    sql = store.db.execute("SELECT sql FROM sqlite_master WHERE name = 'embeddings'")
    assert "WITHOUT ROWID" not in sql.fetchone()[0]
    page = store.db.execute("PRAGMA page_size").fetchone()[0]
    try:
        overflow = store.db.execute(
            "SELECT count(*) FROM dbstat WHERE name = 'embeddings' AND pagetype = 'overflow'"
        ).fetchone()[0]
    except sqlite3.OperationalError:
        pytest.skip("this SQLite has no dbstat table")
    assert page >= 4096 and overflow == 0
