"""Numbered migrations: an index written by an older schema is upgraded in place and keeps
its data; a failed migration leaves the old version; a newer index is refused.

The upgrade is exercised with one more migration added for the test, run over a real index
built by the indexer at the current schema, and with the real ``m002_locators`` over an index
built at schema 1 (which readers keep answering from until a writer upgrades it), and with
the real ``m005_compact_embeddings`` over an index whose embedding cache has m001's layout,
and with the real ``m007_float16_vectors`` over an index whose cache holds float32 vectors.
"""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.conftest import status_doc
from tests.storage.old_schema import (
    before_contentless_fts,
    before_languages,
    float32_cache,
    old_cache_layout,
)
from vaultheat.check import check_index
from vaultheat.engine import Engine
from vaultheat.errors import IndexCorruptError
from vaultheat.providers.fake import FakeEmbedder
from vaultheat.storage import chunks as chunks_mod
from vaultheat.storage import db as dbmod
from vaultheat.storage.embedcache import decode
from vaultheat.storage.store import Store

TABLES = ("notes", "chunks", "links", "tags", "edges", "embeddings", "manifest", "attachments")


def m002_note_language() -> str:
    return """
        ALTER TABLE notes ADD COLUMN language TEXT NOT NULL DEFAULT '';
        CREATE INDEX notes_language ON notes(language);
        """


def m002_broken() -> str:
    return """
        CREATE TABLE half_done (x INTEGER);
        ALTER TABLE no_such_table ADD COLUMN y TEXT;
        """


def dump(path: Path) -> dict[str, list[tuple[Any, ...]]]:
    con = sqlite3.connect(path)
    try:
        out = {}
        for table in TABLES:
            cols = [r[1] for r in con.execute(f"PRAGMA table_info({table})")]
            keep = [c for c in cols if c != "language"]  # the column m002 adds
            out[table] = sorted(con.execute(f"SELECT {', '.join(keep)} FROM {table}").fetchall())
        # the FTS index itself: every term's place in every row (the table keeps no text)
        con.execute("CREATE VIRTUAL TABLE temp.v USING fts5vocab(main, chunks_fts, instance)")
        out["chunks_fts"] = sorted(con.execute("SELECT term, doc, col, offset FROM temp.v"))
        return out
    finally:
        con.close()


def cache_rows(path: Path) -> list[tuple[str, str, bytes]]:
    """(fingerprint, input hash, vector bytes) of every cache entry, in either layout."""
    con = sqlite3.connect(path)
    try:
        cols = {r[1] for r in con.execute("PRAGMA table_info(embeddings)")}
        sql = (
            "SELECT f.fingerprint, e.input_hash, e.vector FROM embeddings e "
            "JOIN fingerprints f ON f.id = e.fp_id"
            if "fp_id" in cols
            else "SELECT fingerprint, input_hash, vector FROM embeddings"
        )
        return sorted(con.execute(sql))
    finally:
        con.close()


def version(path: Path) -> int:
    con = sqlite3.connect(path)
    try:
        return int(con.execute("PRAGMA user_version").fetchone()[0])
    finally:
        con.close()


@pytest.fixture
def old_index(fake_engine: Engine) -> Path:
    """A real index at the current schema, closed."""
    fake_engine.close()
    path = fake_engine.paths.db
    assert version(path) == dbmod.SCHEMA_VERSION
    return path


NEXT = dbmod.SCHEMA_VERSION + 1


def test_migrations_are_numbered_in_order() -> None:
    names = [m.__name__ for m in dbmod.MIGRATIONS]
    assert names and all(re.fullmatch(r"m\d{3}_\w+", n) for n in names)
    assert [int(n[1:4]) for n in names] == list(range(1, len(names) + 1))
    assert len(names) == dbmod.SCHEMA_VERSION


