"""Does one note crowd the related-notes sidebar? What a reader sees, over the whole vault.

For every note (or a seeded sample), the related notes the sidebar would show (the note as
indexed, top 10), then:

- **first share**: the note that comes first for the most notes, and the share of notes it is
  first for (a sidebar that shows Settings first for a third of the vault shows nothing; the
  target of issue #38 is at most 5% on every vault);
- **hub share**: the share of all top-10 slots held by the vault's top 1% of notes by in-degree
  (at least one note), beside the share those notes would get by chance (top slots drawn at
  random from the other notes);
- **template share**: for notes made from a template (at least ``TEMPLATE_LINES`` of their
  lines are template lines: a line found in at least ``TEMPLATE_MIN`` notes or 0.5% of the
  vault, whichever is more; code fence lines such as ```` ```bash ```` are Markdown syntax and
  never count), the share of their top-10 slots held by notes made from the same
  template (sharing at least ``TEMPLATE_LINES`` template lines with them): the peer's "other
  daily notes in a daily note's top 10";
- the five notes most often first, with their in-degree.

Settings are the product's defaults unless ``--set section.key=value`` overrides them (several
``--set`` may be given; values are read as JSON, else as strings).

    .venv/bin/python bench/sidebar_crowding.py --vault /tmp/help-en [--sample 0] [--seed 1] \\
        [--set related.vote_chance=true] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import math
import random
import re
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from vaultheat.core.requests import RelatedRequest
from vaultheat.errors import VaultheatError

TOP = 10
HUB_SHARE = 0.01
TEMPLATE_MIN = 5  # a line in at least this many notes (or 0.5% of the vault) is a template line
TEMPLATE_LINES = 2  # template lines two notes must share to come from the same template
# a code fence's opening or closing line (```` ```bash ````, ``~~~``): Markdown syntax, not text
FENCE = re.compile(r"^\s*(`{3,}|~{3,})\s*[\w+#.-]*\s*$")


def parse_sets(items: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in items:
        key, _, raw = item.partition("=")
        try:
            out[key] = json.loads(raw)
        except ValueError:
            out[key] = raw
    return out


def crowding(
    rankings: dict[str, list[str]], in_degree: dict[str, int], notes: int
) -> dict[str, Any]:
    """The figures above from ``rankings`` (note -> its related notes, best first)."""
    firsts = Counter(r[0] for r in rankings.values() if r)
    n_hubs = max(1, math.ceil(HUB_SHARE * notes))
    hubs = {p for p, _ in sorted(in_degree.items(), key=lambda x: (-x[1], x[0]))[:n_hubs]}
    slots = sum(len(r) for r in rankings.values())
    hub_slots = sum(1 for r in rankings.values() for p in r if p in hubs)
    top_first = firsts.most_common(5)
    asked = len(rankings)
    return {
        "notes_asked": asked,
        "with_results": sum(1 for r in rankings.values() if r),
        "first": [
            {
                "path": p,
                "first_for": c,
                "share": round(c / asked, 3),
                "in_degree": in_degree.get(p, 0),
            }
            for p, c in top_first
        ],
        "first_share": round(top_first[0][1] / asked, 3) if top_first else 0.0,
        "hubs": sorted(hubs),
        "hub_share": round(hub_slots / slots, 3) if slots else 0.0,
        "hub_share_by_chance": round(len(hubs) / max(1, notes - 1), 3),
    }


def note_lines(text: str) -> set[str]:
    """A note's distinct body lines, stripped and lower-cased: the frontmatter left out (every
    note has properties; sharing ``desc: ''`` is not a template), and lines shorter than three
    characters or without a letter or digit (bullets, ``---`` rules)."""
    lines = text.splitlines()
    if lines and lines[0].strip() == "---":
        end = next((i for i, line in enumerate(lines[1:], 1) if line.strip() == "---"), None)
        lines = lines[end + 1 :] if end is not None else lines
    return {
        line.strip().lower()
        for line in lines
        if len(line.strip()) >= 3 and any(ch.isalnum() for ch in line) and not FENCE.match(line)
    }


def template_lines(lines: dict[str, set[str]]) -> dict[str, set[str]]:
    """Each note's template lines: the lines found in at least ``TEMPLATE_MIN`` notes (or 0.5%
    of them, whichever is more)."""
    counts = Counter(line for ls in lines.values() for line in ls)
    floor = max(TEMPLATE_MIN, math.ceil(0.005 * len(lines)))
    common = {line for line, c in counts.items() if c >= floor}
    return {p: ls & common for p, ls in lines.items()}


def template_share(rankings: dict[str, list[str]], tmpl: dict[str, set[str]]) -> dict[str, Any]:
    """Over the notes made from a template, the share of their top slots held by notes made
    from the same template (both share ``TEMPLATE_LINES`` template lines)."""
    made = [p for p in rankings if len(tmpl.get(p, ())) >= TEMPLATE_LINES]
    slots = mates = 0
    for p in made:
        for r in rankings[p]:
            slots += 1
            mates += len(tmpl[p] & tmpl.get(r, set())) >= TEMPLATE_LINES
    return {
        "template_notes": len(made),
        "template_share": round(mates / slots, 3) if slots else 0.0,
        "template_mates_per_note": round(mates / len(made), 2) if made else 0.0,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--vault", type=Path, required=True)
    ap.add_argument("--index", type=Path, default=None, help="index folder (default: the vault's)")
    ap.add_argument("--sample", type=int, default=0, help="notes to ask for (0: every note)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--set", dest="sets", action="append", default=[], metavar="KEY=VALUE")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)

    from vaultheat.engine import Engine

    overrides = parse_sets(args.sets)
    engine = Engine.open(args.vault, args.index, overrides=overrides)
    try:
        view = engine.index_view()
        paths = sorted(p for p, n in view.store.notes().items() if not n.excluded)
        in_degree = dict(view.links.in_degree)
        asked = paths
        if 0 < args.sample < len(paths):
            asked = sorted(random.Random(args.seed).sample(paths, args.sample))
        rankings: dict[str, list[str]] = {}
        t0 = time.perf_counter()
        for p in asked:
            try:
                res = engine.related(RelatedRequest(path=p, top=TOP))
            except VaultheatError:
                continue  # a note with no chunk (empty) has no sidebar
            rankings[p] = [r.path for r in res.results]
        took = time.perf_counter() - t0
        vault = engine.paths.vault
    finally:
        engine.close()
    lines = {p: note_lines((vault / p).read_text("utf-8", "replace")) for p in paths
             if p.endswith(".md") and (vault / p).is_file()}  # fmt: skip
    doc = {"vault": str(args.vault), "overrides": overrides, "notes": len(paths),
           "seconds": round(took, 1), **crowding(rankings, in_degree, len(paths)),
           **template_share(rankings, template_lines(lines))}  # fmt: skip
    print(f"{args.vault}  {overrides or 'defaults'}  ({len(rankings)} of {len(paths)} notes, "
          f"{took:.1f} s)")  # fmt: skip
    print(f"  first share {doc['first_share']:.3f}   hub share {doc['hub_share']:.3f} "
          f"(by chance {doc['hub_share_by_chance']:.3f}; hubs: {len(doc['hubs'])})")  # fmt: skip
    print(f"  template share {doc['template_share']:.3f} ({doc['template_mates_per_note']:.2f} "
          f"same-template notes in the top {TOP} of each of {doc['template_notes']} notes made "
          "from a template)")  # fmt: skip
    for f in doc["first"]:
        print(f"  first for {f['first_for']:4d} ({f['share']:.3f})  in-degree {f['in_degree']:4d}  "
              f"{f['path']}")  # fmt: skip
    if args.json:
        args.json.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
