"""Coverage: how much of the open note another note speaks to, for related notes.

A related note's content score is its best chunk's score, plus a little for further strong
chunks (``search.note_scores``): a note ranks on its one best-matching section. So a section on
a side topic can lead the sidebar: the example vault's Composting has a "Coffee leftovers"
section, and V60 Pour Over came first in it, above every garden note. Coverage reads the two
notes chunk by chunk (late interaction, as ColBERT's MaxSim and BERTScore do). With the open
note's chunks q_1..q_m (m >= 2), a candidate's chunks c_1..c_n and s_ij = cos(q_i, c_j):

    recall     R = mean over i of max_j s_ij          each section of the open note, answered
    precision  P = mean of the m largest max_i s_ij   the candidate's m best chunks, answered
    coverage     = 2PR / (P + R)

Precision reads only the candidate's m best chunks, so a long note is not marked down for its
length (a short note's sidebar may rightly show a long article); over all n chunks it cost
waylonwalker held-out link recall (its short notes link long posts). The caller
(``core/query/related.py``) adds ``experimental.related_score_coverage`` x coverage to the
content score, off by default (it cost link prediction on the messy vaults: docs/eval.md
"Coverage"), and leaves it out where it says nothing or misleads: an open note of one chunk
(its best match is the vector part already), a digest or a list page as the candidate (it
quotes many notes, so it covers each of them: with coverage a yearly digest came first in
bluebook sidebars), and a note read in the second vector space (its vectors there are not
compared here).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

MIN_CHUNKS = 2  # an open note of fewer chunks gets no coverage


def coverages(qmat: np.ndarray, notes: Sequence[np.ndarray]) -> list[float]:
    """The coverage of the open note (``qmat``: its chunk vectors, one per row, unit length) by
    each of ``notes`` (each one candidate's chunk vectors, one per row), in order, in [0, 1]
    (a negative recall or precision counts as 0); 0.0 for a candidate without chunks. One
    product for all candidates: ``np.einsum``, not ``@``, for the reason ``best_chunks`` in
    ``core/query/votes.py`` gives (no BLAS threads for a small product)."""
    q = np.asarray(qmat, dtype=np.float32)
    sizes = [len(m) for m in notes]
    if not sizes or not sum(sizes) or not len(q):
        return [0.0] * len(sizes)
    sims = np.einsum("ij,kj->ik", np.concatenate([m for m in notes if len(m)]), q)
    out: list[float] = []
    start = 0
    for size in sizes:
        if not size:
            out.append(0.0)
            continue
        block = sims[start : start + size]  # the candidate's chunks x the open note's chunks
        start += size
        recall = max(0.0, float(block.max(axis=0).mean()))
        best = np.sort(block.max(axis=1))[::-1][: len(q)]
        precision = max(0.0, float(best.mean()))
        total = recall + precision
        out.append(2 * recall * precision / total if total > 0 else 0.0)
    return out
