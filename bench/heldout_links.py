"""Held-out link prediction on several vaults: the protocol of ``vaultheat eval
--heldout-links`` (``vaultheat/evaluation/heldout.py``), one table per vault and one JSON file.

A random share of each vault's links (undirected pairs, a seeded shuffle) is hidden from the
link graph the related pipeline reads; each note with a hidden pair asks for its related notes
with those links cut from its text; its visible partners leave the ranking. Recall@10 and
nDCG@10 as mean ± sd over the seeds, every configuration paired with the first (per-seed
differences and a paired bootstrap over all queries). Configurations are the built-ins
(``default``, ``no-votes``, ...) or ``--set NAME:section.key=value`` ones made here, so no
vault's config file needs editing:

    .venv/bin/python bench/heldout_links.py --vault /tmp/help-en --vault /tmp/dendron \\
        --configs default,ppr --set ppr:related.link_heat=ppr --seeds 5 --sample 150 \\
        [--json out.json]

Each vault must be indexed already (its ``.vaultheat`` folder, or ``--index`` for one vault).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any


def parse_sets(items: list[str]) -> dict[str, dict[str, Any]]:
    """``NAME:section.key=value`` items -> {NAME: {"section.key": value}} (JSON values, else
    strings)."""
    out: dict[str, dict[str, Any]] = {}
    for item in items:
        name, _, rest = item.partition(":")
        key, _, raw = rest.partition("=")
        if not name or not key or not raw:
            raise SystemExit(f"--set wants NAME:section.key=value, not {item!r}")
        try:
            value: Any = json.loads(raw)
        except ValueError:
            value = raw
        out.setdefault(name, {})[key] = value
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--vault", type=Path, action="append", required=True)
    ap.add_argument("--index", type=Path, default=None, help="index folder (one vault only)")
    ap.add_argument("--configs", default="default", help="comma-separated; the first is the base")
    ap.add_argument("--set", dest="sets", action="append", default=[], metavar="NAME:KEY=VALUE")
    ap.add_argument("--share", type=float, default=0.2)
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--sample", type=int, default=None, help="queries per seed (default: all)")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    if args.index is not None and len(args.vault) > 1:
        raise SystemExit("--index goes with a single --vault")

    from vaultheat.engine import Engine
    from vaultheat.evaluation.harness import EvalConfig, rerank_available, resolve_configs
    from vaultheat.evaluation.heldout import format_heldout, run_heldout

    made = parse_sets(args.sets)
    names = [n.strip() for n in args.configs.split(",") if n.strip()]
    docs = []
    for vault in args.vault:
        engine = Engine.open(vault, args.index)
        try:
            builtin = [n for n in names if n not in made]
            found = (
                resolve_configs(builtin, engine.settings, rerank_available(engine))
                if builtin
                else []
            )
            known = {c.name: c for c in found}
            for name, overrides in made.items():
                engine.settings.with_overrides(overrides)  # validate before the long run
                known[name] = EvalConfig(name, overrides, note=f"--set {overrides}")
            t0 = time.perf_counter()
            doc = run_heldout(engine, [known[n] for n in names], share=args.share,
                              seeds=args.seeds, sample=args.sample)  # fmt: skip
            doc["seconds"] = round(time.perf_counter() - t0, 1)
        finally:
            engine.close()
        print(format_heldout(doc) + f"\n({doc['seconds']} s)\n", flush=True)
        docs.append(doc)
    if args.json:
        args.json.write_text(json.dumps(docs, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
