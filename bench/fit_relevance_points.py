"""Fit one relevance curve pair from the raw points of several `calibrate_relevance.py` runs.

A model meant for many languages is calibrated on several vaults at once (e.g. the multilingual
model on help/en, its cross-lingual questions and help/zh): run ``calibrate_relevance.py
--points FILE`` once per vault, then

    python bench/fit_relevance_points.py --search A.json B.json --related B.json C.json \
        [--search-knots 8] [--related-knots 10]

prints the pooled fit the way ``calibrate_relevance.py`` prints one vault's (knots as Python,
and how the strong / good / weak labels split the labelled results), plus each file's counts.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from calibrate_relevance import report


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--search", nargs="*", type=Path, default=[], help="search points from")
    ap.add_argument("--related", nargs="*", type=Path, default=[], help="related points from")
    ap.add_argument("--search-knots", type=int, default=8)
    ap.add_argument("--related-knots", type=int, default=10)
    args = ap.parse_args(argv)
    pooled: dict[str, list[tuple[float, int]]] = {"search": [], "related": []}
    sources = []
    for kind, paths in (("search", args.search), ("related", args.related)):
        for path in paths:
            data = json.loads(path.read_text(encoding="utf-8"))
            pts = [(float(x), int(y)) for x, y in data.get(kind, [])]
            pooled[kind] += pts
            sources.append(
                {
                    "file": str(path),
                    "kind": kind,
                    "points": len(pts),
                    "relevant": sum(y for _, y in pts),
                }
            )
    fits = [
        report(kind, pts, args.search_knots if kind == "search" else args.related_knots)
        for kind, pts in pooled.items()
        if pts
    ]
    print(json.dumps({"sources": sources, "fits": fits}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
