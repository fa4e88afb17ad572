"""``vaultheat eval``: argument handling and the report (aligned table or JSON).

Kept apart from the harness so the harness stays importable without argparse and the table
format can change without touching the measurement code. ``--sweep GRID.toml`` runs a parameter
sweep (``evaluation.sweep``) instead of the named configurations.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any

from vaultheat.core.language import detect
from vaultheat.engine import Engine
from vaultheat.errors import InputError
from vaultheat.evaluation.harness import (
    HUB_SHARE,
    canary,
    hub_free,
    hub_notes,
    in_subset,
    paired_rows,
    render_items,
    rerank_available,
    resolve_configs,
    run_related_eval,
    run_search_eval,
    split_of,
)
from vaultheat.evaluation.heldout import format_heldout, run_heldout
from vaultheat.evaluation.sets import (
    SearchItem,
    filter_split,
    filter_variant,
    load_linkpred_set,
    load_search_set,
    sample_items,
)
from vaultheat.evaluation.sweep import OBJECTIVE, ROW_METRICS, SPLITS, load_grid, run_sweep

SCHEMA = "vaultheat.eval.v1"
SWEEP_SCHEMA = "vaultheat.sweep.v1"
LEAK_NOTE = (
    "strict == lenient: the related pipeline blocks the query note's own chunks from the "
    "candidates and from relaying heat, and link votes read only links between other notes, "
    "so no edge or link touching the note is used"
)


def run_eval_command(args: argparse.Namespace) -> int:
    if getattr(args, "heldout_links", None) is not None:
        doc = heldout(args)
        text = json.dumps(doc, ensure_ascii=False) if args.json else format_heldout(doc)
        sys.stdout.write(text + "\n")
        sys.stdout.flush()
        return 0
    if not args.queries and not args.linkpred:
        raise InputError(
            "give --queries (search set) and/or --linkpred (link-prediction set), "
            "or --heldout-links SHARE"
        )
    sweeping = getattr(args, "sweep", None) is not None
    doc = sweep(args) if sweeping else evaluate(args)
    if args.json:
        sys.stdout.write(json.dumps(doc, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write((format_sweep(doc) if sweeping else format_report(doc)) + "\n")
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
            doc["paired"] = paired_rows(results)
            langs = query_languages(items)
            doc["search_by_language"] = [
                {**r.row(in_language(langs, lang)), "lang": lang}
                for lang in sorted(set(langs))
                for r in results
            ]
            doc["queries"] += [
                {
                    "task": "search",
                    "query": it.query,
                    "relevant": list(it.relevant),
                    "split": split_of(it.key),
                    "lang": langs[i],
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
            doc["paired"] = [*doc.get("paired", []), *paired_rows(lresults)]
            doc["related_subset_3_30"] = [
                r.row(lambda i: in_subset(queries[i].item)) for r in lresults
            ]
            view = engine.index_view()
            hubs = hub_notes(dict(view.links.in_degree), len(view.store.notes()))
            free, kept = hub_free(lresults, queries, hubs)
            doc["related_hub_free"] = [r.row() for r in free]
            doc["paired_hub_free"] = paired_rows(free)
            doc["hubs"] = {
                "share": HUB_SHARE,
                "notes": sorted(hubs),
                "queries_kept": len(kept),
            }
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


def heldout(args: argparse.Namespace) -> dict[str, Any]:
    """Held-out link prediction (``evaluation.heldout``); the first configuration is the
    baseline the others are paired with (default: ``default``)."""
    engine = Engine.open(args.vault, getattr(args, "index_dir", None))
    try:
        names = [n.strip() for n in args.configs.split(",") if n.strip()] if args.configs else None
        configs = resolve_configs(names or ["default"], engine.settings, rerank_available(engine))
        return run_heldout(engine, configs, share=args.heldout_links, seeds=args.seeds,
                           first_seed=args.seed, sample=args.sample)  # fmt: skip
    finally:
        engine.close()


def query_languages(items: list[SearchItem]) -> list[str]:
    """Each query's language: the set's ``lang`` field, else the detected one (core.language)."""
    return [it.lang or detect(it.query).code for it in items]


def in_language(langs: list[str], lang: str) -> Callable[[int], bool]:
    return lambda i: langs[i] == lang


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
    if search and len({r["lang"] for r in doc.get("search_by_language", [])}) > 1:
        rows = [{**r, "name": f"{r['lang']}: {r['name']}"} for r in doc["search_by_language"]]
        parts.append(format_table("search by query language (set's lang, else detected)", rows))
    if related:
        parts.append(
            format_table(
                f"related notes (link prediction, {doc['variant']}, mode {doc['mode']})", related
            )
        )
        parts.append(
            format_table("related notes, 3 <= |relevant| <= 30", doc["related_subset_3_30"])
        )
        if doc.get("related_hub_free"):
            hubs = doc["hubs"]
            parts.append(
                format_table(
                    f"related notes, hub-free (the {len(hubs['notes'])} most-linked notes, "
                    f"top {hubs['share']:.0%}, removed from rankings and labels)",
                    doc["related_hub_free"],
                )
            )
        if doc.get("skipped"):
            parts.append(f"skipped {len(doc['skipped'])} link queries (note missing or unindexed)")
    if doc.get("paired"):
        parts.append(format_paired(doc["paired"]))
    if doc.get("paired_hub_free"):
        parts.append("hub-free: " + format_paired(doc["paired_hub_free"]))
    if "canary" in doc:
        parts.append("canary: " + json.dumps(doc["canary"]))
    parts += [f"note: {n}" for n in doc["notes"]]
    return "\n\n".join(parts)


def format_paired(rows: list[dict[str, Any]]) -> str:
    lines = ["default vs baselines, query by query (nDCG@10; 95% paired bootstrap interval)"]
    for r in rows:
        verdict = "tie" if r["ci_low"] <= 0 <= r["ci_high"] else "better"
        if verdict != "tie" and r["delta"] < 0:
            verdict = "worse"
        lines.append(
            f"{r['task']:<8} vs {r['baseline']:<8} {r['delta']:+.3f} "
            f"[{r['ci_low']:+.3f}, {r['ci_high']:+.3f}]  {verdict:<6}  "
            f"{r['better']} better / {r['worse']} worse / {r['equal']} equal"
        )
    return "\n".join(lines)


# -- sweeps -----------------------------------------------------------------------------------


def sweep(args: argparse.Namespace) -> dict[str, Any]:
    clash = [
        flag
        for flag, on in (
            ("--configs", bool(args.configs)),
            ("--canary", bool(getattr(args, "canary", False))),
            ("--split", args.split != "all"),
        )
        if on
    ]
    if clash:
        raise InputError(
            "--sweep runs its own grid and reports the tune and holdout splits itself; "
            f"drop {', '.join(clash)}"
        )
    engine = Engine.open(args.vault, getattr(args, "index_dir", None))
    try:
        grid = load_grid(args.sweep, engine.settings)
        items = load_search_set(args.queries) if args.queries else []
        queries: list[Any] = []
        skipped: list[dict[str, str]] = []
        if args.linkpred:
            litems = filter_variant(load_linkpred_set(args.linkpred), args.variant)
            litems = sample_items(litems, args.sample, args.seed)
            queries, skipped = render_items(engine, litems, args.variant)
        report = run_sweep(engine, items, queries, grid, log=_progress)
        doc: dict[str, Any] = {
            "schema": SWEEP_SCHEMA,
            "vault": str(engine.paths.vault),
            "grid": {
                "file": str(args.sweep),
                "mode": grid.mode,
                "keys": {
                    k: [list(v) if isinstance(v, tuple) else v for v in vals]
                    for k, vals in grid.keys.items()
                },
            },
            "objective": OBJECTIVE,
            "tasks": [t for t, on in (("search", items), ("related", queries)) if on],
            "sets": {"search": len(items), "related": len(queries), "skipped": len(skipped)},
            "variant": (args.variant or "per line (default links-removed)") if queries else None,
            "similar_edges": report.similar_edges,
            "temp_indexes": report.temp_indexes,
            "seconds": report.seconds,
            "points": len(report.rows),
            "rows": report.rows,
            "skipped": skipped,
        }
        return doc
    finally:
        engine.close()


def _progress(message: str) -> None:
    sys.stderr.write(f"vaultheat: sweep: {message}\n")
    sys.stderr.flush()


SWEEP_HEAD = ("nDCG", "MRR", "hit@1", "R@10")


def format_sweep(doc: dict[str, Any]) -> str:
    groups = [(t, s) for t in doc["tasks"] for s in SPLITS]
    rows = doc["rows"]
    label_w = max([len("point"), *(len(r["label"]) for r in rows)])
    lead = f"{'rank':>4}  {'point':<{label_w}}  {'obj':>6}"
    group_w = len(SWEEP_HEAD) * 7 - 1
    tops, heads = [" " * len(lead)], [lead]
    for task, split in groups:
        n = rows[0][task][split]["n"] if rows else 0
        tops.append(f"{f'{task} {split} (n={n})':<{group_w}}")
        heads.append(" ".join(f"{h:>6}" for h in SWEEP_HEAD))
    lines = [
        f"sweep of {doc['vault']}: {doc['points']} points ({doc['grid']['mode']}) "
        f"in {doc['seconds']:.1f} s",
        f"objective: {doc['objective']}",
        "",
        " | ".join(tops),
        " | ".join(heads),
    ]
    for r in rows:
        obj = f"{r['objective']:>6.3f}" if r["objective"] is not None else f"{'-':>6}"
        cells = [f"{r['rank']:>4}  {r['label']:<{label_w}}  {obj}"]
        for task, split in groups:
            m = r[task][split]
            cells.append(" ".join(f"{m[k]:>6.3f}" for k in ROW_METRICS))
        lines.append(" | ".join(cells))
    edges = doc["similar_edges"]
    if edges.get("mode") != "stored":
        lines.append(
            f"\nsimilar edges derived in memory (k <= {edges['k_max']}, "
            f"floor >= {edges['floor_min']}); at the base settings {edges['base_edges_derived']} "
            f"derived vs {edges['base_edges_stored']} stored, {edges['base_edges_differing']} "
            "differ"
        )
    for t in doc["temp_indexes"]:
        lines.append(
            f"temporary index {t['chunking']}: {t['chunks']} chunks, {t['embedded']} embedded, "
            f"{t['seconds']} s (deleted)"
        )
    if doc["skipped"]:
        lines.append(f"skipped {len(doc['skipped'])} link queries (note missing or unindexed)")
    return "\n".join(line.rstrip() for line in lines)
