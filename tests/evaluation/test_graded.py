"""Graded metrics: a reader's 0 / 1 / 2 over a sidebar."""

from __future__ import annotations

import math

import pytest

from vaultheat.evaluation.graded import good_at, graded_ndcg, judged_at, score_ranking
from vaultheat.evaluation.metrics import paired_difference, paired_values

GRADES = {"a": 2, "b": 1, "c": 0, "d": 2}


def test_ideal_order_scores_one() -> None:
    assert graded_ndcg(["a", "d", "b"], GRADES, 10) == pytest.approx(1.0)


def test_gain_is_the_grade_and_discount_the_rank() -> None:
    got = graded_ndcg(["b", "a"], GRADES, 10)
    dcg = 1 / math.log2(2) + 2 / math.log2(3)
    ideal = 2 / math.log2(2) + 2 / math.log2(3) + 1 / math.log2(4)
    assert got == pytest.approx(dcg / ideal, abs=1e-12)


def test_unjudged_and_zero_grades_gain_nothing() -> None:
    assert graded_ndcg(["x", "c"], GRADES, 10) == 0.0
    assert graded_ndcg(["a"], {"a": 0}, 5) == 0.0  # nothing to find: 0, not a division error


def test_cutoff_limits_both_the_ranking_and_the_ideal() -> None:
    # at k=1 only the first slot counts, against the best single grade (2)
    assert graded_ndcg(["b", "a", "d"], GRADES, 1) == pytest.approx(0.5)


def test_good_at_counts_empty_slots_as_not_good() -> None:
    assert good_at(["a", "c", "b"], GRADES, 5) == pytest.approx(2 / 5)


def test_judged_share() -> None:
    assert judged_at(["a", "x", "y", "c"], GRADES, 10) == pytest.approx(0.5)
    assert judged_at([], GRADES, 10) == 1.0


def test_score_ranking_first_grade() -> None:
    assert score_ranking(["d", "c"], GRADES)["first_grade"] == 2.0
    assert score_ranking([], GRADES)["first_grade"] == 0.0


def test_paired_values_counts_and_interval() -> None:
    d = paired_values([1.0, 0.5, 0.2], [0.5, 0.5, 0.4])
    assert (d["better"], d["worse"], d["equal"], d["n"]) == (1, 1, 1, 3)
    assert d["delta"] == pytest.approx(0.1, abs=1e-4)
    assert d["ci_low"] <= d["delta"] <= d["ci_high"]
    with pytest.raises(ValueError):
        paired_values([1.0], [])


def test_paired_difference_still_pairs_rank_metrics() -> None:
    d = paired_difference([[1], [None]], [[2], [None]], "mrr")
    assert d["delta"] == pytest.approx(0.25, abs=1e-4)
    assert (d["better"], d["equal"]) == (1, 1)
