"""The related query's word counts are read once per index generation (``IndexView.term_df``):
a batch of related queries (the mobile snapshot's build) would otherwise read FTS5's vocabulary
for the same words note after note, half of each query at 10k notes."""

from __future__ import annotations

from collections.abc import Sequence

from tests.core.fakes import FakeModels, fake_view
from vaultheat.config import Settings
from vaultheat.core.lru import LRU
from vaultheat.core.query.related import distinctive_terms, run_related
from vaultheat.core.requests import RelatedRequest

NOTES = [
    ("Bread.md", "# Bread\n\nSourdough bread wants rye flour and a long cold proof.", ()),
    ("Rye.md", "# Rye\n\nRye flour ferments fast; sourdough starters love it.", ()),
    ("Tea.md", "# Tea\n\nGreen tea steeps at eighty degrees for two minutes.", ()),
]


class Counting:
    """A store that records which words it was asked to count."""

    def __init__(self, inner: object) -> None:
        self.inner = inner
        self.asked: list[list[str]] = []

    def __getattr__(self, name: str) -> object:
        return getattr(self.inner, name)

    def term_doc_counts(self, terms: Sequence[str]) -> dict[str, int]:
        self.asked.append(list(terms))
        return self.inner.term_doc_counts(terms)  # type: ignore[attr-defined,no-any-return]


def test_each_word_is_counted_once_and_the_query_is_unchanged() -> None:
    view = fake_view(NOTES, FakeModels())
    store = Counting(view.store)
    text = "Sourdough rye bread with rye flour, and a zzyzx word the index lacks."
    plain = distinctive_terms(store, text)  # type: ignore[arg-type]
    known: LRU[str, int] = LRU(1000)
    first = distinctive_terms(store, text, known=known)  # type: ignore[arg-type]
    again = distinctive_terms(store, text, known=known)  # type: ignore[arg-type]
    assert plain == first == again and "rye" in plain.split()
    assert len(store.asked) == 2  # the plain call and the first cached one; none the third time
    assert known.get("zzyzx") == 0  # a word the index does not hold is remembered as such
    other = distinctive_terms(store, "Green tea and rye", known=known)  # type: ignore[arg-type]
    assert store.asked[-1] == ["green", "tea"]  # only the words not read before
    assert set(other.split()) == {"green", "tea", "rye"}


def test_related_fills_the_views_cache_and_a_new_generation_starts_empty() -> None:
    models = FakeModels()
    view = fake_view(NOTES, models)
    assert len(view.term_df) == 0
    run_related(view, models, Settings(), RelatedRequest(path="Bread.md"))
    assert view.term_df.get("sourdough") == 2
    assert view.reading(view.store).term_df is view.term_df  # a snapshot of the same generation
    assert len(fake_view(NOTES, models).term_df) == 0
