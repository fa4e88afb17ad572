"""BM25 over an index's chunk texts under another FTS5 tokenizer, in memory: the SQL behind
``bench/stem_bm25.py`` (does English stemming find more right notes?). Reads the index file
read-only; writes nothing to it."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Sequence
from pathlib import Path

PLAIN = "unicode61 remove_diacritics 2"  # the product's tokenizer (fts.py)
PORTER = "porter unicode61 remove_diacritics 2"
WORD = re.compile(r"\w+")

Row = tuple[int, str, str, str]  # chunk id, note path, title + heading path, text


def read_chunks(db: Path) -> list[Row]:
    """Every chunk of the index at ``db``: id, note path, title and heading path, text."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        rows = con.execute(
            "SELECT c.id, n.path, coalesce(n.title, '') || ' ' || coalesce(c.heading_path, ''), "
            "c.text FROM chunks c JOIN notes n ON n.id = c.note_id"
        ).fetchall()
    finally:
        con.close()
    return [(int(i), str(p), str(h), str(t)) for i, p, h, t in rows]


def rank_notes(rows: Sequence[Row], tokenizer: str, queries: Sequence[str]) -> list[list[str]]:
    """Each query's notes, best first by BM25 (title and headings weighted 2, body 1; a note at
    its best chunk, of the first 200): the query's words of 3+ letters joined by OR."""
    con = sqlite3.connect(":memory:")
    columns = f"path UNINDEXED, head, body, tokenize='{tokenizer}'"
    con.execute(f"CREATE VIRTUAL TABLE f USING fts5({columns})")
    con.executemany("INSERT INTO f(rowid, path, head, body) VALUES (?, ?, ?, ?)", rows)
    out: list[list[str]] = []
    for query in queries:
        words = [w for w in WORD.findall(query.lower()) if len(w) > 2]
        if not words:
            out.append([])
            continue
        match = " OR ".join(f'"{w}"' for w in words)
        hits = con.execute(
            "SELECT path FROM f WHERE f MATCH ? ORDER BY bm25(f, 2.0, 1.0) LIMIT 200", (match,)
        ).fetchall()
        out.append(list(dict.fromkeys(p for (p,) in hits)))
    con.close()
    return out
