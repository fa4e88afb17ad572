"""A known-item keyword query set drawn from a vault: rare words, and the notes containing them.

    .venv/bin/python bench/keyword_queries.py VAULT --out /tmp/kw.queries.jsonl [--n 60] [--seed 1]

Users type a single rare word they remember ("ulysses", "textbundle") as often as a question;
the labelled sets of ../shared/eval are all questions. This samples words of at least 5 letters
that occur (case-insensitively, as whole words, outside frontmatter and code) in 1 to 3 notes
and not in any of those notes' paths, so the note is found by its text, not its name. Relevant:
every note containing the word. The output is a ``vaultheat eval --queries`` set.
"""

from __future__ import annotations

import argparse
import json
import random
import re
from collections import defaultdict
from pathlib import Path

WORD = re.compile(r"[A-Za-z][a-z]{4,}")
FENCE = re.compile(r"```.*?```", re.S)


def note_words(text: str) -> set[str]:
    if text.startswith("---\n"):
        end = text.find("\n---", 4)
        text = text[end + 4 :] if end > 0 else text
    text = FENCE.sub(" ", text)
    text = re.sub(r"\[\[[^\]]*\]\]|\([^)]*\.md\)|https?://\S+", " ", text)  # link targets
    return {w.casefold() for w in WORD.findall(text)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("vault", type=Path)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    where: dict[str, set[str]] = defaultdict(set)
    for p in sorted(a.vault.rglob("*.md")):
        rel = p.relative_to(a.vault).as_posix()
        if any(part.startswith(".") for part in Path(rel).parts):
            continue
        for w in note_words(p.read_text(encoding="utf-8", errors="replace")):
            where[w].add(rel)
    words = sorted(
        w for w, notes in where.items()
        if 1 <= len(notes) <= 3 and not any(w in n.casefold() for n in notes)
    )  # fmt: skip
    random.Random(a.seed).shuffle(words)
    with a.out.open("w", encoding="utf-8") as f:
        for w in words[: a.n]:
            f.write(json.dumps({"query": w, "relevant_files": sorted(where[w])}) + "\n")
    print(f"{min(a.n, len(words))} of {len(words)} rare words -> {a.out}")


if __name__ == "__main__":
    main()
