"""Index time of a vault with the fake embedder: the indexer's own cost, no model.

A full index into a fresh index folder, then 5 no-op runs; prints one JSON line. Used to check
that reading PDFs and canvases (issue #27) costs a Markdown-only vault nothing (docs/benchmarks.md):

    PYTHONPATH=<tree>/sidecar nice -n 10 .venv/bin/python bench/index_overhead.py VAULT FRESH_DIR
"""

from __future__ import annotations

import json
import shutil
import sys
import time
from pathlib import Path

from vaultheat.config import Settings, save_settings
from vaultheat.engine import Engine
from vaultheat.paths import index_paths
from vaultheat.providers.fake import FakeEmbedder


def main(vault: Path, index_dir: Path) -> dict[str, object]:
    shutil.rmtree(index_dir, ignore_errors=True)
    paths = index_paths(vault, index_dir)
    index_dir.mkdir(parents=True)
    save_settings(paths.config, Settings().with_value("embeddings.provider", "fake"))
    engine = Engine.open(vault, index_dir, embedder=FakeEmbedder())
    try:
        t = time.perf_counter()
        report = engine.index()
        full = time.perf_counter() - t
        noop = []
        for _ in range(5):
            t = time.perf_counter()
            engine.index()
            noop.append(time.perf_counter() - t)
    finally:
        engine.close()
    return {
        "full_s": round(full, 3),
        "noop_s": [round(x, 4) for x in noop],
        "added": report.notes["added"],
        "chunks": report.chunks["embedded"],
    }


if __name__ == "__main__":
    print(json.dumps(main(Path(sys.argv[1]), Path(sys.argv[2]))))
