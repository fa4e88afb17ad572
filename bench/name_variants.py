"""Ranking variants side by side on one index, models loaded once (issue #22, items 2-3).

    .venv/bin/python bench/name_variants.py --vault /work/idx/waylonwalker/vault \
        --messy ../shared/eval/waylonwalker.queries.jsonl [--names 200] \
        --variant main='{"search.score_title": 0, "search.files_bonus_by_length": false}' \
        --variant title03='{"search.score_title": 0.3}' ... [--base main] [--out FILE]

    .venv/bin/python bench/name_variants.py --vault /work/idx/help-en/vault \
        --curated ../shared/eval/obsidian-help-en.queries.jsonl --variant ...

Each variant is a set of settings overrides over the index's own settings (query-time ones:
nothing is re-indexed, nothing is written). Per variant: ``--messy``: bench/eval_messy.py's
graded metrics and junk share, paired against BM25 and against ``--base``; ``--curated``: the
``vaultheat eval`` search metrics of the product's default configuration (files only, top 50),
paired against ``--base``; ``--names N``: bench/exact_titles.py's score (a sample of N unique
note names as queries, share whose note comes first).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import random
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def _load(name: str) -> Any:
    spec = importlib.util.spec_from_file_location(f"bench_{name}", HERE / f"{name}.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--vault", type=Path, required=True)
    p.add_argument("--messy", type=Path)
    p.add_argument("--curated", type=Path)
    p.add_argument("--names", type=int, default=0, help="unique names to try (0: none)")
    p.add_argument("--variant", action="append", default=[], help="NAME=JSON overrides")
    p.add_argument("--base", default="", help="the variant the others are paired against")
    p.add_argument("--out", type=Path)
    a = p.parse_args(argv)

    from vaultheat.core.requests import SearchRequest
    from vaultheat.engine import Engine
    from vaultheat.evaluation.harness import EvalConfig, run_search_eval
    from vaultheat.evaluation.metrics import mean_scores, paired_difference
    from vaultheat.evaluation.sets import load_search_set

    variants: dict[str, dict[str, Any]] = {}
    for v in a.variant:
        name, _, js = v.partition("=")
        variants[name] = json.loads(js) if js else {}

    def use(ov: dict[str, Any]) -> Engine:  # an engine with the variant's settings
        return engine.with_settings(settings.with_overrides(ov) if ov else settings)

    base = a.base or next(iter(variants))
    em = _load("eval_messy")
    engine = Engine.open(a.vault)
    settings = engine.settings
    doc: dict[str, Any] = {"vault": str(a.vault), "variants": variants, "base": base,
                           "load": os.getloadavg()}  # fmt: skip
    try:
        if a.messy:
            items = em.load_items(a.messy)
            bm = em.bm25_of_vault(a.vault)
            b_rows = [em.score(it, bm.rank(it.query)) for it in items]
            doc["bm25"] = em.summary(items, b_rows)
            rows: dict[str, list[dict[str, float]]] = {}
            rankings: dict[str, list[list[str]]] = {}
            chunk_mode: dict[str, dict[str, float]] = {}
            for name, ov in variants.items():
                ve = use(ov)
                rk = [[r.path for r in ve.search(SearchRequest(query=it.query, top=10,
                                                               files_only=True)).results]
                      for it in items]  # fmt: skip
                rankings[name] = rk
                # chunk mode: how much of the top 10 the most frequent note holds
                held = []
                for it in items:
                    res = ve.search(SearchRequest(query=it.query, top=10, files_only=False))
                    paths = [r.path for r in res.results]
                    held.append(max((paths.count(x) for x in set(paths)), default=0))
                chunk_mode[name] = {"mean_max_per_note": sum(held) / len(held),
                                    "queries_5_plus": sum(h >= 5 for h in held)}  # fmt: skip
                rows[name] = [em.score(it, r) for it, r in zip(items, rk, strict=True)]
            keys = (*em.METRICS, "junk_share")
            doc["messy"] = {
                name: {
                    "summary": em.summary(items, rs),
                    "vs_bm25": {k: em.paired(rs, b_rows, k) for k in keys},
                    "vs_base": {k: em.paired(rs, rows[base], k) for k in keys},
                    "rankings": rankings[name],
                    "chunk_mode": chunk_mode[name],
                }
                for name, rs in rows.items()
            }
            doc["ids"] = [it.id for it in items]
            print(f"BM25: {json.dumps(doc['bm25']['all'])}")
            for name, d in doc["messy"].items():
                s = d["summary"]["all"]
                print(
                    f"{name}: nDCG@5 {s['ndcg_at_5']:.3f} MRR {s['mrr']:.3f} "
                    f"Hit@1 {s['hit_at_1']:.3f} R@10 {s['recall_at_10']:.3f} "
                    f"junk {s['junk_share']:.3f}; chunk mode: {d['chunk_mode']}"
                )
                for rel in ("vs_bm25", "vs_base"):
                    print(f"   {rel}: " + "; ".join(f"{k} {em.fmt(v, k)}" for k, v in d[rel].items()
                                                    if k in ("ndcg_at_5", "mrr", "hit_at_1",
                                                             "junk_share")))  # fmt: skip
                for cat in ("keyword", "conceptual", "question", "cross-note"):
                    c = d["summary"].get(cat)
                    if c:
                        print(f"   {cat}: nDCG@5 {c['ndcg_at_5']:.3f} MRR {c['mrr']:.3f} "
                              f"Hit@1 {c['hit_at_1']:.3f} junk {c['junk_share']:.3f}")  # fmt: skip
        if a.curated:
            sitems = [it for it in load_search_set(a.curated)]
            configs = [EvalConfig(name, ov) for name, ov in variants.items()]
            results = {r.name: r for r in run_search_eval(engine, sitems, configs)}
            doc["curated"] = {}
            for name, r in results.items():
                m = {k: round(v, 4) for k, v in mean_scores(r.ranks).items()}
                vs = {k: paired_difference(r.ranks, results[base].ranks, k)
                      for k in ("ndcg_at_10", "mrr", "hit_at_1")}  # fmt: skip
                doc["curated"][name] = {"scores": m, "vs_base": vs}
                print(f"{name} (curated n={len(sitems)}): nDCG@10 {m['ndcg_at_10']:.3f} MRR "
                      f"{m['mrr']:.3f} Hit@1 {m['hit_at_1']:.3f}; vs {base}: "
                      + "; ".join(f"{k} {em.fmt(v, k)}" for k, v in vs.items()))  # fmt: skip
        if a.names:
            et = _load("exact_titles")
            names = et.unique_names(a.vault)
            if len(names) > a.names:
                names = sorted(random.Random(0).sample(names, a.names))
            doc["names"] = {}
            for name, ov in variants.items():
                ve = use(ov)
                first = 0
                misses = []
                for nm, path in names:
                    req = SearchRequest(query=nm, top=10, files_only=True)
                    got = [r.path for r in ve.search(req).results]
                    if got[:1] == [path]:
                        first += 1
                    else:
                        misses.append((nm, path, got[:3]))
                doc["names"][name] = {"n": len(names), "first": first / len(names),
                                      "misses": misses}  # fmt: skip
                print(f"{name}: exact names first {first}/{len(names)} = {first / len(names):.3f}")
    finally:
        engine.close()
    if a.out:
        a.out.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
