"""The index's SQLite store: notes, chunks, links, tags, typed edges, embedding cache, manifest.

SQLite is the source of truth. Vectors live in the ``embeddings`` table keyed by (model
fingerprint, embedding-input hash), so the hnswlib file is a derived cache that can always be
rebuilt or reconciled from here, and an unchanged embedding input is never embedded twice, even
after a note moves or a paragraph travels to another note. Chunk ids come from AUTOINCREMENT
and are never reused: they are the hnswlib labels.

Graph work is queued in ``pending_knn`` / ``pending_links`` in the same transaction that
changes the chunks, so a process killed between "store" and "graph repair" leaves a to-do
list, not a silently incomplete graph.

A read-only store is a reader's view (the engine, the server's queries, the agents): its reads
(``READS``) raise ``IndexChangedError`` when SQLite fails under them, which is what an index
overwritten or rebuilt by another process causes, so the shells retry on the project's error
and never see ``sqlite3``. ``replaced()`` tells a reader that the file at the index's path is
no longer the one it opened (deleted and built anew): its reads would still succeed, on the
old file.
"""

from __future__ import annotations

import functools
import json
import os
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from vaultheat.core.lexical import fts_match, lexical_text
from vaultheat.core.models import ChunkDraft, ChunkRow, NoteRow, ParsedNote
from vaultheat.errors import IndexChangedError
from vaultheat.storage.db import check_integrity, connect

if TYPE_CHECKING:
    from vaultheat.core.ports import StorePort


_CHUNK_COLS = (
    "c.id, c.note_id, n.path, n.title, c.ordinal, c.byte_start, c.byte_end, c.line_start, "
    "c.line_end, c.heading_path, c.text, c.embed_hash, c.page, c.page_end, c.card_id, "
    "c.page_starts"
)
# an older index read by a reader, which cannot migrate it: schema 1 (before chunk locators),
# schemas 2-3 (before page starts); what it lacks reads as NULL
_CHUNK_COLS_V1 = _CHUNK_COLS.replace(
    "c.page, c.page_end, c.card_id, c.page_starts", "NULL, NULL, NULL, NULL"
)
_CHUNK_COLS_V3 = _CHUNK_COLS.replace("c.page_starts", "NULL")


@dataclass(frozen=True)
class Integrity:
    """The database half of ``vaultheat check``: counts of what should be zero or equal."""

    sqlite: str | None  # SQLite's own integrity check: None when it passes
    chunk_ids: frozenset[int]
    dangling_edges: int  # edges whose end is no chunk
    orphan_chunks: int  # chunks whose note is gone
    bad_ranges: int  # chunks whose byte range lies outside their note
    lexical_rows: int  # FTS rows (one per chunk expected)


def _chunk(row: sqlite3.Row) -> ChunkRow:
    return ChunkRow(
        id=row[0],
        note_id=row[1],
        path=row[2],
        title=row[3],
        ordinal=row[4],
        byte_start=row[5],
        byte_end=row[6],
        line_start=row[7],
        line_end=row[8],
        heading_path=tuple(json.loads(row[9])),
        text=row[10],
        embed_hash=row[11],
        page=row[12],
        page_end=row[13],
        card_id=row[14],
        page_starts=tuple((int(o), int(p)) for o, p in json.loads(row[15])) if row[15] else (),
    )


def _page_starts(d: ChunkDraft) -> str | None:
    return json.dumps([list(s) for s in d.page_starts]) if d.page_starts else None


def clean(text: str) -> str:
    """Text that SQLite can store: undecodable bytes (kept as surrogate escapes in memory so
    byte offsets stay exact) become U+FFFD. Offsets are stored separately, so nothing is lost."""
    if text.isascii():
        return text
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def _clean_json(value: Any) -> str:
    return clean(json.dumps(value, ensure_ascii=False, default=str))


def name_key(path_or_name: str) -> str:
    """The case-folded, NFC lookup key of a note name (file name without .md)."""
    import unicodedata

    base = path_or_name.rsplit("/", 1)[-1]
    if base.lower().endswith(".md"):
        base = base[:-3]
    return unicodedata.normalize("NFC", base).casefold()


