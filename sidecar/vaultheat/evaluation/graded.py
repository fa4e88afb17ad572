"""Ranking metrics over graded labels: a reader's 0 / 1 / 2 for what a sidebar shows.

Link prediction (metrics.py) scores a related-notes list by the links an author wrote; a
reader's labels (bench/reader_pool.py pools the candidates, bench/reader_related.py scores
configurations on them) grade each shown note: 2 = clearly belongs in the sidebar, 1 = of some
use, 0 = not. A pooled set grades only what some pooled configuration showed, so a ranking
may hold unjudged notes: they count as 0 here, and ``judged_at`` says how much of a ranking
the labels cover (a configuration far from the pool scores low for want of labels, not
necessarily of quality).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from vaultheat.evaluation.metrics import paired_values

Grades = Mapping[str, int]

__all__ = ["good_at", "graded_ndcg", "judged_at", "paired_values", "score_ranking"]

GRADED_METRICS = ("ndcg_at_5", "ndcg_at_10", "good_at_5", "first_grade", "judged_at_10")


def graded_ndcg(ranking: Sequence[str], grades: Grades, k: int) -> float:
    """nDCG@k with the grade as the gain (linear): DCG = sum grade / log2(rank + 1) over the
    first k, over the DCG of the k highest grades in the labels. 0.0 when nothing is graded
    above 0 (no ranking can do better)."""
    ideal_gains = sorted((g for g in grades.values() if g > 0), reverse=True)[:k]
    ideal = sum(g / math.log2(i + 2) for i, g in enumerate(ideal_gains))
    if ideal == 0:
        return 0.0
    dcg = sum(grades.get(p, 0) / math.log2(i + 2) for i, p in enumerate(ranking[:k]))
    return dcg / ideal


def good_at(ranking: Sequence[str], grades: Grades, k: int) -> float:
    """Share of the first k slots holding a note graded at least 1 (an empty slot counts as
    not good: a sidebar of 3 results out of a possible 10 shows less)."""
    return sum(1 for p in ranking[:k] if grades.get(p, 0) >= 1) / k


def judged_at(ranking: Sequence[str], grades: Grades, k: int) -> float:
    """Share of the first k results that the labels grade (1.0 for an empty ranking)."""
    top = ranking[:k]
    return sum(1 for p in top if p in grades) / len(top) if top else 1.0


def score_ranking(ranking: Sequence[str], grades: Grades) -> dict[str, float]:
    return {
        "ndcg_at_5": graded_ndcg(ranking, grades, 5),
        "ndcg_at_10": graded_ndcg(ranking, grades, 10),
        "good_at_5": good_at(ranking, grades, 5),
        "first_grade": float(grades.get(ranking[0], 0)) if ranking else 0.0,
        "judged_at_10": judged_at(ranking, grades, 10),
    }
