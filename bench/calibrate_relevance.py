"""Fit the relevance curves (core/relevance.py) on the shared eval sets with a real model.

Search: the best file of every labelled query (relevant = in ``relevant_files``) and of
hand-written off-topic queries (never relevant: nonsense must come out weak). The best result
only, because the sets label one or two notes per query: a rank-5 note at the same cosine is
often relevant but unlabelled, which would drag the curve down for everyone.
Related: every ``links-removed`` link-prediction query's top 10 (relevant = the note links to
it; notes link to many, so every rank is labelled well enough).
Prints the fitted knots as Python and how the thresholds split the labelled results.

  python bench/calibrate_relevance.py --vault ../shared/corpus/obsidian-help/en \
      --index-dir /tmp/x --queries ../shared/eval/obsidian-help-en.queries.jsonl \
      --linkpred ../shared/eval/obsidian-help-en.linkpred.jsonl
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from vaultheat.core.relevance import GOOD, STRONG, fit_isotonic
from vaultheat.core.requests import RelatedRequest, SearchRequest
from vaultheat.engine import Engine
from vaultheat.evaluation.harness import render_items
from vaultheat.evaluation.sets import load_linkpred_set, load_search_set

OFF_TOPIC = [
    "xyzzy qwertyuiop", "asdf jkl; zxcv", "lorem ipsum dolor sit amet", "best lasagna recipe",
    "how to change a bicycle tire", "symptoms of the flu in toddlers", "who won the 1998 world cup",
    "capital city of mongolia", "train schedule from paris to lyon", "how do I file my taxes",
    "knitting a wool scarf pattern", "random noise binary", "the mitochondria is the powerhouse",
    "cheap flights to tokyo", "quantum chromodynamics gluon field", "dog keeps barking at night",
    "fix a leaking kitchen faucet", "rules of cricket for beginners", "aaaaaaaaaaaa bbbbbbbbb",
    "medieval castle architecture",
]  # fmt: skip


def search_points(engine: Engine, queries: Path) -> list[tuple[float, int]]:
    pts = []
    items = [(it.query, set(it.relevant)) for it in load_search_set(queries)]
    items += [(q, set()) for q in OFF_TOPIC]
    for query, relevant in items:
        doc = engine.search(SearchRequest(query=query, top=1, files_only=True))
        for r in doc.results:
            pts.append((float(r.components["vector"] or 0.0), int(r.path in relevant)))
    return pts


def related_points(engine: Engine, linkpred: Path) -> list[tuple[float, int]]:
    items = [it for it in load_linkpred_set(linkpred) if it.variant in (None, "links-removed")]
    queries, _ = render_items(engine, items, "links-removed")
    pts = []
    for q in queries:
        req = RelatedRequest(path=q.item.note, text=q.text, top=10)
        for h in engine.related(req).results:
            pts.append((float(h.components["vector"] or 0.0), int(h.path in q.item.relevant)))
    return pts


def report(kind: str, pts: list[tuple[float, int]], knots: int) -> dict:
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    curve = fit_isotonic(xs, ys, knots)
    rel = np.array([curve(x) for x in xs])
    y = np.array(ys)
    split = {}
    for name, lo, hi in (("strong", STRONG, 9), ("good", GOOD, STRONG), ("weak", -9, GOOD)):
        m = (rel >= lo) & (rel < hi)
        split[name] = {"results": int(m.sum()), "relevant_share": round(float(y[m].mean()), 3)
                       if m.any() else None}  # fmt: skip
    return {"kind": kind, "points": len(pts), "relevant": int(y.sum()),
            "xs": curve.xs, "ps": curve.ps, "labels": split}  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vault", type=Path, required=True)
    ap.add_argument("--index-dir", type=Path)
    ap.add_argument("--queries", type=Path, required=True)
    ap.add_argument("--linkpred", type=Path, required=True)
    ap.add_argument("--points", type=Path, help="also write the raw points here (JSON)")
    args = ap.parse_args()
    engine = Engine.open(args.vault, args.index_dir)
    s_pts, r_pts = search_points(engine, args.queries), related_points(engine, args.linkpred)
    if args.points:
        args.points.write_text(json.dumps({"search": s_pts, "related": r_pts}))
    fits = [report("search", s_pts, 8), report("related", r_pts, 10)]
    print(json.dumps({"model": engine.settings.embeddings.model, "fits": fits}, indent=1))


if __name__ == "__main__":
    main()
