"""``search.lexical_common_share`` on the real FTS5 index: the word counts come from FTS5's
vocabulary (folded as its tokenizer folds them: "naïve" is counted as "naive"), a common word
leaves the MATCH, and a chunk that holds only the common word is no longer a lexical hit."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import vaultheat.core.query.search as search_module
from tests.conftest import open_fake_index
from vaultheat.core.query.search import search_retrieval
from vaultheat.core.requests import SearchRequest

NOTES = {
    "Pond.md": "Quillwort grows in the shallow margin of the pond.",
    "Only.md": "A naïve remark and nothing else.",
    "Tea.md": "Green tea, a naïve drink, steeps at eighty degrees.",
    "Bread.md": "Sourdough bread is naïve about rye flour.",
    "Rye.md": "Naïve rye flour ferments fast.",
}


@pytest.fixture(autouse=True)
def _no_floor(monkeypatch: pytest.MonkeyPatch) -> None:
    """These vaults are tiny: the rule is tested without its floor of common words' chunks
    (``COMMON_MIN_CHUNKS``, which keeps small vaults as they were), except where a test
    restores it."""
    monkeypatch.setattr(search_module, "COMMON_MIN_CHUNKS", 0)


def _lexical(engine: Any, share: float, query: str) -> tuple[Any, set[str]]:
    """The plan and the notes whose chunks the lexical retriever found (BM25 above 0)."""
    eng = engine.with_settings(engine.settings.with_value("search.lexical_common_share", share))
    view = eng.index_view()
    plan, result, _ = search_retrieval(view, eng.models, eng.settings, SearchRequest(query=query))
    found = {c for c, v in (result.raw["lexical"] or {}).items() if v > 0}
    return plan, {view.graph.path_of(c) for c in found}


def test_a_common_word_leaves_the_match(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    for name, body in NOTES.items():
        (vault / name).write_text(f"# {name[:-3]}\n\n{body}\n", encoding="utf-8")
    engine = open_fake_index(vault)
    try:
        plan, found = _lexical(engine, 0.0, "quillwort naïve")
        assert found == set(NOTES) and plan.lexical_common == ()
        plan, found = _lexical(engine, 0.5, "quillwort naïve")  # "naive": 4 of 5 chunks
        assert found == {"Pond.md"} and plan.lexical_common == ("naïve",)
        plan, found = _lexical(engine, 0.9, "quillwort naïve")
        assert found == set(NOTES) and plan.lexical_common == ()
        # "flour" (2 of 5) stays at 0.5; at 0.3 both words are common: both are kept, and the
        # query still finds its chunks
        plan, found = _lexical(engine, 0.5, "naïve flour")
        assert found == {"Bread.md", "Rye.md"} and plan.lexical_common == ("naïve",)
        plan, found = _lexical(engine, 0.3, "naïve flour")
        assert found == {"Only.md", "Tea.md", "Bread.md", "Rye.md"}
        assert plan.lexical_common == ()
    finally:
        engine.close()
