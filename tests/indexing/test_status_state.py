"""``status`` tells the truth: indexing, incomplete, stale or ready, and why in plain words."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import status_doc
from vaultheat.cli import main
from vaultheat.config import Settings, save_settings
from vaultheat.engine import Engine
from vaultheat.paths import index_paths
from vaultheat.providers.fake import FakeEmbedder


def _engine(vault: Path) -> Engine:
    paths = index_paths(vault)
    paths.root.mkdir(exist_ok=True)
    save_settings(paths.config, Settings().with_value("embeddings.provider", "fake"))
    return Engine.open(vault, embedder=FakeEmbedder())


def test_fresh_index_is_ready(fake_engine: Any) -> None:
    doc = status_doc(fake_engine)
    assert doc["state"] == "ready"
    on_disk = doc["freshness"]["on_disk"]
    assert doc["state_detail"] == f"all {on_disk} notes on disk are in the index"
    assert doc["freshness"]["not_indexed"] == 0 and doc["freshness"]["changed"] == 0


def test_never_indexed_is_incomplete(vault: Path) -> None:
    engine = _engine(vault)
    doc = status_doc(engine)
    assert doc["state"] == "incomplete"
    on_disk = doc["freshness"]["on_disk"]
    assert on_disk >= 30
    assert f"0 of {on_disk} notes indexed" in doc["state_detail"]


def test_stopped_first_index_is_incomplete_with_counts(vault: Path) -> None:
    engine = _engine(vault)
    calls = {"n": 0}

    def stop() -> bool:  # stop after the first batch of notes, before graph work
        calls["n"] += 1
        return calls["n"] > 1

    from vaultheat.indexing import limits

    old = limits.NOTE_BATCH
    limits.NOTE_BATCH = 5
    try:
        engine.index(should_stop=stop)
    finally:
        limits.NOTE_BATCH = old
    doc = status_doc(engine)
    assert doc["state"] == "incomplete"
    assert doc["notes"] == 5
    assert f"5 of {doc['freshness']['on_disk']} notes indexed" in doc["state_detail"]
    assert "graph tasks pending" in doc["state_detail"]


def test_edited_note_makes_the_index_stale_until_indexed(fake_engine: Any, vault: Path) -> None:
    note = next(vault.rglob("*.md"))
    note.write_text(note.read_text(encoding="utf-8") + "\nan edit\n", encoding="utf-8")
    st = note.stat()
    os.utime(note, ns=(st.st_atime_ns, st.st_mtime_ns + 10_000_000))
    doc = status_doc(fake_engine)
    assert doc["state"] == "stale"
    assert doc["freshness"]["changed"] == 1
    assert "1 note changed" in doc["state_detail"]
    fake_engine.index()
    assert status_doc(fake_engine)["state"] == "ready"


def test_deleted_and_new_notes_are_stale(fake_engine: Any, vault: Path) -> None:
    next(vault.rglob("*.md")).unlink()
    (vault / "brand new.md").write_text("# New\n\nfresh words\n", encoding="utf-8")
    doc = status_doc(fake_engine)
    assert doc["state"] == "stale"
    assert doc["freshness"]["deleted"] == 1 and doc["freshness"]["not_indexed"] == 1


def test_model_mismatch_is_stale(fake_engine: Any, vault: Path) -> None:
    paths = index_paths(vault)
    save_settings(paths.config, Settings().with_value("embeddings.provider", "fake")
                  .with_value("chunking.max_tokens", 100))  # fmt: skip
    engine = Engine.open(vault, embedder=FakeEmbedder())
    doc = status_doc(engine)
    assert doc["state"] == "stale"
    assert "--full" in doc["state_detail"]


def test_running_indexer_shows_as_indexing(fake_engine: Any, vault: Path) -> None:
    from vaultheat.storage.lock import WriterLock

    with WriterLock(index_paths(vault).lock):
        assert status_doc(fake_engine)["state"] == "indexing"
    assert status_doc(fake_engine)["state"] == "ready"


def test_cli_search_warns_once_on_a_stale_index(
    fake_engine: Any, vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["search", "espresso", "--vault", str(vault), "--json"])
    _, err = capsys.readouterr()
    assert code == 0 and "stale" not in err and "incomplete" not in err
    (vault / "brand new.md").write_text("# New\n\nespresso words\n", encoding="utf-8")
    for argv in (["search", "espresso"], ["related", "brand new.md"]):
        main([*argv, "--vault", str(vault), "--json"])
        _, err = capsys.readouterr()
        warnings = [line for line in err.splitlines() if "stale" in line]
        assert len(warnings) == 1, err
        assert "vaultheat index" in warnings[0]
