"""The vector index: hnswlib (cosine) keyed by chunk id, plus the bookkeeping hnswlib lacks.

Why hnswlib: one small wheel, fast approximate search, in-place updates, deletions. What it lacks
is done here: it cannot enumerate deleted labels (we keep the live set and save the deleted one in
a meta file), its files carry no checksum (the meta file records size and xxh3 so a damaged or
half-written index is refused before hnswlib parses it), and its ``save_index`` is not atomic
(we save to a temp file and rename). Slots of deleted labels are recycled by new labels
(``allow_replace_deleted``), so a vault edited for months does not grow the file without bound.

Small filters (``filter_ids``) are answered exactly by brute force over the allowed vectors:
HNSW with a restrictive filter both loses recall and walks most of the graph anyway. A search
that hnswlib cannot fill (it raises when it finds fewer than k live hits) is retried with a
wider beam and, failing that, answered by brute force: a search never fails on a valid index.

One ``RLock`` guards every mutation, save and search: the server answers queries while the
indexer adds, and hnswlib's ``set_ef``/``resize_index`` are not safe against concurrent queries.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import hnswlib
import numpy as np
import xxhash

from vaultheat.errors import IndexCorruptError, IndexMismatchError, IndexMissingError, NotFoundError
from vaultheat.storage.atomic import atomic_replace_from, atomic_write_bytes, temp_path_beside

if TYPE_CHECKING:
    from vaultheat.core.ports import VectorIndexPort

META_FORMAT = 1
SPACE = "cosine"
EXACT_FILTER_MAX = 512  # filters up to this many live ids are searched exactly (see _exact)
# hnswlib's search beam. 64 returned 0.979 of the exact top 40 for waylonwalker's queries (14k
# vectors; 0.72 for the worst); 256 returns 0.997 (min 0.875) on every shared vault at ~0.3 ms
# more per search (bench/vector_recall.py, docs/eval.md "Vector recall").
EF_SEARCH = 256


def meta_path_for(path: Path) -> Path:
    return Path(path).with_suffix(".meta.json")


class VectorIndex:
    """Cosine vector index over float32 vectors; labels are chunk ids (ints >= 0, never reused)."""

    def __init__(
        self,
        index: hnswlib.Index,
        dim: int,
        *,
        live: set[int],
        deleted: set[int],
        generation: int = 0,
        ef_search: int = EF_SEARCH,
    ) -> None:
        self._index = index
        self._dim = dim
        self._live = live
        self._deleted = deleted  # labels marked deleted in hnswlib whose slot may be unreused
        self._generation = generation
        self.ef_search = ef_search
        self._lock = threading.RLock()

    # ----------------------------------------------------------------------------- construction

    @classmethod
    def create(
        cls,
        dim: int,
        *,
        capacity: int = 1024,
        M: int = 16,  # hnswlib's name for the graph degree
        ef_construction: int = 200,
        ef_search: int = EF_SEARCH,
        threads: int = 0,
    ) -> VectorIndex:
        if dim <= 0:
            raise ValueError(f"dim must be positive, got {dim}")
        index = hnswlib.Index(space=SPACE, dim=dim)
        index.init_index(
            max_elements=max(1, capacity),
            M=M,
            ef_construction=ef_construction,
            allow_replace_deleted=True,
        )
        if threads > 0:
            index.set_num_threads(threads)
        return cls(index, dim, live=set(), deleted=set(), ef_search=ef_search)

    @classmethod
    def load(
        cls, path: Path, dim: int, *, ef_search: int = EF_SEARCH, threads: int = 0
    ) -> VectorIndex:
        """Load an index saved by :meth:`save`, verifying it against its meta file.

        Raises IndexMissingError when there is no index file, IndexMismatchError when it was
        built for another dimension (the embedding model changed), IndexCorruptError when the
        file is truncated or damaged or disagrees with its meta file.
        """
        path = Path(path)
        meta_path = meta_path_for(path)
        if not path.exists():
            raise IndexMissingError(f"no vector index at {path}", path=str(path))
        meta = _read_meta(path, meta_path)
        if meta["dim"] != dim:
            raise IndexMismatchError(
                f"the vector index was built for dimension {meta['dim']}, the embedder gives "
                f"{dim}: rebuild with `vaultheat index --full`",
                path=str(path),
                index_dim=meta["dim"],
                dim=dim,
            )
        _verify_file(path, meta)
        index = hnswlib.Index(space=SPACE, dim=dim)
        try:
            index.load_index(str(path), allow_replace_deleted=True)
        except (RuntimeError, MemoryError, ValueError) as exc:
            raise _corrupt(path, f"hnswlib cannot read it ({exc})") from exc
        if threads > 0:
            index.set_num_threads(threads)
        labels = {int(x) for x in index.get_ids_list()}
        deleted = set(meta["deleted"])
        if not deleted <= labels:
            raise _corrupt(path, "the meta file lists deleted labels the index does not hold")
        live = labels - deleted
        if len(live) != meta["count"] or index.element_count != len(labels):
            raise _corrupt(
                path, f"the meta file says {meta['count']} vectors, the index holds {len(live)}"
            )
        return cls(
            index,
            dim,
            live=live,
            deleted=deleted,
            generation=meta["generation"],
            ef_search=ef_search,
        )

    # ------------------------------------------------------------------------------- properties

    @property
    def dim(self) -> int:
        return self._dim

    @property
    def generation(self) -> int:
        """The number the caller passed to the last :meth:`save` (0 for a fresh index)."""
        return self._generation

    @property
    def capacity(self) -> int:
        return int(self._index.get_max_elements())

    def __len__(self) -> int:
        return len(self._live)

    def __contains__(self, label: object) -> bool:
        return label in self._live

    def labels(self) -> set[int]:
        """A copy of the live labels."""
        with self._lock:
            return set(self._live)

    # -------------------------------------------------------------------------------- mutation

    def add(self, ids: Sequence[int], vectors: np.ndarray) -> None:
        """Insert or replace vectors (a repeated id in one call: the last row wins)."""
        rows = self._as_matrix(vectors, what="vectors")
        labels = [_as_label(i) for i in ids]
        if len(labels) != rows.shape[0]:
            raise ValueError(f"{len(labels)} ids for {rows.shape[0]} vectors")
        if not labels:
            return
        last_row = {label: r for r, label in enumerate(labels)}
        with self._lock:
            update: list[int] = []
            new: list[int] = []
            revived = 0
            for label in last_row:
                if label in self._live:
                    update.append(label)
                elif self._revive(label):
                    update.append(label)
                    revived += 1
                else:
                    new.append(label)
            self._reserve(len(new), live_after_revive=len(self._live) + revived)
            for batch, replace in ((update, False), (new, True)):
                if batch:
                    data = rows[[last_row[label] for label in batch]]
                    self._index.add_items(
                        data, np.asarray(batch, dtype=np.uint64), replace_deleted=replace
                    )
            self._live.update(last_row)
            self._deleted.difference_update(last_row)

    def _revive(self, label: int) -> bool:
        """Unmark a deleted label still holding its slot, so it can be updated in place."""
        try:
            self._index.unmark_deleted(label)
        except RuntimeError:  # not in the index (never added, or its slot was recycled)
            return False
        return True

    def _reserve(self, n_new: int, *, live_after_revive: int) -> None:
        slots = int(self._index.element_count)
        vacant = slots - live_after_revive  # deleted slots that new labels will recycle
        needed = slots + max(0, n_new - vacant)
        capacity = self.capacity
        if needed > capacity:
            self._index.resize_index(max(needed, 2 * capacity))

    def delete(self, ids: Iterable[int]) -> None:
        """Remove labels; ids that are not live are ignored."""
        with self._lock:
            for raw in ids:
                label = int(raw)
                if label in self._live:
                    self._index.mark_deleted(label)
                    self._live.discard(label)
                    self._deleted.add(label)

    # ------------------------------------------------------------------------------------ reads

    def get_vectors(self, ids: Sequence[int]) -> np.ndarray:
        """The stored vectors (unit length: cosine space normalizes on insert), one row per id."""
        labels = [int(i) for i in ids]
        with self._lock:
            missing = [label for label in labels if label not in self._live]
            if missing:
                raise NotFoundError(
                    f"{len(missing)} chunk id(s) have no vector", missing=missing[:20]
                )
            if not labels:
                return np.zeros((0, self._dim), dtype=np.float32)
            out = self._index.get_items(labels, return_type="numpy")
        return np.asarray(out, dtype=np.float32).reshape(len(labels), self._dim)

    def search(
        self, query: np.ndarray, k: int, *, filter_ids: set[int] | None = None
    ) -> list[list[tuple[int, float]]]:
        """Nearest labels by cosine similarity (1 - distance), best first, ties by lower label.

        ``query`` is one vector or a matrix (one row per query): the answer has one list per
        row either way. ``k`` is clamped to the number of live (allowed) labels.
        """
        q = self._as_matrix(query, what="query")
        with self._lock:
            allowed = None if filter_ids is None else self._live.intersection(filter_ids)
            pool = len(self._live) if allowed is None else len(allowed)
            k = min(int(k), pool)
            if k <= 0:
                return [[] for _ in range(q.shape[0])]
            if allowed is not None and len(allowed) <= EXACT_FILTER_MAX:
                return self._exact(q, k, allowed)
            found = self._hnsw(q, k, allowed)
            if found is None:
                return self._exact(q, k, self._live if allowed is None else allowed)
            return found

    def _hnsw(
        self, q: np.ndarray, k: int, allowed: set[int] | None
    ) -> list[list[tuple[int, float]]] | None:
        pool = len(self._live) if allowed is None else len(allowed)
        kwargs: dict[str, Any] = {}
        first = max(self.ef_search, k)
        if allowed is not None:  # a filter costs recall at equal ef: search a wider beam
            kwargs = {"filter": allowed.__contains__, "num_threads": 1}
            first = max(2 * self.ef_search, k)
        for ef in dict.fromkeys((first, max(first, min(pool, 4096)))):
            self._index.set_ef(ef)
            try:
                labels, distances = self._index.knn_query(q, k=k, **kwargs)
            except RuntimeError:  # fewer than k hits reachable: widen, then brute force
                continue
            return [
                _sorted_hits(zip(row_l.tolist(), (1.0 - row_d).tolist(), strict=True))
                for row_l, row_d in zip(labels, distances, strict=True)
            ]
        return None

    def _exact(self, q: np.ndarray, k: int, allowed: set[int]) -> list[list[tuple[int, float]]]:
        # hnswlib's get_items converts through Python floats (~50 us per 384-d vector), which is
        # why only small filters take this path; at ~500 ids it costs what a filtered HNSW
        # search (a Python callback per visited node) costs.
        labels = sorted(allowed)
        matrix = np.asarray(self._index.get_items(labels, return_type="numpy"), dtype=np.float32)
        norms = np.linalg.norm(q, axis=1, keepdims=True)
        unit = q / np.where(norms > 0, norms, 1.0)
        sims = unit @ matrix.reshape(len(labels), self._dim).T
        out = []
        for row in sims:
            top = np.argpartition(-row, k - 1)[:k] if k < len(labels) else np.arange(len(labels))
            out.append(_sorted_hits((labels[i], float(row[i])) for i in top.tolist()))
        return out

    # ------------------------------------------------------------------------------------- save

    def save(self, path: Path, *, generation: int | None = None) -> None:
        """Write the index and its meta file atomically (index first, then meta).

        A crash between the two leaves a new index with an old meta file: the size/checksum
        check in :meth:`load` refuses that pair, so a torn save is detected, never used.
        """
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        with self._lock:
            if generation is not None:
                self._generation = int(generation)
            tmp = temp_path_beside(path)
            try:
                self._index.save_index(str(tmp))
                size, digest = _file_digest(tmp)
            except BaseException:
                tmp.unlink(missing_ok=True)
                raise
            atomic_replace_from(tmp, path)
            held = {int(x) for x in self._index.get_ids_list()}
            self._deleted &= held  # labels whose slot was recycled are gone for good
            meta = {
                "format": META_FORMAT,
                "space": SPACE,
                "dim": self._dim,
                "count": len(self._live),
                "deleted": sorted(self._deleted),
                "generation": self._generation,
                "bytes": size,
                "xxh3_64": digest,
            }
            atomic_write_bytes(meta_path_for(path), json.dumps(meta).encode("utf-8"))

    # ---------------------------------------------------------------------------------- helpers

    def _as_matrix(self, data: np.ndarray, *, what: str) -> np.ndarray:
        return as_matrix(data, self._dim, what=what)


if TYPE_CHECKING:

    def _implements_port(index: VectorIndex) -> VectorIndexPort:
        return index  # mypy fails here when VectorIndex no longer fits core's VectorIndexPort


def as_matrix(data: np.ndarray, dim: int, *, what: str) -> np.ndarray:
    """``data`` as a C-contiguous float32 matrix of ``dim`` columns (one vector: one row);
    ValueError for another shape or a NaN or infinite value."""
    arr = np.asarray(data, dtype=np.float32)
    if arr.ndim == 1:
        arr = arr.reshape(1, -1)
    if arr.ndim != 2 or arr.shape[1] != dim:
        raise ValueError(f"{what} must have shape (n, {dim}), got {np.shape(data)}")
    if not np.isfinite(arr).all():
        raise ValueError(f"{what} contain NaN or infinite values")
    return np.ascontiguousarray(arr)


def _as_label(value: int) -> int:
    label = int(value)
    if label < 0 or label != value:
        raise ValueError(f"labels must be non-negative integers, got {value!r}")
    return label


def _sorted_hits(hits: Iterable[tuple[int, float]]) -> list[tuple[int, float]]:
    return sorted(((int(label), float(sim)) for label, sim in hits), key=lambda h: (-h[1], h[0]))


def _corrupt(path: Path, why: str) -> IndexCorruptError:
    return IndexCorruptError(
        f"the vector index {path} is damaged: {why}; rebuild with `vaultheat index --full`",
        path=str(path),
    )


def _file_digest(path: Path) -> tuple[int, str]:
    digest = xxhash.xxh3_64()
    size = 0
    with open(path, "rb") as fh:
        while block := fh.read(1 << 20):
            digest.update(block)
            size += len(block)
    return size, digest.hexdigest()


def _read_meta(index_path: Path, meta_path: Path) -> dict[str, Any]:
    try:
        meta = json.loads(meta_path.read_bytes())
    except FileNotFoundError as exc:
        raise _corrupt(index_path, f"its meta file {meta_path.name} is missing") from exc
    except (OSError, ValueError) as exc:
        raise _corrupt(index_path, f"its meta file {meta_path.name} is unreadable") from exc
    int_fields = ("format", "dim", "count", "generation", "bytes")
    ok = (
        isinstance(meta, dict)
        and all(type(meta.get(name)) is int for name in int_fields)
        and isinstance(meta.get("deleted"), list)
        and all(type(x) is int for x in meta["deleted"])
        and isinstance(meta.get("xxh3_64"), str)
        and meta.get("space") == SPACE
    )
    if not ok or meta["format"] != META_FORMAT:
        raise _corrupt(index_path, f"its meta file {meta_path.name} has an unexpected shape")
    return meta


def _verify_file(path: Path, meta: dict[str, Any]) -> None:
    size = os.path.getsize(path)
    if size != meta["bytes"]:
        raise _corrupt(path, f"it has {size} bytes, {meta['bytes']} were written (truncated?)")
    if _file_digest(path)[1] != meta["xxh3_64"]:
        raise _corrupt(path, "its checksum does not match the meta file")
