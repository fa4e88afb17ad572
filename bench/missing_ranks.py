"""``explain --path`` on a real vault: for every relevant note of a labelled search set, where
it landed and why, and a check that the reported rank is the search's own.

For each query it runs the search (files only, the top 100, as ``search --files-only``) and
``Engine.explain_missing`` for each relevant note; the rank must equal the note's rank in that
search whenever the note is among its results (``rank_mismatches`` counts the failures). Prints
the status counts, the explain latency (median, max) and one line per relevant note that is not
at rank 1: its rank (or would-be rank), the reason and the result to beat.

  python bench/missing_ranks.py --vault /work/idx/waylonwalker/vault \\
      --queries ../shared/eval/waylonwalker.queries.jsonl [--index-dir DIR] [--top 10]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections import Counter
from pathlib import Path

from vaultheat.core.requests import SearchRequest
from vaultheat.engine import Engine


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vault", type=Path, required=True)
    ap.add_argument("--index-dir", type=Path)
    ap.add_argument("--queries", type=Path, required=True)
    ap.add_argument("--top", type=int, default=10, help="the results the user saw")
    args = ap.parse_args()
    engine = Engine.open(args.vault, args.index_dir)
    lines = [json.loads(x) for x in args.queries.read_text(encoding="utf-8").splitlines() if x]
    statuses: Counter[str] = Counter()
    mismatches, checked, took = 0, 0, []
    for o in lines:
        full = engine.search(SearchRequest(query=o["query"], top=100, files_only=True))
        ranks = {h.path: h.rank for h in full.results}
        for path in o["relevant_files"]:
            t0 = time.perf_counter()
            m = engine.explain_missing(
                SearchRequest(query=o["query"], top=args.top, files_only=True), path
            )
            took.append(time.perf_counter() - t0)
            statuses[m.status] += 1
            if path in ranks:
                checked += 1
                mismatches += m.rank != ranks[path]
            if m.rank != 1:
                at = f"#{m.rank}" if m.rank is not None else f"would be #{m.would_rank}"
                beat = f"; beat #{m.to_beat.rank} {m.to_beat.path}" if m.to_beat else ""
                print(f"{o.get('id', '')} {o['query']!r} -> {path}: {m.status} {at}{beat}")
                print(f"    {m.reason}")
    engine.close()
    print(json.dumps({
        "relevant_notes": sum(statuses.values()), "statuses": dict(statuses),
        "ranks_checked_against_search": checked, "rank_mismatches": mismatches,
        "explain_s_median": round(statistics.median(took), 3), "explain_s_max": round(max(took), 3),
    }))  # fmt: skip


if __name__ == "__main__":
    main()
