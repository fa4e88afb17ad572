"""bench/stem_bm25.py: BM25 with and without the porter stemmer, notes at their best chunk."""

from __future__ import annotations

import pytest

from tests.bench.bench_scripts import load_bench

sb = load_bench("stem_bm25")

ROWS = [
    (1, "Garden/Tomatoes.md", "Tomatoes", "Growing tomatoes in raised beds, staking and pruning."),
    (2, "Garden/Tomatoes.md", "Tomatoes Blight", "Blight on the leaves: remove them early."),
    (3, "Coffee/V60.md", "V60", "Pour over recipe with paper filters."),
]


def test_porter_matches_a_singular_query_to_plural_text_and_plain_does_not() -> None:
    plain = sb.rank_notes(ROWS, sb.PLAIN, ["tomato staking", "x"])
    porter = sb.rank_notes(ROWS, sb.PORTER, ["tomato staking", "x"])
    assert plain[0] == ["Garden/Tomatoes.md"]  # found by "staking" alone
    assert porter[0] == ["Garden/Tomatoes.md"]
    assert sb.rank_notes(ROWS, sb.PLAIN, ["tomato"]) == [[]]
    assert sb.rank_notes(ROWS, sb.PORTER, ["tomato"]) == [["Garden/Tomatoes.md"]]
    assert plain[1] == [] and porter[1] == []  # no word of 3+ letters: nothing asked


def test_a_note_ranks_once_at_its_best_chunk() -> None:
    ranked = sb.rank_notes(ROWS, sb.PORTER, ["tomatoes blight filters"])[0]
    assert ranked[0] == "Garden/Tomatoes.md" and ranked.count("Garden/Tomatoes.md") == 1
    assert "Coffee/V60.md" in ranked


def test_reciprocal_rank_and_the_paired_difference() -> None:
    assert sb.reciprocal_rank(["a", "b", "c"], {"b"}) == 0.5
    assert sb.reciprocal_rank(["a"] * 10 + ["b"], {"b"}) == 0.0  # beyond the top 10
    mean, lo, hi = sb.paired([0.0, 0.5, 1.0, 1.0], [1.0, 0.5, 1.0, 0.5])
    assert mean == pytest.approx(0.125, abs=1e-12) and lo <= mean <= hi
