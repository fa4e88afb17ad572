"""A reader's store when another process overwrites or rebuilds the index under it: its reads
fail with the project's ``IndexChangedError`` (never ``sqlite3``'s own types), and
``replaced()`` sees a file deleted and built anew, whose old copy would still read fine."""

from __future__ import annotations

import inspect
import shutil
import sqlite3
from pathlib import Path

import pytest

from tests.conftest import copy_vault
from vaultheat.config import Settings, save_settings
from vaultheat.engine import Engine
from vaultheat.errors import IndexChangedError
from vaultheat.paths import index_paths
from vaultheat.providers.fake import FakeEmbedder
from vaultheat.storage.store import NOT_READS, READS, Store

EXTRA = "Garden/Greenhouse.md"


def build(vault: Path, *, extra: bool = False, small: bool = False) -> Path:
    """The vault indexed with the fake embedder (``extra``: with one note more; ``small``:
    with only the Garden folder, so that its database's pages lie elsewhere); its db."""
    if extra:
        (vault / EXTRA).write_text("# Greenhouse\n\nSeedlings under glass.\n", encoding="utf-8")
    if small:
        for child in vault.iterdir():
            if child.name not in ("Garden", ".obsidian"):
                shutil.rmtree(child) if child.is_dir() else child.unlink()
    paths = index_paths(vault)
    paths.root.mkdir(exist_ok=True)
    save_settings(paths.config, Settings().with_value("embeddings.provider", "fake"))
    engine = Engine.open(vault, embedder=FakeEmbedder())
    engine.index()
    engine.close()
    return paths.db


def test_every_public_store_method_is_a_read_or_not() -> None:
    public = {n for n, _ in inspect.getmembers(Store) if not n.startswith("_")}
    assert public - set(READS) - set(NOT_READS) == set(), "classify the new Store method"
    assert set(READS) & set(NOT_READS) == set()
    assert (set(READS) | set(NOT_READS)) - public == set(), "a listed method is gone"


def test_a_read_of_an_overwritten_index_raises_index_changed(tmp_path: Path) -> None:
    db = build(copy_vault(tmp_path / "a"))
    other = build(copy_vault(tmp_path / "b"), extra=True, small=True)
    store = Store(db, readonly=True)
    try:
        assert EXTRA not in store.notes()
        shutil.copyfile(other, db)  # in place, as a restore from a backup does
        with pytest.raises(IndexChangedError) as caught:
            store.notes()
        assert isinstance(caught.value.__cause__, sqlite3.Error)
        assert caught.value.context["path"] == str(db)
        assert not store.replaced()  # same file, new content: only the failed read tells
    finally:
        store.close()
    reopened = Store(db, readonly=True)
    try:
        assert EXTRA in reopened.notes()
    finally:
        reopened.close()


def test_a_writer_and_a_caller_bug_keep_sqlite_errors(tmp_path: Path) -> None:
    """The writer's failures are not a reader's stale view (the indexer sees them as they are),
    and a closed store is the caller's bug, not a changed index."""
    db = build(copy_vault(tmp_path / "a"))
    other = build(copy_vault(tmp_path / "b"), extra=True, small=True)
    writer = Store(db)
    try:
        assert writer.notes()
        shutil.copyfile(other, db)
        with pytest.raises(sqlite3.DatabaseError) as caught:
            writer.notes()
        assert not isinstance(caught.value, IndexChangedError)
    finally:
        writer.close()
    reader = Store(db, readonly=True)
    reader.close()
    with pytest.raises(sqlite3.ProgrammingError):
        reader.notes()


def test_replaced_sees_an_index_deleted_and_built_anew(tmp_path: Path) -> None:
    vault = copy_vault(tmp_path / "a")
    db = build(vault)
    store = Store(db, readonly=True)
    try:
        assert not store.replaced()
        shutil.rmtree(db.parent)
        assert store.replaced()  # gone
        build(vault, extra=True)
        assert store.replaced()  # another file at the same path
        assert EXTRA not in store.notes()  # the old file still reads
    finally:
        store.close()


def test_a_read_aborted_by_another_threads_rollback_runs_again(tmp_path: Path) -> None:
    """SQLITE_ABORT_ROLLBACK: a query thread ending its read transaction on the shared
    connection aborts another thread's stepping statement; that read is retried, not a 503."""
    from vaultheat.storage import store as store_module

    db = build(copy_vault(tmp_path / "a"))
    calls = {"n": 0}

    def flaky(self: Store) -> int:
        calls["n"] += 1
        if calls["n"] == 1:
            raise sqlite3.OperationalError("abort due to ROLLBACK")
        return 7

    store = Store(db, readonly=True)
    try:
        assert store_module._read(flaky)(store) == 7
        assert calls["n"] == 2
        always = store_module._read(lambda self: (_ for _ in ()).throw(
            sqlite3.OperationalError("abort due to ROLLBACK")))  # fmt: skip
        with pytest.raises(IndexChangedError):
            always(store)
    finally:
        store.close()
