"""Pools of related-note candidates for a reader to judge (issue #38: "related notes a reader
would pick").

Link prediction rewards what an author linked; a reader judges what a sidebar shows. To judge
ranking changes by a reader's eye without judging every pair of a big vault, this pools (as
TREC does) the top ``--top`` related notes of several configurations for a seeded sample of
notes, and writes each note's candidates **sorted by path**, with no rank, score or
configuration, so that whoever labels them cannot tell which system proposed what. The labels
go in a file of the form ``bench/reader_related.py`` reads (one JSON object a line: ``note``,
``grades`` {path: 0, 1 or 2} over the whole pool).

    .venv/bin/python bench/reader_pool.py --vault /tmp/bb --sample 20 --seed 1 \\
        --kind note --out /tmp/bb.pool.jsonl

Without ``--sample`` every note with chunks is pooled. The configurations are ``POOL`` below
(the default and the variants issue #38 leaves open), each ``--top`` deep.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from typing import Any

from vaultheat.core.requests import RelatedRequest
from vaultheat.engine import Engine
from vaultheat.errors import VaultheatError

# name -> settings overrides: the default, and every related-notes variant still undecided
POOL: dict[str, dict[str, Any]] = {
    "default": {},
    "coverage": {"experimental.related_score_coverage": 0.5},
    "pages": {"related.page_factor": 0.7},
    "heat_nochance": {"related.link_heat_chance": 0.0},
    "heat_off": {"related.link_heat": "off"},
    "old": {
        "related.link_heat": "off",
        "related.vote_hub_degree": 0,
        "related.vote_linked_hub_degree": 0,
    },
    "content": {"related.votes": False, "related.link_heat": "off"},
}


def related_paths(engine: Engine, note: str, top: int, unlinked: bool = False) -> list[str]:
    """The note's related notes, best first (only those it is not linked with, either way,
    when ``unlinked``: the sidebar's "unlinked only" view)."""
    try:
        res = engine.related(RelatedRequest(path=note, top=top, unlinked_only=unlinked))
    except VaultheatError:
        return []  # a note with no chunk (empty) has no sidebar
    return [h.path for h in res.results]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--vault", type=Path, required=True)
    ap.add_argument("--sample", type=int, default=0, help="notes to pool; 0 = every note")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--top", type=int, default=10)
    ap.add_argument("--kind", default="", help="only notes of this page kind (note, digest, list)")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)

    engines = {n: Engine.open(args.vault, None, overrides=ov or None) for n, ov in POOL.items()}
    view = engines["default"].index_view()
    notes = sorted(p for p, n in view.store.notes().items() if not n.excluded)
    if args.kind:
        notes = [p for p in notes if view.page_kinds.get(p, "note") == args.kind]
    if args.sample and args.sample < len(notes):
        notes = sorted(random.Random(args.seed).sample(notes, args.sample))
    rows = []
    for note in notes:
        pool: set[str] = set()
        for engine in engines.values():
            pool.update(related_paths(engine, note, args.top))
        pool.discard(note)
        if pool:
            rows.append({"note": note, "candidates": sorted(pool)})
    for engine in engines.values():
        engine.close()
    args.out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    sizes = [len(r["candidates"]) for r in rows]
    print(
        f"{len(rows)} notes pooled from {len(POOL)} configurations (top {args.top}): "
        f"{sum(sizes)} candidates, {min(sizes, default=0)}-{max(sizes, default=0)} a note",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
