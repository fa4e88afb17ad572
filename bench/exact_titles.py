"""Exact note names as queries (issue #22, item 2): does the named note come first?

    .venv/bin/python bench/exact_titles.py VAULT [--system vaultheat|bm25] [--sample 200]

The names: every note's file name (without .md), its frontmatter title and its aliases, the
way Obsidian's Quick switcher knows a note; only names that exactly one note holds
(case-insensitive) and that have a letter in them. Each is searched (files only, top 10);
the score is the share whose note comes first (target >= 0.95), with the share in the top 10.
``--system bm25`` ranks with bench/eval_messy.py's BM25 floor instead (no index needed).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import random
import sys
from collections import defaultdict
from pathlib import Path

from vaultheat.core.vault.parsing import parse_note

HERE = Path(__file__).resolve().parent


def unique_names(vault: Path) -> list[tuple[str, str]]:
    """(name, path) for every name exactly one note holds, sorted."""
    holders: dict[str, set[str]] = defaultdict(set)
    shown: dict[str, str] = {}
    for path in sorted(vault.rglob("*.md")):
        rel = path.relative_to(vault).as_posix()
        if any(p.startswith(".") for p in Path(rel).parts):
            continue
        note = parse_note(rel, path.read_bytes())
        # a fixed order (file name, title, aliases): a set made the shown casing, and so the
        # sorted sample, depend on the process hash seed
        for name in dict.fromkeys((path.stem, note.title, *note.aliases)):
            name = name.strip()
            if not name or not any(ch.isalpha() for ch in name):
                continue
            holders[name.casefold()].add(rel)
            shown.setdefault(name.casefold(), name)
    return sorted((shown[k], next(iter(v))) for k, v in holders.items() if len(v) == 1)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("vault", type=Path)
    p.add_argument("--system", choices=("vaultheat", "bm25"), default="vaultheat")
    p.add_argument("--sample", type=int, default=200, help="names to try (0: all)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", type=Path)
    a = p.parse_args(argv)
    names = unique_names(a.vault)
    if a.sample and len(names) > a.sample:
        names = sorted(random.Random(a.seed).sample(names, a.sample))
    if a.system == "bm25":
        spec = importlib.util.spec_from_file_location("bench_eval_messy", HERE / "eval_messy.py")
        assert spec is not None and spec.loader is not None
        em = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = em
        spec.loader.exec_module(em)
        idx = em.bm25_of_vault(a.vault)
        rankings = [idx.rank(n, top=10) for n, _ in names]
    else:
        from vaultheat.core.requests import SearchRequest
        from vaultheat.engine import Engine

        engine = Engine.open(a.vault)
        try:
            rankings = [
                [
                    r.path
                    for r in engine.search(SearchRequest(query=n, top=10, files_only=True)).results
                ]
                for n, _ in names
            ]
        finally:
            engine.close()
    first = [r[:1] == [path] for (_, path), r in zip(names, rankings, strict=True)]
    top10 = [path in r for (_, path), r in zip(names, rankings, strict=True)]
    n = len(names)
    print(
        f"{a.vault.name} ({a.system}): {n} unique names; first {sum(first) / n:.3f}, "
        f"top 10 {sum(top10) / n:.3f}"
    )
    misses = [
        (nm, pth, r[:3]) for (nm, pth), r, f in zip(names, rankings, first, strict=True) if not f
    ]
    for nm, pth, r in misses[:15]:
        print(f"  miss: {nm!r} -> {pth}; got {r}")
    if a.json:
        a.json.write_text(json.dumps({"n": n, "first": sum(first) / n, "misses": misses}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
