"""``search.lexical_common_share``: a query word found in more than that share of the chunks
leaves the lexical (BM25) search, unless every query word is that common; 0 (the default)
changes nothing. The explanation of a missing note names the words left out."""

from __future__ import annotations

from typing import Any

import pytest

import vaultheat.core.query.search as search_module
from tests.core.fakes import FakeModels, RecordingLexical, fake_view
from vaultheat.config import ConfigError, Settings
from vaultheat.core.query.missing import RetrieverPlace, _why_not
from vaultheat.core.query.search import search_retrieval, without_common
from vaultheat.core.query.view import IndexView
from vaultheat.core.requests import SearchRequest

# "that" is in 5 of the 6 chunks (83%), "quillwort" in 1, "there" in 4 (67%)
NOTES = [
    ("Pond.md", "Quillwort grows in the shallow margin, so that it is half under water.", ()),
    ("Only.md", "A plain remark that says nothing else at all.", ()),
    ("Tea.md", "Green tea that steeps at eighty degrees, there and then.", ()),
    ("Bread.md", "Sourdough bread that wants rye flour, there in the cold.", ()),
    ("Rye.md", "Rye flour that ferments fast, there it is.", ()),
    ("Moss.md", "Moss on stones, there by the brook.", ()),
]


@pytest.fixture(autouse=True)
def _no_floor(monkeypatch: pytest.MonkeyPatch) -> None:
    """These vaults are tiny: the rule is tested without its floor of common words' chunks
    (``COMMON_MIN_CHUNKS``, which keeps small vaults as they were), except where a test
    restores it."""
    monkeypatch.setattr(search_module, "COMMON_MIN_CHUNKS", 0)


def _chunk(view: IndexView, path: str) -> int:
    (cid,) = [c for c in range(len(NOTES)) if view.graph.path_of(c) == path]
    return cid


def _search(share: float, query: str) -> tuple[Any, Any, RecordingLexical, IndexView]:
    models = FakeModels()
    view = fake_view(NOTES, models)
    store = RecordingLexical(view.store)
    bound = view.reading(store)  # type: ignore[arg-type]
    s = Settings().with_value("search.lexical_common_share", share)
    plan, result, _ = search_retrieval(bound, models, s, SearchRequest(query=query))
    return plan, result, store, view


def _lexical(result: Any) -> set[int]:
    """The chunks the lexical retriever found (a BM25 score above 0)."""
    return {c for c, v in (result.raw["lexical"] or {}).items() if v > 0}


def test_a_common_word_leaves_the_lexical_query() -> None:
    plan, result, store, view = _search(0.5, "quillwort that")
    assert [q for q, _ in store.searched] == ["quillwort"]
    pond, only = _chunk(view, "Pond.md"), _chunk(view, "Only.md")
    assert store.searched[0][1] == {pond}
    assert pond in _lexical(result) and only not in _lexical(result)
    assert plan.lexical_common == ("that",)


def test_off_the_query_is_searched_as_typed() -> None:
    plan, result, store, view = _search(0.0, "quillwort that")
    assert [q for q, _ in store.searched] == ["quillwort that"]
    assert {_chunk(view, "Pond.md"), _chunk(view, "Only.md")} <= _lexical(result)
    assert plan.lexical_common == ()
    assert len(view.term_df) == 0  # off reads no word counts


def test_a_share_above_the_words_share_keeps_it() -> None:
    plan, _, store, _ = _search(0.9, "quillwort that")
    assert [q for q, _ in store.searched] == ["quillwort that"]
    assert plan.lexical_common == ()


def test_a_query_of_common_words_only_keeps_them_all() -> None:
    plan, result, store, view = _search(0.5, "that there")
    assert [q for q, _ in store.searched] == ["that there"]
    assert _chunk(view, "Only.md") in _lexical(result)
    assert plan.lexical_common == ()
    # one common word and one rarer one: the rarer stays, the commoner goes
    plan, _, store, _ = _search(0.7, "that there")
    assert [q for q, _ in store.searched] == ["there"]
    assert plan.lexical_common == ("that",)


def test_word_counts_are_read_once_per_view() -> None:
    models = FakeModels()
    view = fake_view(NOTES, models)
    assert without_common(view, 0.5, "Quillwort THAT") == ("quillwort", ("that",))
    assert view.term_df.get("that") == 5 and view.term_df.get("quillwort") == 1
    view.term_df["that"] = 0  # what is cached is what is read
    assert without_common(view, 0.5, "quillwort that") == ("quillwort that", ())


def test_the_missing_note_explanation_names_the_words_left_out() -> None:
    plan, _, _, _ = _search(0.5, "quillwort that")
    places = [
        RetrieverPlace("vector", 50, 0.1, 40, 0.2),
        RetrieverPlace("lexical", None, None, 40, None),
    ]
    text = _why_not(plan, places, 46, False)
    assert "no word of the query the lexical search read is in it" in text
    assert "'that'" in text and "more than 50% of chunks" in text
    off, _, _, _ = _search(0.0, "quillwort that")
    assert "no word of the query is in it (lexical)" in _why_not(off, places, 46, False)


def test_the_share_is_a_share() -> None:
    assert (
        Settings().with_value("search.lexical_common_share", "0.2").search.lexical_common_share
        == 0.2
    )
    with pytest.raises(ConfigError):
        Settings().with_value("search.lexical_common_share", 1.5)


def test_a_small_vault_keeps_its_common_words(monkeypatch: pytest.MonkeyPatch) -> None:
    # the floor restored: "that" is in 5 of 6 chunks, but 5 chunks cost BM25 nothing to score
    monkeypatch.setattr(search_module, "COMMON_MIN_CHUNKS", 10_000)
    plan, result, store, view = _search(0.5, "quillwort that")
    assert [q for q, _ in store.searched] == ["quillwort that"]
    assert _chunk(view, "Only.md") in _lexical(result)
    assert plan.lexical_common == ()
