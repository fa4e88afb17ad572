"""Typed results: the relevance step reads the calibrated curve at the vector cosine."""

from __future__ import annotations

import pytest

from vaultheat.core.query.relevance import Curve
from vaultheat.core.query.results import ChunkRef, NoteHit, SearchResults
from vaultheat.documents import search_document

CURVE = Curve((0.2, 0.8), (0.0, 0.6))
REF = ChunkRef(7, ("A",), 1, 3, 0, 40, "text")


def hit(rank: int, vector: float | None) -> NoteHit:
    return NoteHit(rank, f"n{rank}.md", "N", 1.0 / rank, REF, {"vector": vector, "lexical": None})


@pytest.mark.parametrize(
    ("vector", "relevance", "label"),
    [(0.8, 0.6, "strong"), (0.5, 0.3, "good"), (0.3, 0.1, "weak"), (0.1, 0.0, "weak"),
     (None, 0.0, "weak")],
)  # fmt: skip
def test_with_relevance(vector: float | None, relevance: float, label: str) -> None:
    res = SearchResults("q", 1.0, True, (hit(1, vector),)).with_relevance(CURVE)
    (h,) = res.results
    assert (h.relevance, h.relevance_label) == (relevance, label)


def test_documents_carry_relevance_only_once_it_is_read() -> None:
    res = SearchResults("q", 1.0, True, (hit(1, 0.5), hit(2, 0.8)))
    plain = search_document(res)["results"]
    assert "relevance" not in plain[0] and plain[0]["best_chunk"]["chunk_id"] == 7
    rated = search_document(res.with_relevance(CURVE))["results"]
    assert [r["relevance_label"] for r in rated] == ["good", "strong"]
    assert list(rated[0])[-2:] == ["relevance", "relevance_label"]  # last, as clients read them
    assert rated[1]["score"] == 0.5
