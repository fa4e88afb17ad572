"""The embedding cache, keyed by (model fingerprint, embedding-input hash), and the chunks
awaiting their vector.

An unchanged embedding input is never embedded twice, even after a note moves or a paragraph
travels to another note; the hnswlib file is rebuilt or reconciled from here (vectorsync.py).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from vaultheat.storage.tables import Tables, batches


class EmbeddingTables(Tables):
    # -- embeddings cache ---------------------------------------------------------------------
    def cached_vectors(self, fingerprint: str, hashes: Sequence[str]) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        for part in batches(list(dict.fromkeys(hashes)), 500):
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
            for part in batches(list(note_ids), 500):
                marks = ",".join("?" * len(part))
                rows += self.db.execute(
                    sql + f" AND c.note_id IN ({marks}) GROUP BY n.id", (fingerprint, *part)
                ).fetchall()
        rows.sort(key=lambda r: (-r[3], r[0]))
        return [(r[0], r[1], r[2], r[4]) for r in rows]

    def unembedded_hashes(self, fingerprint: str, note_ids: Sequence[int]) -> dict[int, set[str]]:
        """note id -> the input hashes of its chunks that await a vector."""
        out: dict[int, set[str]] = {}
        for part in batches(list(note_ids), 500):
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
        live = int(self.db.execute("SELECT count(*) FROM chunks").fetchone()[0])
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
