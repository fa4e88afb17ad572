"""Related-notes configurations scored on a reader's labels (issue #38: "related notes a reader
would pick").

The labels (``bench/data/reader_related/*.jsonl``, one JSON object a line: ``note``,
``grades`` {path: 0, 1 or 2} and ``complete``: true when every other note was graded, false
for a pool from ``bench/reader_pool.py``) say which notes a reader wants in a note's sidebar.
For each configuration (``bench/reader_pool.py``'s ``POOL`` unless ``--configs`` names some,
plus any ``--set NAME:section.key=value``), every labelled note's top 10 is scored
(``vaultheat.evaluation.graded``: graded nDCG@5 and @10, share of the first five graded 1 or 2,
the first result's grade, and the share of the top 10 that the labels cover), and each
configuration is paired with ``default`` note by note (95% bootstrap). With ``--unlinked`` the
sidebar's "unlinked only" view is scored instead: the notes the open note is linked with
(either way) leave both the rankings and the labels, so what is scored is what the reader
would discover.

    .venv/bin/python bench/reader_related.py --vault /tmp/bb \\
        --labels bench/data/reader_related/bluebook.jsonl [--configs default,coverage] \\
        [--set x:related.page_factor=0.5] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from heldout_links import parse_sets
from reader_pool import POOL, related_paths

from vaultheat.engine import Engine
from vaultheat.evaluation.graded import GRADED_METRICS, paired_values, score_ranking


def load_labels(path: Path) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]
    for r in rows:
        if not isinstance(r.get("note"), str) or not isinstance(r.get("grades"), dict):
            raise ValueError(f"{path}: every line needs 'note' and 'grades': {r!r}")
        if any(g not in (0, 1, 2) for g in r["grades"].values()):
            raise ValueError(f"{path}: grades are 0, 1 or 2 ({r['note']})")
    return rows


def grades_of(
    row: dict[str, Any], universe: list[str], linked: frozenset[str] = frozenset()
) -> dict[str, int]:
    """A complete row lists only grades above 0: every other note of the vault is a 0. Notes
    in ``linked`` are left out."""
    grades = {p: int(g) for p, g in row["grades"].items()}
    if row.get("complete"):
        for p in universe:
            if p != row["note"]:
                grades.setdefault(p, 0)
    return {p: g for p, g in grades.items() if p not in linked}


def score_configs(
    rankings: dict[str, dict[str, list[str]]], labels: dict[str, dict[str, int]]
) -> dict[str, Any]:
    """``rankings``: config -> note -> its related notes, best first. Means per config and each
    config paired with ``default`` on graded nDCG@10 and @5."""
    per: dict[str, dict[str, list[float]]] = {}
    for name, by_note in rankings.items():
        cols: dict[str, list[float]] = {m: [] for m in GRADED_METRICS}
        for note, grades in labels.items():
            for m, v in score_ranking(by_note.get(note, []), grades).items():
                cols[m].append(v)
        per[name] = cols
    means = {n: {m: round(sum(v) / len(v), 4) if v else 0.0 for m, v in cols.items()}
             for n, cols in per.items()}  # fmt: skip
    paired: dict[str, dict[str, Any]] = {}
    if "default" in per:
        for name, cols in per.items():
            if name != "default":
                paired[name] = {m: paired_values(cols[m], per["default"][m])
                                for m in ("ndcg_at_10", "ndcg_at_5")}  # fmt: skip
    return {"notes": len(labels), "means": means, "paired_with_default": paired}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--vault", type=Path, required=True)
    ap.add_argument("--labels", type=Path, required=True)
    ap.add_argument("--configs", default="", help="comma-separated names of POOL (default all)")
    ap.add_argument("--set", dest="sets", action="append", default=[],
                    help="NAME:section.key=value (repeatable)")  # fmt: skip
    ap.add_argument("--top", type=int, default=10)
    ap.add_argument("--unlinked", action="store_true", help="score the unlinked-only view")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)

    configs = {n: dict(POOL[n]) for n in (args.configs.split(",") if args.configs else POOL)}
    for name, ov in parse_sets(args.sets).items():
        configs.setdefault(name, {}).update(ov)
    configs.setdefault("default", {})
    rows = load_labels(args.labels)
    rankings: dict[str, dict[str, list[str]]] = {}
    universe: list[str] = []
    linked: dict[str, frozenset[str]] = {}
    for name, ov in configs.items():
        engine = Engine.open(args.vault, None, overrides=ov or None)
        try:
            if not universe:
                view = engine.index_view()
                universe = sorted(p for p, n in view.store.notes().items() if not n.excluded)
                links = view.links
                linked = {r["note"]: links.out_links.get(r["note"], frozenset())
                          | frozenset(links.linking_to(r["note"])) for r in rows}  # fmt: skip
            rankings[name] = {r["note"]: related_paths(engine, r["note"], args.top, args.unlinked)
                              for r in rows}  # fmt: skip
        finally:
            engine.close()
    labels = {r["note"]: grades_of(r, universe, linked[r["note"]] if args.unlinked
                                   else frozenset()) for r in rows}  # fmt: skip
    doc = {"vault": str(args.vault), "labels": str(args.labels), "configs": configs,
           "unlinked": args.unlinked,
           **score_configs(rankings, labels)}  # fmt: skip
    view_name = "unlinked only" if args.unlinked else "every note"
    print(f"{args.labels.name}: {doc['notes']} notes, top {args.top}, {view_name}")
    print(f"  {'config':<16}" + "".join(f"{m:>14}" for m in GRADED_METRICS))
    for name, m in doc["means"].items():
        print(f"  {name:<16}" + "".join(f"{m[k]:>14.3f}" for k in GRADED_METRICS))
    for name, p in doc["paired_with_default"].items():
        for metric, d in p.items():
            print(f"  {name} - default {metric}: {d['delta']:+.3f} [{d['ci_low']:+.3f}, "
                  f"{d['ci_high']:+.3f}] better {d['better']}, worse {d['worse']}")  # fmt: skip
    if args.json:
        args.json.write_text(json.dumps(doc, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
