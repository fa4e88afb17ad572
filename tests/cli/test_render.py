"""The terminal's words for wire documents (``vaultheat/render.py``): votes in words, the one
``score:`` line explain and missing share, and the one ``note score:`` line of a related and
of a files-only explanation. Whole-command output is pinned by ``test_text_golden.py``."""

from __future__ import annotations

from typing import Any

import pytest

from vaultheat.core.query.votes import link_votes
from vaultheat.documents import vote_document
from vaultheat.render import (
    describe_votes,
    note_score_line,
    render_explain,
    render_missing,
    score_line,
)

COMP = {
    "raw": {"vector": 0.8125, "lexical": None, "heat": 0.25},
    "normalized": {"vector": 1.0, "lexical": None, "heat": 0.5},
    "weights": {"vector": 0.55, "lexical": 0.3, "heat": 0.15},
    "final": 0.625,
}
SCORE = "score: vector 0.812→1.000×0.55 + heat 0.250→0.500×0.15 = 0.6250"


def test_votes_read_in_words() -> None:
    scores = [("A", 0.9), ("B", 0.6), ("C", 0.3), ("D", 0.2)]
    links = {"A": {"T", "B"}, "B": {"T"}, "C": {"U", "Q"}, "D": {"T"}, "Q": {"U", "T"}}
    res = link_votes(scores, links, k=4, weight=2.0, query="Q")
    doc = vote_document(res.votes["T"], {"A": "Views", "B": "Bases syntax"})
    assert doc is not None
    text = describe_votes(doc)
    assert text.startswith("linked from 3 of your 4 closest notes: Views (0.90), Bases syntax")
    assert text.endswith("1.70 / 2.00 = 0.850 × 2 = +1.700")


def test_score_line_skips_the_parts_that_did_not_run() -> None:
    assert score_line(COMP) == SCORE


@pytest.mark.parametrize(
    ("args", "want"),
    [
        pytest.param((0.5, 0.5), "note score: best chunk 0.5000 = 0.5000", id="one chunk"),
        pytest.param(
            (0.5, 0.5625),
            "note score: best chunk 0.5000 + 0.0625 from further chunks = 0.5625",
            id="files-only, further chunks",
        ),
        pytest.param(
            (0.5, 0.5, [("votes", 0.0)]),
            "note score: content 0.5000 + votes 0.0000 = 0.5000",
            id="related, no votes",
        ),
        pytest.param(
            (0.5, 0.5625, [("votes", 0.25), ("link heat", 0.125)]),
            "note score: content 0.5625 (best chunk + 0.0625 from further chunks) + votes 0.2500"
            " + link heat 0.1250 = 0.9375",
            id="related, votes and heat",
        ),
    ],
)
def test_note_score_line(args: tuple[Any, ...], want: str) -> None:
    assert note_score_line(*args) == want


def test_both_explanations_write_the_same_lines() -> None:
    explain = {"path": "A.md", "score": 0.625, "query": "q", "components": COMP}
    assert render_explain(explain).splitlines() == ["A.md  score 0.6250", "query: q", SCORE]
    files_only = render_explain(explain, note_score=0.6875).splitlines()
    assert files_only[-1] == note_score_line(0.625, 0.6875)
    related = render_explain({**explain, "content_score": 0.625, "votes": None})
    assert related.splitlines()[3:] == [
        note_score_line(0.625, 0.625, [("votes", 0.0)]),
        "votes: none of the closest notes link here",
    ]
    missing = {
        "path": "A.md",
        "status": "ranked",
        "query": "q",
        "reason": "ranked below the shown results",
        "ranked_by": "meaning",
        "files_only": False,
        "components": COMP,
    }
    assert SCORE in render_missing(missing).splitlines()
