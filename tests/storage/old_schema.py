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


def before_contentless_fts(con: sqlite3.Connection) -> None:
    """Turn the FTS table back into one holding its own copy of the text (before m008), its
    rows as the indexer wrote them then, and take ``chunks.header`` away."""
    from vaultheat.core.vault.lexical import lexical_text

    con.create_function("lex", 1, lexical_text, deterministic=True)
    con.executescript(
        """
        DROP TABLE chunks_fts;
        CREATE VIRTUAL TABLE chunks_fts USING fts5(
            header, body, tokenize = 'unicode61 remove_diacritics 2'
        );
        INSERT INTO chunks_fts(rowid, header, body) SELECT id, lex(header), lex(text) FROM chunks;
        ALTER TABLE chunks DROP COLUMN header;
        DELETE FROM manifest WHERE key = 'lexical_version';
        """
    )
    con.commit()
