"""A rare word the user remembers finds the notes that contain it, even when no vector match
is good (search.score_lexical_weak), and the document says the words led."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import copy_vault, search_doc
from vaultheat.config import Settings, save_settings
from vaultheat.core.requests import SearchRequest
from vaultheat.engine import Engine
from vaultheat.paths import index_paths
from vaultheat.providers.fake import FakeEmbedder

RARE = "Quillwort grows in the shallow margin of the pond, half under water.\n"


def _engine(tmp_path: Path, weak_weight: float | None = None) -> Engine:
    vault = copy_vault(tmp_path / "vault")
    (vault / "Garden" / "Pond margins.md").write_text("# Pond margins\n\n" + RARE, "utf-8")
    paths = index_paths(vault)
    paths.root.mkdir()
    settings = Settings().with_value("embeddings.provider", "fake")
    if weak_weight is not None:
        settings = settings.with_value("search.score_lexical_weak", weak_weight)
    save_settings(paths.config, settings)
    engine = Engine.open(vault, embedder=FakeEmbedder())
    engine.index()
    return engine


def _doc(engine: Engine, query: str, **kw: Any) -> dict[str, Any]:
    return search_doc(engine, SearchRequest(query=query, files_only=True, **kw))


def test_a_rare_word_finds_its_note_first(tmp_path: Path) -> None:
    engine = _engine(tmp_path)
    try:
        doc = _doc(engine, "quillwort")
        assert doc["ranked_by"] == "words"
        assert doc["results"][0]["path"] == "Garden/Pond margins.md"
    finally:
        engine.close()


def test_off_the_words_lead_nothing(tmp_path: Path) -> None:
    engine = _engine(tmp_path, weak_weight=0.0)
    try:
        doc = _doc(engine, "quillwort")
        assert doc["ranked_by"] == "meaning"
        ranks = [r["path"] for r in doc["results"]]
        # the light lexical touch alone does not lift it to the top with these vectors
        assert ranks[0] != "Garden/Pond margins.md"
    finally:
        engine.close()


def test_a_word_found_nowhere_changes_nothing(tmp_path: Path) -> None:
    engine = _engine(tmp_path)
    try:
        doc = _doc(engine, "xyzzyqwerty")
        assert doc["ranked_by"] == "meaning"
    finally:
        engine.close()


def test_the_explain_trace_shows_the_weight_used(tmp_path: Path) -> None:
    engine = _engine(tmp_path)
    try:
        res = engine.search(SearchRequest(query="quillwort", explain=True))
        hit = res.results[0]
        trace = dataclasses.asdict(hit)["explain"]
        w = trace["components"]["weights"]  # renormalized: the ratio is what was set
        s = engine.settings.search
        assert w["lexical"] / w["vector"] == pytest.approx(s.score_lexical_weak / s.score_vector)
    finally:
        engine.close()
