"""``search.lexical_common_share`` in related notes: a word of the open note's distinctive words
found in more than that share of the chunks leaves the related lexical (BM25) query as it leaves
search's, by the same rule (``search.without_common``); 0 changes nothing, and so does the
floor of common words' chunks on a small vault."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

import vaultheat.core.query.related as related_module
import vaultheat.core.query.search as search_module
from tests.core.fakes import FakeModels, RecordingLexical, fake_view
from vaultheat.config import Settings
from vaultheat.core.query.related import run_related
from vaultheat.core.requests import RelatedRequest

# "that" is in 5 of the 6 chunks (83%), "quillwort" in 2
NOTES = [
    ("Pond.md", "Quillwort grows in the shallow margin, so that it is half under water.", ()),
    ("Only.md", "A plain remark that says nothing else at all.", ()),
    ("Tea.md", "Green tea that steeps at eighty degrees, there and then.", ()),
    ("Bread.md", "Sourdough bread that wants rye flour, there in the cold.", ()),
    ("Rye.md", "Rye flour that ferments fast, there it is.", ()),
    ("Moss.md", "Moss and quillwort on stones, there by the brook.", ()),
]


@pytest.fixture(autouse=True)
def _no_floor(monkeypatch: pytest.MonkeyPatch) -> None:
    """This vault is tiny: the rule is tested without its floor of common words' chunks
    (``COMMON_MIN_CHUNKS``), except where a test restores it."""
    monkeypatch.setattr(search_module, "COMMON_MIN_CHUNKS", 0)


@dataclass
class Asked:
    """What one related request asked: the words its lexical query searched, the notes that
    search found, the related paths, and the words its plan says it left out."""

    words: list[str]
    found: set[str]
    paths: list[str]
    left_out: tuple[str, ...]


def _related(share: float, monkeypatch: pytest.MonkeyPatch) -> Asked:
    plans: list[Any] = []
    real = related_module.retrieve

    def retrieve(store: Any, vectors: Any, plan: Any) -> Any:
        plans.append(plan)
        return real(store, vectors, plan)

    monkeypatch.setattr(related_module, "retrieve", retrieve)
    models = FakeModels()
    view = fake_view(NOTES, models)
    store = RecordingLexical(view.store)
    bound = view.reading(store)  # type: ignore[arg-type]
    s = (Settings().with_value("search.lexical_common_share", share)
         .with_value("related.votes", False).with_value("related.link_heat", "off"))  # fmt: skip
    res = run_related(bound, models, s, RelatedRequest(path="Pond.md", top=5))
    ((query, hits),) = store.searched
    found = {view.graph.path_of(c) or "" for c in hits}
    return Asked(query.split(), found, [h.path for h in res.results], plans[0].lexical_common)


def test_a_common_word_leaves_the_related_lexical_query(monkeypatch: pytest.MonkeyPatch) -> None:
    asked = _related(0.5, monkeypatch)
    assert "that" not in asked.words and "quillwort" in asked.words
    assert asked.left_out == ("that",)  # the plan says what its query left out
    # the chunks that hold only the common word are no longer lexical hits
    assert "Only.md" not in asked.found and "Moss.md" in asked.found
    assert asked.paths  # related notes still answer


def test_off_the_note_s_words_are_searched_as_chosen(monkeypatch: pytest.MonkeyPatch) -> None:
    asked = _related(0.0, monkeypatch)
    assert "that" in asked.words and "quillwort" in asked.words and asked.left_out == ()
    assert {"Only.md", "Moss.md"} <= asked.found


def test_a_share_above_the_words_share_keeps_it(monkeypatch: pytest.MonkeyPatch) -> None:
    asked = _related(0.9, monkeypatch)
    assert "that" in asked.words and asked.left_out == ()


def test_a_small_vault_keeps_its_common_words(monkeypatch: pytest.MonkeyPatch) -> None:
    # the floor restored: "that" is in 5 of 6 chunks, but 5 chunks cost BM25 nothing to score
    monkeypatch.setattr(search_module, "COMMON_MIN_CHUNKS", 10_000)
    on, off = _related(0.5, monkeypatch), _related(0.0, monkeypatch)
    assert "that" in on.words and on.left_out == ()
    assert (on.words, on.found, on.paths) == (off.words, off.found, off.paths)
