"""The contentless FTS table (storage/fts.py, m008): every write, move and removal of a chunk
keeps the lexical index exactly as a fresh index builds it, the migration from a table that
held its own copy of the text changes no search result, and a writer rebuilds the rows when
``lexical_text`` has changed (its version in the manifest)."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import open_fake_index
from tests.storage.old_schema import before_contentless_fts
from vaultheat.check import check_index
from vaultheat.core.models import ChunkDraft
from vaultheat.engine import Engine
from vaultheat.paths import index_paths
from vaultheat.providers.fake import FakeEmbedder
from vaultheat.storage import db as dbmod
from vaultheat.storage import fts
from vaultheat.storage.store import Store

QUERIES = (
    "espresso grind", "dialing", "ristretto crema", "tomatoes blight", "kyoto 京都", "budget",
    "steuer", "compost worms", "roast profile", "kissaten coffee", "nothing-like-this",
)  # fmt: skip


def vocab(db: sqlite3.Connection) -> tuple[Any, ...]:
    """The whole FTS index as it answers: every term's place in every row, and the row count
    and token totals BM25 reads (FTS5's averages record, id 1 of its data table)."""
    db.execute(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.vh_inst "
        "USING fts5vocab(main, chunks_fts, instance)"
    )
    places = sorted(tuple(r) for r in db.execute("SELECT term, doc, col, offset FROM temp.vh_inst"))
    totals = db.execute("SELECT block FROM chunks_fts_data WHERE id = 1").fetchone()
    return places, bytes(totals[0]) if totals else b""


def as_fresh(path: Path) -> tuple[Any, ...]:
    """The FTS index of the database at ``path`` rebuilt from its chunks (in a copy)."""
    copy = path.with_name("rebuilt.sqlite")
    src = sqlite3.connect(path)
    dst = sqlite3.connect(copy)
    src.backup(dst)
    src.close()
    dst.isolation_level = None
    dst.execute("BEGIN")
    fts.rebuild(dst)
    dst.execute("COMMIT")
    try:
        return vocab(dst)
    finally:
        dst.close()
        copy.unlink()


def results(store: Store) -> dict[str, list[tuple[str, int, float]]]:
    """query -> (note path, chunk ordinal, BM25 score rounded) of its lexical hits."""
    out = {}
    for q in QUERIES:
        hits = store.lexical_search(q, 50)
        rows = store.chunks([c for c, _ in hits])
        out[q] = [(rows[c].path, rows[c].ordinal, round(s, 9)) for c, s in hits]
    return out


def fts_count(store: Store) -> int:
    return int(store.db.execute("SELECT count(*) FROM chunks_fts").fetchone()[0])


def fresh_results(vault: Path, tmp: Path) -> dict[str, list[tuple[str, int, float]]]:
    """The lexical results of a new index of a copy of ``vault``."""
    copy = tmp / "fresh"
    shutil.copytree(vault, copy, ignore=shutil.ignore_patterns(".vaultheat"))
    engine = open_fake_index(copy)
    try:
        return results(engine.views.store())
    finally:
        engine.close()


def test_edits_keep_the_lexical_index_as_a_fresh_index_builds_it(
    vault: Path, tmp_path: Path
) -> None:
    engine = open_fake_index(vault)
    try:
        espresso = vault / "Coffee/Brewing/Espresso Extraction.md"
        text = espresso.read_text(encoding="utf-8")
        # an alias only the lexical header holds (the chunks keep their embedding inputs),
        # and a paragraph changed (new chunk, old one gone)
        text = text.replace("  - extraction\n", "  - extraction\n  - ristretto\n")
        text = text.replace("Espresso magnifies every mistake.", "Crema hides every mistake.")
        espresso.write_text(text, encoding="utf-8")
        (vault / "Finance/Budget.md").unlink()  # a note deleted
        (vault / "Garden/Composting.md").rename(vault / "Garden/Compost worms.md")  # renamed
        (vault / "New.md").write_text("# New\n\nRistretto and crema.\n", encoding="utf-8")
        engine.index()
        tomatoes = vault / "Garden/Vegetables/Tomatoes.md"  # lines above the chunks move
        tomatoes.write_text("\n\n" + tomatoes.read_text(encoding="utf-8"), encoding="utf-8")
        engine.index()
        store = engine.views.store()
        assert fts_count(store) == store.chunk_count()
        assert vocab(store.db) == as_fresh(index_paths(vault).db)
        got = results(store)
        assert got["ristretto crema"] and got["compost worms"]
        assert not any(p == "Finance/Budget.md" for p, _, _ in got["budget"])
        assert check_index(engine)["ok"], check_index(engine)["problems"]
    finally:
        engine.close()
    assert got == fresh_results(vault, tmp_path)


def _draft(text: str) -> ChunkDraft:
    return ChunkDraft(
        ordinal=0, byte_start=0, byte_end=len(text), line_start=0, line_end=1, text=text,
        heading_path=("A",), embed_input=text,
    )  # fmt: skip


def test_a_moved_chunk_whose_text_or_header_changes_is_indexed_again(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "a.md").write_text("# A\n\nAlpha words.\n", encoding="utf-8")
    open_fake_index(vault).close()
    store = Store(index_paths(vault).db)
    try:
        note = store.note_by_path("a.md")
        assert note is not None
        with store.transaction():
            (cid,) = store.insert_chunks([(note.id, _draft("zebra quagga"), "h", "Old header")])
            store.update_chunk_position(cid, _draft("zebra okapi"))  # the header kept
            assert [c for c, _ in store.lexical_search("okapi old", 5)] == [cid]
            assert store.lexical_search("quagga", 5) == []
            store.update_chunk_position(cid, _draft("zebra okapi"), "New header")
            assert store.lexical_search("old", 5) == []
            assert [c for c, _ in store.lexical_search("new", 5)] == [cid]
            store.update_chunk_position(cid, _draft("zebra okapi"), "New header")  # no change
        assert vocab(store.db) == as_fresh(index_paths(vault).db)
        with store.transaction():
            store.delete_note(note.id)
        assert fts_count(store) == store.chunk_count() == 0
        assert vocab(store.db)[0] == []
    finally:
        store.close()


def test_the_migration_keeps_every_search_result(vault: Path) -> None:
    open_fake_index(vault).close()
    path = index_paths(vault).db
    con = sqlite3.connect(path)
    before_contentless_fts(con)  # the FTS table holds its copy of the text, as before m008
    con.execute(f"PRAGMA user_version = {dbmod.SCHEMA_VERSION - 1}")
    con.commit()
    con.close()
    reader = Store(path, readonly=True)  # a reader answers from the old table
    try:
        old_results = results(reader)
        old_vocab = vocab(reader.db)
        old_ids = sorted(r[0] for r in reader.db.execute("SELECT rowid FROM chunks_fts"))
    finally:
        reader.close()
    assert any(old_results.values())
    store = Store(path)  # the writer migrates
    try:
        assert results(store) == old_results
        assert vocab(store.db) == old_vocab
        assert sorted(r[0] for r in store.db.execute("SELECT rowid FROM chunks_fts")) == old_ids
        tables = {r[0] for r in store.db.execute("SELECT name FROM sqlite_master")}
        assert "chunks_fts_content" not in tables  # no copy of the text
        assert store.manifest()[fts.VERSION_KEY] == fts.version_value()
        assert store.db.execute("PRAGMA freelist_count").fetchone()[0] == 0
    finally:
        store.close()
    engine = Engine.open(vault, embedder=FakeEmbedder())
    try:  # and the migrated rows are removed exactly: an edit leaves it as a fresh build
        (vault / "Finance/Budget.md").unlink()
        engine.index(full=True)
        assert vocab(engine.views.store().db) == as_fresh(path)
        assert check_index(engine)["ok"], check_index(engine)["problems"]
    finally:
        engine.close()


def test_a_new_lexical_text_rebuilds_every_row(
    vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    open_fake_index(vault).close()
    path = index_paths(vault).db
    real = fts.lexical_text
    monkeypatch.setattr(fts, "lexical_text", lambda t: real(t) + " zzmark")
    monkeypatch.setattr(fts, "LEXICAL_VERSION", fts.LEXICAL_VERSION + 1)
    reader = Store(path, readonly=True)  # a reader never rebuilds
    reader.close()
    store = Store(path)  # a writer does, once
    try:
        assert store.manifest()[fts.VERSION_KEY] == fts.version_value()
        assert len(store.lexical_search("zzmark", 10_000)) == store.chunk_count()
        assert fts_count(store) == store.chunk_count()
        assert not fts.ensure_lexical_version(store.db)
        with store.transaction():  # rows written by the new lexical_text are removed exactly
            note = store.note_by_path("Finance/Budget.md")
            assert note is not None
            store.delete_note(note.id)
        assert vocab(store.db) == as_fresh(path)
        assert fts_count(store) == store.chunk_count()
    finally:
        store.close()


def test_a_cleared_index_keeps_its_lexical_version_and_indexes_again(vault: Path) -> None:
    open_fake_index(vault).close()
    path = index_paths(vault).db
    store = Store(path)
    try:
        store.clear(keep_fingerprint=FakeEmbedder().fingerprint)  # FTS5's 'delete-all'
        assert fts_count(store) == store.chunk_count() == 0
        assert store.manifest()[fts.VERSION_KEY] == fts.version_value()
    finally:
        store.close()
    engine = Engine.open(vault, embedder=FakeEmbedder())
    try:
        engine.index()
        store = engine.views.store()
        assert fts_count(store) == store.chunk_count() > 0
        assert vocab(store.db) == as_fresh(path)
        assert check_index(engine)["ok"], check_index(engine)["problems"]
    finally:
        engine.close()


def test_another_sqlite_rebuilds_every_row(vault: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Its unicode61 tokenizer might split some text otherwise than the one that wrote the rows."""
    open_fake_index(vault).close()
    path = index_paths(vault).db
    before = as_fresh(path)
    monkeypatch.setattr(fts, "_SQLITE", "9.99.0")
    store = Store(path)
    try:
        assert store.manifest()[fts.VERSION_KEY] == "lexical 1, sqlite 9.99.0"
        assert not fts.ensure_lexical_version(store.db)
        assert vocab(store.db) == before and fts_count(store) == store.chunk_count()
    finally:
        store.close()
