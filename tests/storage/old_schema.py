"""Helpers that turn a current index back into an older schema's, for the tests of what
readers and migrations make of it."""

from __future__ import annotations

import sqlite3


def old_cache_layout(con: sqlite3.Connection) -> None:
    """Turn the embedding cache back into m001's layout (the fingerprint on every row)."""
    con.executescript(
        """
        CREATE TABLE embeddings_v4 (
            fingerprint TEXT NOT NULL,
            input_hash TEXT NOT NULL,
            vector BLOB NOT NULL,
            PRIMARY KEY (fingerprint, input_hash)
        ) WITHOUT ROWID;
        INSERT INTO embeddings_v4
            SELECT f.fingerprint, e.input_hash, e.vector
            FROM embeddings e JOIN fingerprints f ON f.id = e.fp_id;
        DROP TABLE embeddings;
        DROP TABLE fingerprints;
        ALTER TABLE embeddings_v4 RENAME TO embeddings;
        """
    )


def before_languages(con: sqlite3.Connection) -> None:
    """Take the chunks' language column (m006) and its index away."""
    con.executescript(
        """
        DROP INDEX chunks_language;
        ALTER TABLE chunks DROP COLUMN language;
        """
    )


def float32_cache(con: sqlite3.Connection) -> None:
    """Turn the embedding cache's vectors back into float32 blobs (before m007)."""
    from vaultheat.storage.embedcache import decode

    con.create_function("to_f32", 1, lambda blob: decode(blob).tobytes(), deterministic=True)
    con.execute("UPDATE embeddings SET vector = to_f32(vector)")
    con.commit()
