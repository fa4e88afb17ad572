"""bench/vector_recall.py: recall of the exact top k and the exact top k itself."""

from __future__ import annotations

import numpy as np

from tests.bench.bench_scripts import load_bench

vr = load_bench("vector_recall")


def test_recall_rows_is_the_share_of_the_exact_top_k_found() -> None:
    assert vr.recall_rows([[1, 2, 3, 4], [5, 6]], [[4, 3, 9, 8], [6, 5]]) == [0.5, 1.0]
    assert vr.recall_rows([[]], [[]]) == [1.0]  # nothing to find: nothing missed


def test_exact_top_is_by_cosine_not_by_dot_product() -> None:
    matrix = np.array([[1.0, 0.0], [0.0, 1.0], [0.6, 0.8]], dtype=np.float32)
    labels = np.array([10, 20, 30])
    query = np.array([3.0, 4.0], dtype=np.float32)  # not unit length: same direction as row 3
    assert set(vr.exact_top(matrix, labels, query, 2)) == {30, 20}
    assert len(vr.exact_top(matrix, labels, query, 9)) == 3  # k is clamped to the vectors


def test_summary_reports_full_recall_share_and_p95() -> None:
    s = vr.summary([1.0, 0.5, 1.0, 1.0], [0.001, 0.002, 0.003, 0.004])
    assert s["recall_mean"] == 0.875 and s["recall_min"] == 0.5
    assert s["full_recall_share"] == 0.75
    assert s["ms_median"] == 2.5 and s["ms_p95"] == 4.0
