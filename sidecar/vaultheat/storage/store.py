"""The index's SQLite store: notes, chunks, links, tags, typed edges, embedding cache, manifest.

SQLite is the source of truth: the hnswlib file is a derived cache that can always be rebuilt
or reconciled from the ``embeddings`` table (embedcache.py). ``Store`` is composed of one class
per group of tables (tables.py: notes.py, chunks.py, embedcache.py, links.py); this module
opens the connection and holds what spans the groups: the manifest and its generation,
transactions, clearing and requeueing the index, deleting a note, the integrity check and the
counts.

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
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from vaultheat.errors import IndexChangedError
from vaultheat.storage import fts
from vaultheat.storage.chunks import ChunkTables
from vaultheat.storage.db import check_integrity, connect
from vaultheat.storage.embedcache import EmbeddingTables
from vaultheat.storage.links import LinkTables
from vaultheat.storage.notes import NoteTables
from vaultheat.storage.tables import clean, name_key

if TYPE_CHECKING:
    from vaultheat.core.ports import StorePort

__all__ = ["NOT_READS", "READS", "Integrity", "Store", "clean", "name_key"]


@dataclass(frozen=True)
class Integrity:
    """The database half of ``vaultheat check``: counts of what should be zero or equal."""

    sqlite: str | None  # SQLite's own integrity check: None when it passes
    chunk_ids: frozenset[int]
    dangling_edges: int  # edges whose end is no chunk
    orphan_chunks: int  # chunks whose note is gone
    bad_ranges: int  # chunks whose byte range lies outside their note
    lexical_rows: int  # FTS rows (one per chunk expected)
    lexical_strays: int  # chunks without an FTS row under their id, and FTS rows of no chunk


class Store(NoteTables, ChunkTables, EmbeddingTables, LinkTables):
    def __init__(self, path: Path, *, readonly: bool = False) -> None:
        self.path = path
        self.readonly = readonly
        self.db = connect(path, readonly=readonly)
        self._identity = _file_identity(path)
        self._chunk_cols = self._chunk_cols_now()

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
        ``keep_fingerprint``, the generation counter and the lexical version stay. Returns the new
        generation."""
        with self.transaction() as db:
            for table in (
                "notes", "chunks", "links", "tags", "edges", "pending_knn", "pending_links",
                "skipped", "attachments",
            ):  # fmt: skip
                db.execute(f"DELETE FROM {table}")
            fts.delete_all(db)
            self._keep_only_model(keep_fingerprint)
            db.execute(
                "DELETE FROM manifest WHERE key NOT IN ('generation', ?)", (fts.VERSION_KEY,)
            )
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
            lexical_strays=q(
                "SELECT (SELECT count(*) FROM chunks WHERE id NOT IN "
                "(SELECT rowid FROM chunks_fts)) + (SELECT count(*) FROM chunks_fts "
                "WHERE rowid NOT IN (SELECT id FROM chunks))"
            ).fetchone()[0],
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

    # -- across the groups of tables ----------------------------------------------------------
    def delete_note(self, note_id: int) -> list[int]:
        """Delete a note with its chunks, links, tags and edges; returns the chunk ids removed."""
        ids = [r[0] for r in self.db.execute("SELECT id FROM chunks WHERE note_id = ?", (note_id,))]
        self.delete_chunks(ids)
        self.db.execute("DELETE FROM pending_links WHERE note_id = ?", (note_id,))
        self.db.execute("DELETE FROM notes WHERE id = ?", (note_id,))
        return ids

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
    "shared_chunk_texts",
    "filtered_chunk_ids",
    "all_chunk_vectors_keys", "chunk_count", "note_chunk_count", "cached_vectors",
    "all_cached_vectors", "unembedded_count", "second_only_count", "unembedded_notes",
    "unembedded_hashes",
    "chunks_with_hashes", "embedded_chunk_keys", "links_with_keys", "links_to_paths",
    "link_resolutions",
    "resolved_link_offsets", "outgoing_links", "resolved_links_of_notes", "linked_paths",
    "note_link_pairs", "resolved_link_count",
    "backlinking_paths", "note_tag_keys", "note_tags", "tag_counts", "notes_with_tag",
    "edge_rows", "similar_pairs", "edges_from", "edges_to", "edge_counts", "pending_knn",
    "pending_links", "lexical_search", "term_doc_counts", "kind_counts", "counts",
    "page_kinds", "notes_without_page_kind", "page_kind_counts", "notes_without_page_starts",
    "language_counts", "notes_without_language", "hashes_without_language", "chunk_languages",
)  # fmt: skip
NOT_READS = (
    "close", "replaced", "transaction", "clear", "requeue_graph", "integrity", "set_manifest",
    "bump_generation", "touch_note", "upsert_note", "delete_note", "replace_skipped",
    "replace_attachments", "insert_chunks", "update_chunk_position", "delete_chunks",
    "put_vectors", "gc_embeddings", "replace_links", "replace_tags", "set_link_resolution",
    "replace_similar", "replace_link_edges", "add_pending_knn", "add_pending_links",
    "clear_pending_knn", "clear_pending_links", "set_page_kinds", "set_languages",
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
