"""Strict related notes (links removed) under configurations made on the command line, and a
paired comparison of two such runs (two indexes of one vault, e.g. two models or set-ups).

    .venv/bin/python bench/strict_configs.py run --vault /tmp/ja \\
        --linkpred ../shared/eval/obsidian-help-ja.linkpred.jsonl --out ja.json \\
        --set nodamp:related.vote_hub_degree=0 --set nodamp:related.vote_linked_hub_degree=0 \\
        --configs default,nodamp
    .venv/bin/python bench/strict_configs.py pair preset.json two.json [--configs default]

``run`` prints MRR and nDCG@10 per configuration and writes each note's ranks of its relevant
notes (the set's order) to ``--out``; ``pair`` prints B minus A per configuration with the 95%
paired bootstrap (``vaultheat.evaluation.metrics.paired_difference``). ``vaultheat eval`` has no
way to name a configuration by its settings; this is that, for the strict set only.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from heldout_links import parse_sets


def run(args: argparse.Namespace) -> int:
    from vaultheat.engine import Engine
    from vaultheat.evaluation.cli import filter_variant, load_linkpred_set
    from vaultheat.evaluation.harness import EvalConfig, render_items, run_related_eval
    from vaultheat.evaluation.metrics import mean_scores

    made = parse_sets(args.sets)
    engine = Engine.open(args.vault, args.index)
    try:
        items = filter_variant(load_linkpred_set(args.linkpred), "links-removed")
        queries, _ = render_items(engine, items, "links-removed")
        out: dict[str, Any] = {}
        for name in [n.strip() for n in args.configs.split(",") if n.strip()]:
            cfg = EvalConfig(name, made.get(name, {}), note="")
            ranks = run_related_eval(engine, queries, [cfg])[0].ranks
            out[name] = ranks
            m = mean_scores(ranks)
            print(f"{name:12s} MRR {m['mrr']:.3f}  nDCG@10 {m['ndcg_at_10']:.3f}  "
                  f"n {len(ranks)}", flush=True)  # fmt: skip
    finally:
        engine.close()
    if args.out:
        args.out.write_text(json.dumps(out) + "\n", encoding="utf-8")
    return 0


def pair(args: argparse.Namespace) -> int:
    from vaultheat.evaluation.metrics import mean_scores, paired_difference

    a, b = (json.loads(p.read_text(encoding="utf-8")) for p in (args.a, args.b))
    for name in args.configs.split(","):
        ra, rb = a[name], b[name]
        if len(ra) != len(rb):
            raise SystemExit(f"{name}: {len(ra)} notes against {len(rb)}: not one set")
        ma, mb = mean_scores(ra), mean_scores(rb)
        for metric in ("ndcg_at_10", "mrr"):
            d = paired_difference(rb, ra, metric)
            print(f"{name:12s} {metric:10s} {ma[metric]:.3f} -> {mb[metric]:.3f}  "
                  f"{d['delta']:+.3f} [{d['ci_low']:+.3f}, {d['ci_high']:+.3f}]  "
                  f"better {d['better']} worse {d['worse']} of {d['n']}")  # fmt: skip
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--vault", type=Path, required=True)
    r.add_argument("--index", type=Path, default=None)
    r.add_argument("--linkpred", type=Path, required=True)
    r.add_argument("--configs", default="default")
    r.add_argument("--set", dest="sets", action="append", default=[], metavar="NAME:KEY=VALUE")
    r.add_argument("--out", type=Path, default=None)
    p = sub.add_parser("pair")
    p.add_argument("a", type=Path)
    p.add_argument("b", type=Path)
    p.add_argument("--configs", default="default")
    args = ap.parse_args(argv)
    return run(args) if args.cmd == "run" else pair(args)


if __name__ == "__main__":
    sys.exit(main())
