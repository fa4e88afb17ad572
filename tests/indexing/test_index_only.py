"""``Indexer.run(only=...)``: the server's changed paths are what a run looks at.

Each case edits the vault, runs with ``only`` and compares with what a full walk then finds:
an ``only`` run must reach exactly the index a plain run would (for the paths it was told
about), must not read the rest of the vault, and says which notes it wrote.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from vaultheat.check import check_index
from vaultheat.config import VaultSettings
from vaultheat.core.vault.discovery import Discovery, FileEntry, discover, discover_changed
from vaultheat.engine import Engine


def snapshot(engine: Engine) -> dict[str, Any]:
    store = engine.views.store()
    return {
        "notes": {p: (r.content_hash, r.title) for p, r in store.notes().items()},
        "attachments": store.attachments(),
        "skipped": store.skipped(),
        "chunks": store.chunk_count(),
    }


def converges(engine: Engine) -> None:
    """A plain run after the ``only`` run finds nothing left to do."""
    before = snapshot(engine)
    report = engine.index()
    assert report.written == [] and report.removed == []
    assert snapshot(engine) == before
    assert check_index(engine)["state"] == "clean"


def test_only_indexes_the_named_note(fake_engine: Engine) -> None:
    vault = fake_engine.paths.vault
    (vault / "Home.md").write_text("# Home\n\nAll about sourdough.\n")
    (vault / "Garden").mkdir(exist_ok=True)
    (vault / "Garden" / "Unreported.md").write_text("# Unreported\n\nNobody told the server.\n")
    report = fake_engine.index(only=["Home.md"])
    assert report.written == ["Home.md"] and report.removed == []
    assert report.notes["modified"] == 1 and report.notes["added"] == 0
    assert "Garden/Unreported.md" not in fake_engine.views.store().notes()  # not looked at
    safety_net = fake_engine.index()  # the periodic scan: a plain run
    assert safety_net.written == ["Garden/Unreported.md"]
    converges(fake_engine)


def test_only_sees_deletions_renames_and_attachments(fake_engine: Engine) -> None:
    vault = fake_engine.paths.vault
    (vault / "Home.md").rename(vault / "Start.md")
    (vault / "picture.png").write_bytes(b"\x89PNG")
    report = fake_engine.index(only=["Start.md", "Home.md", "picture.png"])
    assert report.written == ["Start.md"] and report.removed == ["Home.md"]
    assert report.notes["renamed"] == 1
    assert "picture.png" in fake_engine.views.store().attachments()
    converges(fake_engine)


@pytest.mark.parametrize(
    "rel, text",
    [
        (".hidden.md", "# Hidden\n"),
        ("Notes/.secret.md", "# Secret\n"),
        (".obsidian/plugin.md", "# Config\n"),
    ],
    ids=["hidden-file", "hidden-in-folder", "config-folder"],
)
def test_only_keeps_the_walks_rules(fake_engine: Engine, rel: str, text: str) -> None:
    path = fake_engine.paths.vault / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    report = fake_engine.index(only=[rel])
    assert report.written == []
    assert rel not in fake_engine.views.store().notes()
    converges(fake_engine)


def test_only_with_a_folder_falls_back_to_the_walk(fake_engine: Engine) -> None:
    vault = fake_engine.paths.vault
    (vault / "Moved").mkdir()
    (vault / "Moved" / "A.md").write_text("# A\n\nalpha\n")
    (vault / "Moved" / "B.md").write_text("# B\n\nbeta\n")
    report = fake_engine.index(only=["Moved"])
    assert report.written == ["Moved/A.md", "Moved/B.md"]
    converges(fake_engine)


def test_only_with_an_oversized_note_records_the_skip(fake_engine: Engine) -> None:
    vault = fake_engine.paths.vault
    limit = fake_engine.settings.vault.max_file_bytes
    (vault / "Huge.md").write_text("# Huge\n\n" + "x" * (limit + 10))
    report = fake_engine.index(only=["Huge.md"])
    assert report.written == []
    reasons = {s["path"]: s["reason"] for s in fake_engine.views.store().skipped()}
    assert reasons["Huge.md"].startswith("larger than")
    converges(fake_engine)


def test_full_ignores_only(fake_engine: Engine) -> None:
    report = fake_engine.index(full=True, only=["Home.md"])
    assert len(report.written) == len(fake_engine.views.store().notes())


# -- discover_changed alone -------------------------------------------------------------------
def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


def test_discover_changed_matches_a_full_walk(tmp_path: Path) -> None:
    root = tmp_path / "v"
    _write(root, {"a.md": "a", "f/b.md": "b", "f/c.md": "c", "img.png": ""})
    settings = VaultSettings()
    known = discover(root, settings)
    (root / "f" / "b.md").write_text("bb")
    os.remove(root / "f" / "c.md")
    _write(root, {"f/d.md": "d", "photo.jpg": ""})
    changed = discover_changed(root, settings, ["f/b.md", "f/c.md", "f/d.md", "photo.jpg"], known)
    assert changed == discover(root, settings)


def test_discover_changed_defers_to_the_walk_below_a_symlinked_folder(tmp_path: Path) -> None:
    root = tmp_path / "v"
    _write(root, {"real/a.md": "a"})
    (root / "link").symlink_to(root / "real", target_is_directory=True)
    known = Discovery(notes=[FileEntry("real/a.md", root / "real/a.md", 1, 0)])
    assert discover_changed(root, VaultSettings(), ["link/a.md"], known) is None
    assert discover_changed(root, VaultSettings(), ["real"], known) is None  # a folder
