"""Script-aware fusion: non-Latin text with an English-only model weights lexical evidence up."""

from __future__ import annotations

import pytest

from vaultheat.config import EmbeddingSettings, SearchSettings
from vaultheat.core.language import (
    EVEN,
    english_only_model,
    even_weights,
    model_misses_script,
    non_latin_share,
)


@pytest.mark.parametrize(
    ("text", "low", "high"),
    [
        ("How do I sync my vault?", 0.0, 0.0),
        ("Über Käse, façade, naïve — señor", 0.0, 0.0),  # accented Latin is Latin
        ("Tiếng Việt có dấu", 0.0, 0.0),  # Latin Extended Additional
        ("ノートを同期するには", 1.0, 1.0),
        ("如何同步我的笔记", 1.0, 1.0),
        ("Как синхронизировать заметки", 1.0, 1.0),
        ("Obsidian の 同期", 0.27, 0.28),  # mixed: 8 Latin letters, 3 Japanese ones (3/11)
        ("1234 ... !!!", 0.0, 0.0),  # no letters at all
        ("", 0.0, 0.0),
    ],
)
def test_non_latin_share(text: str, low: float, high: float) -> None:
    assert low <= non_latin_share(text) <= high


@pytest.mark.parametrize(
    ("settings", "expected"),
    [
        (EmbeddingSettings(), True),  # the default package is all-MiniLM-L6-v2
        (EmbeddingSettings(model="sentence-transformers/all-MiniLM-L6-v2"), True),
        (EmbeddingSettings(model="sentence-transformers/all-mpnet-base-v2"), True),
        (EmbeddingSettings(model="BAAI/bge-small-en-v1.5"), True),
        (EmbeddingSettings(model="intfloat/e5-small-v2"), True),
        (EmbeddingSettings(model="intfloat/multilingual-e5-small"), False),
        (EmbeddingSettings(model="BAAI/bge-m3"), False),
        (EmbeddingSettings(model="/models/my-own"), False),  # unknown: trust the user's choice
        (EmbeddingSettings(model="BAAI/bge-m3", languages="en"), True),
        (EmbeddingSettings(languages="multi"), False),
        (EmbeddingSettings(provider="openai", model="text-embedding-3-small"), False),
        (EmbeddingSettings(provider="fake"), False),
    ],
)
def test_english_only_model(settings: EmbeddingSettings, expected: bool) -> None:
    assert english_only_model(settings) is expected


def test_rule_needs_all_three_conditions() -> None:
    en, multi = EmbeddingSettings(), EmbeddingSettings(languages="multi")
    on, off = SearchSettings(), SearchSettings(script_fallback=False)
    assert model_misses_script(en, on, "ノートを同期するには")
    assert not model_misses_script(en, on, "how to sync notes")
    assert not model_misses_script(multi, on, "ノートを同期するには")
    assert not model_misses_script(en, off, "ノートを同期するには")


def test_even_weights_only_moves_toward_lexical() -> None:
    base = SearchSettings()
    even = even_weights(base)
    assert (even.vector_weight, even.lexical_weight) == (EVEN["vector_weight"], 1.0)
    assert (even.score_vector, even.score_lexical) == (0.5, 0.5)
    assert (even.score_fusion, even.score_note) == (base.score_fusion, base.score_note)
    # a lexical-only configuration stays lexical-only; a lexical-heavy one is not weakened
    lexical_only = SearchSettings(vector_weight=0.0, score_vector=0.0, score_lexical=0.9)
    kept = even_weights(lexical_only)
    assert (kept.vector_weight, kept.score_vector, kept.score_lexical) == (0.0, 0.0, 0.9)
