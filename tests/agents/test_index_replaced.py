"""An agent session whose index is replaced under it (restored from a copy in place, or
deleted and rebuilt) answers from the new index on the next call, without an error: the
Store's ``IndexChangedError`` (or ``replaced()``) makes ``AutoBackend`` reopen it."""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

import pytest

from tests.conftest import copy_vault
from tests.storage.test_index_changed import EXTRA, build
from vaultheat.agents.backend import AutoBackend
from vaultheat.agents.tools import call_tool
from vaultheat.engine import Engine
from vaultheat.paths import index_paths
from vaultheat.providers.fake import FakeEmbedder


def _answers_from_the_new_index(auto: AutoBackend, notes: int) -> None:
    ok, status = call_tool(auto, "status", {})
    assert ok, status
    assert status["notes"] == notes
    ok, found = call_tool(auto, "search", {"query": "seedlings under glass", "top": 3})
    assert ok, found
    assert EXTRA in [r["path"] for r in found["results"]]
    ok, note = call_tool(auto, "open", {"path": EXTRA})
    assert ok, note
    ok, near = call_tool(auto, "neighbors", {"path": EXTRA})
    assert ok, near


def indexed_notes(vault: Path) -> int:
    engine = Engine.open(vault, embedder=FakeEmbedder())
    try:
        return engine.status().notes
    finally:
        engine.close()


def _session(vault: Path) -> tuple[AutoBackend, int]:
    auto = AutoBackend(index_paths(vault), embedder=FakeEmbedder(), prefer_server=False)
    ok, status = call_tool(auto, "status", {})
    assert ok, status
    ok, found = call_tool(auto, "search", {"query": "espresso", "top": 2})  # views loaded
    assert ok and found["results"]
    return auto, int(status["notes"])


def test_an_index_overwritten_in_place(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    vault = copy_vault(tmp_path / "vault")
    build(vault)
    auto, _ = _session(vault)
    try:
        twin = copy_vault(tmp_path / "twin")
        build(twin, extra=True, small=True)
        (vault / EXTRA).write_bytes((twin / EXTRA).read_bytes())
        src, dst = index_paths(twin), index_paths(vault)
        shutil.copyfile(src.db, dst.db)
        for file in (src.vectors, src.vectors.with_suffix(".meta.json")):
            if file.exists():  # a small index's vectors live in the database: a meta file only
                shutil.copyfile(file, dst.root / file.name)
        with caplog.at_level(logging.INFO, logger="vaultheat.agents"):
            _answers_from_the_new_index(auto, indexed_notes(twin))
        # the open view failed to read the overwritten file: the session reopened and retried
        assert "the index changed during a call" in caplog.text
    finally:
        auto.close()


def test_an_index_deleted_and_rebuilt(tmp_path: Path) -> None:
    vault = copy_vault(tmp_path / "vault")
    build(vault)
    auto, notes = _session(vault)
    try:
        shutil.rmtree(index_paths(vault).root)
        build(vault, extra=True)
        _answers_from_the_new_index(auto, notes + 1)
    finally:
        auto.close()
