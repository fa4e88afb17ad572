"""What the store's groups of tables share: the connection they query, and the helpers that
turn Python values into what SQLite stores.

``Store`` (store.py) is composed of one class per group of tables: notes.py (notes, skipped
files, attachments), chunks.py (chunks and their FTS rows), embedcache.py (the embedding cache
and the chunks awaiting a vector) and links.py (links, tags, typed edges, pending graph work).
Each is a ``Tables``: it reaches the others' tables through SQL only, never through their
methods, so a group reads alone; an operation that spans groups through their methods
(deleting a note, clearing the index, the counts) lives on ``Store``.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any


class Tables:
    """The state every group of tables reads: ``Store.__init__`` sets it."""

    path: Path
    readonly: bool
    db: sqlite3.Connection

    def _has_column(self, table: str, column: str) -> bool:
        return any(r[1] == column for r in self.db.execute(f"PRAGMA table_info({table})"))


def clean(text: str) -> str:
    """Text that SQLite can store: undecodable bytes (kept as surrogate escapes in memory so
    byte offsets stay exact) become U+FFFD. Offsets are stored separately, so nothing is lost."""
    if text.isascii():
        return text
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def clean_json(value: Any) -> str:
    return clean(json.dumps(value, ensure_ascii=False, default=str))


def name_key(path_or_name: str) -> str:
    """The case-folded, NFC lookup key of a note name (file name without .md)."""
    import unicodedata

    base = path_or_name.rsplit("/", 1)[-1]
    if base.lower().endswith(".md"):
        base = base[:-3]
    return unicodedata.normalize("NFC", base).casefold()


def batches(items: Sequence[Any], size: int) -> Iterator[Sequence[Any]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]
