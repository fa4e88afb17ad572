"""A vector space as the indexer and the views hold it: exact search while it is small, hnswlib
once it is large.

Below ``EXACT_MAX`` vectors a space is a float32 matrix in memory searched by brute force: every
search returns the exact top k (hnswlib at its beam of 256 returned 0.9986-1.0000 of the exact top
40 on the shared vaults, docs/eval.md "Vector recall"), and no vector file is written: its vectors
are read from the embedding cache (``vectorsync.open_vectors``), which already holds every one of
them, so the vault's index holds each vector once (issue #41: a help vault's index was 3.5 MB of
SQLite plus a 2.2 MB hnswlib file, 2.9 MB more for a second space). Saving such a space writes only
its meta file (``kind: "exact"``, the generation it reflects), which is what the indexer and
``check`` compare with the database; a stale hnswlib file left from when the vault was larger is
removed. A space that grows past ``EXACT_MAX`` while open moves into hnswlib (built from its
matrix) and is saved as an hnswlib file from then on; one that shrinks under it is saved exact
(its file goes), and the next open reads it from the cache.

Brute force reads the whole matrix for every query vector, so between queries (the matrix out of
the CPU cache) it costs about 0.14 ms per 1,000 vectors, against ~0.2-0.4 ms for hnswlib at its
beam. Measured in process on the indexes of the shared vaults, p50 / p95 before (hnswlib) and
after, 2 cores at load 1-2: vaultofknowledge (8,290 vectors) search 3.7 / 6.1 -> 4.4 / 7.0 ms,
related notes 7.0 / 15.8 -> 7.7 / 15.4 ms; waylonwalker (14,107) search 5.0 / 9.4 -> 6.9 / 12.6
ms, related 10.6 / 17.9 -> 13.9 / 28.6 ms. Hence the limit of 10,000: within a millisecond of
hnswlib. The matrix takes the memory hnswlib's copy took (float32, 1.5 KB a 384-d vector);
filling it from the cache at open took 0.16-0.18 s for 14,107 vectors (hnswlib's file: 0.03 s).
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from vaultheat.errors import NotFoundError
from vaultheat.storage.atomic import atomic_write_bytes
from vaultheat.storage.vectors import (
    META_FORMAT,
    SPACE,
    VectorIndex,
    _as_label,
    _sorted_hits,
    as_matrix,
    meta_path_for,
)

if TYPE_CHECKING:
    from vaultheat.core.ports import VectorIndexPort

EXACT_MAX_ENV = "VAULTHEAT_EXACT_MAX"  # a maintainer's knob; -1: hnswlib at any size


def _exact_max() -> int:
    try:
        return int(os.environ.get(EXACT_MAX_ENV, ""))
    except ValueError:
        return 10_000  # see the module docstring


# a space of up to this many vectors is searched exactly and keeps no vector file
EXACT_MAX = _exact_max()
EXACT = "exact"  # the meta file's "kind" of a space saved without a vector file
HNSW = "hnsw"  # the kind of a meta file beside an hnswlib file (older meta files name none)
_GROW = 1024  # rows added to the matrix's capacity at least, when it is full
_TO_HNSW_BLOCK = 4096  # rows moved into hnswlib at a time when a space outgrows EXACT_MAX


class ExactVectors:
    """Unit vectors in a float32 matrix keyed by chunk id, searched by brute force: what
    ``VectorIndex`` does, exactly, without hnswlib. A deleted row takes the last row's place."""

    def __init__(self, dim: int, *, capacity: int = 0) -> None:
        if dim <= 0:
            raise ValueError(f"dim must be positive, got {dim}")
        self._dim = dim
        self._mat = np.zeros((max(0, capacity), dim), dtype=np.float32)
        self._ids = np.zeros(max(0, capacity), dtype=np.int64)
        self._row: dict[int, int] = {}

    @property
    def dim(self) -> int:
        return self._dim

    def __len__(self) -> int:
        return len(self._row)

    def __contains__(self, label: object) -> bool:
        return label in self._row

    def labels(self) -> set[int]:
        return set(self._row)

    def matrix(self) -> tuple[np.ndarray, np.ndarray]:
        """(ids, unit vectors) of every live row, views into the store (do not write)."""
        n = len(self._row)
        return self._ids[:n], self._mat[:n]

    def add(self, ids: Sequence[int], vectors: np.ndarray) -> None:
        """Insert or replace vectors (a repeated id in one call: the last row wins)."""
        labels = [_as_label(i) for i in ids]
        if len(labels) != vectors.shape[0]:
            raise ValueError(f"{len(labels)} ids for {vectors.shape[0]} vectors")
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        unit = vectors / np.where(norms > 0, norms, 1.0)  # hnswlib's cosine space does the same
        last_row = {label: r for r, label in enumerate(labels)}
        new = sum(1 for label in last_row if label not in self._row)
        self._reserve(len(self._row) + new)
        for label, r in last_row.items():
            row = self._row.get(label)
            if row is None:
                row = len(self._row)
                self._row[label] = row
                self._ids[row] = label
            self._mat[row] = unit[r]

    def _reserve(self, rows: int) -> None:
        if rows <= self._mat.shape[0]:
            return
        size = max(rows, 2 * self._mat.shape[0], _GROW)
        mat = np.zeros((size, self._dim), dtype=np.float32)
        ids = np.zeros(size, dtype=np.int64)
        n = len(self._row)
        mat[:n], ids[:n] = self._mat[:n], self._ids[:n]
        self._mat, self._ids = mat, ids

    def delete(self, ids: Iterable[int]) -> None:
        for raw in ids:
            row = self._row.pop(int(raw), None)
            if row is None:
                continue
            last = len(self._row)  # the last live row, before this one went
            if row != last:
                moved = int(self._ids[last])
                self._mat[row] = self._mat[last]
                self._ids[row] = moved
                self._row[moved] = row

    def get_vectors(self, ids: Sequence[int]) -> np.ndarray:
        labels = [int(i) for i in ids]
        missing = [label for label in labels if label not in self._row]
        if missing:
            raise NotFoundError(f"{len(missing)} chunk id(s) have no vector", missing=missing[:20])
        rows = [self._row[label] for label in labels]
        return self._mat[rows].copy() if rows else np.zeros((0, self._dim), dtype=np.float32)

    def search(
        self, q: np.ndarray, k: int, *, filter_ids: set[int] | None = None
    ) -> list[list[tuple[int, float]]]:
        """Exact cosine top ``k`` for each row of ``q`` (float32, shape (n, dim))."""
        ids, mat = self.matrix()
        cols: np.ndarray | None = None
        if filter_ids is not None:
            cols = np.fromiter((self._row[i] for i in filter_ids if i in self._row), dtype=np.int64)
        pool = len(ids) if cols is None else len(cols)
        k = min(int(k), pool)
        if k <= 0:
            return [[] for _ in range(q.shape[0])]
        norms = np.linalg.norm(q, axis=1, keepdims=True)
        unit = q / np.where(norms > 0, norms, 1.0)
        labels = ids if cols is None else ids[cols]
        out = []
        for row in unit:  # one product per query: a query's scores never depend on its batch
            sims = mat @ row
            if cols is not None:
                sims = sims[cols]
            top = np.argpartition(-sims, k - 1)[:k] if k < pool else np.arange(pool)
            out.append(_sorted_hits(zip(labels[top].tolist(), sims[top].tolist(), strict=True)))
        return out

    def to_hnsw(self) -> VectorIndex:
        """The same vectors in a new hnswlib index."""
        ids, mat = self.matrix()
        index = VectorIndex.create(self._dim, capacity=max(1024, len(ids) + 256))
        for start in range(0, len(ids), _TO_HNSW_BLOCK):
            end = start + _TO_HNSW_BLOCK
            index.add(ids[start:end].tolist(), mat[start:end])
        return index


