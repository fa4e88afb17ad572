"""Paired comparison of two `vaultheat eval --json` outputs on the same sets (e.g. two models).

    .venv/bin/python bench/paired_models.py A.json B.json [--configs default,vector]

Prints A minus B per task, configuration and metric: mean difference, 95% paired bootstrap
interval and better/worse/equal counts (``vaultheat.evaluation.metrics.paired_difference``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from vaultheat.evaluation.metrics import paired_difference


def ranks(doc: dict[str, Any], task: str, config: str) -> dict[str, Any]:
    return {
        str(q.get("query") or q.get("note")): q["ranks"][config]
        for q in doc["queries"]
        if q["task"] == task and config in q["ranks"]
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("a", type=Path)
    p.add_argument("b", type=Path)
    p.add_argument("--configs", default="default,vector")
    p.add_argument("--metrics", default="ndcg_at_10,mrr")
    args = p.parse_args(argv)
    a, b = (json.loads(path.read_text(encoding="utf-8")) for path in (args.a, args.b))
    for task in sorted({q["task"] for q in a["queries"]}):
        for config in args.configs.split(","):
            ra, rb = ranks(a, task, config), ranks(b, task, config)
            keys = sorted(set(ra) & set(rb))
            if not keys:
                continue
            for metric in args.metrics.split(","):
                r = paired_difference([ra[k] for k in keys], [rb[k] for k in keys], metric)
                print(
                    f"{task:8} {config:8} {metric:11} n={len(keys):4} "
                    f"{r['delta']:+.3f} [{r['ci_low']:+.3f}, {r['ci_high']:+.3f}] "
                    f"better {r['better']} worse {r['worse']} equal {r['equal']}"
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
