"""BM25 alone, with and without FTS5's porter stemmer, on an index's own chunk texts: does
English stemming find more right notes? (A measurement for a change not made: the product's
FTS table uses ``unicode61`` without stemming, so "tomato" does not match "tomatoes".)

    .venv/bin/python bench/stem_bm25.py --db /tmp/he/.vaultheat/index.sqlite \\
        --queries ../shared/eval/obsidian-help-en.queries.jsonl

Each chunk is indexed again in an in-memory FTS5 table (title and heading path weighted 2,
body 1), once per tokenizer; a query is its words of 3+ letters joined by OR; a note ranks at
its best chunk. Prints MRR@10 under both, and the paired difference with a 95% bootstrap
interval (2,000 resamples, seed 0). The index is opened read-only.
"""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Sequence
from pathlib import Path

from vaultheat.storage.stem_probe import PLAIN, PORTER, rank_notes, read_chunks


def reciprocal_rank(ranked: Sequence[str], relevant: set[str], k: int = 10) -> float:
    return next((1.0 / (i + 1) for i, p in enumerate(ranked[:k]) if p in relevant), 0.0)


def paired(a: Sequence[float], b: Sequence[float], seed: int = 0) -> tuple[float, float, float]:
    """Mean of b - a and its 95% bootstrap interval."""
    diff = [y - x for x, y in zip(a, b, strict=True)]
    n = len(diff)
    rng = random.Random(seed)
    means = sorted(sum(rng.choice(diff) for _ in range(n)) / n for _ in range(2000))
    return sum(diff) / n, means[50], means[1949]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", type=Path, required=True, help="an index's index.sqlite")
    ap.add_argument("--queries", type=Path, required=True, help="a labelled set (jsonl)")
    args = ap.parse_args()
    items = [json.loads(x) for x in args.queries.read_text("utf-8").splitlines() if x.strip()]
    rows = read_chunks(args.db)
    queries = [it["query"] for it in items]
    scores = {}
    for name, tok in (("unicode61", PLAIN), ("porter", PORTER)):
        ranked = rank_notes(rows, tok, queries)
        scores[name] = [
            reciprocal_rank(r, set(it["relevant_files"]))
            for r, it in zip(ranked, items, strict=True)
        ]
    a, b = scores["unicode61"], scores["porter"]
    mean, lo, hi = paired(a, b)
    better = sum(y > x for x, y in zip(a, b, strict=True))
    worse = sum(y < x for x, y in zip(a, b, strict=True))
    print(
        f"{args.queries.name}: MRR@10 unicode61 {sum(a) / len(a):.3f} porter {sum(b) / len(b):.3f}"
        f" diff {mean:+.3f} [{lo:+.3f}, {hi:+.3f}] better {better} worse {worse} of {len(a)}"
    )


if __name__ == "__main__":
    main()
