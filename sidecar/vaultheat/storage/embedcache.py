"""The embedding cache, keyed by (model fingerprint, embedding-input hash), and the chunks
awaiting their vector.

An unchanged embedding input is never embedded twice, even after a note moves or a paragraph
travels to another note; the hnswlib file is rebuilt or reconciled from here (vectorsync.py).

The cache is a rowid table, whose leaf pages hold a whole vector (769 bytes for 384
dimensions), with each model's fingerprint stored once in ``fingerprints`` (db.py
``m005_compact_embeddings``). A reader of an older index, which cannot migrate it, reads the
``WITHOUT ROWID`` table keyed by the fingerprint text until a writer has converted it
(``_of_model``).

Vectors are stored as float16 (``encode``; db.py ``m007_float16_vectors``): half the bytes of
float32, and for unit-norm embeddings a cosine off by about 1e-3 at most. A float16 blob carries
one tag byte after its 2×dim bytes, so its length is odd and it never reads as a float32 blob
(always a multiple of 4): ``decode`` tells the two apart by length alone, without the model's
dimension, and an index from before m007 (read by a reader that cannot migrate it) still reads.
Every read returns float32.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from vaultheat.storage.tables import Tables, batches

# the rows of one model, in the cache ``e``; one ``?``, the fingerprint
_OF_MODEL = "e.fp_id = (SELECT id FROM fingerprints WHERE fingerprint = ?)"
_OF_MODEL_V4 = "e.fingerprint = ?"  # schemas 1-4: the fingerprint on every row
# a chunk read in the English space: its language English, undetermined or not detected yet
# (core/query/routing.py ``ENGLISH_CODES``)
_ENGLISH_OR_UNKNOWN = "(c.language IS NULL OR c.language IN ('en', 'und'))"
F16_TAG = b"\x10"  # after a float16 vector's bytes: an odd length, never a float32 blob's


def encode(vector: np.ndarray) -> bytes:
    """The cache's bytes of ``vector``: float16 and its tag byte."""
    return np.asarray(vector, dtype=np.float16).tobytes() + F16_TAG


