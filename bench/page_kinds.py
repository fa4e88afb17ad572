"""Page kinds (core/vault/pagekind.py) over a vault on disk: how many digests and list pages, where,
and, given the notes known to be of a kind, the classifier's precision and recall for it.

Reads the Markdown files as the indexer does (``parse_note``, body after the frontmatter); no
index is needed. ``--truth KIND=PREFIX`` names the notes under a path prefix as being of KIND
(bluebook's ``newsletter/`` holds the generator's digests: ``digest=newsletter/``); the notes
outside it count as not of that kind. Prints one JSON object.

  python bench/page_kinds.py --vault ../shared/corpus/bluebook/docs --truth digest=newsletter/
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "sidecar"))

from vaultheat.core.vault.pagekind import KINDS, note_page_kind  # noqa: E402
from vaultheat.core.vault.parsing import parse_note  # noqa: E402


def vault_kinds(vault: Path) -> dict[str, str]:
    """Vault-relative path -> kind, for every Markdown note outside hidden folders."""
    out = {}
    for folder, dirs, files in os.walk(vault):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            if name.lower().endswith(".md"):
                full = Path(folder) / name
                rel = full.relative_to(vault).as_posix()
                out[rel] = note_page_kind(parse_note(rel, full.read_bytes()))
    return out


def scores(kinds: dict[str, str], kind: str, prefix: str) -> dict[str, object]:
    """Precision and recall of ``kind`` against the notes under ``prefix``."""
    truth = {p for p in kinds if p.startswith(prefix)}
    found = {p for p, k in kinds.items() if k == kind}
    hit = truth & found
    return {
        "kind": kind, "prefix": prefix, "true": len(truth), "found": len(found),
        "precision": round(len(hit) / len(found), 3) if found else None,
        "recall": round(len(hit) / len(truth), 3) if truth else None,
        "missed": sorted(truth - found)[:10], "extra": sorted(found - truth)[:10],
    }  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vault", type=Path, required=True)
    ap.add_argument("--truth", action="append", default=[], help="KIND=PREFIX")
    ap.add_argument("--show", type=int, default=20, help="notes listed per kind")
    args = ap.parse_args()
    kinds = vault_kinds(args.vault)
    out: dict[str, object] = {"vault": str(args.vault), "notes": len(kinds),
                              "counts": {k: list(kinds.values()).count(k) for k in KINDS}}
    for kind in KINDS[1:]:
        paths = sorted(p for p, k in kinds.items() if k == kind)
        out[f"{kind}_folders"] = dict(Counter(p.rsplit("/", 1)[0] if "/" in p else "."
                                              for p in paths).most_common(8))  # fmt: skip
        out[f"{kind}_notes"] = paths[: args.show]
    out["truth"] = [scores(kinds, *t.split("=", 1)) for t in args.truth]
    print(json.dumps(out, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