class Store:
    def __init__(self, path: Path, *, readonly: bool = False) -> None:
        self.path = path
        self.readonly = readonly
        self.db = connect(path, readonly=readonly)
        self._identity = _file_identity(path)
        self._chunk_cols = self._chunk_cols_now()

    def _chunk_cols_now(self) -> str:
        cols = {r[1] for r in self.db.execute("PRAGMA table_info(chunks)")}
        if "page_starts" in cols:
            return _CHUNK_COLS
        return _CHUNK_COLS_V3 if "card_id" in cols else _CHUNK_COLS_V1

    def _cols(self) -> str:
        """The chunk columns to read: a reader of an older index looks again until a writer
        (the next index run) has added the newer columns under it, then reads them."""
        if self._chunk_cols is not _CHUNK_COLS:
            self._chunk_cols = self._chunk_cols_now()
        return self._chunk_cols

    def replaced(self) -> bool:
        """Whether the index file at ``path`` is gone or another file than the one opened."""
        return _file_identity(self.path) != self._identity

    def close(self) -> None:
        self.db.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield self.db
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        else:
            self.db.execute("COMMIT")

    def clear(self, *, keep_fingerprint: str) -> int:
        """Empty the index for a rebuild with another model or chunking, in one transaction:
        every note, chunk, link, tag, edge, queue and manifest entry goes; the embedding cache of
        ``keep_fingerprint`` and the generation counter stay. Returns the new generation."""
        with self.transaction() as db:
            for table in (
                "notes", "chunks", "links", "tags", "edges", "pending_knn", "pending_links",
                "skipped", "attachments", "chunks_fts",
            ):  # fmt: skip
                db.execute(f"DELETE FROM {table}")
            db.execute("DELETE FROM embeddings WHERE fingerprint != ?", (keep_fingerprint,))
            db.execute("DELETE FROM manifest WHERE key != 'generation'")
            return self.bump_generation()

    def requeue_graph(self) -> int:
        """Drop every similarity edge and queue every chunk for kNN and every note for link
        repair (a same-model rebuild of the derived graph), in one transaction. Returns the new
        generation."""
        with self.transaction() as db:
            db.execute("DELETE FROM edges WHERE kind = 'similar'")
            db.execute("INSERT OR IGNORE INTO pending_knn(chunk_id) SELECT id FROM chunks")
            db.execute("INSERT OR IGNORE INTO pending_links(note_id) SELECT id FROM notes")
            return self.bump_generation()

    def integrity(self) -> Integrity:
        """What ``vaultheat check`` verifies inside the database (the vector file aside)."""
        q = self.db.execute
        return Integrity(
            sqlite=check_integrity(self.db),
            chunk_ids=frozenset(r[0] for r in q("SELECT id FROM chunks")),
            dangling_edges=q(
                "SELECT count(*) FROM edges WHERE src NOT IN (SELECT id FROM chunks) "
                "OR dst NOT IN (SELECT id FROM chunks)"
            ).fetchone()[0],
            orphan_chunks=q(
                "SELECT count(*) FROM chunks WHERE note_id NOT IN (SELECT id FROM notes)"
            ).fetchone()[0],
            bad_ranges=q(
                "SELECT count(*) FROM chunks c JOIN notes n ON n.id = c.note_id "
                "WHERE c.byte_start < 0 OR c.byte_end > n.size OR c.byte_end <= c.byte_start"
            ).fetchone()[0],
            lexical_rows=q("SELECT count(*) FROM chunks_fts").fetchone()[0],
        )

    # -- manifest -----------------------------------------------------------------------------
    def manifest(self) -> dict[str, Any]:
        return {r[0]: json.loads(r[1]) for r in self.db.execute("SELECT key, value FROM manifest")}

    def manifest_raw(self, key: str) -> str | None:
        """One manifest entry as stored (JSON text), or None: a read cheap enough for every
        query, which a caller can cache by its text."""
        row = self.db.execute("SELECT value FROM manifest WHERE key = ?", (key,)).fetchone()
        return str(row[0]) if row else None

    def set_manifest(self, **values: Any) -> None:
        self.db.executemany(
            "INSERT INTO manifest(key, value) VALUES (?, ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            [(k, json.dumps(v)) for k, v in values.items()],
        )

    def generation(self) -> int:
        row = self.db.execute("SELECT value FROM manifest WHERE key = 'generation'").fetchone()
        return int(json.loads(row[0])) if row else 0

    def bump_generation(self) -> int:
        gen = self.generation() + 1
        self.set_manifest(generation=gen)
        return gen

    # -- notes --------------------------------------------------------------------------------
    def notes(self) -> dict[str, NoteRow]:
        rows = self.db.execute(
            "SELECT id, path, content_hash, mtime_ns, size, title, excluded FROM notes"
        )
        return {r[1]: NoteRow(r[0], r[1], r[2], r[3], r[4], r[5], bool(r[6])) for r in rows}

    def notes_with_chunks(self) -> list[NoteRow]:
        """The searchable notes: not opted out and with at least one chunk, by path."""
        rows = self.db.execute(
            "SELECT id, path, content_hash, mtime_ns, size, title, excluded FROM notes n "
            "WHERE n.excluded = 0 AND EXISTS (SELECT 1 FROM chunks c WHERE c.note_id = n.id) "
            "ORDER BY n.path"
        )
        return [NoteRow(r[0], r[1], r[2], r[3], r[4], r[5], bool(r[6])) for r in rows]

    def note_by_path(self, path: str) -> NoteRow | None:
        r = self.db.execute(
            "SELECT id, path, content_hash, mtime_ns, size, title, excluded FROM notes "
            "WHERE path = ?",
            (path,),
        ).fetchone()
        return NoteRow(r[0], r[1], r[2], r[3], r[4], r[5], bool(r[6])) if r else None

    def note_aliases(self) -> dict[str, list[str]]:
        return {
            r[0]: json.loads(r[1])
            for r in self.db.execute("SELECT path, aliases FROM notes WHERE aliases != '[]'")
        }

    def note_meta(self, note_id: int) -> dict[str, Any]:
        kind = "page_kind" if self._has_column("notes", "page_kind") else "''"
        r = self.db.execute(
            "SELECT path, title, frontmatter, aliases, warnings, excluded, "
            f"{kind} FROM notes WHERE id = ?",
            (note_id,),
        ).fetchone()
        if r is None:
            return {}
        return {
            "path": r[0],
            "title": r[1],
            "frontmatter": json.loads(r[2]),
            "aliases": json.loads(r[3]),
            "warnings": json.loads(r[4]),
            "excluded": bool(r[5]),
            "page_kind": r[6] or "unclassified",  # core/pagekind.py; '' before the next run
        }

    def page_kinds(self) -> dict[str, str]:
        """path -> "digest" | "list" for the searchable notes that are not plain notes (an index
        from before page kinds, read by a reader that cannot migrate it, has none)."""
        if not self._has_column("notes", "page_kind"):
            return {}
        rows = self.db.execute(
            "SELECT path, page_kind FROM notes WHERE excluded = 0 "
            "AND page_kind IN ('digest', 'list')"
        )
        return {r[0]: r[1] for r in rows}

    def notes_without_page_kind(self) -> list[tuple[int, str]]:
        """(id, path) of the notes indexed before page kinds existed, by path."""
        rows = self.db.execute("SELECT id, path FROM notes WHERE page_kind = '' ORDER BY path")
        return [(int(r[0]), str(r[1])) for r in rows]

    def notes_without_page_starts(self) -> set[str]:
        """Paths of the notes (PDFs) with a chunk of joined pages but no page starts: indexed
        before page starts existed (m004), so the next index run reads them again."""
        if not self._has_column("chunks", "page_starts"):
            return set()
        rows = self.db.execute(
            "SELECT DISTINCT n.path FROM chunks c JOIN notes n ON n.id = c.note_id "
            "WHERE c.page_end > c.page AND c.page_starts IS NULL"
        )
        return {str(r[0]) for r in rows}

    def set_page_kinds(self, kinds: Iterable[tuple[int, str]]) -> None:
        self.db.executemany(
            "UPDATE notes SET page_kind = ? WHERE id = ?", [(k, i) for i, k in kinds]
        )

    def page_kind_counts(self) -> dict[str, int]:
        """Searchable notes per page kind ('' for notes not classified yet)."""
        if not self._has_column("notes", "page_kind"):
            return {}
        rows = self.db.execute(
            "SELECT page_kind, COUNT(*) FROM notes WHERE excluded = 0 GROUP BY page_kind"
        )
        return {str(r[0]): int(r[1]) for r in rows}

    def _has_column(self, table: str, column: str) -> bool:
        return any(r[1] == column for r in self.db.execute(f"PRAGMA table_info({table})"))

    def touch_note(self, note_id: int, mtime_ns: int, size: int) -> None:
        self.db.execute(
            "UPDATE notes SET mtime_ns = ?, size = ? WHERE id = ?", (mtime_ns, size, note_id)
        )

    def upsert_note(
        self, note: ParsedNote, *, content_hash: str, mtime_ns: int, size: int, page_kind: str = ""
    ) -> int:
        values = (
            name_key(note.path),
            content_hash,
            mtime_ns,
            size,
            clean(note.title),
            _clean_json(note.frontmatter),
            _clean_json(note.aliases),
            _clean_json(note.warnings),
            int(note.excluded),
            time.time(),
            page_kind,
        )
        row = self.db.execute("SELECT id FROM notes WHERE path = ?", (note.path,)).fetchone()
        if row:
            self.db.execute(
                "UPDATE notes SET name_key=?, content_hash=?, mtime_ns=?, size=?, title=?, "
                "frontmatter=?, aliases=?, warnings=?, excluded=?, indexed_at=?, page_kind=? "
                "WHERE id=?",
                (*values, row[0]),
            )
            return int(row[0])
        cur = self.db.execute(
            "INSERT INTO notes(path, name_key, content_hash, mtime_ns, size, title, frontmatter, "
            "aliases, warnings, excluded, indexed_at, page_kind) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
            (note.path, *values),
        )
        return int(cur.lastrowid or 0)

    def delete_note(self, note_id: int) -> list[int]:
        """Delete a note with its chunks, links, tags and edges; returns the chunk ids removed."""
        ids = [r[0] for r in self.db.execute("SELECT id FROM chunks WHERE note_id = ?", (note_id,))]
        self.delete_chunks(ids)
        self.db.execute("DELETE FROM pending_links WHERE note_id = ?", (note_id,))
        self.db.execute("DELETE FROM notes WHERE id = ?", (note_id,))
        return ids

    def replace_skipped(self, skipped: Iterable[tuple[str, str]]) -> None:
        self.db.execute("DELETE FROM skipped")
        self.db.executemany("INSERT OR REPLACE INTO skipped(path, reason) VALUES (?, ?)", skipped)

    def skipped(self) -> list[dict[str, str]]:
        return [
            {"path": r[0], "reason": r[1]}
            for r in self.db.execute("SELECT path, reason FROM skipped ORDER BY path")
        ]

    def skip_reason(self, path: str) -> str | None:
        """Why the last run skipped ``path`` (binary, too large, ...), or None."""
        row = self.db.execute("SELECT reason FROM skipped WHERE path = ?", (path,)).fetchone()
        return str(row[0]) if row else None

    def unchunked_notes(self) -> list[dict[str, str]]:
        """Notes stored without chunks because chunking failed, each with why."""
        out = []
        for path, warnings in self.db.execute(
            "SELECT path, warnings FROM notes n WHERE warnings LIKE '%chunking failed%' "
            "AND NOT EXISTS (SELECT 1 FROM chunks c WHERE c.note_id = n.id) ORDER BY path"
        ).fetchall():
            reason = next(w for w in json.loads(warnings) if "chunking failed" in w)
            out.append({"path": path, "reason": reason})
        return out

    def note_warnings(self) -> list[dict[str, str]]:
        """Every stored note's parse warnings (unusable frontmatter, ...), by path."""
        rows = self.db.execute(
            "SELECT path, warnings FROM notes WHERE warnings != '[]' ORDER BY path"
        )
        return [
            {"path": path, "warning": w}
            for path, warnings in rows
            for w in json.loads(warnings)
            if "chunking failed" not in w
        ]

    def note_count(self) -> int:
        """Indexed notes (those opted out by frontmatter not counted)."""
        return int(self.db.execute("SELECT count(*) FROM notes WHERE excluded = 0").fetchone()[0])

    def note_paths(self) -> dict[int, str]:
        """note id -> path, every stored note."""
        return {r[0]: r[1] for r in self.db.execute("SELECT id, path FROM notes")}

    def note_stats(self) -> dict[str, tuple[int, int]]:
        """path -> (mtime_ns, size) of every stored note: what the stat scan compares."""
        rows = self.db.execute("SELECT path, mtime_ns, size FROM notes")
        return {r[0]: (r[1], r[2]) for r in rows}

    def attachments(self) -> set[str]:
        return {r[0] for r in self.db.execute("SELECT path FROM attachments")}

    def replace_attachments(self, paths: Iterable[str]) -> None:
        self.db.execute("DELETE FROM attachments")
        self.db.executemany("INSERT INTO attachments(path) VALUES (?)", [(p,) for p in paths])

    # -- chunks -------------------------------------------------------------------------------
    def chunk_hashes(self, note_id: int) -> list[tuple[int, str]]:
        return [
            (r[0], r[1])
            for r in self.db.execute(
                "SELECT id, embed_hash FROM chunks WHERE note_id = ? ORDER BY ordinal", (note_id,)
            )
        ]

    def insert_chunk(self, note_id: int, d: ChunkDraft, embed_hash: str, header: str) -> int:
        cur = self.db.execute(
            "INSERT INTO chunks(note_id, ordinal, byte_start, byte_end, line_start, line_end, "
            "heading_path, text, embed_hash, page, page_end, card_id, page_starts) "
            "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                note_id,
                d.ordinal,
                d.byte_start,
                d.byte_end,
                d.line_start,
                d.line_end,
                _clean_json(list(d.heading_path)),
                clean(d.text),
                embed_hash,
                d.page,
                d.page_end,
                d.card_id,
                _page_starts(d),
            ),
        )
        cid = int(cur.lastrowid or 0)
        self.db.execute(
            "INSERT INTO chunks_fts(rowid, header, body) VALUES (?, ?, ?)",
            (cid, lexical_text(clean(header)), lexical_text(clean(d.text))),
        )
        return cid

    def update_chunk_position(self, chunk_id: int, d: ChunkDraft) -> None:
        self.db.execute(
            "UPDATE chunks SET ordinal=?, byte_start=?, byte_end=?, line_start=?, line_end=?, "
            "heading_path=?, text=?, page=?, page_end=?, card_id=?, page_starts=? WHERE id=?",
            (
                d.ordinal,
                d.byte_start,
                d.byte_end,
                d.line_start,
                d.line_end,
                _clean_json(list(d.heading_path)),
                clean(d.text),
                d.page,
                d.page_end,
                d.card_id,
                _page_starts(d),
                chunk_id,
            ),
        )

    def delete_chunks(self, ids: Sequence[int]) -> None:
        if not ids:
            return
        for part in _batches(ids, 500):
            marks = ",".join("?" * len(part))
            # neighbours that pointed at a removed chunk must refill their kNN lists
            self.db.execute(
                f"INSERT OR IGNORE INTO pending_knn(chunk_id) SELECT src FROM edges "
                f"WHERE kind = 'similar' AND dst IN ({marks}) AND src NOT IN ({marks})",
                (*part, *part),
            )
            self.db.execute(f"DELETE FROM edges WHERE src IN ({marks})", part)
            self.db.execute(f"DELETE FROM edges WHERE dst IN ({marks})", part)
            self.db.execute(f"DELETE FROM chunks_fts WHERE rowid IN ({marks})", part)
            self.db.execute(f"DELETE FROM pending_knn WHERE chunk_id IN ({marks})", part)
            self.db.execute(f"DELETE FROM chunks WHERE id IN ({marks})", part)

    def chunks(self, ids: Sequence[int]) -> dict[int, ChunkRow]:
        out: dict[int, ChunkRow] = {}
        for part in _batches(list(ids), 500):
            marks = ",".join("?" * len(part))
            for r in self.db.execute(
                f"SELECT {self._cols()} FROM chunks c JOIN notes n ON n.id = c.note_id "
                f"WHERE c.id IN ({marks})",
                part,
            ):
                out[r[0]] = _chunk(r)
        return out

    def note_chunks(self, note_id: int) -> list[ChunkRow]:
        return [
            _chunk(r)
            for r in self.db.execute(
                f"SELECT {self._cols()} FROM chunks c JOIN notes n ON n.id = c.note_id "
                "WHERE c.note_id = ? ORDER BY c.ordinal",
                (note_id,),
            )
        ]

    def chunks_of_notes(self, note_ids: Sequence[int]) -> dict[int, list[ChunkRow]]:
        """note id -> its chunks by ordinal (``note_chunks`` for many notes; a note without
        chunks is absent)."""
        out: dict[int, list[ChunkRow]] = {}
        for part in _batches(list(note_ids), 500):
            marks = ",".join("?" * len(part))
            for r in self.db.execute(
                f"SELECT {self._cols()} FROM chunks c JOIN notes n ON n.id = c.note_id "
                f"WHERE c.note_id IN ({marks}) ORDER BY c.note_id, c.ordinal",
                part,
            ):
                out.setdefault(r[1], []).append(_chunk(r))
        return out

    def chunks_of_paths(self, paths: Sequence[str]) -> dict[str, list[ChunkRow]]:
        """note path -> its chunks by ordinal (a path of no note, or of one without chunks,
        is absent)."""
        out: dict[str, list[ChunkRow]] = {}
        for part in _batches(list(paths), 500):
            marks = ",".join("?" * len(part))
            for r in self.db.execute(
                f"SELECT {self._cols()} FROM notes n JOIN chunks c ON c.note_id = n.id "
                f"WHERE n.path IN ({marks}) ORDER BY c.note_id, c.ordinal",
                part,
            ):
                out.setdefault(r[2], []).append(_chunk(r))
        return out

    def chunk_ids_of_notes(self, note_ids: Sequence[int]) -> dict[int, list[int]]:
        out: dict[int, list[int]] = {}
        for part in _batches(list(note_ids), 500):
            marks = ",".join("?" * len(part))
            for r in self.db.execute(
                f"SELECT note_id, id FROM chunks WHERE note_id IN ({marks}) ORDER BY ordinal",
                part,
            ):
                out.setdefault(r[0], []).append(r[1])
        return out

    def chunk_positions(self) -> list[tuple[int, int, int]]:
        """(chunk id, note id, ordinal) of every stored chunk."""
        return [
            (r[0], r[1], r[2])
            for r in self.db.execute("SELECT id, note_id, ordinal FROM chunks").fetchall()
        ]

    def chunk_notes(self) -> dict[int, int]:
        """chunk id -> note id, every stored chunk."""
        return {int(c): int(n) for c, n in self.db.execute("SELECT id, note_id FROM chunks")}

    def filtered_chunk_ids(
        self, *, folder: str | None, tag: str | None, properties: Mapping[str, Any]
    ) -> set[int]:
        """Chunk ids of the notes inside ``folder`` (a path prefix without slashes at either
        end), carrying ``tag`` or one nested under it (case-folded, without ``#``), and whose
        frontmatter has every ``properties`` key equal to its value; ``None`` = no condition."""
        sql = "SELECT c.id FROM chunks c JOIN notes n ON n.id = c.note_id WHERE 1=1"
        args: list[Any] = []
        if folder is not None:
            sql += " AND (n.path LIKE ? ESCAPE '\\')"
            args.append(_like_prefix(folder) + "/%")
        if tag is not None:
            sql += (
                " AND c.note_id IN (SELECT note_id FROM tags WHERE tag_key = ? OR tag_key LIKE ? "
                "ESCAPE '\\')"
            )
            args += [tag, _like_prefix(tag) + "/%"]
        for key, value in properties.items():
            sql += " AND json_extract(n.frontmatter, ?) = ?"
            args += ["$." + json.dumps(str(key)), int(value) if isinstance(value, bool) else value]
        return {r[0] for r in self.db.execute(sql, args)}

    def all_chunk_vectors_keys(self) -> list[tuple[int, str]]:
        return [(r[0], r[1]) for r in self.db.execute("SELECT id, embed_hash FROM chunks")]

    def chunk_count(self) -> int:
        return int(self.db.execute("SELECT count(*) FROM chunks").fetchone()[0])

    def note_chunk_count(self, note_id: int) -> int:
        row = self.db.execute("SELECT count(*) FROM chunks WHERE note_id = ?", (note_id,))
        return int(row.fetchone()[0])

    # -- embeddings cache ---------------------------------------------------------------------
    def cached_vectors(self, fingerprint: str, hashes: Sequence[str]) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        for part in _batches(list(dict.fromkeys(hashes)), 500):
            marks = ",".join("?" * len(part))
            for r in self.db.execute(
                f"SELECT input_hash, vector FROM embeddings WHERE fingerprint = ? "
                f"AND input_hash IN ({marks})",
                (fingerprint, *part),
            ):
                out[r[0]] = np.frombuffer(r[1], dtype=np.float32)
        return out

    def all_cached_vectors(self, fingerprint: str) -> dict[str, np.ndarray]:
        """input hash -> vector, the whole embedding cache of one model."""
        return {
            r[0]: np.frombuffer(r[1], dtype=np.float32)
            for r in self.db.execute(
                "SELECT input_hash, vector FROM embeddings WHERE fingerprint = ?", (fingerprint,)
            ).fetchall()
        }

    # -- chunks awaiting their vector (the meaning phase) -----------------------------------
    # A chunk "awaits its vector" when the embedding cache holds none for its input: derived
    # from the two tables, never a separate list that could drift from them.
    _UNEMBEDDED = (
        "NOT EXISTS (SELECT 1 FROM embeddings e WHERE e.fingerprint = ? "
        "AND e.input_hash = c.embed_hash)"
    )

    def unembedded_count(self, fingerprint: str) -> int:
        """Chunks whose vector the cache does not hold yet."""
        sql = f"SELECT count(*) FROM chunks c WHERE {self._UNEMBEDDED}"
        return int(self.db.execute(sql, (fingerprint,)).fetchone()[0])

    def unembedded_notes(
        self, fingerprint: str, note_ids: Sequence[int] | None = None
    ) -> list[tuple[int, str, str, int]]:
        """(note id, path, content hash, chunks awaiting a vector) of every note with such
        chunks (or of those among ``note_ids``), most recently modified first: the order the
        meaning phase embeds them in."""
        sql = (
            "SELECT n.id, n.path, n.content_hash, n.mtime_ns, count(*) FROM chunks c "
            f"JOIN notes n ON n.id = c.note_id WHERE {self._UNEMBEDDED}"
        )
        if note_ids is None:
            rows = self.db.execute(sql + " GROUP BY n.id", (fingerprint,)).fetchall()
        else:
            rows = []
            for part in _batches(list(note_ids), 500):
                marks = ",".join("?" * len(part))
                rows += self.db.execute(
                    sql + f" AND c.note_id IN ({marks}) GROUP BY n.id", (fingerprint, *part)
                ).fetchall()
        rows.sort(key=lambda r: (-r[3], r[0]))
        return [(r[0], r[1], r[2], r[4]) for r in rows]

    def unembedded_hashes(self, fingerprint: str, note_ids: Sequence[int]) -> dict[int, set[str]]:
        """note id -> the input hashes of its chunks that await a vector."""
        out: dict[int, set[str]] = {}
        for part in _batches(list(note_ids), 500):
            marks = ",".join("?" * len(part))
            for nid, h in self.db.execute(
                f"SELECT c.note_id, c.embed_hash FROM chunks c WHERE c.note_id IN ({marks}) "
                f"AND {self._UNEMBEDDED}",
                (*part, fingerprint),
            ):
                out.setdefault(nid, set()).add(h)
        return out

    def chunks_with_hashes(self, hashes: Sequence[str]) -> list[tuple[int, str]]:
        """(chunk id, input hash) of every chunk, in any note, whose input is one of ``hashes``."""
        out: list[tuple[int, str]] = []
        for part in _batches(list(dict.fromkeys(hashes)), 500):
            marks = ",".join("?" * len(part))
            out.extend(
                (r[0], r[1])
                for r in self.db.execute(
                    f"SELECT id, embed_hash FROM chunks WHERE embed_hash IN ({marks})", part
                )
            )
        return out

    def embedded_chunk_keys(self, fingerprint: str) -> list[tuple[int, str]]:
        """(chunk id, input hash) of the chunks whose vector the cache holds."""
        rows = self.db.execute(
            f"SELECT c.id, c.embed_hash FROM chunks c WHERE NOT {self._UNEMBEDDED}",
            (fingerprint,),
        )
        return [(r[0], r[1]) for r in rows.fetchall()]

    def put_vectors(self, fingerprint: str, items: dict[str, np.ndarray]) -> None:
        self.db.executemany(
            "INSERT OR REPLACE INTO embeddings(fingerprint, input_hash, vector) VALUES (?,?,?)",
            [(fingerprint, h, np.asarray(v, dtype=np.float32).tobytes()) for h, v in items.items()],
        )

    def gc_embeddings(self, fingerprint: str) -> int:
        """Drop cache entries no chunk uses once they outnumber the live ones (bounded growth)."""
        live = self.chunk_count()
        dead = self.db.execute(
            "SELECT count(*) FROM embeddings e WHERE NOT EXISTS "
            "(SELECT 1 FROM chunks c WHERE c.embed_hash = e.input_hash)"
        ).fetchone()[0]
        if dead <= max(1000, live // 2):
            return 0
        cur = self.db.execute(
            "DELETE FROM embeddings WHERE fingerprint != ? OR NOT EXISTS "
            "(SELECT 1 FROM chunks c WHERE c.embed_hash = embeddings.input_hash)",
            (fingerprint,),
        )
        return cur.rowcount

    # -- links and tags -----------------------------------------------------------------------
    def replace_links(self, note_id: int, rows: Sequence[tuple[Any, ...]]) -> None:
        """rows: (raw, target, target_key, subpath, alias, kind, byte_start, byte_end, line,
        resolved_path)."""
        self.db.execute("DELETE FROM links WHERE note_id = ?", (note_id,))
        self.db.executemany(
            "INSERT INTO links(note_id, raw, target, target_key, subpath, alias, kind, "
            "byte_start, byte_end, line, resolved_path) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
            [(note_id, *(clean(v) if isinstance(v, str) else v for v in r)) for r in rows],
        )

    def replace_tags(self, note_id: int, tags: Iterable[str]) -> None:
        self.db.execute("DELETE FROM tags WHERE note_id = ?", (note_id,))
        uniq = {clean(t).casefold(): clean(t) for t in tags}
        self.db.executemany(
            "INSERT INTO tags(note_id, tag, tag_key) VALUES (?,?,?)",
            [(note_id, t, k) for k, t in uniq.items()],
        )

    def links_with_keys(self, keys: Iterable[str]) -> list[sqlite3.Row]:
        keys = list(set(keys))
        out: list[sqlite3.Row] = []
        for part in _batches(keys, 500):
            marks = ",".join("?" * len(part))
            out.extend(
                self.db.execute(
                    f"SELECT rowid, note_id, target, subpath, kind, resolved_path FROM links "
                    f"WHERE target_key IN ({marks})",
                    part,
                )
            )
        return out

    def links_to_paths(self, paths: Iterable[str]) -> list[sqlite3.Row]:
        out: list[sqlite3.Row] = []
        for part in _batches(list(set(paths)), 500):
            marks = ",".join("?" * len(part))
            out.extend(
                self.db.execute(
                    f"SELECT rowid, note_id, target, subpath, kind, resolved_path FROM links "
                    f"WHERE resolved_path IN ({marks})",
                    part,
                )
            )
        return out

    def link_resolutions(self, note_id: int) -> list[tuple[int, str | None]]:
        """(rowid, resolved path) of a note's links: what ``set_link_resolution`` changes."""
        return [
            (r[0], r[1])
            for r in self.db.execute(
                "SELECT rowid, resolved_path FROM links WHERE note_id = ?", (note_id,)
            )
        ]

    def resolved_link_offsets(self, note_id: int) -> list[tuple[int, int]]:
        """(rowid, byte offset) of a note's resolved links, in the order they appear."""
        return [
            (r[0], r[1])
            for r in self.db.execute(
                "SELECT rowid, byte_start FROM links WHERE note_id = ? "
                "AND resolved_path IS NOT NULL ORDER BY byte_start",
                (note_id,),
            )
        ]

    def set_link_resolution(self, rowid: int, resolved: str | None) -> None:
        self.db.execute("UPDATE links SET resolved_path = ? WHERE rowid = ?", (resolved, rowid))

    def outgoing_links(self, note_id: int) -> list[sqlite3.Row]:
        return list(
            self.db.execute(
                "SELECT raw, target, subpath, kind, byte_start, byte_end, line, resolved_path "
                "FROM links WHERE note_id = ? ORDER BY byte_start",
                (note_id,),
            )
        )

    def resolved_links_of_notes(
        self, note_ids: Sequence[int]
    ) -> dict[int, list[tuple[str | None, str, int, str]]]:
        """note id -> (subpath, kind, byte_start, resolved path) of its resolved links, by
        byte_start (``outgoing_links`` for many notes, unresolved links left out)."""
        out: dict[int, list[tuple[str | None, str, int, str]]] = {}
        for part in _batches(list(note_ids), 500):
            marks = ",".join("?" * len(part))
            for r in self.db.execute(
                "SELECT note_id, subpath, kind, byte_start, resolved_path FROM links "
                f"WHERE note_id IN ({marks}) AND resolved_path IS NOT NULL "
                "ORDER BY note_id, byte_start",
                part,
            ):
                out.setdefault(r[0], []).append((r[1], r[2], r[3], r[4]))
        return out

    def linked_paths(self, note_id: int) -> set[str]:
        return {
            r[0]
            for r in self.db.execute(
                "SELECT DISTINCT resolved_path FROM links WHERE note_id = ? "
                "AND resolved_path IS NOT NULL",
                (note_id,),
            )
        }

    def note_link_pairs(self) -> list[tuple[str, str]]:
        """Distinct (source note, target note) pairs of resolved links between indexed notes
        (wikilinks, embeds, markdown and property links; attachments and self links left out)."""
        return [
            (r[0], r[1])
            for r in self.db.execute(
                "SELECT DISTINCT n.path, l.resolved_path FROM links l "
                "JOIN notes n ON n.id = l.note_id JOIN notes t ON t.path = l.resolved_path "
                "WHERE n.excluded = 0 AND t.excluded = 0 AND l.resolved_path != n.path"
            )
        ]

    def backlinking_paths(self, path: str) -> set[str]:
        return {
            r[0]
            for r in self.db.execute(
                "SELECT DISTINCT n.path FROM links l JOIN notes n ON n.id = l.note_id "
                "WHERE l.resolved_path = ? AND n.path != ?",
                (path, path),
            )
        }

    def note_tag_keys(self) -> list[tuple[str, int]]:
        """Distinct (case-folded tag, note id) pairs over the whole index."""
        return [(r[0], r[1]) for r in self.db.execute("SELECT DISTINCT tag_key, note_id FROM tags")]

    def note_tags(self, note_id: int) -> list[str]:
        return [r[0] for r in self.db.execute("SELECT tag FROM tags WHERE note_id = ?", (note_id,))]

    def tag_counts(self) -> dict[str, int]:
        return {
            r[0]: r[1]
            for r in self.db.execute("SELECT tag_key, count(DISTINCT note_id) FROM tags GROUP BY 1")
        }

    def notes_with_tag(self, tag_key: str) -> list[int]:
        return [
            r[0]
            for r in self.db.execute(
                "SELECT DISTINCT note_id FROM tags WHERE tag_key = ?", (tag_key,)
            )
        ]

    # -- edges --------------------------------------------------------------------------------
    def replace_similar(self, lists: dict[int, list[tuple[int, float]]]) -> None:
        for src, nbrs in lists.items():
            self.db.execute("DELETE FROM edges WHERE src = ? AND kind = 'similar'", (src,))
            self.db.executemany(
                "INSERT OR REPLACE INTO edges(src, dst, kind, weight) VALUES (?, ?, 'similar', ?)",
                [(src, dst, float(w)) for dst, w in nbrs],
            )

    def replace_link_edges(
        self, chunk_ids: Sequence[int], edges: list[tuple[int, int, float]]
    ) -> None:
        for part in _batches(list(chunk_ids), 500):
            marks = ",".join("?" * len(part))
            self.db.execute(f"DELETE FROM edges WHERE kind = 'link' AND src IN ({marks})", part)
        self.db.executemany(
            "INSERT OR REPLACE INTO edges(src, dst, kind, weight) VALUES (?, ?, 'link', ?)", edges
        )

    def edge_rows(self, *, similar: bool = True) -> list[tuple[int, int, str, float]]:
        """Every stored edge as (src, dst, kind, weight); ``similar=False`` leaves the kNN
        edges out (link edges only)."""
        sql = "SELECT src, dst, kind, weight FROM edges"
        if not similar:
            sql += " WHERE kind != 'similar'"
        return [(r[0], r[1], r[2], r[3]) for r in self.db.execute(sql).fetchall()]

    def similar_pairs(self) -> set[tuple[int, int]]:
        """(src, dst) of every stored similarity edge."""
        rows = self.db.execute("SELECT src, dst FROM edges WHERE kind = 'similar'")
        return {(int(s), int(d)) for s, d in rows}

    def edges_from(self, chunk_id: int) -> list[tuple[int, str, float]]:
        return [
            (r[0], r[1], r[2])
            for r in self.db.execute(
                "SELECT dst, kind, weight FROM edges WHERE src = ?", (chunk_id,)
            )
        ]

    def edges_to(self, chunk_id: int) -> list[tuple[int, str, float]]:
        return [
            (r[0], r[1], r[2])
            for r in self.db.execute(
                "SELECT src, kind, weight FROM edges WHERE dst = ?", (chunk_id,)
            )
        ]

    def edge_counts(self) -> dict[str, int]:
        return {r[0]: r[1] for r in self.db.execute("SELECT kind, count(*) FROM edges GROUP BY 1")}

    # -- pending graph work -------------------------------------------------------------------
    def add_pending_knn(self, ids: Iterable[int]) -> None:
        self.db.executemany(
            "INSERT OR IGNORE INTO pending_knn(chunk_id) VALUES (?)", [(i,) for i in ids]
        )

    def add_pending_links(self, note_ids: Iterable[int]) -> None:
        self.db.executemany(
            "INSERT OR IGNORE INTO pending_links(note_id) VALUES (?)", [(i,) for i in note_ids]
        )

    def pending_knn(self) -> list[int]:
        return [r[0] for r in self.db.execute("SELECT chunk_id FROM pending_knn ORDER BY 1")]

    def pending_links(self) -> list[int]:
        return [r[0] for r in self.db.execute("SELECT note_id FROM pending_links ORDER BY 1")]

    def clear_pending_knn(self, ids: Sequence[int]) -> None:
        for part in _batches(list(ids), 500):
            marks = ",".join("?" * len(part))
            self.db.execute(f"DELETE FROM pending_knn WHERE chunk_id IN ({marks})", part)

    def clear_pending_links(self, ids: Sequence[int]) -> None:
        for part in _batches(list(ids), 500):
            marks = ",".join("?" * len(part))
            self.db.execute(f"DELETE FROM pending_links WHERE note_id IN ({marks})", part)

    # -- lexical ------------------------------------------------------------------------------
    def lexical_search(self, query: str, limit: int) -> list[tuple[int, float]]:
        """(chunk id, BM25 score >= 0, higher is better); header (title, aliases, headings,
        tags) weighs twice the body."""
        match = fts_match(query)
        if match is None or limit <= 0:
            return []
        try:
            rows = self.db.execute(
                "SELECT rowid, bm25(chunks_fts, 2.0, 1.0) AS s FROM chunks_fts "
                "WHERE chunks_fts MATCH ? ORDER BY s LIMIT ?",
                (match, limit),
            ).fetchall()
        except sqlite3.OperationalError:
            return []
        return [(int(r[0]), -float(r[1])) for r in rows]

    def term_doc_counts(self, terms: Sequence[str]) -> dict[str, int]:
        """term -> number of chunks whose lexical text holds it, for the ``terms`` the index
        knows (FTS5's vocabulary, read through a per-connection ``fts5vocab`` table)."""
        self.db.execute(
            "CREATE VIRTUAL TABLE IF NOT EXISTS temp.vh_vocab "
            "USING fts5vocab(main, chunks_fts, row)"
        )
        df: dict[str, int] = {}
        terms = list(terms)
        for part in _batches(terms, 200):
            marks = ",".join("?" * len(part))
            for term, doc in self.db.execute(
                f"SELECT term, doc FROM temp.vh_vocab WHERE term IN ({marks})", part
            ):
                df[term] = doc
        return df

    # -- counts -------------------------------------------------------------------------------
    def kind_counts(self) -> dict[str, int]:
        """Indexed (not opted-out) files by kind, from the path's suffix as discovery reads it."""
        rows = self.db.execute(
            "SELECT CASE WHEN lower(path) LIKE '%.pdf' THEN 'pdf'"
            " WHEN lower(path) LIKE '%.canvas' THEN 'canvas' ELSE 'markdown' END AS kind,"
            " count(*) FROM notes WHERE excluded = 0 GROUP BY kind"
        ).fetchall()
        return {"markdown": 0, "pdf": 0, "canvas": 0, **{k: n for k, n in rows}}

    def counts(self) -> dict[str, Any]:
        q = self.db.execute
        return {
            "notes": q("SELECT count(*) FROM notes WHERE excluded = 0").fetchone()[0],
            "excluded": q("SELECT count(*) FROM notes WHERE excluded = 1").fetchone()[0],
            "chunks": q("SELECT count(*) FROM chunks").fetchone()[0],
            "links": {
                "resolved": q(
                    "SELECT count(*) FROM links WHERE resolved_path IS NOT NULL"
                ).fetchone()[0],
                "unresolved": q(
                    "SELECT count(*) FROM links WHERE resolved_path IS NULL"
                ).fetchone()[0],
            },
            "tags": q("SELECT count(DISTINCT tag_key) FROM tags").fetchone()[0],
            "kinds": self.kind_counts(),
            "edges": self.edge_counts(),
            "pending": {
                "knn": q("SELECT count(*) FROM pending_knn").fetchone()[0],
                "links": q("SELECT count(*) FROM pending_links").fetchone()[0],
            },
        }


if TYPE_CHECKING:

    def _implements_port(store: Store) -> StorePort:
        return store  # mypy fails here when Store lacks a read core's StorePort declares


# Every public method is a read (SQLite failing under a read-only store's read, as a malformed
# page or a table gone, is IndexChangedError) or not
# (writes, and ``integrity``, whose own failure is the damage ``vaultheat check`` reports);
# tests/storage/test_index_changed.py fails on a method in neither list.
READS = (
    "manifest", "manifest_raw", "generation", "notes", "notes_with_chunks", "note_by_path",
    "note_aliases", "note_meta", "skipped", "skip_reason", "unchunked_notes", "note_warnings",
    "note_count",
    "note_paths", "note_stats", "attachments", "chunk_hashes", "chunks", "note_chunks",
    "chunks_of_notes", "chunks_of_paths", "chunk_ids_of_notes", "chunk_positions", "chunk_notes",
    "filtered_chunk_ids",
    "all_chunk_vectors_keys", "chunk_count", "note_chunk_count", "cached_vectors",
    "all_cached_vectors", "unembedded_count", "unembedded_notes", "unembedded_hashes",
    "chunks_with_hashes", "embedded_chunk_keys", "links_with_keys", "links_to_paths",
    "link_resolutions",
    "resolved_link_offsets", "outgoing_links", "resolved_links_of_notes", "linked_paths",
    "note_link_pairs",
    "backlinking_paths", "note_tag_keys", "note_tags", "tag_counts", "notes_with_tag",
    "edge_rows", "similar_pairs", "edges_from", "edges_to", "edge_counts", "pending_knn",
    "pending_links", "lexical_search", "term_doc_counts", "kind_counts", "counts",
    "page_kinds", "notes_without_page_kind", "page_kind_counts", "notes_without_page_starts",
)  # fmt: skip
NOT_READS = (
    "close", "replaced", "transaction", "clear", "requeue_graph", "integrity", "set_manifest",
    "bump_generation", "touch_note", "upsert_note", "delete_note", "replace_skipped",
    "replace_attachments", "insert_chunk", "update_chunk_position", "delete_chunks",
    "put_vectors", "gc_embeddings", "replace_links", "replace_tags", "set_link_resolution",
    "replace_similar", "replace_link_edges", "add_pending_knn", "add_pending_links",
    "clear_pending_knn", "clear_pending_links", "set_page_kinds",
)  # fmt: skip

F = TypeVar("F", bound=Callable[..., Any])
_CALLER_BUGS = (sqlite3.ProgrammingError, sqlite3.InterfaceError)
_ROLLBACK_RETRIES = 2


def _read(method: F) -> F:
    @functools.wraps(method)
    def read(self: Store, *args: Any, **kwargs: Any) -> Any:
        for attempt in range(_ROLLBACK_RETRIES + 1):
            try:
                return method(self, *args, **kwargs)
            except sqlite3.Error as exc:
                # a closed connection or a bad parameter is a bug of the caller, not the index
                if not self.readonly or isinstance(exc, _CALLER_BUGS):
                    raise
                # another query thread ended its read transaction on this shared connection
                # while this statement was stepping (SQLITE_ABORT_ROLLBACK): a read can run again
                if "abort due to ROLLBACK" in str(exc) and attempt < _ROLLBACK_RETRIES:
                    continue
                raise IndexChangedError(
                    f"the index at {self.path} changed during a read ({exc}); reopen it and retry",
                    path=str(self.path),
                ) from exc
        raise AssertionError("unreachable")  # the loop returns or raises

    return read  # type: ignore[return-value]


for _name in READS:
    setattr(Store, _name, _read(getattr(Store, _name)))


def _file_identity(path: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def _like_prefix(s: str) -> str:
    """``s`` with LIKE's wildcards escaped (escape character ``\\``)."""
    return s.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _batches(items: Sequence[Any], size: int) -> Iterator[Sequence[Any]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]
