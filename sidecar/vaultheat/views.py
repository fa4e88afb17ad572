"""The engine's read side: builds one ``IndexView`` per index generation and runs queries on it.

A query runs inside a read transaction (``storage/snapshots.py``) whose generation must be the
view's: when the index child has committed since the view was built, the view is rebuilt from
that transaction's snapshot and the query runs on the new view within the same transaction, so
one query reads one generation (at most one rebuild per query, never a retry loop). A view is
replaced, never changed. The vector index is the one object shared between views (reconciled
in place from the database, which is cheap, instead of re-read from its file); a readers-writer
lock keeps that and every rebuild away from running queries, so a query never sees vectors of
another generation than its rows.

The graph depends on the graph settings (tag edges, kNN) and on ``use_similar_edges`` (the
sweep's in-memory kNN variants): a change of either gives a new view of the same generation
that keeps the dense vectors and the link resolver.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

import numpy as np

from vaultheat.config import GraphSettings
from vaultheat.core.graphview import GraphView
from vaultheat.core.query.notevec import note_vectors, space_note_vectors
from vaultheat.core.query.routing import SecondSpace
from vaultheat.core.query.titles import TitleIndex
from vaultheat.core.query.view import IndexView
from vaultheat.core.query.votes import NoteLinks
from vaultheat.core.vault.resolve import LinkResolver
from vaultheat.errors import IndexCorruptError, IndexMismatchError, IndexMissingError
from vaultheat.paths import IndexPaths
from vaultheat.storage.snapshots import Snapshots
from vaultheat.storage.store import Store
from vaultheat.storage.vectorspace import VectorSpace
from vaultheat.storage.vectorsync import (
    MULTILINGUAL,
    open_space,
    open_vectors,
    reconcile,
    space_state,
)

log = logging.getLogger("vaultheat.engine")
T = TypeVar("T")
DENSE_BLOCK = 4096  # rows of the dense copy looked at or filled at a time (fill_dense)
Similar = Mapping[int, Sequence[tuple[int, float]]]


class RWLock:
    """Many readers or one writer; a waiting writer holds off new readers (no starvation
    while clients keep querying)."""

    def __init__(self) -> None:
        self._cond = threading.Condition(threading.Lock())
        self._readers = 0
        self._writer = False
        self._waiting = 0

    @contextmanager
    def shared(self) -> Iterator[None]:
        with self._cond:
            while self._writer or self._waiting:
                self._cond.wait()
            self._readers += 1
        try:
            yield
        finally:
            with self._cond:
                self._readers -= 1
                if not self._readers:
                    self._cond.notify_all()

    @contextmanager
    def exclusive(self) -> Iterator[None]:
        with self._cond:
            self._waiting += 1
            while self._writer or self._readers:
                self._cond.wait()
            self._waiting -= 1
            self._writer = True
        try:
            yield
        finally:
            with self._cond:
                self._writer = False
                self._cond.notify_all()


@dataclasses.dataclass(frozen=True)
class _Key:
    generation: int
    graph: GraphSettings
    similar_version: int


class ViewSource:
    """The current view of one index, for the settings and model fingerprint a call carries."""

    def __init__(self, paths: IndexPaths, fingerprint: str) -> None:
        self.paths = paths
        self.fingerprint = fingerprint
        self._rw = RWLock()
        self._lock = threading.RLock()  # the shared store (status, freshness, note status)
        self._store: Store | None = None
        self._snapshots: Snapshots | None = None
        self._vectors: VectorSpace | None = None
        self._vectors_gen = -1
        self._view: IndexView | None = None
        self._key: _Key | None = None
        self._stale = False
        self._stored: Any = None  # the manifest's stored settings at the view's generation
        self._similar: Similar | None = None
        self._similar_version = 0
        self._space: VectorSpace | None = None  # the second vector space (issue #40)
        self._space_key: tuple[str, int] | None = None
        # the second space's vectors by chunk id, for its note vectors (``space_note_vectors``)
        self._space_dense: np.ndarray | None = None
        self._space_gen = -1

    # -- the engine's own connection ---------------------------------------------------------
    def store(self) -> Store:
        """The shared read-only store (autocommit reads), reopened when the file was replaced."""
        with self._lock:
            replaced = self._store is not None and self._store.replaced()
        if replaced:  # reopened outside the store lock: the view lock always comes first
            log.info("the index at %s was replaced; reopening it", self.paths.db)
            self.reopen()
        return self._open()[0]

    def _open(self) -> tuple[Store, Snapshots]:
        with self._lock:
            if self._store is None or self._snapshots is None:
                if not self.paths.db.exists():
                    raise IndexMissingError(
                        f"the index of {self.paths.vault} is empty; run `vaultheat index`"
                    )
                self._store = Store(self.paths.db, readonly=True)
                self._snapshots = Snapshots(self.paths.db)
            return self._store, self._snapshots

    @contextmanager
    def snapshot(self) -> Iterator[Store]:
        """A read-only store in a read transaction of its own (status, freshness)."""
        self.store()
        with self._open()[1].read() as snap:
            yield snap

    # -- queries ------------------------------------------------------------------------------
    def query(
        self, graph: GraphSettings, wanted: dict[str, Any], fn: Callable[[IndexView], T]
    ) -> T:
        """``fn`` on the current view, bound to a snapshot of the view's generation."""
        self.store()  # reopens a replaced index file before any snapshot is taken
        with self._rw.shared():
            snapshots, view = self._snapshots, self._view
            if snapshots is not None and view is not None and not self._stale:
                with snapshots.read() as snap:
                    key = _Key(snap.generation(), graph, self._similar_version)
                    if key == self._key:
                        _check_stored(self._stored, wanted)
                        return fn(view.reading(snap))
        with self._rw.exclusive(), self._open()[1].read() as snap:
            view = self._build(snap, graph, wanted)
            return fn(view.reading(snap))

    def current(self, graph: GraphSettings, wanted: dict[str, Any]) -> IndexView:
        """The view for these settings, reading the shared store (single-threaded callers:
        the evaluation, the sweep, tests)."""
        view = self.query(graph, wanted, lambda v: v)
        return view.reading(self.store())

    def _build(self, snap: Store, graph: GraphSettings, wanted: dict[str, Any]) -> IndexView:
        """The view of ``snap``'s generation (the current one when it still fits)."""
        manifest = snap.manifest()
        if "dimension" not in manifest:
            raise IndexMissingError(
                f"the index of {self.paths.vault} has no vectors yet; run `vaultheat index`"
            )
        self._stored = manifest.get("stored")
        _check_stored(self._stored, wanted)
        gen, dim = snap.generation(), int(manifest["dimension"])
        key = _Key(gen, graph, self._similar_version)
        old = self._view
        if old is not None and key == self._key and not self._stale:
            return old
        if self._vectors is None or self._vectors.dim != dim:
            self._vectors = open_vectors(snap, self.paths.vectors, dim, self.fingerprint)
        elif gen != self._vectors_gen or self._stale:
            # an index run moved on: catch up in memory from the database (only the chunks
            # added or removed since), instead of re-reading the vector file
            reconcile(self._vectors, snap, self.fingerprint)
        self._vectors_gen = gen
        same_gen = old is not None and self._key is not None and self._key.generation == gen
        if old is not None and same_gen and not self._stale:
            dense, resolver, links, titles = old.dense, old.resolver, old.links, old.titles
        else:
            dense = fill_dense(old.dense if old is not None else None, snap, dim, self.fingerprint)
            resolver = LinkResolver(list(snap.notes()), snap.attachments(), snap.note_aliases())
            links = None
            names = {p: n.title for p, n in snap.notes().items() if not n.excluded}
            titles = TitleIndex.build(names, snap.note_aliases())
        similar = self._similar
        if similar is None and graph.knn_k <= 0:
            similar = {}  # knn_k 0 (the default): an older index's similar edges go unread
        graph_view = GraphView.from_store(snap, graph, similar)
        if links is None:
            links = NoteLinks.from_pairs(snap.note_link_pairs(), graph_view.note_chunks())
        notes = note_vectors(dense, graph_view.chunk_note, graph_view.note_lead)
        view = IndexView(gen, snap, self._vectors, graph_view, dense, links, resolver, titles,
                         notes, snap.page_kinds(),
                         second=self._second_space(snap, graph_view))  # fmt: skip
        self._view, self._key, self._stale = view, key, False
        return view

    def _second_space(self, snap: Store, graph_view: GraphView) -> SecondSpace | None:
        """The second vector space at ``snap``'s generation (issue #40): its vectors (kept
        between views, reconciled when its generation moved on), the chunks' languages and the
        notes' vectors in it (``space_note_vectors``, built with the view); None while it is
        empty, or when its file cannot be read (search then uses one space)."""
        state = space_state(snap.manifest(), MULTILINGUAL)
        if state is None:
            self._space, self._space_key = None, None
            return None
        key = (state["fingerprint"], int(state["dimension"]))
        gen = int(state["generation"])
        try:
            if self._space is None or self._space_key != key:
                self._space = open_space(snap, self.paths.space_vectors(MULTILINGUAL),
                                         MULTILINGUAL)  # fmt: skip
                self._space_dense = None  # another model, or reopened: its vectors read again
                self._space_key = key if self._space is not None else None
            elif gen != self._space_gen:
                reconcile(self._space, snap, state["fingerprint"])
            self._space_gen = gen
            if self._space is None or not len(self._space):
                return None
            languages = snap.chunk_languages()
            partial = len(self._space) < snap.chunk_count()
            english, space = self._vectors, self._space
            only = sum(1 for c in languages if c in space and (english is None or c not in english))
            notes, self._space_dense = space_note_vectors(
                space, graph_view.chunk_note, graph_view.note_lead, self._space_dense
            )
        except (OSError, ValueError, IndexCorruptError) as exc:
            log.warning("the second vector space is unreadable (%s); searching one space", exc)
            self._space, self._space_key = None, None
            return None
        return SecondSpace(self._space, state["fingerprint"], languages, partial, only, notes)

    # -- changes ------------------------------------------------------------------------------
    def use_similar_edges(self, lists: Similar | None) -> None:
        with self._rw.exclusive():
            self._similar = lists
            self._similar_version += 1

    def refresh(self) -> None:
        """Rebuild the view before the next query even if the generation looks the same (an
        index run in this process just finished)."""
        self._stale = True

    def reopen(self) -> None:
        """Forget every view of the index: the next call reads the index files afresh. For an
        index replaced or rebuilt: its generation may equal the old one's and its chunk ids
        reuse the old ones (the dense copy of the vectors assumes they never are)."""
        with self._rw.exclusive(), self._lock:
            self.close()

    def close(self) -> None:
        """Close the connections and let go of the view and its vectors (a closed engine held
        by its caller kept every vector twice, the index's and the dense copy): a call after
        this opens and builds them again."""
        with self._lock:
            if self._store is not None:
                self._store.close()
                self._store = None
            if self._snapshots is not None:
                self._snapshots.close()
                self._snapshots = None
            self._view, self._key = None, None
            self._vectors, self._vectors_gen = None, -1
            self._space, self._space_key, self._space_gen = None, None, -1


