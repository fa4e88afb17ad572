"""How much each reader-view rule (core/reader.py) removes from a vault's chunks (issue #22).

    .venv/bin/python bench/reader_rules.py [VAULT]   # default ../shared/corpus/waylonwalker

Chunks with the default chunking settings; tokens are approximated as words x 1.3 (no model
is loaded), so chunk boundaries are close to, not equal to, the indexed ones. Per rule: the
share of chunks it changes, the share of chunk characters it removes, and the chunks left with
no prose (they would get no vector). All rules together last.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from vaultheat.config import Settings
from vaultheat.core.chunking import chunk_note
from vaultheat.core.parsing import parse_note
from vaultheat.core.reader import RULES, has_prose, reader_text

SHARED = Path(os.environ.get("VAULTHEAT_SHARED", Path(__file__).resolve().parents[2] / "shared"))


def approx_tokens(text: str) -> int:
    return int(len(text.split()) * 1.3) + 1


def main(argv: list[str]) -> int:
    vault = Path(argv[0]) if argv else SHARED / "corpus" / "waylonwalker"
    c = Settings().chunking
    texts: list[str] = []
    for path in sorted(vault.rglob("*.md")):
        rel = path.relative_to(vault).as_posix()
        if any(p.startswith(".") for p in Path(rel).parts):
            continue
        note = parse_note(rel, path.read_bytes())
        if note.excluded:
            continue
        drafts = chunk_note(
            note,
            max_tokens=c.max_tokens or 256,
            count_tokens=approx_tokens,
            target_tokens=c.target_tokens,
            min_chars=c.min_chars,
            overlap_chars=c.overlap_chars,
        )
        texts += [d.text for d in drafts]
    total = sum(len(t) for t in texts)
    print(f"{vault.name}: {len(texts)} chunks, {total} characters")
    print("| rule | chunks changed | characters removed | chunks left without prose |")
    print("|---|---|---|---|")
    for rules in [(r,) for r in RULES] + [RULES]:
        out = [reader_text(t, rules) for t in texts]
        changed = sum(o != t for o, t in zip(out, texts, strict=True))
        removed = total - sum(len(o) for o in out)
        empty = sum(has_prose(t) and not has_prose(o) for o, t in zip(out, texts, strict=True))
        name = " + ".join(rules) if len(rules) > 1 else rules[0]
        print(
            f"| {name} | {changed} ({changed / len(texts):.1%}) | {removed} "
            f"({removed / total:.1%}) | {empty} ({empty / len(texts):.1%}) |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