def test_an_older_index_is_upgraded_and_keeps_its_data(
    old_index: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = dump(old_index)
    assert before["notes"] and before["chunks"] and before["embeddings"] and before["links"]
    monkeypatch.setattr(dbmod, "MIGRATIONS", [*dbmod.MIGRATIONS, m002_note_language])
    monkeypatch.setattr(dbmod, "SCHEMA_VERSION", NEXT)
    reader = Store(old_index, readonly=True)  # readers never migrate (they still read)
    reader.close()
    assert version(old_index) == NEXT - 1
    store = Store(old_index)  # the writer (the indexer) does, in place
    try:
        cols = {r[1] for r in store.db.execute("PRAGMA table_info(notes)")}
        assert "language" in cols
        assert {r[0] for r in store.db.execute("SELECT DISTINCT language FROM notes")} == {""}
    finally:
        store.close()
    assert version(old_index) == NEXT
    assert dump(old_index) == before
    # and the upgraded index still answers and indexes
    engine = Engine.open(old_index.parent.parent, embedder=FakeEmbedder())
    try:
        assert engine.index().notes["unchanged"] == len(before["notes"])
        assert status_doc(engine)["chunks"] == len(before["chunks"])
    finally:
        engine.close()


def test_a_failed_migration_leaves_the_old_version(
    old_index: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = dump(old_index)
    monkeypatch.setattr(dbmod, "MIGRATIONS", [*dbmod.MIGRATIONS, m002_broken])
    monkeypatch.setattr(dbmod, "SCHEMA_VERSION", NEXT)
    with pytest.raises(sqlite3.OperationalError):
        Store(old_index)
    assert version(old_index) == NEXT - 1
    con = sqlite3.connect(old_index)
    try:
        tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    finally:
        con.close()
    assert "half_done" not in tables  # one script, one transaction: rolled back whole
    assert dump(old_index) == before


def test_a_schema_1_index_keeps_answering_and_is_upgraded_by_the_next_index_run(
    vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.conftest import open_fake_index, search_doc
    from vaultheat.core.requests import SearchRequest

    open_fake_index(vault).close()
    db_path = vault / ".vaultheat" / "index.sqlite"
    con = sqlite3.connect(db_path)  # made as an index written before chunk locators existed
    for col in ("page", "page_end", "card_id", "page_starts"):  # m002's and m004's columns
        con.execute(f"ALTER TABLE chunks DROP COLUMN {col}")
    con.execute("ALTER TABLE notes DROP COLUMN page_kind")  # m003's column
    old_cache_layout(con)  # before m005
    before_languages(con)  # before m006
    before_contentless_fts(con)  # before m008
    con.execute("PRAGMA user_version = 1")
    con.close()
    assert version(db_path) == 1
    before = dump(db_path)
    reader = Store(db_path, readonly=True)  # the server, say, before the next index run
    note_id = next(iter(reader.notes().values())).id
    rows = reader.note_chunks(note_id)
    assert rows and all(r.page is None and r.card_id is None for r in rows)
    assert version(db_path) == 1  # reading changed nothing
    engine = Engine.open(vault, embedder=FakeEmbedder())
    try:
        assert search_doc(engine, SearchRequest(query="roasting"))["results"]
        report = engine.index()  # the writer upgrades in place, keeping every note
        assert report.notes["unchanged"] == len(before["notes"]) and report.notes["added"] == 0
    finally:
        engine.close()
    try:  # the reader opened before the upgrade reads the new columns now
        assert reader._cols() == chunks_mod._CHUNK_COLS
        assert [r.id for r in reader.note_chunks(note_id)] == [r.id for r in rows]
    finally:
        reader.close()
    assert version(db_path) == dbmod.SCHEMA_VERSION
    cols = {r[1] for r in sqlite3.connect(db_path).execute("PRAGMA table_info(chunks)")}
    assert {"page", "page_end", "card_id"} <= cols


def test_m005_compacts_the_embedding_cache_in_place_bit_for_bit(old_index: Path) -> None:
    fp = FakeEmbedder().fingerprint
    con = sqlite3.connect(old_index)
    old_cache_layout(con)
    before_languages(con)
    before_contentless_fts(con)
    other = np.arange(4, dtype=np.float32) / 3  # another model's entry, kept by the migration
    con.execute("INSERT INTO embeddings VALUES ('other-model', 'h', ?)", (other.tobytes(),))
    con.execute("PRAGMA user_version = 4")
    con.commit()
    float32_cache(con)  # and, as before m007, float32 vectors
    con.close()
    before = cache_rows(old_index)
    hashes = sorted({h for f, h, _ in before if f == fp})
    assert len(hashes) > 10 and len(before) == len(hashes) + 1
    reader = Store(old_index, readonly=True)  # answers from the old layout, migrating nothing
    old_vectors = reader.cached_vectors(fp, hashes)
    assert set(old_vectors) == set(hashes) and reader.unembedded_count(fp) == 0
    assert version(old_index) == 4
    store = Store(old_index)  # the writer converts the cache in place
    store.close()
    assert version(old_index) == dbmod.SCHEMA_VERSION
    after = cache_rows(old_index)  # every vector under its fingerprint, float16 since m007
    assert [(f, h) for f, h, _ in after] == [(f, h) for f, h, _ in before]
    for (_, _, new), (_, _, old) in zip(after, before, strict=True):
        assert len(new) == len(old) // 2 + 1
        assert np.abs(decode(new) - decode(old)).max() < 1e-3
    con = sqlite3.connect(old_index)
    try:
        sql = con.execute("SELECT sql FROM sqlite_master WHERE name = 'embeddings'").fetchone()[0]
        fingerprints = sorted(r[0] for r in con.execute("SELECT fingerprint FROM fingerprints"))
        free_pages = con.execute("PRAGMA freelist_count").fetchone()[0]
    finally:
        con.close()
    assert "WITHOUT ROWID" not in sql and fingerprints == sorted([fp, "other-model"])
    assert free_pages == 0  # the old table's pages given back (VACUUM_AFTER)
    try:  # the reader opened before the upgrade reads the new layout now
        new_vectors = reader.cached_vectors(fp, hashes)
        assert set(new_vectors) == set(old_vectors)
        for h, v in new_vectors.items():
            assert v.dtype == np.float32 and np.abs(v - old_vectors[h]).max() < 1e-3
        assert np.abs(reader.cached_vectors("other-model", ["h"])["h"] - other).max() < 1e-3
        assert reader.unembedded_count(fp) == 0
    finally:
        reader.close()
    engine = Engine.open(old_index.parent.parent, embedder=FakeEmbedder())
    try:  # and the index answers and indexes, embedding nothing again
        report = engine.index(full=True)
        assert report.chunks["embedded"] == 0 and report.chunks["reused"] > 0
        assert check_index(engine)["ok"], check_index(engine)["problems"]
    finally:
        engine.close()


def test_m007_stores_the_cache_as_float16_and_a_reader_reads_either(old_index: Path) -> None:
    fp = FakeEmbedder().fingerprint
    con = sqlite3.connect(old_index)
    float32_cache(con)
    before_contentless_fts(con)
    con.execute("PRAGMA user_version = 6")
    con.commit()
    con.close()
    before = {h: decode(v) for f, h, v in cache_rows(old_index) if f == fp}
    assert len(before) > 10
    assert {len(v) for _, _, v in cache_rows(old_index)} == {4 * FakeEmbedder().dimension}
    reader = Store(old_index, readonly=True)  # cannot migrate: reads the float32 vectors
    try:
        old_vectors = reader.cached_vectors(fp, list(before))
        assert {h: v.tobytes() for h, v in old_vectors.items()} == {
            h: v.tobytes() for h, v in before.items()
        }
        assert version(old_index) == 6
        store = Store(old_index)  # the writer converts the cache, then compacts the file
        store.close()
        assert version(old_index) == dbmod.SCHEMA_VERSION
        rows = cache_rows(old_index)
        assert {len(v) for _, _, v in rows} == {2 * FakeEmbedder().dimension + 1}
        for _, h, v in rows:
            assert np.abs(decode(v) - before[h]).max() < 1e-3
        con = sqlite3.connect(old_index)
        try:
            assert con.execute("PRAGMA freelist_count").fetchone()[0] == 0  # VACUUM_AFTER
        finally:
            con.close()
        new_vectors = reader.cached_vectors(fp, list(before))  # the same reader, after
        for h, v in new_vectors.items():
            assert v.dtype == np.float32 and np.abs(v - before[h]).max() < 1e-3
    finally:
        reader.close()
    engine = Engine.open(old_index.parent.parent, embedder=FakeEmbedder())
    try:  # the index answers and indexes, embedding nothing again
        report = engine.index(full=True)
        assert report.chunks["embedded"] == 0 and report.chunks["reused"] > 0
        assert check_index(engine)["ok"], check_index(engine)["problems"]
    finally:
        engine.close()


def test_a_newer_index_is_refused(old_index: Path) -> None:
    con = sqlite3.connect(old_index)
    con.execute("PRAGMA user_version = 99")
    con.close()
    for readonly in (True, False):
        with pytest.raises(IndexCorruptError, match="newer vaultheat"):
            Store(old_index, readonly=readonly)


def test_a_new_database_appears_only_once_migrated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "index.sqlite"
    seen: list[bool] = []

    def m001_watched() -> str:
        seen.append(path.exists())
        return dbmod.m001_initial()

    monkeypatch.setattr(dbmod, "MIGRATIONS", [m001_watched, *dbmod.MIGRATIONS[1:]])
    (tmp_path / "index.sqlite.new").write_bytes(b"left by a crash")
    store = Store(path)
    store.close()
    assert seen == [False]  # a reader polling `path` could not have opened it half-made
    assert version(path) == dbmod.SCHEMA_VERSION
    assert sorted(p.name for p in tmp_path.iterdir()) == ["index.sqlite"]
