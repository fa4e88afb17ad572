"""The notes table, with the files a run skipped and the vault's attachments.

A note row carries what parsing found (title, frontmatter, aliases, warnings, page kind) and
what the stat scan compares (mtime, size, content hash); its chunks, links and tags live in
the other groups' tables, keyed by its id.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from typing import Any

from vaultheat.core.models import NoteRow, ParsedNote
from vaultheat.storage.tables import Tables, clean, clean_json, name_key


class NoteTables(Tables):
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
            clean_json(note.frontmatter),
            clean_json(note.aliases),
            clean_json(note.warnings),
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

    def kind_counts(self) -> dict[str, int]:
        """Indexed (not opted-out) files by kind, from the path's suffix as discovery reads it."""
        rows = self.db.execute(
            "SELECT CASE WHEN lower(path) LIKE '%.pdf' THEN 'pdf'"
            " WHEN lower(path) LIKE '%.canvas' THEN 'canvas' ELSE 'markdown' END AS kind,"
            " count(*) FROM notes WHERE excluded = 0 GROUP BY kind"
        ).fetchall()
        return {"markdown": 0, "pdf": 0, "canvas": 0, **{k: n for k, n in rows}}
