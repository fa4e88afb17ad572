"""Ranking metrics over 1-based ranks of the relevant items (binary relevance).

Why ranks and not ranked lists: every metric here is a function of where the relevant items
landed, so the harness stores one small list per query and configuration, the JSON report
carries exactly what the numbers were computed from, and anyone can recompute them.
A relevant item that was not retrieved has rank ``None``.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

Ranks = Sequence[int | None]

METRICS = ("hit_at_1", "recall_at_5", "recall_at_10", "mrr", "ndcg_at_10")


def ranks_of(ranking: Sequence[str], relevant: Sequence[str]) -> list[int | None]:
    """1-based rank of each relevant item in ``ranking`` (None when absent), in relevant order."""
    pos: dict[str, int] = {}
    for i, item in enumerate(ranking, start=1):
        pos.setdefault(item, i)
    return [pos.get(r) for r in relevant]


def hit_at(ranks: Ranks, k: int) -> float:
    return 1.0 if any(r is not None and r <= k for r in ranks) else 0.0


def recall_at(ranks: Ranks, k: int) -> float:
    if not ranks:
        return 0.0
    return sum(1 for r in ranks if r is not None and r <= k) / len(ranks)


def reciprocal_rank(ranks: Ranks) -> float:
    found = [r for r in ranks if r is not None]
    return 1.0 / min(found) if found else 0.0


def ndcg_at(ranks: Ranks, k: int) -> float:
    """Binary-gain nDCG: DCG = sum 1/log2(rank+1) over relevant ranks <= k, over the ideal DCG
    of min(|relevant|, k) items at the top."""
    ideal = sum(1.0 / math.log2(i + 1) for i in range(1, min(len(ranks), k) + 1))
    if ideal == 0:
        return 0.0
    dcg = sum(1.0 / math.log2(r + 1) for r in ranks if r is not None and r <= k)
    return dcg / ideal


def score_query(ranks: Ranks) -> dict[str, float]:
    return {
        "hit_at_1": hit_at(ranks, 1),
        "recall_at_5": recall_at(ranks, 5),
        "recall_at_10": recall_at(ranks, 10),
        "mrr": reciprocal_rank(ranks),
        "ndcg_at_10": ndcg_at(ranks, 10),
    }


def mean_scores(per_query: Sequence[Ranks]) -> dict[str, float]:
    """Macro average of every metric (0.0 for an empty set)."""
    out = dict.fromkeys(METRICS, 0.0)
    if not per_query:
        return out
    for ranks in per_query:
        for name, value in score_query(ranks).items():
            out[name] += value
    return {name: total / len(per_query) for name, total in out.items()}


def percentile(values: Sequence[float], q: float) -> float:
    """Linear-interpolation percentile (numpy's default), 0.0 for no values."""
    if not values:
        return 0.0
    xs = sorted(values)
    pos = (len(xs) - 1) * q / 100.0
    lo = math.floor(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def paired_difference(
    a: Sequence[Ranks],
    b: Sequence[Ranks],
    metric: str = "ndcg_at_10",
    *,
    resamples: int = 2000,
    seed: int = 0,
) -> dict[str, float | int]:
    """``a`` minus ``b`` on the same queries: mean difference of ``metric``, a 95% paired
    bootstrap interval, and how many queries got better, worse or stayed equal.

    Small eval sets make small differences noise; this says which ones are (an interval that
    contains 0 is a tie, whatever the sign of the mean).
    """
    if len(a) != len(b):
        raise ValueError("paired_difference needs the same queries on both sides")
    return paired_values(
        [score_query(x)[metric] for x in a],
        [score_query(y)[metric] for y in b],
        resamples=resamples,
        seed=seed,
    )


def paired_values(
    a: Sequence[float], b: Sequence[float], *, resamples: int = 2000, seed: int = 0
) -> dict[str, float | int]:
    """``a`` minus ``b``, one value per query on each side (any metric): mean difference, a 95%
    paired bootstrap interval, and how many queries got better, worse or stayed equal."""
    if len(a) != len(b):
        raise ValueError("paired_values needs the same queries on both sides")
    diffs = [x - y for x, y in zip(a, b, strict=True)]
    out: dict[str, float | int] = {
        "delta": 0.0,
        "ci_low": 0.0,
        "ci_high": 0.0,
        "better": sum(d > 1e-12 for d in diffs),
        "worse": sum(d < -1e-12 for d in diffs),
        "equal": sum(abs(d) <= 1e-12 for d in diffs),
        "n": len(diffs),
    }
    if not diffs:
        return out
    rng = random.Random(seed)
    n = len(diffs)
    means = sorted(sum(diffs[rng.randrange(n)] for _ in range(n)) / n for _ in range(resamples))
    out["delta"] = round(sum(diffs) / n, 4)
    out["ci_low"] = round(means[int(0.025 * (resamples - 1))], 4)
    out["ci_high"] = round(means[int(0.975 * (resamples - 1))], 4)
    return out
