"""bench/label_precision.py: the label precision it reports is read off the curve it names."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.bench.bench_scripts import load_bench
from vaultheat.core.query.relevance import Curve

lp = load_bench("label_precision")
STEP = Curve((0.49, 0.51), (0.0, 1.0))  # strong at cosine >= 0.5, weak below


def row(cosine: float, relevant: bool, off: bool = False, q: str = "") -> dict[str, Any]:
    return {"query": q or f"q{cosine}", "off_topic": off, "cosine": cosine, "top10": [cosine],
            "relevant": relevant, "partial": False, "ruled_out": False}  # fmt: skip


def test_precision_counts_the_strong_top1_results_that_are_relevant() -> None:
    rows = [row(0.9, True), row(0.8, False), row(0.6, True), row(0.3, True),
            row(0.7, False, off=True), row(0.1, False, off=True)]  # fmt: skip
    p = lp.precision(STEP, rows)
    assert p["strong"] == "2/3" and p["strong_precision"] == 0.667
    assert p["relevant_top1_read_strong"] == "2/3"
    assert p["off_topic_strong"] == "1/2"
    assert p["top10_strong_share"] == 0.75


def test_report_fits_without_each_vault_and_pools_the_off_topic_queries_once(
    tmp_path: Path,
) -> None:
    off = [row(0.2, False, off=True, q="nonsense"), row(0.25, False, off=True, q="noise")]
    a = [row(0.9, True), row(0.7, True), row(0.4, False), *off]
    b = [row(0.95, True), row(0.6, False), row(0.3, False), *off]
    files = []
    for name, rows in (("a", a), ("b", b)):
        f = tmp_path / f"{name}.json"
        f.write_text(json.dumps({"name": name, "model": "all-MiniLM-L6-v2", "rows": rows}))
        files.append(f)
    out = lp.report(files)
    assert set(out["curves"]) == {"shipped", "pooled", "without a", "without b"}
    assert out["a"]["queries"] == 3 and out["a"]["hit1"] == 0.667
    # the vault left out is labelled by a curve fitted on the other one only
    without_a = out["curves"]["without a"]
    assert lp.fit(b).xs == tuple(without_a["xs"])
    assert out["b"]["pooled, leave one query out"]["off_topic_strong"] == "0/2"
