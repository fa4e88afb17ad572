"""Fit the relevance curves (core/query/relevance.py) on the shared eval sets with a real model.

Search: the best file of every labelled query (relevant = in ``relevant_files``) and of
hand-written off-topic queries (never relevant: nonsense must come out weak). The best result
only, because the sets label one or two notes per query: a rank-5 note at the same cosine is
often relevant but unlabelled, which would drag the curve down for everyone.
Related: every ``links-removed`` link-prediction query's top 10 (relevant = the note links to
it; notes link to many, so every rank is labelled well enough), over ``cosine + w × vote
share`` (what the ranking adds up, each part comparable across queries): ``w`` by 5-fold
cross-validated log loss, folds by query. Prints the fitted knots, the weight, and how the
thresholds split the labelled results (strong / good / weak: results and share linked; the
results with 12 or more voters apart), in sample and, with ``--check``, on other vaults'
points with both the new curve and the cosine-only one of 2026-12-01 (``COSINE_ONLY``).

  python bench/calibrate_relevance.py --vault ../shared/corpus/obsidian-help/en \
      --index-dir /tmp/x --queries ../shared/eval/obsidian-help-en.queries.jsonl \
      --linkpred ../shared/eval/obsidian-help-en.linkpred.jsonl --points /tmp/en.json
  python bench/calibrate_relevance.py --vault DENDRON --linkpred dendron-site.linkpred.jsonl \
      --points /tmp/dendron.json
  python bench/calibrate_relevance.py --from-points /tmp/en.json --check /tmp/dendron.json
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np

from vaultheat.core.query.relevance import GOOD, STRONG, Curve, fit_isotonic, vote_evidence
from vaultheat.core.requests import RelatedRequest, SearchRequest
from vaultheat.documents import vote_document
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


def related_points(engine: Engine, linkpred: Path) -> list[dict[str, Any]]:
    """One point per shown related result: its best chunk's cosine, the link votes it got
    (``share`` × ``hub_factor``, 0 when none), its final score and whether the note links to
    it; ``q`` numbers the query (cross-validation folds keep a query's results together)."""
    items = [it for it in load_linkpred_set(linkpred) if it.variant in (None, "links-removed")]
    queries, _ = render_items(engine, items, "links-removed")
    pts = []
    for qi, q in enumerate(queries):
        req = RelatedRequest(path=q.item.note, text=q.text, top=10)
        for h in engine.related(req).results:
            v = vote_document(h.votes, {}) or {}  # the votes object clients see
            linked = int(h.path in q.item.relevant)
            pts.append({"q": qi, "cosine": float(h.components["vector"] or 0.0),
                        "share": vote_evidence(v), "voters": int(v.get("count", 0)),
                        "score": float(h.score), "linked": linked})  # fmt: skip
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


def split(curve: Curve, pts: list[dict[str, Any]]) -> dict[str, Any]:
    """How the thresholds split labelled related points: results and share linked per label."""
    rel = np.array([curve(p["cosine"], p["share"]) for p in pts])
    y = np.array([p["linked"] for p in pts])
    out: dict[str, Any] = {}
    for name, lo, hi in (("strong", STRONG, 9), ("good", GOOD, STRONG), ("weak", -9, GOOD)):
        m = (rel >= lo) & (rel < hi)
        out[name] = {"results": int(m.sum()),
                     "linked_share": round(float(y[m].mean()), 3) if m.any() else None}  # fmt: skip
    voted = np.array([p["voters"] >= 12 for p in pts])  # "12 of your 20 closest notes"
    if voted.any():
        out["with_12_plus_voters"] = {
            "results": int(voted.sum()), "linked_share": round(float(y[voted].mean()), 3),
            "labels": {n: int(((rel >= lo) & (rel < hi) & voted).sum())
                       for n, lo, hi in (("strong", STRONG, 9), ("good", GOOD, STRONG),
                                         ("weak", -9, GOOD))}}  # fmt: skip
    out["log_loss"] = round(log_loss(rel, y), 4)
    return out


def log_loss(p: np.ndarray, y: np.ndarray) -> float:
    p = np.clip(p, 0.01, 0.99)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def fit_related(pts: list[dict[str, Any]], knots: int, folds: int = 5) -> tuple[Curve, list]:
    """The weight of the vote evidence by cross-validated log loss (folds by query), then the
    isotonic curve over ``cosine + weight × share`` on all points."""
    y = np.array([p["linked"] for p in pts])
    fold = np.array([p["q"] % folds for p in pts])
    grid = []
    for w in SHARE_WEIGHTS:
        x = np.array([p["cosine"] + w * p["share"] for p in pts])
        pred = np.zeros(len(pts))
        for f in range(folds):
            tr, te = fold != f, fold == f
            c = fit_isotonic(x[tr].tolist(), y[tr].tolist(), knots)
            pred[te] = [c(v) for v in x[te]]
        grid.append((round(log_loss(pred, y), 4), w))
    _, best = min(grid)
    x = [p["cosine"] + best * p["share"] for p in pts]
    c = fit_isotonic(x, y.tolist(), knots)
    return Curve(c.xs, c.ps, share_weight=best), grid


# the related curve of 2026-12-01 (cosine only, fitted with votes off), kept to compare
COSINE_ONLY = Curve(
    (0.4534, 0.5323, 0.5738, 0.6034, 0.6313, 0.657, 0.6838, 0.7134, 0.7464, 0.8075),
    (0.1739, 0.2295, 0.2475, 0.2477, 0.2676, 0.3042, 0.3119, 0.3857, 0.4013, 0.5548),
)
SHARE_WEIGHTS = (0.0, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 1.5, 2.0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vault", type=Path)
    ap.add_argument("--index-dir", type=Path)
    ap.add_argument("--queries", type=Path, help="a search set (optional: related only without)")
    ap.add_argument("--linkpred", type=Path)
    ap.add_argument("--points", type=Path, help="also write the raw points here (JSON)")
    ap.add_argument("--from-points", type=Path, help="fit on points written by --points")
    ap.add_argument("--check", type=Path, nargs="*", default=[],
                    help="--points files of other vaults: out-of-sample split")  # fmt: skip
    args = ap.parse_args()
    if args.from_points:
        data = json.loads(args.from_points.read_text())
        model = data.get("model", "?")
    else:
        if not (args.vault and args.linkpred):
            ap.error("--vault and --linkpred (or --from-points)")
        engine = Engine.open(args.vault, args.index_dir)
        model = engine.settings.embeddings.model
        search = search_points(engine, args.queries) if args.queries else []
        data = {"model": model, "search": search, "related": related_points(engine, args.linkpred)}
        if args.points:
            args.points.write_text(json.dumps(data))
    fits: list[dict[str, Any]] = []
    if data["search"]:
        fits.append(report("search", [tuple(p) for p in data["search"]], 8))
    curve, grid = fit_related(data["related"], 10)
    old = COSINE_ONLY
    checks = {str(f): json.loads(f.read_text())["related"] for f in args.check}
    fits.append({"kind": "related", "points": len(data["related"]),
                 "linked": sum(p["linked"] for p in data["related"]),
                 "cv_log_loss_by_share_weight": grid, "share_weight": curve.share_weight,
                 "xs": curve.xs, "ps": curve.ps,
                 "labels_in_sample": split(curve, data["related"]),
                 "labels_in_sample_cosine_only_curve": split(old, data["related"]),
                 "out_of_sample": {name: {"fitted": split(curve, pts),
                                          "cosine_only_curve": split(old, pts)}
                                   for name, pts in checks.items()}})  # fmt: skip
    print(json.dumps({"model": model, "fits": fits}, indent=1))


if __name__ == "__main__":
    main()