def _check_stored(stored: Any, wanted: dict[str, Any]) -> None:
    if stored not in (None, wanted):
        raise IndexMismatchError(
            "this index was built with another embedding model or chunking settings; "
            "run `vaultheat index --full` to rebuild it before querying"
        )


# the dense copy's element type: the embedding cache's own (float16), so the copy is exact
DENSE_DTYPE = np.float16


def fill_dense(dense: np.ndarray | None, store: Store, dim: int, fingerprint: str) -> np.ndarray:
    """A dense copy of the chunk vectors, rows by chunk id: scoring hundreds of candidates per
    query is one fancy-index + matmul instead of hnswlib's per-item lookups (about 25 us an
    item: 8 ms for 300 candidates against 0.02 ms). Float16, as the embedding cache stores them
    (storage/embedcache.py), so the copy is exact at half the memory (42 MiB for 55,000
    chunks); readers turn the rows they gather into float32. Ids are never
    reused, so rows only ever get filled in: a new generation costs only its new rows (filled in
    place: the previous view is no longer read when this runs, under the exclusive lock)."""
    keys = store.all_chunk_vectors_keys()
    if dense is None or dense.shape[1:] != (dim,) or dense.dtype != DENSE_DTYPE:
        dense = np.zeros((0, dim), dtype=DENSE_DTYPE)
    if not keys:
        return dense
    size = max(cid for cid, _ in keys) + 1
    if dense.shape[0] < size:
        grown = np.zeros((max(size, int(dense.shape[0] * 1.5)), dim), dtype=DENSE_DTYPE)
        grown[: dense.shape[0]] = dense
        dense = grown
    ids = np.fromiter((cid for cid, _ in keys), dtype=np.int64, count=len(keys))
    # block by block: a fancy index of every row at once would be a second copy of the vectors
    empty: set[int] = set()
    for start in range(0, len(ids), DENSE_BLOCK):
        part = ids[start : start + DENSE_BLOCK]
        empty.update(part[~dense[part].any(axis=1)].tolist())
    if len(empty) > 1024:  # a first index's meaning phase: look up only what has a vector
        keys = store.embedded_chunk_keys(fingerprint)
    missing = [(cid, h) for cid, h in keys if cid in empty]
    # the cached vectors a block at a time, not the whole cache as one dict of arrays
    for start in range(0, len(missing), DENSE_BLOCK):
        block = missing[start : start + DENSE_BLOCK]
        cache = store.cached_vectors(fingerprint, [h for _, h in block])
        for cid, h in block:
            if h in cache:
                dense[cid] = cache[h]
    return dense