class VectorSpace:
    """One vector space: exact (``ExactVectors``) up to ``EXACT_MAX`` vectors, hnswlib
    (``VectorIndex``) beyond; same reads and writes either way, one lock around them."""

    def __init__(self, backend: ExactVectors | VectorIndex, *, generation: int = 0) -> None:
        self._backend = backend
        self._generation = generation
        self._lock = threading.RLock()

    @classmethod
    def exact(cls, dim: int, *, capacity: int = 0, generation: int = 0) -> VectorSpace:
        return cls(ExactVectors(dim, capacity=capacity), generation=generation)

    @property
    def kind(self) -> str:
        return EXACT if isinstance(self._backend, ExactVectors) else HNSW

    @property
    def dim(self) -> int:
        return self._backend.dim

    @property
    def generation(self) -> int:
        """The generation of the database this space reflects (its file's, when loaded)."""
        return self._generation

    @property
    def backend(self) -> ExactVectors | VectorIndex:
        return self._backend

    def __len__(self) -> int:
        return len(self._backend)

    def __contains__(self, label: object) -> bool:
        return label in self._backend

    def labels(self) -> set[int]:
        with self._lock:
            return self._backend.labels()

    def add(self, ids: Sequence[int], vectors: np.ndarray) -> None:
        rows = as_matrix(vectors, self.dim, what="vectors")
        with self._lock:
            self._backend.add(ids, rows)
            if isinstance(self._backend, ExactVectors) and len(self._backend) > EXACT_MAX:
                self._backend = self._backend.to_hnsw()

    def delete(self, ids: Iterable[int]) -> None:
        with self._lock:
            self._backend.delete(ids)

    def get_vectors(self, ids: Sequence[int]) -> np.ndarray:
        with self._lock:
            return self._backend.get_vectors(ids)

    def search(
        self, query: np.ndarray, k: int, *, filter_ids: set[int] | None = None
    ) -> list[list[tuple[int, float]]]:
        """Nearest labels by cosine similarity, best first, ties by lower label; one list per
        row of ``query`` (one vector or a matrix); ``k`` clamped to the live (allowed) labels."""
        q = as_matrix(query, self.dim, what="query")
        with self._lock:
            return self._backend.search(q, k, filter_ids=filter_ids)

    def save(self, path: Path, *, generation: int) -> None:
        """Save for ``generation``: a space of over ``EXACT_MAX`` vectors as an hnswlib file and
        its meta file (``VectorIndex.save``, atomic; an exact one moved into hnswlib first); a
        smaller one as a meta file only, saying so, and the hnswlib file of an earlier, larger
        vault goes (what the next open reads from the cache: ``vectorsync.open_vectors``)."""
        path = Path(path)
        with self._lock:
            self._generation = int(generation)
            if len(self._backend) > EXACT_MAX:
                if isinstance(self._backend, ExactVectors):
                    self._backend = self._backend.to_hnsw()
                self._backend.save(path, generation=generation)
                return
            path.parent.mkdir(parents=True, exist_ok=True)
            meta = {"format": META_FORMAT, "space": SPACE, "kind": EXACT, "dim": self.dim,
                    "count": len(self._backend), "generation": self._generation}  # fmt: skip
            atomic_write_bytes(meta_path_for(path), json.dumps(meta).encode("utf-8"))
            path.unlink(missing_ok=True)


def saved_kind(path: Path) -> str | None:
    """How the space at ``path`` was saved: ``EXACT`` (a meta file only), ``HNSW`` (an hnswlib
    file, whatever its meta file says: ``VectorIndex.load`` checks the pair), or None (never
    saved)."""
    path = Path(path)
    try:
        meta: Any = json.loads(meta_path_for(path).read_bytes())
    except (OSError, ValueError):
        meta = None
    if isinstance(meta, dict) and meta.get("kind") == EXACT:
        return EXACT
    return HNSW if path.exists() else None


if TYPE_CHECKING:

    def _implements_port(space: VectorSpace) -> VectorIndexPort:
        return space  # mypy fails here when VectorSpace no longer fits core's VectorIndexPort
