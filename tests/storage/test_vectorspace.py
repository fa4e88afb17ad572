"""Exact vector spaces (storage/vectorspace.py): the same answers as brute force, no vector file
for a small vault, hnswlib once a space outgrows ``EXACT_MAX``, and ``check`` clean either way."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from vaultheat.check import check_index
from vaultheat.core.requests import SearchRequest
from vaultheat.errors import NotFoundError
from vaultheat.paths import index_paths
from vaultheat.storage import vectorspace
from vaultheat.storage.vectors import VectorIndex, meta_path_for
from vaultheat.storage.vectorspace import EXACT, HNSW, VectorSpace, saved_kind
from vaultheat.storage.vectorsync import vector_file_generation

DIM = 16


def _unit(rng: np.random.Generator, n: int) -> np.ndarray:
    m = rng.standard_normal((n, DIM)).astype(np.float32)
    return m / np.linalg.norm(m, axis=1, keepdims=True)


def _brute(ids: list[int], mat: np.ndarray, q: np.ndarray, k: int) -> list[int]:
    sims = mat @ (q / np.linalg.norm(q))
    order = sorted(range(len(ids)), key=lambda r: (-sims[r], ids[r]))
    return [ids[r] for r in order[:k]]


def test_exact_search_is_brute_force_after_adds_replacements_and_deletions() -> None:
    rng = np.random.default_rng(7)
    space = VectorSpace.exact(DIM)
    vecs = {i: v for i, v in zip(range(0, 400, 2), _unit(rng, 200), strict=True)}
    space.add(list(vecs), 3.0 * np.stack(list(vecs.values())))  # stored unit length
    replaced = _unit(rng, 10)
    for i, v in zip(range(0, 20, 2), replaced, strict=True):
        vecs[i] = v
    space.add(list(range(0, 20, 2)), replaced)
    gone = [*range(100, 200, 2), 999]  # 999 was never added: ignored
    space.delete(gone)
    for i in gone:
        vecs.pop(i, None)
    assert space.kind == EXACT and len(space) == len(vecs) == 150
    assert space.labels() == set(vecs) and 4 in space and 100 not in space
    ids = sorted(vecs)
    mat = np.stack([vecs[i] for i in ids])
    np.testing.assert_allclose(space.get_vectors([4, 2]), mat[[2, 1]], atol=1e-6)
    queries = _unit(rng, 5)
    for q, hits in zip(queries, space.search(queries, 12), strict=True):
        assert [h for h, _ in hits] == _brute(ids, mat, q, 12)
        assert [s for _, s in hits] == sorted((s for _, s in hits), reverse=True)
        assert hits[0][1] == pytest.approx(float(mat[ids.index(hits[0][0])] @ q), abs=1e-5)
    allowed = set(ids[::7]) | {100, 12345}  # ids without a vector are not candidates
    sub = [i for i in ids if i in allowed]
    got = space.search(queries[0], 5, filter_ids=allowed)[0]
    assert [h for h, _ in got] == _brute(sub, np.stack([vecs[i] for i in sub]), queries[0], 5)
    assert len(space.search(queries[0], 10_000)[0]) == 150  # k clamped to what is there
    assert space.search(queries[0], 3, filter_ids=set())[0] == []
    with pytest.raises(NotFoundError):
        space.get_vectors([100])


def test_exact_and_hnswlib_spaces_answer_alike() -> None:
    rng = np.random.default_rng(3)
    mat = _unit(rng, 300)
    ids = list(range(5, 305))
    exact = VectorSpace.exact(DIM)
    exact.add(ids, mat)
    hnsw = VectorSpace(VectorIndex.create(DIM, capacity=400))
    hnsw.add(ids, mat)
    for q in _unit(rng, 20):  # 300 vectors: hnswlib's beam of 256 finds the exact top 10
        a, b = exact.search(q, 10)[0], hnsw.search(q, 10)[0]
        assert [h for h, _ in a] == [h for h, _ in b]
        np.testing.assert_allclose([s for _, s in a], [s for _, s in b], atol=1e-5)


def test_a_space_that_outgrows_the_limit_moves_into_hnswlib(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(vectorspace, "EXACT_MAX", 50)
    rng = np.random.default_rng(1)
    mat = _unit(rng, 80)
    space = VectorSpace.exact(DIM)
    space.add(list(range(40)), mat[:40])
    path = tmp_path / "vectors.hnsw"
    path.write_bytes(b"an hnswlib file from when the vault was larger")
    space.save(path, generation=3)
    assert not path.exists() and saved_kind(path) == EXACT  # exact: a meta file only
    meta = json.loads(meta_path_for(path).read_text(encoding="utf-8"))
    assert (meta["kind"], meta["count"], meta["generation"]) == (EXACT, 40, 3)
    assert vector_file_generation(path) == 3 and space.generation == 3
    before = space.search(mat[0], 5)[0]
    space.add(list(range(40, 80)), mat[40:])
    assert space.kind == HNSW and len(space) == 80
    assert space.search(mat[0], 5)[0][0] == before[0]  # itself, first either way
    np.testing.assert_allclose(space.get_vectors([70]), mat[[70]], atol=1e-6)
    space.save(path, generation=4)
    assert saved_kind(path) == HNSW
    loaded = VectorIndex.load(path, DIM)
    assert loaded.generation == 4 and loaded.labels() == set(range(80))


def _first(engine: Any, query: str) -> str:
    return str(engine.search(SearchRequest(query, top=3, files_only=True)).results[0].path)


def _note(i: int) -> str:
    return f"# Note {i}\n\nA paragraph about topic {i} and its many details, number {i}.\n"


def _index(vault: Path) -> Any:
    from vaultheat.config import Settings, save_settings
    from vaultheat.engine import Engine
    from vaultheat.providers.fake import FakeEmbedder

    paths = index_paths(vault)
    if not paths.root.exists():
        paths.root.mkdir()
        save_settings(paths.config, Settings().with_value("embeddings.provider", "fake"))
    engine = Engine.open(vault, embedder=FakeEmbedder())
    engine.index()
    return engine


def test_a_small_vault_keeps_no_vector_file_and_a_large_one_does(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(vectorspace, "EXACT_MAX", 12)
    vault = tmp_path / "vault"
    vault.mkdir()
    for i in range(8):
        (vault / f"n{i}.md").write_text(_note(i), encoding="utf-8")
    paths = index_paths(vault)
    engine = _index(vault)
    try:
        assert saved_kind(paths.vectors) == EXACT and not paths.vectors.exists()
        assert check_index(engine)["state"] == "clean"
        assert _first(engine, "topic 3 and its many details") == "n3.md"
    finally:
        engine.close()
    for i in range(8, 20):  # 20 chunks: over the limit
        (vault / f"n{i}.md").write_text(_note(i), encoding="utf-8")
    engine = _index(vault)
    try:
        assert saved_kind(paths.vectors) == HNSW and paths.vectors.exists()
        assert VectorIndex.load(paths.vectors, engine.models.embedder.dimension).labels()
        assert check_index(engine)["state"] == "clean"
        assert _first(engine, "topic 15 and its many details") == "n15.md"
    finally:
        engine.close()
    for i in range(4, 20):  # back under it: the file goes at the next save
        (vault / f"n{i}.md").unlink()
    engine = _index(vault)
    try:
        assert saved_kind(paths.vectors) == EXACT and not paths.vectors.exists()
        assert check_index(engine)["state"] == "clean"
        assert _first(engine, "topic 2 and its many details") == "n2.md"
    finally:
        engine.close()


def test_an_exact_space_saved_behind_the_database_is_pending_not_damage(tmp_path: Path) -> None:
    from vaultheat.storage.store import Store

    vault = tmp_path / "vault"
    vault.mkdir()
    for i in range(3):
        (vault / f"n{i}.md").write_text(_note(i), encoding="utf-8")
    engine = _index(vault)
    engine.close()
    paths = index_paths(vault)
    store = Store(paths.db)
    with store.transaction():  # a run committed a batch, then died before saving the space
        store.set_manifest(generation=store.generation() + 1)
    store.close()
    doc = check_index(engine)
    assert doc["state"] == "interrupted" and doc["problems"] == []
    store = Store(paths.db)
    with store.transaction():  # and a meta file ahead of the database is damage
        store.set_manifest(generation=vector_file_generation(paths.vectors) - 1)
    store.close()
    doc = check_index(engine)
    assert doc["state"] == "inconsistent"
    assert any("ahead of the database" in p for p in doc["problems"])


def test_an_older_small_index_drops_its_hnswlib_files_at_the_next_run(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """An index made when every space had an hnswlib file (before exact spaces, or a vault that
    has since shrunk) loses both files at its next run, even one with nothing else to do."""
    from vaultheat.config import Settings, save_settings
    from vaultheat.engine import Engine
    from vaultheat.indexing.run import Indexer
    from vaultheat.providers.fake import FakeEmbedder
    from vaultheat.providers.registry import make_embedder
    from vaultheat.storage.vectorsync import MULTILINGUAL

    vault = tmp_path / "vault"
    vault.mkdir()
    for i in range(6):
        (vault / f"n{i}.md").write_text(_note(i), encoding="utf-8")
    paths = index_paths(vault)
    paths.root.mkdir()
    settings = Settings().with_value("embeddings.provider", "fake")
    settings = settings.with_value("embeddings.second_space", "multilingual")
    save_settings(paths.config, settings)
    files = [paths.vectors, paths.space_vectors(MULTILINGUAL)]

    def run() -> None:
        Indexer(paths, settings, FakeEmbedder(), make_second=make_embedder).run()

    monkeypatch.setattr(vectorspace, "EXACT_MAX", -1)
    run()
    assert [saved_kind(f) for f in files] == [HNSW, HNSW] and all(f.exists() for f in files)
    monkeypatch.setattr(vectorspace, "EXACT_MAX", 10_000)
    run()  # nothing changed in the vault
    assert [saved_kind(f) for f in files] == [EXACT, EXACT]
    assert not any(f.exists() for f in files)
    engine = Engine.open(vault, embedder=FakeEmbedder())
    try:
        doc = check_index(engine)
        assert doc["state"] == "clean", doc
        assert doc["spaces"][MULTILINGUAL]["vectors_ok"] is True
        assert _first(engine, "topic 4 and its many details") == "n4.md"
    finally:
        engine.close()
    run()  # and a run after that has nothing to do again
    assert [saved_kind(f) for f in files] == [EXACT, EXACT]
