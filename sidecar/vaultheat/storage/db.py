"""SQLite connection and numbered migrations.

WAL mode lets readers (queries, the server) run while one writer indexes. Each migration is a
function ``mNNN_name(db)``; ``user_version`` records how far a database has come, so opening an
older index upgrades it in place and a newer one is refused with a clear message.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
from collections.abc import Callable
from pathlib import Path

from vaultheat.core.vault.lexical import lexical_text
from vaultheat.errors import IndexCorruptError
from vaultheat.storage import fts
from vaultheat.storage.embedcache import f32_blob_to_f16

log = logging.getLogger("vaultheat.storage")


def m001_initial() -> str:
    return """
        CREATE TABLE notes (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            path TEXT NOT NULL UNIQUE,
            name_key TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            mtime_ns INTEGER NOT NULL,
            size INTEGER NOT NULL,
            title TEXT NOT NULL,
            frontmatter TEXT NOT NULL DEFAULT '{}',
            aliases TEXT NOT NULL DEFAULT '[]',
            warnings TEXT NOT NULL DEFAULT '[]',
            excluded INTEGER NOT NULL DEFAULT 0,
            indexed_at REAL NOT NULL
        );
        CREATE INDEX notes_name ON notes(name_key);
        CREATE TABLE skipped (path TEXT PRIMARY KEY, reason TEXT NOT NULL);
        CREATE TABLE attachments (path TEXT PRIMARY KEY);
        CREATE TABLE chunks (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            note_id INTEGER NOT NULL REFERENCES notes(id) ON DELETE CASCADE,
            ordinal INTEGER NOT NULL,
            byte_start INTEGER NOT NULL,
            byte_end INTEGER NOT NULL,
            line_start INTEGER NOT NULL,
            line_end INTEGER NOT NULL,
            heading_path TEXT NOT NULL,
            text TEXT NOT NULL,
            embed_hash TEXT NOT NULL
        );
        CREATE INDEX chunks_note ON chunks(note_id, ordinal);
        CREATE INDEX chunks_hash ON chunks(embed_hash);
        CREATE TABLE embeddings (
            fingerprint TEXT NOT NULL,
            input_hash TEXT NOT NULL,
            vector BLOB NOT NULL,
            PRIMARY KEY (fingerprint, input_hash)
        ) WITHOUT ROWID;
        CREATE TABLE links (
            note_id INTEGER NOT NULL REFERENCES notes(id) ON DELETE CASCADE,
            raw TEXT NOT NULL,
            target TEXT NOT NULL,
            target_key TEXT NOT NULL,
            subpath TEXT,
            alias TEXT,
            kind TEXT NOT NULL,
            byte_start INTEGER NOT NULL,
            byte_end INTEGER NOT NULL,
            line INTEGER NOT NULL,
            resolved_path TEXT
        );
        CREATE INDEX links_note ON links(note_id);
        CREATE INDEX links_key ON links(target_key);
        CREATE INDEX links_resolved ON links(resolved_path);
        CREATE TABLE tags (
            note_id INTEGER NOT NULL REFERENCES notes(id) ON DELETE CASCADE,
            tag TEXT NOT NULL,
            tag_key TEXT NOT NULL
        );
        CREATE INDEX tags_note ON tags(note_id);
        CREATE INDEX tags_key ON tags(tag_key);
        CREATE TABLE edges (
            src INTEGER NOT NULL,
            dst INTEGER NOT NULL,
            kind TEXT NOT NULL,
            weight REAL NOT NULL,
            PRIMARY KEY (src, kind, dst)
        ) WITHOUT ROWID;
        CREATE INDEX edges_dst ON edges(dst, kind);
        CREATE TABLE pending_knn (chunk_id INTEGER PRIMARY KEY);
        CREATE TABLE pending_links (note_id INTEGER PRIMARY KEY);
        CREATE TABLE manifest (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE VIRTUAL TABLE chunks_fts USING fts5(
            header, body, tokenize = 'unicode61 remove_diacritics 2'
        );
        """


def m002_locators() -> str:
    """Where a chunk of derived text (PDF, canvas) comes from: its page range or card id.
    ``ADD COLUMN`` with no default rewrites nothing, so the upgrade is instant at any size."""
    return """
        ALTER TABLE chunks ADD COLUMN page INTEGER;
        ALTER TABLE chunks ADD COLUMN page_end INTEGER;
        ALTER TABLE chunks ADD COLUMN card_id TEXT;
        """


def m003_page_kind() -> str:
    """What each note is (core/pagekind.py): "note", "digest" or "list"; '' for a note indexed
    before kinds existed, which the next index run classifies without re-embedding anything."""
    return """
        ALTER TABLE notes ADD COLUMN page_kind TEXT NOT NULL DEFAULT '';
        """


def m004_page_starts() -> str:
    """Where each page starts in a chunk of joined PDF pages: a JSON list of [char offset,
    page] (core/derived.py), so a result opens at the page that holds the match. NULL for every
    other chunk, and for a PDF's chunks indexed before, until the next index run reads the PDF
    again (its chunks keep their ids and vectors)."""
    return """
        ALTER TABLE chunks ADD COLUMN page_starts TEXT;
        """


def m005_compact_embeddings() -> str:
    """The embedding cache as a rowid table keyed through a small fingerprint table.

    In the ``WITHOUT ROWID`` table of m001 a row may keep only about a quarter of a page
    (~1,000 bytes of a 4 KiB page) in its b-tree leaf, so every 1,536-byte vector (384 float32)
    and its ~130-character fingerprint spilled into an overflow page of its own: ~4.5 KB a
    vector. A rowid table keeps a whole row (~1,575 bytes) in its leaf, two to a page, and
    the unique index on (fp_id, input_hash) finds it as fast. The vectors are copied as they
    are, bit for bit. One transaction, as every migration: a crash leaves the old table. The
    new table is written before the old one is dropped, so the file grows by the new table
    and then holds the old one's pages free: ``VACUUM_AFTER`` gives them back."""
    return """
        CREATE TABLE fingerprints (
            id INTEGER PRIMARY KEY,
            fingerprint TEXT NOT NULL UNIQUE
        );
        INSERT INTO fingerprints(fingerprint)
            SELECT DISTINCT fingerprint FROM embeddings ORDER BY fingerprint;
        CREATE TABLE embeddings_compact (
            fp_id INTEGER NOT NULL,
            input_hash TEXT NOT NULL,
            vector BLOB NOT NULL
        );
        INSERT INTO embeddings_compact(fp_id, input_hash, vector)
            SELECT f.id, e.input_hash, e.vector
            FROM embeddings e JOIN fingerprints f ON f.fingerprint = e.fingerprint
            ORDER BY f.id, e.input_hash;
        DROP TABLE embeddings;
        ALTER TABLE embeddings_compact RENAME TO embeddings;
        CREATE UNIQUE INDEX embeddings_key ON embeddings(fp_id, input_hash);
        """


def m006_chunk_language() -> str:
    """The language of each chunk (core/language.py ``detect`` on its embedding input): an
    ISO 639-1 code, "und" when nothing can be said, NULL until the meaning phase (or, for a
    chunk whose vector came from the cache and for an index from before m006, the next index
    run) has looked. The index serves the per-language counts of ``status`` and the run's
    search for chunks not looked at yet, both without reading the chunks' text."""
    return """
        ALTER TABLE chunks ADD COLUMN language TEXT;
        CREATE INDEX chunks_language ON chunks(language);
        """


def m007_float16_vectors() -> str:
    """The embedding cache's vectors as float16 (storage/embedcache.py ``encode``): 769 bytes
    for 384 dimensions instead of 1,536, about five rows to a 4 KiB page instead of two. The
    rows are rewritten in place by ``vh_f16`` (a Python function each writer registers,
    ``_functions``); the pages they leave half empty are given back by ``VACUUM_AFTER``. A
    reader that cannot migrate reads either form (``decode`` tells them apart by length)."""
    return """
        UPDATE embeddings SET vector = vh_f16(vector) WHERE length(vector) % 2 = 0;
        """


def m008_contentless_fts() -> str:
    """The full-text table without its copy of the text (storage/fts.py): until now FTS5 kept
    every chunk's header and body a second time beside ``chunks.text`` (a tenth to a quarter
    of an index). The header moves into ``chunks.header``, the one value of an FTS row that the
    chunk did not store; the table is made again contentless under the same rowids (the chunk
    ids) from the chunks, with ``vh_lexical`` (``lexical_text``, registered by ``_functions``),
    and the manifest records what wrote the rows (``fts.version_value``). A stored header is
    the lexical form the old table held, which ``lexical_text`` maps to the same terms. The old
    table's pages are given back by ``VACUUM_AFTER``."""
    version = json.dumps(fts.version_value()).replace("'", "''")
    return f"""
        ALTER TABLE chunks ADD COLUMN header TEXT NOT NULL DEFAULT '';
        UPDATE chunks SET header = coalesce(
            (SELECT f.header FROM chunks_fts f WHERE f.rowid = chunks.id), '');
        DROP TABLE chunks_fts;
        {fts.CREATE};
        INSERT INTO chunks_fts(rowid, header, body)
            SELECT id, vh_lexical(header), vh_lexical(text) FROM chunks ORDER BY id;
        INSERT INTO manifest(key, value) VALUES ('{fts.VERSION_KEY}', '{version}')
            ON CONFLICT(key) DO UPDATE SET value = excluded.value;
        """


MIGRATIONS: list[Callable[[], str]] = [
    m001_initial,
    m002_locators,
    m003_page_kind,
    m004_page_starts,
    m005_compact_embeddings,
    m006_chunk_language,
    m007_float16_vectors,
    m008_contentless_fts,
]
SCHEMA_VERSION = len(MIGRATIONS)
# Migrations that leave most of an existing file free: the writer rewrites it (VACUUM) once
# after them, a step of its own. A crash or a full disk during the VACUUM leaves the migrated
# index as it was, with its free pages, which later writes reuse.
VACUUM_AFTER = frozenset(
    {"m005_compact_embeddings", "m007_float16_vectors", "m008_contentless_fts"}
)
# The oldest schema a read-only opener still answers from (it cannot migrate): a schema-1 index
# has no chunk locators, which read as NULL (Markdown chunks have none), until a writer (the
# next `vaultheat index`) upgrades it in place; an index before schema 5 has its embedding cache
# in m001's layout, which storage/embedcache.py reads too; before schema 6 every chunk's language
# reads as not detected yet (storage/chunks.py); before schema 7 the cache holds float32 vectors,
# which embedcache.py ``decode`` reads as well; before schema 8 the FTS table holds its own copy
# of the text, which searches read alike.
READABLE_SCHEMA = 1


def connect(path: Path, *, readonly: bool = False) -> sqlite3.Connection:
    """A connection to the index database; a writer creates and migrates it when needed.

    A new database is built beside its final name and renamed into place once migrated, so a
    reader (the server, while its index child creates the index) never opens a half-made one.
    """
    if not readonly and not path.exists():
        _create(path)
    return _connect(path, readonly=readonly)


def _create(path: Path) -> None:
    tmp = path.with_name(path.name + ".new")
    for p in (tmp, tmp.with_name(tmp.name + "-wal"), tmp.with_name(tmp.name + "-shm")):
        p.unlink(missing_ok=True)  # left by a crash during an earlier creation
    _connect(tmp, readonly=False).close()  # the last close checkpoints and removes the WAL
    os.replace(tmp, path)


def _connect(path: Path, *, readonly: bool) -> sqlite3.Connection:
    """Open (and migrate, unless read-only) the index database."""
    try:
        if readonly:
            db = sqlite3.connect(
                f"file:{path}?mode=ro", uri=True, check_same_thread=False, timeout=30
            )
        else:
            db = sqlite3.connect(path, check_same_thread=False, timeout=30, isolation_level=None)
        db.row_factory = sqlite3.Row
        db.execute("PRAGMA foreign_keys = ON")
        db.execute("PRAGMA busy_timeout = 30000")
        if not readonly:
            db.execute("PRAGMA journal_mode = WAL")
            db.execute("PRAGMA synchronous = NORMAL")
        version = db.execute("PRAGMA user_version").fetchone()[0]
    except sqlite3.DatabaseError as exc:
        raise IndexCorruptError(
            f"the index database {path} cannot be read ({exc}); "
            "rebuild it with `vaultheat index --full`",
            path=str(path),
        ) from exc
    if version > SCHEMA_VERSION:
        raise IndexCorruptError(
            f"the index at {path} was written by a newer vaultheat (schema {version} > "
            f"{SCHEMA_VERSION}); upgrade vaultheat or rebuild with `vaultheat index --full`"
        )
    if version < READABLE_SCHEMA and readonly:
        db.close()
        raise IndexCorruptError(
            f"the index database {path} is empty or unfinished; "
            "run `vaultheat index` (or `vaultheat index --full`) to build it",
            path=str(path),
        )
    if version < SCHEMA_VERSION and not readonly:
        _functions(db)
        for number in range(version, SCHEMA_VERSION):
            # one script = one transaction: a crash mid-migration leaves the old version
            script = MIGRATIONS[number]()
            try:
                db.executescript(
                    f"BEGIN IMMEDIATE;\n{script}\nPRAGMA user_version = {number + 1};\nCOMMIT;"
                )
            except BaseException:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise
        ran = {m.__name__ for m in MIGRATIONS[version:]}
        if version and ran & VACUUM_AFTER:  # a new database has nothing to give back
            try:
                db.execute("VACUUM")
            except sqlite3.OperationalError as exc:
                log.warning("index upgraded; compacting %s failed (%s), left as it is", path, exc)
            else:  # the rewrite went through the WAL: move it home now unless a reader is busy
                db.execute("PRAGMA busy_timeout = 0")
                db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                db.execute("PRAGMA busy_timeout = 30000")
    if not readonly:
        fts.ensure_lexical_version(db)  # after a new lexical_text or SQLite: every row again
    return db


def _functions(db: sqlite3.Connection) -> None:
    """The SQL functions the migrations call."""
    db.create_function("vh_f16", 1, f32_blob_to_f16, deterministic=True)
    db.create_function("vh_lexical", 1, lexical_text, deterministic=True)


def check_integrity(db: sqlite3.Connection) -> str | None:
    """None when SQLite's quick check passes, else its first complaint."""
    try:
        row = db.execute("PRAGMA quick_check").fetchone()
    except sqlite3.DatabaseError as exc:
        return str(exc)
    return None if row and row[0] == "ok" else (row[0] if row else "unknown")
