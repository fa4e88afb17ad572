"""Reciprocal Rank Fusion of the retrievers' rankings (vector, lexical, query variants).

RRF uses ranks only, so retrievers with incomparable scores (cosine vs BM25) fuse without
calibration; ``k`` (60 by convention) flattens the head so one retriever's first place cannot
drown agreement between the others. Weights scale a retriever's votes (lexical counts half by
default). Ranks are 1-based positions; a repeated id in one ranking counts once, at its best rank.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence


def rrf(
    rankings: Sequence[Sequence[int]], *, k: int = 60, weights: Sequence[float] | None = None
) -> dict[int, float]:
    """score(d) = sum over rankings i containing d of weights[i] / (k + rank_i(d))."""
    if k < 0:
        raise ValueError(f"rrf k must not be negative, got {k}")
    if weights is None:
        weights = [1.0] * len(rankings)
    if len(weights) != len(rankings):
        raise ValueError(f"{len(weights)} weights for {len(rankings)} rankings")
    parts: dict[int, list[float]] = {}
    for ranking, weight in zip(rankings, weights, strict=True):
        seen: set[int] = set()
        for rank, doc in enumerate(ranking, start=1):
            if doc in seen:
                continue
            seen.add(doc)
            parts.setdefault(doc, []).append(weight / (k + rank))
    # fsum is exact, so the score (and every tie) is independent of the rankings' order
    return {doc: math.fsum(p) for doc, p in parts.items()}


def ranked(scores: Mapping[int, float]) -> list[int]:
    """Ids by score descending, ties by lower id: the same input always gives the same order."""
    return sorted(scores, key=lambda doc: (-scores[doc], doc))
