"""``vaultheat check`` raises no false alarm: a no-op index leaves a consistent index."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from vaultheat.check import check_index
from vaultheat.paths import index_paths
from vaultheat.storage.vectorsync import vector_file_generation


def test_no_op_index_keeps_check_green(fake_engine: Any, vault: Path) -> None:
    assert check_index(fake_engine)["problems"] == []
    for _ in range(2):
        report = fake_engine.index()  # nothing changed on disk
        assert report.chunks["embedded"] == 0
        fake_engine.close()
        doc = check_index(fake_engine)
        assert doc["ok"], doc["problems"]
    store = fake_engine.store()
    assert vector_file_generation(index_paths(vault).vectors) == store.generation()


def test_attachment_only_change_keeps_check_green(fake_engine: Any, vault: Path) -> None:
    (vault / "diagram.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    fake_engine.index()
    fake_engine.close()
    assert check_index(fake_engine)["problems"] == []


def test_check_finds_a_vector_file_behind(fake_engine: Any, vault: Path) -> None:
    from vaultheat.storage.store import Store

    store = Store(index_paths(vault).db)
    with store.transaction():
        store.bump_generation()
    store.close()
    fake_engine.close()
    problems = check_index(fake_engine)["problems"]
    assert any("generation" in p for p in problems)
