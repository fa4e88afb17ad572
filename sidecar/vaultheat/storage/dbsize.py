"""What an index file's space goes to, by table (SQLite's ``dbstat``), for
``bench/index_size.py``: indexes counted under their table, FTS5's shadow tables under
``chunks_fts``. Opens the file read-only, on its own connection."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

MIB = 1024 * 1024


def _largest(kv: tuple[str, int]) -> int:
    return -kv[1]


def table_sizes(db_path: Path) -> dict[str, Any]:
    """Schema version, file size, MiB per table and per FTS5 shadow table, chunk and FTS row
    counts, and the bytes of chunk text (UTF-8)."""
    con = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    try:
        owner = {r[0]: r[1] for r in con.execute("SELECT name, tbl_name FROM sqlite_master")}
        sizes: dict[str, int] = {}
        shadows: dict[str, int] = {}
        for name, size in con.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name"):
            table = owner.get(name, name)
            if table.startswith("chunks_fts_"):
                shadows[table] = int(size)
                table = "chunks_fts"
            sizes[table] = sizes.get(table, 0) + int(size)
        text = con.execute("SELECT sum(length(CAST(text AS BLOB))) FROM chunks").fetchone()[0]
        chunks = con.execute("SELECT count(*) FROM chunks").fetchone()[0]
        fts_rows = con.execute("SELECT count(*) FROM chunks_fts").fetchone()[0]
        version = con.execute("PRAGMA user_version").fetchone()[0]
    finally:
        con.close()
    return {
        "schema": version,
        "file_mib": round(db_path.stat().st_size / MIB, 2),
        "tables_mib": {k: round(v / MIB, 2) for k, v in sorted(sizes.items(), key=_largest)},
        "chunks_fts_shadows_mib": {k: round(v / MIB, 2) for k, v in sorted(shadows.items())},
        "chunks": chunks,
        "fts_rows": fts_rows,
        "chunk_text_mib": round((text or 0) / MIB, 2),
    }
