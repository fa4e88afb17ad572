"""The chunks table and its full-text (FTS5) rows, written together (the rows through
storage/fts.py, which computes them from the chunk's stored header and text).

Chunk ids come from AUTOINCREMENT and are never reused: they are the hnswlib labels and the
FTS rowids. A reader of an older index, which cannot migrate it, reads the columns it lacks
as NULL (``_cols``).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping, Sequence
from typing import Any

from vaultheat.core.models import ChunkDraft, ChunkRow
from vaultheat.core.vault.lexical import fts_match
from vaultheat.storage import fts
from vaultheat.storage.tables import Tables, batches, clean, clean_json

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


def _like_prefix(s: str) -> str:
    """``s`` with LIKE's wildcards escaped (escape character ``\\``)."""
    return s.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


class ChunkTables(Tables):
    _chunk_cols: str

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

    def chunk_hashes(self, note_id: int) -> list[tuple[int, str]]:
        return [
            (r[0], r[1])
            for r in self.db.execute(
                "SELECT id, embed_hash FROM chunks WHERE note_id = ? ORDER BY ordinal", (note_id,)
            )
        ]

    def insert_chunks(self, rows: Sequence[tuple[int, ChunkDraft, str, str]]) -> list[int]:
        """Insert chunks (note id, draft, embed hash, lexical header) with their FTS rows, in
        two statements run many times; returns their ids in order. The ids are AUTOINCREMENT's
        own: one past the largest id the table ever held (``sqlite_sequence``) or holds, given
        here because the store's one writer (the WriterLock) writes inside a transaction."""
        if not rows:
            return []
        seq = self.db.execute("SELECT seq FROM sqlite_sequence WHERE name = 'chunks'").fetchone()
        top = self.db.execute("SELECT max(id) FROM chunks").fetchone()[0]
        first = max(seq[0] if seq else 0, top or 0) + 1
        ids = list(range(first, first + len(rows)))
        self.db.executemany(
            "INSERT INTO chunks(id, note_id, ordinal, byte_start, byte_end, line_start, "
            "line_end, heading_path, text, embed_hash, page, page_end, card_id, page_starts, "
            "header) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            [
                (
                    cid,
                    note_id,
                    d.ordinal,
                    d.byte_start,
                    d.byte_end,
                    d.line_start,
                    d.line_end,
                    clean_json(list(d.heading_path)),
                    clean(d.text),
                    embed_hash,
                    d.page,
                    d.page_end,
                    d.card_id,
                    _page_starts(d),
                    clean(header),
                )
                for cid, (note_id, d, embed_hash, header) in zip(ids, rows, strict=True)
            ],
        )
        fts.insert_rows(
            self.db,
            (
                (cid, clean(header), clean(d.text))
                for cid, (_, d, _, header) in zip(ids, rows, strict=True)
            ),
        )
        return ids

    def update_chunk_position(
        self, chunk_id: int, d: ChunkDraft, header: str | None = None
    ) -> None:
        """Move a kept chunk (same embedding input) to its new place in its note; its text, and
        its lexical ``header`` when given, may change too, and its FTS row with them."""
        old = fts.stored_rows(self.db, [chunk_id])
        kept = old[0][1] if old else ""
        new_header = kept if header is None else clean(header)
        if old and old[0][1:] != (new_header, clean(d.text)):
            fts.delete_rows(self.db, old)  # the row as it was indexed, then as it is now
            fts.insert_rows(self.db, [(chunk_id, new_header, clean(d.text))])
        self.db.execute(
            "UPDATE chunks SET ordinal=?, byte_start=?, byte_end=?, line_start=?, line_end=?, "
            "heading_path=?, text=?, page=?, page_end=?, card_id=?, page_starts=?, header=? "
            "WHERE id=?",
            (
                d.ordinal,
                d.byte_start,
                d.byte_end,
                d.line_start,
                d.line_end,
                clean_json(list(d.heading_path)),
                clean(d.text),
                d.page,
                d.page_end,
                d.card_id,
                _page_starts(d),
                new_header,
                chunk_id,
            ),
        )

    def delete_chunks(self, ids: Sequence[int]) -> None:
        if not ids:
            return
        for part in batches(ids, 500):
            marks = ",".join("?" * len(part))
            # neighbours that pointed at a removed chunk must refill their kNN lists
            self.db.execute(
                f"INSERT OR IGNORE INTO pending_knn(chunk_id) SELECT src FROM edges "
                f"WHERE kind = 'similar' AND dst IN ({marks}) AND src NOT IN ({marks})",
                (*part, *part),
            )
            self.db.execute(f"DELETE FROM edges WHERE src IN ({marks})", part)
            self.db.execute(f"DELETE FROM edges WHERE dst IN ({marks})", part)
            fts.delete_rows(self.db, fts.stored_rows(self.db, part))  # before the chunks go
            self.db.execute(f"DELETE FROM pending_knn WHERE chunk_id IN ({marks})", part)
            self.db.execute(f"DELETE FROM chunks WHERE id IN ({marks})", part)

    def chunks(self, ids: Sequence[int]) -> dict[int, ChunkRow]:
        out: dict[int, ChunkRow] = {}
        for part in batches(list(ids), 500):
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

    def shared_chunk_texts(self, min_notes: int = 2) -> list[tuple[str, int, list[int]]]:
        """Chunk texts found word for word in at least ``min_notes`` notes: (text, how many
        notes, the chunk ids with that text), for ``core/shared_text.py``."""
        rows = self.db.execute(
            "SELECT text, COUNT(DISTINCT note_id), group_concat(id) FROM chunks "
            "GROUP BY text HAVING COUNT(DISTINCT note_id) >= ?",
            (min_notes,),
        )
        return [(str(r[0]), int(r[1]), [int(i) for i in str(r[2]).split(",")]) for r in rows]

    def chunks_of_notes(self, note_ids: Sequence[int]) -> dict[int, list[ChunkRow]]:
        """note id -> its chunks by ordinal (``note_chunks`` for many notes; a note without
        chunks is absent)."""
        return self._chunks_by("c.note_id", 1, note_ids)

    def chunks_of_paths(self, paths: Sequence[str]) -> dict[str, list[ChunkRow]]:
        """note path -> its chunks by ordinal (a path of no note, or of one without chunks,
        is absent)."""
        return self._chunks_by("n.path", 2, paths)

    def _chunks_by(self, column: str, key: int, values: Sequence[Any]) -> dict[Any, list[ChunkRow]]:
        """Chunks whose ``column`` is one of ``values``, grouped by the row's field ``key``
        (1 the note id, 2 its path), each group by ordinal."""
        out: dict[Any, list[ChunkRow]] = {}
        for part in batches(list(values), 500):
            marks = ",".join("?" * len(part))
            for r in self.db.execute(
                f"SELECT {self._cols()} FROM chunks c JOIN notes n ON n.id = c.note_id "
                f"WHERE {column} IN ({marks}) ORDER BY c.note_id, c.ordinal",
                part,
            ):
                out.setdefault(r[key], []).append(_chunk(r))
        return out

    def chunk_ids_of_notes(self, note_ids: Sequence[int]) -> dict[int, list[int]]:
        out: dict[int, list[int]] = {}
        for part in batches(list(note_ids), 500):
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

    # -- languages (m006) ---------------------------------------------------------------------
    def language_counts(self) -> dict[str, int]:
        """Chunks per language code ("und" included), largest first, and ``pending``: the
        chunks not looked at yet (every chunk of an index from before m006)."""
        if not self._has_column("chunks", "language"):
            return {"pending": self.chunk_count()}
        rows = self.db.execute("SELECT language, count(*) FROM chunks GROUP BY language")
        counts = {r[0]: int(r[1]) for r in rows}
        pending = counts.pop(None, 0)
        out = dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
        out["pending"] = pending
        return out

    def chunk_languages(self, skip: Sequence[str] = ("en", "und")) -> dict[int, str]:
        """Chunk id -> language code of every chunk whose language is known and not in
        ``skip`` (routing reads the chunks not in English, core/routing.py)."""
        if not self._has_column("chunks", "language"):
            return {}
        marks = ",".join("?" * len(skip))
        where = "language IS NOT NULL"
        if skip:
            where += f" AND language NOT IN ({marks})"
        rows = self.db.execute(f"SELECT id, language FROM chunks WHERE {where}", tuple(skip))
        return {int(cid): str(code) for cid, code in rows}

    def notes_without_language(self) -> list[tuple[int, str, str, int]]:
        """(note id, path, content hash, chunks without a language) of every note with such
        chunks, most recently modified first (the meaning phase's order)."""
        if not self._has_column("chunks", "language"):
            return []
        rows = self.db.execute(
            "SELECT n.id, n.path, n.content_hash, n.mtime_ns, count(*) FROM chunks c "
            "JOIN notes n ON n.id = c.note_id WHERE c.language IS NULL GROUP BY n.id"
        ).fetchall()
        rows.sort(key=lambda r: (-r[3], r[0]))
        return [(int(r[0]), str(r[1]), str(r[2]), int(r[4])) for r in rows]

    def hashes_without_language(self, note_ids: Sequence[int]) -> dict[int, set[str]]:
        """note id -> the input hashes of its chunks without a language."""
        out: dict[int, set[str]] = {}
        for part in batches(list(note_ids), 500):
            marks = ",".join("?" * len(part))
            for nid, h in self.db.execute(
                f"SELECT note_id, embed_hash FROM chunks WHERE note_id IN ({marks}) "
                "AND language IS NULL",
                part,
            ):
                out.setdefault(int(nid), set()).add(str(h))
        return out

    def set_languages(self, languages: Mapping[str, str]) -> int:
        """Give every chunk whose input hash is a key of ``languages`` (input hash -> code)
        that language; returns how many chunks changed."""
        before = self.db.total_changes
        self.db.executemany(
            "UPDATE chunks SET language = ? WHERE embed_hash = ? AND language IS NOT ?",
            [(code, h, code) for h, code in languages.items()],
        )
        return self.db.total_changes - before

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
        for part in batches(terms, 200):
            marks = ",".join("?" * len(part))
            for term, doc in self.db.execute(
                f"SELECT term, doc FROM temp.vh_vocab WHERE term IN ({marks})", part
            ):
                df[term] = doc
        return df
