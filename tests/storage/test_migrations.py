"""Numbered migrations: an index written by an older schema is upgraded in place and keeps
its data; a failed migration leaves the old version; a newer index is refused.

The project has one migration so far, so the upgrade is exercised with a second one added
for the test (``m002``), run over a real index built by the indexer at schema 1.
"""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import status_doc
from vaultheat.engine import Engine
from vaultheat.errors import IndexCorruptError
from vaultheat.providers.fake import FakeEmbedder
from vaultheat.storage import db as dbmod
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
        out["chunks_fts"] = sorted(con.execute("SELECT rowid, header, body FROM chunks_fts"))
        return out
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
    """A real index at schema 1 (the current one), closed."""
    fake_engine.close()
    path = fake_engine.paths.db
    assert version(path) == 1
    return path


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
    monkeypatch.setattr(dbmod, "SCHEMA_VERSION", 2)
    with pytest.raises(IndexCorruptError):
        Store(old_index, readonly=True)  # readers never migrate
    store = Store(old_index)  # the writer (the indexer) does, in place
    try:
        cols = {r[1] for r in store.db.execute("PRAGMA table_info(notes)")}
        assert "language" in cols
        assert {r[0] for r in store.db.execute("SELECT DISTINCT language FROM notes")} == {""}
    finally:
        store.close()
    assert version(old_index) == 2
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
    monkeypatch.setattr(dbmod, "SCHEMA_VERSION", 2)
    with pytest.raises(sqlite3.OperationalError):
        Store(old_index)
    assert version(old_index) == 1
    con = sqlite3.connect(old_index)
    try:
        tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    finally:
        con.close()
    assert "half_done" not in tables  # one script, one transaction: rolled back whole
    assert dump(old_index) == before


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

    monkeypatch.setattr(dbmod, "MIGRATIONS", [m001_watched])
    (tmp_path / "index.sqlite.new").write_bytes(b"left by a crash")
    store = Store(path)
    store.close()
    assert seen == [False]  # a reader polling `path` could not have opened it half-made
    assert version(path) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["index.sqlite"]
