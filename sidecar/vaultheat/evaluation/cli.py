"""``vaultheat eval``: argument handling and the report (aligned table or JSON).

Kept apart from the harness so the harness stays importable without argparse and the table
format can change without touching the measurement code.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from vaultheat.engine import Engine
from vaultheat.errors import InputError
from vaultheat.evaluation.harness import (
    canary,
    in_subset,
    render_items,
    rerank_available,
    resolve_configs,
    run_related_eval,
    run_search_eval,
    split_of,
)
from vaultheat.evaluation.sets import (
    filter_split,
    filter_variant,
    load_linkpred_set,
    load_search_set,
    sample_items,
)

SCHEMA = "vaultheat.eval.v1"
LEAK_NOTE = (
    "strict == lenient: the related pipeline blocks the query note's own chunks from the "
    "candidates and from relaying heat, so no edge touching the note is used"
)


def run_eval_command(args: argparse.Namespace) -> int:
    if not args.queries and not args.linkpred:
        raise InputError("give --queries (search set) and/or --linkpred (link-prediction set)")
    doc = evaluate(args)
    if args.json:
        sys.stdout.write(json.dumps(doc, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(format_report(doc) + "\n")
    sys.stdout.flush()
    return 0


def evaluate(args: argparse.Namespace) -> dict[str, Any]:
    engine = Engine.open(args.vault, getattr(args, "index_dir", None))
    try:
        names = [n.strip() for n in args.configs.split(",") if n.strip()] if args.configs else None
        configs = resolve_configs(names, engine.settings, rerank_available(engine))
        doc: dict[str, Any] = {
            "schema": SCHEMA,
            "vault": str(engine.paths.vault),
            "split": args.split,
            "configs": [],
            "queries": [],
            "notes": [],
        }
        if args.queries:
            items = filter_split(load_search_set(args.queries), args.split)
            results = run_search_eval(engine, items, configs)
            doc["configs"] += [r.row() for r in results]
            doc["queries"] += [
                {
                    "task": "search",
                    "query": it.query,
                    "relevant": list(it.relevant),
                    "split": split_of(it.key),
                    "ranks": {r.name: r.ranks[i] for r in results},
                }
                for i, it in enumerate(items)
            ]
        if args.linkpred:
            litems = filter_variant(load_linkpred_set(args.linkpred), args.variant)
            litems = filter_split(litems, args.split)
            litems = sample_items(litems, args.sample, args.seed)
            queries, skipped = render_items(engine, litems, args.variant)
            lresults = run_related_eval(engine, queries, configs)
            doc["configs"] += [r.row() for r in lresults]
            doc["related_subset_3_30"] = [
                r.row(lambda i: in_subset(queries[i].item)) for r in lresults
            ]
            doc["queries"] += [
                {
                    "task": "related",
                    "note": q.item.note,
                    "relevant": list(q.item.relevant),
                    "split": split_of(q.item.key),
                    "ranks": {r.name: r.ranks[i] for r in lresults},
                }
                for i, q in enumerate(queries)
            ]
            doc.update(
                variant=args.variant or "per line (default links-removed)",
                mode=args.mode,
                skipped=skipped,
            )
            doc["notes"].append(LEAK_NOTE)
            if getattr(args, "canary", False):
                doc["canary"] = canary(
                    engine, litems, seed=args.seed, variant=args.variant or "links-removed"
                )
        doc["notes"] += sorted({f"{c.name}: {c.note}" for c in configs if c.note})
        return doc
    finally:
        engine.close()


COLUMNS = (
    "hit_at_1",
    "recall_at_5",
    "recall_at_10",
    "mrr",
    "ndcg_at_10",
    "latency_ms_p50",
    "latency_ms_p95",
    "n",
)
HEAD = ("hit@1", "R@5", "R@10", "MRR", "nDCG@10", "p50 ms", "p95 ms", "n")


def format_table(title: str, rows: list[dict[str, Any]]) -> str:
    name_w = max([len("config"), *(len(r["name"]) for r in rows)])
    lines = [title, f"{'config':<{name_w}}  " + "  ".join(f"{h:>8}" for h in HEAD)]
    for r in rows:
        cells = [f"{r[c]:>8}" if c == "n" else f"{r[c]:>8.3f}" for c in COLUMNS[:5]]
        cells += [f"{r[c]:>8.1f}" for c in COLUMNS[5:7]] + [f"{r['n']:>8}"]
        lines.append(f"{r['name']:<{name_w}}  " + "  ".join(cells))
    return "\n".join(lines)


def format_report(doc: dict[str, Any]) -> str:
    parts = [f"vault {doc['vault']}  split {doc['split']}"]
    search = [r for r in doc["configs"] if r["task"] == "search"]
    related = [r for r in doc["configs"] if r["task"] == "related"]
    if search:
        parts.append(format_table("search (file ranking)", search))
    if related:
        parts.append(
            format_table(
                f"related notes (link prediction, {doc['variant']}, mode {doc['mode']})", related
            )
        )
        parts.append(
            format_table("related notes, 3 <= |relevant| <= 30", doc["related_subset_3_30"])
        )
        if doc.get("skipped"):
            parts.append(f"skipped {len(doc['skipped'])} link queries (note missing or unindexed)")
    if "canary" in doc:
        parts.append("canary: " + json.dumps(doc["canary"]))
    parts += [f"note: {n}" for n in doc["notes"]]
    return "\n\n".join(parts)
