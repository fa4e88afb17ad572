"""Does "strong" mean the same thing on every vault? The search relevance label per vault.

``points`` runs a labelled search set (and the off-topic queries of ``calibrate_relevance.py``)
through the product's search (files only, as the search modal ranks notes) and writes, per
query, the top result's cosine, whether it is relevant / partial / a labelled wrong answer,
and the top 10 cosines. ``report`` reads several such files and prints, per vault and per
curve (the shipped one, a fit pooled over all vaults, and each vault's leave-one-vault-out
fit, the honest out-of-sample check), the label precision: of the top-1 results labelled
"strong", the share that is relevant (partial answers count 0, as in the eval's Hit@1), the
same for "good or better", how many relevant top-1 results read "strong", how many off-topic
queries read "strong", and the share of all top-10 results labelled "strong".

  python bench/label_precision.py points --vault /work/idx/waylonwalker/vault \\
      --queries ../shared/eval/waylonwalker.queries.jsonl --name waylonwalker --out /tmp/ww.json
  python bench/label_precision.py report /tmp/help-en.json /tmp/ww.json
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np
from calibrate_relevance import OFF_TOPIC

from vaultheat.core.query.relevance import CURVES, GOOD, STRONG, Curve, fit_isotonic, model_family
from vaultheat.core.requests import SearchRequest

KNOTS = 8  # as calibrate_relevance.py fits the search curve


def points(vault: Path, index_dir: Path | None, queries: Path, name: str) -> dict[str, Any]:
    from vaultheat.engine import Engine

    engine = Engine.open(vault, index_dir)
    rows: list[dict[str, Any]] = []
    lines = [json.loads(x) for x in queries.read_text(encoding="utf-8").splitlines() if x.strip()]
    items = [(o, False) for o in lines] + [({"query": q}, True) for q in OFF_TOPIC]
    for o, off in items:
        res = engine.search(SearchRequest(query=o["query"], top=10, files_only=True))
        cos = [float(h.components["vector"] or 0.0) for h in res.results]
        top = res.results[0].path if res.results else None
        rows.append({
            "query": o["query"], "off_topic": off, "category": o.get("category"),
            "top": top, "cosine": cos[0] if cos else 0.0, "top10": cos,
            "ranked_by": res.ranked_by,
            "relevant": top in o.get("relevant_files", []),
            "partial": top in o.get("partial_files", []),
            "ruled_out": top in o.get("ruled_out_files", []),
        })  # fmt: skip
    engine.close()
    e = engine.settings.embeddings
    return {"name": name, "model": e.model, "provider": e.provider, "rows": rows}


def fit(rows: list[dict[str, Any]]) -> Curve:
    """The search curve the way calibrate_relevance.py fits it: top-1 points, relevant = 1."""
    return fit_isotonic([r["cosine"] for r in rows], [int(r["relevant"]) for r in rows], KNOTS)


def label_of(curve: Curve, cosine: float) -> str:
    rel = round(curve(round(cosine, 6)), 2)  # as relevance.rate reads a result
    return "strong" if rel >= STRONG else "good" if rel >= GOOD else "weak"


def precision(curve: Curve, rows: list[dict[str, Any]]) -> dict[str, Any]:
    labelled = [r for r in rows if not r["off_topic"]]
    off = [r for r in rows if r["off_topic"]]
    strong = [r for r in labelled if label_of(curve, r["cosine"]) == "strong"]
    good = [r for r in labelled if label_of(curve, r["cosine"]) != "weak"]
    relevant = [r for r in labelled if r["relevant"]]
    top10 = [c for r in labelled for c in r["top10"]]
    return {
        "strong": f"{sum(r['relevant'] for r in strong)}/{len(strong)}",
        "strong_precision": _share(sum(r["relevant"] for r in strong), len(strong)),
        "strong_relevant_or_partial": _share(
            sum(r["relevant"] or r["partial"] for r in strong), len(strong)
        ),
        "good_or_better": f"{sum(r['relevant'] for r in good)}/{len(good)}",
        "good_or_better_precision": _share(sum(r["relevant"] for r in good), len(good)),
        "relevant_top1_read_strong": f"{sum(r in strong for r in relevant)}/{len(relevant)}",
        "off_topic_strong": f"{sum(label_of(curve, r['cosine']) == 'strong' for r in off)}/"
        f"{len(off)}",
        "top10_strong_share": _share(
            sum(label_of(curve, c) == "strong" for c in top10), len(top10)
        ),
        # calibration of the number itself over every top-1 point (off-topic ones too)
        "log_loss": round(log_loss(curve, rows), 4),
        "brier": round(brier(curve, rows), 4),
    }


def log_loss(curve: Curve, rows: list[dict[str, Any]]) -> float:
    p = np.clip([curve(r["cosine"]) for r in rows], 0.01, 0.99)
    y = np.array([int(r["relevant"]) for r in rows])
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def brier(curve: Curve, rows: list[dict[str, Any]]) -> float:
    p = np.array([curve(r["cosine"]) for r in rows])
    y = np.array([int(r["relevant"]) for r in rows])
    return float(np.mean((p - y) ** 2))


def cross_validated(pooled: list[dict[str, Any]], rows: list[dict[str, Any]]) -> dict[str, Any]:
    """``precision`` of the pooled fit with each of ``rows`` predicted by a fit without it
    (the shared off-topic rows are keyed by query, so each is left out everywhere)."""
    per_row = []
    for r in rows:
        rest = [
            p for p in pooled if p is not r and not (r["off_topic"] and p["query"] == r["query"])
        ]
        per_row.append((r, fit(rest)))
    # precision() reads one curve: fake it with each row's own by scoring rows one at a time
    parts = [precision(c, [r]) for r, c in per_row]
    labelled = [(r, c) for r, c in per_row if not r["off_topic"]]
    strong = [r for r, c in labelled if label_of(c, r["cosine"]) == "strong"]
    off = [r for r, c in per_row if r["off_topic"] and label_of(c, r["cosine"]) == "strong"]
    return {
        "strong": f"{sum(r['relevant'] for r in strong)}/{len(strong)}",
        "strong_precision": _share(sum(r["relevant"] for r in strong), len(strong)),
        "off_topic_strong": f"{len(off)}/{sum(r['off_topic'] for r in rows)}",
        "log_loss": round(float(np.mean([p["log_loss"] for p in parts])), 4),
        "brier": round(float(np.mean([p["brier"] for p in parts])), 4),
    }


def _share(n: int, d: int) -> float | None:
    return round(n / d, 3) if d else None


def report(files: list[Path]) -> dict[str, Any]:
    data = [json.loads(f.read_text(encoding="utf-8")) for f in files]
    models = {d["model"] for d in data}
    if len(models) != 1:
        raise SystemExit(f"points from more than one model: {sorted(models)}")
    shipped = CURVES[model_family(models.pop())]["search"]
    # the off-topic queries are the same in every file: pool them once
    pooled = [r for i, d in enumerate(data) for r in d["rows"] if i == 0 or not r["off_topic"]]
    curves: dict[str, Curve] = {"shipped": shipped, "pooled": fit(pooled)}
    out: dict[str, Any] = {"curves": {k: {"xs": c.xs, "ps": c.ps} for k, c in curves.items()}}
    for d in data:
        others = [r for e in data if e is not d for r in e["rows"] if not r["off_topic"]]
        others += [r for r in d["rows"] if r["off_topic"]]
        loo = fit(others) if others else None
        out["curves"][f"without {d['name']}"] = {"xs": loo.xs, "ps": loo.ps} if loo else None
        rows = d["rows"]
        out[d["name"]] = {
            "queries": sum(not r["off_topic"] for r in rows),
            "hit1": _share(
                sum(r["relevant"] for r in rows if not r["off_topic"]),
                sum(not r["off_topic"] for r in rows),
            ),
            "shipped": precision(shipped, rows),
            "pooled (in sample)": precision(curves["pooled"], rows),
            "fit without this vault (out of sample)": precision(loo, rows) if loo else None,
            "pooled, leave one query out": cross_validated(pooled, rows),
        }
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("points")
    p.add_argument("--vault", type=Path, required=True)
    p.add_argument("--index-dir", type=Path)
    p.add_argument("--queries", type=Path, required=True)
    p.add_argument("--name", required=True)
    p.add_argument("--out", type=Path, required=True)
    r = sub.add_parser("report")
    r.add_argument("files", type=Path, nargs="+")
    args = ap.parse_args()
    if args.cmd == "points":
        doc = points(args.vault, args.index_dir, args.queries, args.name)
        args.out.write_text(json.dumps(doc), encoding="utf-8")
        print(f"{args.name}: {len(doc['rows'])} queries -> {args.out}")
    else:
        out = report(args.files)
        for name, c in out.pop("curves").items():
            print(f"curve {name}: {json.dumps(c)}")
        for name, v in out.items():
            print(f"{name}: queries {v.pop('queries')}, Hit@1 {v.pop('hit1')}")
            for curve, p in v.items():
                print(f"  {curve}: {json.dumps(p)}")


if __name__ == "__main__":
    main()
