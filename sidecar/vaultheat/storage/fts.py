"""The full-text (FTS5) rows of the chunks, in a contentless table (m008).

``chunks_fts`` keeps the index of its text and no copy of it: a chunk's header (title,
aliases, headings, tags; stored in ``chunks.header``) and its body (``chunks.text``) are each
stored once, in the chunks table. The price: FTS5 removes a row of a contentless table only
when it is given the very values it indexed, so every row is written and removed through
``row_values``, computed from the chunk's stored columns with ``lexical_text``. Values that
differ by a byte would leave the old terms behind, silently, and so would the same values
split into other tokens. The manifest says what wrote the rows (``version_value``:
``LEXICAL_VERSION``, and the SQLite whose ``unicode61`` tokenizer split them, whose Unicode
tables a newer SQLite may update); a writer that finds another rebuilds them all
(``ensure_lexical_version``). ``snippet()`` and ``highlight()`` cannot read a contentless table:
snippets are cut from ``chunks.text`` in Python (core/query/search.py).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence

from vaultheat.core.vault.lexical import LEXICAL_VERSION, lexical_text
from vaultheat.storage.tables import batches

CREATE = (
    "CREATE VIRTUAL TABLE chunks_fts USING fts5(header, body, content = '', "
    "tokenize = 'unicode61 remove_diacritics 2')"
)
VERSION_KEY = "lexical_version"
_SQLITE = sqlite3.sqlite_version


def version_value() -> str:
    """What writes the FTS rows now: ``lexical_text``'s version and SQLite's."""
    return f"lexical {LEXICAL_VERSION}, sqlite {_SQLITE}"


def row_values(chunk_id: int, header: str, text: str) -> tuple[int, str, str]:
    """(rowid, header, body) of a chunk's FTS row, from its stored header and text."""
    return chunk_id, lexical_text(header), lexical_text(text)


def insert_rows(db: sqlite3.Connection, rows: Iterable[tuple[int, str, str]]) -> None:
    """Index chunks given as (id, stored header, stored text)."""
    db.executemany(
        "INSERT INTO chunks_fts(rowid, header, body) VALUES (?, ?, ?)",
        (row_values(*r) for r in rows),
    )


def delete_rows(db: sqlite3.Connection, rows: Iterable[tuple[int, str, str]]) -> None:
    """Remove the FTS rows of chunks given as (id, stored header, stored text), as inserted."""
    db.executemany(
        "INSERT INTO chunks_fts(chunks_fts, rowid, header, body) VALUES ('delete', ?, ?, ?)",
        (row_values(*r) for r in rows),
    )


def stored_rows(db: sqlite3.Connection, ids: Sequence[int]) -> list[tuple[int, str, str]]:
    """(id, header, text) of the chunks ``ids`` that exist, as stored."""
    out: list[tuple[int, str, str]] = []
    for part in batches(list(ids), 500):
        marks = ",".join("?" * len(part))
        out += db.execute(
            f"SELECT id, header, text FROM chunks WHERE id IN ({marks})", part
        ).fetchall()
    return [(int(i), str(h), str(t)) for i, h, t in out]


def delete_all(db: sqlite3.Connection) -> None:
    """Empty the FTS table (``DELETE FROM`` is refused by a contentless table)."""
    db.execute("INSERT INTO chunks_fts(chunks_fts) VALUES ('delete-all')")


def rebuild(db: sqlite3.Connection) -> None:
    """Every FTS row again from the chunks, with this ``lexical_text``, in the caller's
    transaction; records the lexical version."""
    delete_all(db)
    cur = db.execute("SELECT id, header, text FROM chunks ORDER BY id")
    while rows := cur.fetchmany(2000):
        insert_rows(db, ((int(i), str(h), str(t)) for i, h, t in rows))
    set_version(db)


def set_version(db: sqlite3.Connection) -> None:
    db.execute(
        "INSERT INTO manifest(key, value) VALUES (?, ?) "
        "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        (VERSION_KEY, json.dumps(version_value())),
    )


def ensure_lexical_version(db: sqlite3.Connection) -> bool:
    """For a writer on a migrated index: rebuild the FTS rows in one transaction when another
    ``lexical_text`` or SQLite wrote them (their rows could not be removed exactly).
    Returns whether it rebuilt."""
    if _current(db):
        return False
    db.execute("BEGIN IMMEDIATE")
    try:
        done = not _current(db)  # looked at again inside the transaction
        if done:
            rebuild(db)
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")
    return done


def _current(db: sqlite3.Connection) -> bool:
    row = db.execute("SELECT value FROM manifest WHERE key = ?", (VERSION_KEY,)).fetchone()
    return row is not None and json.loads(row[0]) == version_value()