def decode(blob: bytes) -> np.ndarray:
    """A cached vector as float32, from a float16 blob (odd length) or a float32 one (before
    m007)."""
    if len(blob) % 2:
        return np.frombuffer(blob, dtype=np.float16, count=len(blob) // 2).astype(np.float32)
    return np.frombuffer(blob, dtype=np.float32)


def as_stored(vector: np.ndarray) -> np.ndarray:
    """``vector`` as the cache gives it back (float16-rounded, as float32): what a vector just
    embedded is used as, so the vector files and scores are the same whether it came from the
    model or, later, from the cache."""
    return np.asarray(vector, dtype=np.float16).astype(np.float32)


def f32_blob_to_f16(blob: bytes) -> bytes:
    """A cached blob in the float16 form (the SQL function ``m007`` uses)."""
    return blob if len(blob) % 2 else encode(np.frombuffer(blob, dtype=np.float32))


class EmbeddingTables(Tables):
    _compact_cache = False  # set once the cache is seen in m005's layout

    def _of_model(self) -> str:
        """The condition on the cache rows of one model: a reader of an older index looks
        again until a writer (the next index run) has converted the cache under it."""
        if not self._compact_cache:
            self._compact_cache = self._has_column("embeddings", "fp_id")
        return _OF_MODEL if self._compact_cache else _OF_MODEL_V4

    def _fingerprint_id(self, fingerprint: str) -> int:
        """The id of ``fingerprint`` in the fingerprint table, added when new (writers only)."""
        self.db.execute(
            "INSERT INTO fingerprints(fingerprint) VALUES (?) ON CONFLICT DO NOTHING",
            (fingerprint,),
        )
        row = self.db.execute(
            "SELECT id FROM fingerprints WHERE fingerprint = ?", (fingerprint,)
        ).fetchone()
        return int(row[0])

    # -- embeddings cache ---------------------------------------------------------------------
    def cached_vectors(self, fingerprint: str, hashes: Sequence[str]) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        for part in batches(list(dict.fromkeys(hashes)), 500):
            marks = ",".join("?" * len(part))
            for r in self.db.execute(
                f"SELECT e.input_hash, e.vector FROM embeddings e WHERE {self._of_model()} "
                f"AND e.input_hash IN ({marks})",
                (fingerprint, *part),
            ):
                out[r[0]] = decode(r[1])
        return out

    def all_cached_vectors(self, fingerprint: str) -> dict[str, np.ndarray]:
        """input hash -> vector, the whole embedding cache of one model."""
        return {
            r[0]: decode(r[1])
            for r in self.db.execute(
                f"SELECT e.input_hash, e.vector FROM embeddings e WHERE {self._of_model()}",
                (fingerprint,),
            ).fetchall()
        }

    # -- chunks awaiting their vector (the meaning phase) -----------------------------------
    # A chunk "awaits its vector" when the embedding cache holds none for its input: derived
    # from the two tables, never a separate list that could drift from them. ``english_only``
    # (the English space of an index with a second space, issue #40): a chunk whose language
    # is known and not English (``ENGLISH_CODES``) awaits no vector there; it lives only in the
    # second space. A chunk whose language is not detected yet still awaits one (the meaning
    # phase detects it first, then embeds it or not).
    def _unembedded(self, english_only: bool = False) -> str:
        """The condition on a chunk ``c`` awaiting its vector; one ``?``, the fingerprint."""
        cond = (
            f"NOT EXISTS (SELECT 1 FROM embeddings e WHERE {self._of_model()} "
            "AND e.input_hash = c.embed_hash)"
        )
        if english_only and self._has_column("chunks", "language"):
            cond += f" AND {_ENGLISH_OR_UNKNOWN}"
        return cond

    def unembedded_count(self, fingerprint: str, *, english_only: bool = False) -> int:
        """Chunks whose vector the cache does not hold yet."""
        sql = f"SELECT count(*) FROM chunks c WHERE {self._unembedded(english_only)}"
        return int(self.db.execute(sql, (fingerprint,)).fetchone()[0])

    def second_only_count(self, fingerprint: str) -> int:
        """Chunks that live only in the second space: their language is known and not English,
        and the cache holds no vector of ``fingerprint`` (the English model's) for them."""
        if not self._has_column("chunks", "language"):
            return 0
        sql = (
            f"SELECT count(*) FROM chunks c WHERE {self._unembedded()} "
            f"AND NOT {_ENGLISH_OR_UNKNOWN}"
        )
        return int(self.db.execute(sql, (fingerprint,)).fetchone()[0])

    def unembedded_notes(
        self, fingerprint: str, note_ids: Sequence[int] | None = None, *, english_only: bool = False
    ) -> list[tuple[int, str, str, int]]:
        """(note id, path, content hash, chunks awaiting a vector) of every note with such
        chunks (or of those among ``note_ids``), most recently modified first: the order the
        meaning phase embeds them in."""
        sql = (
            "SELECT n.id, n.path, n.content_hash, n.mtime_ns, count(*) FROM chunks c "
            f"JOIN notes n ON n.id = c.note_id WHERE {self._unembedded(english_only)}"
        )
        if note_ids is None:
            rows = self.db.execute(sql + " GROUP BY n.id", (fingerprint,)).fetchall()
        else:
            rows = []
            for part in batches(list(note_ids), 500):
                marks = ",".join("?" * len(part))
                rows += self.db.execute(
                    sql + f" AND c.note_id IN ({marks}) GROUP BY n.id", (fingerprint, *part)
                ).fetchall()
        rows.sort(key=lambda r: (-r[3], r[0]))
        return [(r[0], r[1], r[2], r[4]) for r in rows]

    def unembedded_hashes(
        self, fingerprint: str, note_ids: Sequence[int], *, english_only: bool = False
    ) -> dict[int, set[str]]:
        """note id -> the input hashes of its chunks that await a vector."""
        out: dict[int, set[str]] = {}
        for part in batches(list(note_ids), 500):
            marks = ",".join("?" * len(part))
            for nid, h in self.db.execute(
                f"SELECT c.note_id, c.embed_hash FROM chunks c WHERE c.note_id IN ({marks}) "
                f"AND {self._unembedded(english_only)}",
                (*part, fingerprint),
            ):
                out.setdefault(nid, set()).add(h)
        return out

    def chunks_with_hashes(self, hashes: Sequence[str]) -> list[tuple[int, str]]:
        """(chunk id, input hash) of every chunk, in any note, whose input is one of ``hashes``."""
        out: list[tuple[int, str]] = []
        for part in batches(list(dict.fromkeys(hashes)), 500):
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
            f"SELECT c.id, c.embed_hash FROM chunks c WHERE NOT {self._unembedded()}",
            (fingerprint,),
        )
        return [(r[0], r[1]) for r in rows.fetchall()]

    def put_vectors(self, fingerprint: str, items: dict[str, np.ndarray]) -> None:
        if not items:
            return
        fp_id = self._fingerprint_id(fingerprint)
        self.db.executemany(
            "INSERT INTO embeddings(fp_id, input_hash, vector) VALUES (?,?,?) "
            "ON CONFLICT(fp_id, input_hash) DO UPDATE SET vector = excluded.vector",
            [(fp_id, h, encode(v)) for h, v in items.items()],
        )

    def gc_embeddings(self, fingerprint: str, also: Sequence[str] = ()) -> int:
        """Drop cache entries no chunk uses once they outnumber the live ones (bounded growth),
        with every model's but ``fingerprint``'s and ``also``'s (a second vector space's)."""
        live = int(self.db.execute("SELECT count(*) FROM chunks").fetchone()[0])
        dead = self.db.execute(
            "SELECT count(*) FROM embeddings e WHERE NOT EXISTS "
            "(SELECT 1 FROM chunks c WHERE c.embed_hash = e.input_hash)"
        ).fetchone()[0]
        if dead <= max(1000, live // 2):
            return 0
        keep = [fingerprint, *also]
        marks = ",".join("?" * len(keep))
        cur = self.db.execute(
            "DELETE FROM embeddings WHERE fp_id NOT IN "
            f"(SELECT id FROM fingerprints WHERE fingerprint IN ({marks})) OR NOT EXISTS "
            "(SELECT 1 FROM chunks c WHERE c.embed_hash = embeddings.input_hash)",
            keep,
        )
        self._drop_unused_fingerprints()
        return cur.rowcount

    def _keep_only_model(self, fingerprint: str) -> None:
        """Drop the cache of every other model (a rebuild with another model)."""
        self.db.execute(
            "DELETE FROM embeddings WHERE fp_id IS NOT "
            "(SELECT id FROM fingerprints WHERE fingerprint = ?)",
            (fingerprint,),
        )
        self._drop_unused_fingerprints()

    def _drop_unused_fingerprints(self) -> None:
        self.db.execute(
            "DELETE FROM fingerprints WHERE NOT EXISTS "
            "(SELECT 1 FROM embeddings e WHERE e.fp_id = fingerprints.id)"
        )
