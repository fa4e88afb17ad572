"""Memory of related notes on unsaved text: does the process grow with every distinct draft?

    .venv/bin/python bench/related_rss.py [--vault PATH] [--n 3000] [--json out.json]

Indexes a temporary copy of the vault with the fake embedder (the vault is never written), then
asks related notes for ``--n`` distinct unsaved texts of one note (each a different paragraph,
so every request embeds new chunks) in this process, and reports the RSS after the first 10%
and at the end. The target (issue #23): the end within 25 MB of the 10% mark.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

from server_bench import rss_mib

from vaultheat.config import Settings, save_settings
from vaultheat.core.requests import RelatedRequest
from vaultheat.engine import Engine
from vaultheat.paths import index_paths
from vaultheat.providers.fake import FakeEmbedder

REPO = Path(__file__).resolve().parents[1]
NOTE = "Coffee/Roasting/Roasting Basics.md"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--vault", type=Path, default=REPO / "examples" / "vault")
    p.add_argument("--note", default=NOTE)
    p.add_argument("--n", type=int, default=3000)
    p.add_argument("--json", type=Path, default=None)
    a = p.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="vaultheat-relrss-") as tmp:
        vault = Path(tmp) / "vault"
        shutil.copytree(a.vault, vault)
        paths = index_paths(vault)
        paths.root.mkdir()
        save_settings(paths.config, Settings().with_value("embeddings.provider", "fake"))
        engine = Engine.open(vault, embedder=FakeEmbedder())
        engine.index()
        base = (vault / a.note).read_text(encoding="utf-8")
        mark = max(1, a.n // 10)
        at_mark = 0.0
        for i in range(a.n):
            text = f"{base}\n\n## Draft {i}\n\nA new paragraph number {i} about roast {i * 7919}.\n"
            engine.related(RelatedRequest(path=a.note, text=text, top=10))
            if i + 1 == mark:
                at_mark = rss_mib(os.getpid())
        end = rss_mib(os.getpid())
        engine.close()
    out = {
        "requests": a.n,
        "rss_mib_at_10pct": round(at_mark, 1),
        "rss_mib_end": round(end, 1),
        "growth_mib": round(end - at_mark, 1),
        "cache_entries": len(engine.models.cache),
    }
    print(json.dumps(out))
    if a.json:
        a.json.write_text(json.dumps(out, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
