"""Links, tags, typed edges (link and similar) and the pending graph work.

Graph work is queued in ``pending_knn`` / ``pending_links`` in the same transaction that
changes the chunks, so a process killed between "store" and "graph repair" leaves a to-do
list, not a silently incomplete graph.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from typing import Any

from vaultheat.storage.tables import Tables, batches, clean


class LinkTables(Tables):
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
        for part in batches(keys, 500):
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
        for part in batches(list(set(paths)), 500):
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
        for part in batches(list(note_ids), 500):
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

    def resolved_link_count(self) -> int:
        """Links that resolve to a file (a cheap measure of how much the link graph moved)."""
        sql = "SELECT count(*) FROM links WHERE resolved_path IS NOT NULL"
        return int(self.db.execute(sql).fetchone()[0])

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
        for part in batches(list(chunk_ids), 500):
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
        return [(r[0], r[1], r[2], r[3]) for r in self.db.execute(sql)]  # no fetchall copy

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
        for part in batches(list(ids), 500):
            marks = ",".join("?" * len(part))
            self.db.execute(f"DELETE FROM pending_knn WHERE chunk_id IN ({marks})", part)

    def clear_pending_links(self, ids: Sequence[int]) -> None:
        for part in batches(list(ids), 500):
            marks = ",".join("?" * len(part))
            self.db.execute(f"DELETE FROM pending_links WHERE note_id IN ({marks})", part)
