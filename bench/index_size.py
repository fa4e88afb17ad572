"""Index size by table: index a copy of a vault with the fake embedder, then report the
SQLite file and its tables' bytes (SQLite's ``dbstat``, FTS5's shadow tables grouped under
their table), and the vector file.

    PYTHONPATH=sidecar nice -n 10 .venv/bin/python bench/index_size.py VAULT [--keep DIR]
    PYTHONPATH=sidecar nice -n 10 .venv/bin/python bench/index_size.py --db INDEX.sqlite

The vault is copied (its ``.vaultheat`` left out) and never written. ``--db`` reports on an
existing index file instead. No model: FakeEmbedder(384), so the figures are the index's own.
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
from pathlib import Path

from vaultheat.storage.dbsize import MIB, table_sizes


def index_copy(vault: Path, work: Path) -> Path:
    from vaultheat.config import Settings, save_settings
    from vaultheat.engine import Engine
    from vaultheat.paths import index_paths
    from vaultheat.providers.fake import FakeEmbedder

    copy = work / "vault"
    shutil.copytree(vault, copy, ignore=shutil.ignore_patterns(".vaultheat"))
    paths = index_paths(copy)
    paths.root.mkdir()
    save_settings(paths.config, Settings().with_value("embeddings.provider", "fake"))
    engine = Engine.open(copy, embedder=FakeEmbedder())
    try:
        engine.index()
    finally:
        engine.close()
    return paths.db


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("vault", type=Path, nargs="?", help="a vault to index (copied)")
    src.add_argument("--db", type=Path, help="an existing index file to report on")
    p.add_argument("--keep", type=Path, help="index here (kept) instead of a temporary folder")
    args = p.parse_args(argv)
    if args.db:
        print(json.dumps(table_sizes(args.db), indent=2))
        return 0
    with tempfile.TemporaryDirectory(prefix="vh-size-") as tmp:
        work = args.keep or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        db = index_copy(args.vault, work)
        out = table_sizes(db)
        vectors = [f for f in db.parent.iterdir() if f.is_file() and f != db]
        out["other_files_mib"] = {f.name: round(f.stat().st_size / MIB, 2) for f in vectors}
        print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
