"""The one object the CLI and the server talk to: an opened index with its models.

It loads the settings, the embedder (lazily: status and no-op indexing never load a model),
the store and the vector file once, answers queries, and re-opens its view of the index after
an index run. Queries take a read lock, index refreshes a write lock, so a query always sees a
consistent index (never a half-written note).

The in-memory graph follows ``settings.graph`` (tag edges are derived at load), and
``use_similar_edges`` swaps in similarity edges computed elsewhere: the evaluation sweep tries
kNN variants this way without re-indexing.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import re
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import xxhash

from vaultheat import __version__
from vaultheat.config import Settings, canonical_model, load_settings
from vaultheat.core.freshness import IndexFreshness, Pending
from vaultheat.core.graphview import GraphView
from vaultheat.core.lru import LRU
from vaultheat.core.relevance import Curve, curve_for
from vaultheat.core.requests import RelatedRequest, SearchRequest
from vaultheat.core.resolve import LinkResolver
from vaultheat.core.results import (
    ChunkHit,
    Explanation,
    RelatedResults,
    SearchResults,
    explanation,
)
from vaultheat.core.status import ModelInfo, NoteStatus, Skipped, Status, phases_of
from vaultheat.core.titles import TitleIndex
from vaultheat.core.votes import NoteLinks
from vaultheat.errors import IndexMismatchError, IndexMissingError, NotFoundError
from vaultheat.indexer import Indexer, IndexReport, ProgressFn, stored_settings
from vaultheat.paths import IndexPaths, index_paths
from vaultheat.providers.base import Embedder, Generator, Reranker
from vaultheat.providers.registry import make_embedder, make_generator, make_reranker
from vaultheat.storage.store import Store
from vaultheat.storage.vectors import VectorIndex
from vaultheat.storage.vectorsync import open_vectors, reconcile

if TYPE_CHECKING:
    from vaultheat.core.missing import MissingExplanation

log = logging.getLogger("vaultheat.engine")
# query and unsaved-text chunk vectors kept by their text (about 1.5 KB each at 384 dimensions):
# bounded, so a server that only feeds the sidebar does not grow for the whole session
QUERY_CACHE_SIZE = 4096


def backend_label(fingerprint: str) -> str | None:
    """The backend in a local embedder's fingerprint: torch, onnx/int8, ...; else None."""
    match = re.search(r"\|backend=(\w+)\|(\w+)", fingerprint)
    if match is None:
        return None
    backend, precision = match.groups()
    return backend if backend == "torch" else f"{backend}/{precision}"


_UNMADE = object()  # no model made yet


class Engine:
    def __init__(
        self,
        paths: IndexPaths,
        settings: Settings,
        *,
        embedder: Embedder | None = None,
        reranker: Reranker | None = None,
        generator: Generator | None = None,
    ) -> None:
        self.paths = paths
        self.settings = settings
        self.embedder = embedder or make_embedder(settings.embeddings)
        self.embedder_injected = embedder is not None  # else built from the settings
        # models made from the settings are keyed by their settings section: when the settings
        # are reassigned (the CLI, the eval harness, the sweep) a config naming another model
        # gets that model; an injected model stays (key None)
        self._reranker = reranker
        self._reranker_key: object = None if reranker is not None else _UNMADE
        self._generator = generator
        self._generator_key: object = None if generator is not None else _UNMADE
        self._lock = threading.RLock()
        self._store: Store | None = None
        self._vectors: VectorIndex | None = None
        self._generation = -1
        self._graph: GraphView | None = None
        self._graph_key: tuple[Any, ...] = ()
        self._similar: Mapping[int, Sequence[tuple[int, float]]] | None = None
        self._similar_version = 0
        self._resolver: LinkResolver | None = None
        self._note_links: NoteLinks | None = None
        self._titles: TitleIndex | None = None
        self._derived_gen = -2
        self._dense = np.zeros((0, 0), dtype=np.float32)  # chunk id -> vector, for scoring
        self.query_cache: LRU[str, np.ndarray] = LRU(QUERY_CACHE_SIZE)

    @classmethod
    def open(
        cls,
        vault: Path | None = None,
        index_dir: Path | None = None,
        *,
        overrides: dict[str, Any] | None = None,
        embedder: Embedder | None = None,
        reranker: Reranker | None = None,
        require_index: bool = True,
    ) -> Engine:
        paths = index_paths(vault, index_dir)
        if require_index and not paths.exists():
            raise IndexMissingError(
                f"no vaultheat index for {paths.vault}; run `vaultheat init` then "
                "`vaultheat index`",
                vault=str(paths.vault),
            )
        settings = load_settings(paths.config)
        if overrides:
            settings = settings.with_overrides(overrides)
        return cls(paths, settings, embedder=embedder, reranker=reranker)

    # -- lazily made models -------------------------------------------------------------------
    @property
    def reranker(self) -> Reranker | None:
        key = self.settings.rerank
        if self._reranker_key is not None and self._reranker_key != key:
            self._reranker = make_reranker(key)
            self._reranker_key = key
        return self._reranker

    @property
    def generator(self) -> Generator | None:
        key = self.settings.expansion
        if self._generator_key is not None and self._generator_key != key:
            self._generator = make_generator(key) if key.enabled else None
            self._generator_key = key
        return self._generator

    # -- index access -------------------------------------------------------------------------
    def store(self) -> Store:
        with self._lock:
            if self._store is not None and self._store.replaced():
                log.info("the index at %s was replaced; reopening it", self.paths.db)
                self.reopen()
            if self._store is None:
                if not self.paths.db.exists():
                    raise IndexMissingError(
                        f"the index of {self.paths.vault} is empty; run `vaultheat index`"
                    )
                self._store = Store(self.paths.db, readonly=True)
            return self._store

    def view(self) -> tuple[Store, VectorIndex]:
        """The store and a vector index that matches it (reconciled if the file is behind)."""
        with self._lock:
            store = self.store()
            manifest = store.manifest()
            if "dimension" not in manifest:
                raise IndexMissingError(
                    f"the index of {self.paths.vault} has no vectors yet; run `vaultheat index`"
                )
            self.check_compatible(manifest)
            gen = store.generation()
            dim = int(manifest["dimension"])
            if self._vectors is None or self._vectors.dim != dim:
                self._vectors = open_vectors(
                    store, self.paths.vectors, dim, self.embedder.fingerprint
                )
                self._generation = gen
            elif gen != self._generation:
                # an index run moved on: catch up in memory from the database (cheap: only
                # the chunks added or removed since), instead of re-reading the vector file
                reconcile(self._vectors, store, self.embedder.fingerprint)
                self._generation = gen
            return store, self._vectors

    def _derived(self) -> None:
        """Rebuild the in-memory graph and link resolver when the index moved on; the graph
        also when the graph settings or the similarity-edge override changed."""
        store, _ = self.view()
        if self._derived_gen != self._generation or self._resolver is None:
            self._fill_dense(store)
            self._resolver = LinkResolver(
                list(store.notes()), store.attachments(), store.note_aliases()
            )
            self._note_links = None
            self._titles = None
            self._derived_gen = self._generation
        key = (self._generation, self.settings.graph, self._similar_version)
        if self._graph is None or key != self._graph_key:
            similar = self._similar
            if similar is None and self.settings.graph.knn_k <= 0:
                similar = {}  # knn_k 0 (the default): an older index's similar edges go unread
            self._graph = GraphView.from_store(store, self.settings.graph, similar)
            self._graph_key = key
        if self._note_links is None:
            self._note_links = NoteLinks.from_pairs(
                store.note_link_pairs(), self._graph.note_chunks()
            )

    def use_similar_edges(self, lists: Mapping[int, Sequence[tuple[int, float]]] | None) -> None:
        """Answer queries with these ``similar`` edges (chunk -> [(neighbour, cosine)]) instead
        of the stored ones; ``None`` goes back to the stored edges. Nothing is written: link and
        tag edges, the vectors and the index stay as they are. The graph is rebuilt on the next
        query (held lists are not copied: call again after changing them)."""
        with self._lock:
            self._similar = lists
            self._similar_version += 1

    def _fill_dense(self, store: Store) -> None:
        """A dense copy of the chunk vectors, rows by chunk id: scoring hundreds of candidates
        per query is one fancy-index + matmul instead of hnswlib's per-item lookups. Ids are
        never reused, so rows only ever get filled in: an index run costs only its new rows."""
        keys = store.all_chunk_vectors_keys()
        if not keys:
            return
        size = max(cid for cid, _ in keys) + 1
        dim = int(store.manifest()["dimension"])
        dense = self._dense
        if dense.shape[1:] != (dim,):
            dense = np.zeros((0, dim), dtype=np.float32)
        if dense.shape[0] < size:
            grown = np.zeros((max(size, int(dense.shape[0] * 1.5)), dim), dtype=np.float32)
            grown[: dense.shape[0]] = dense
            dense = grown
        ids = np.fromiter((cid for cid, _ in keys), dtype=np.int64, count=len(keys))
        empty = set(ids[~dense[ids].any(axis=1)].tolist())
        if len(empty) > 1024:  # a first index's meaning phase: look up only what has a vector
            keys = store.embedded_chunk_keys(self.embedder.fingerprint)
        missing = [(cid, h) for cid, h in keys if cid in empty]
        if missing:
            cache = store.cached_vectors(self.embedder.fingerprint, [h for _, h in missing])
            for cid, h in missing:
                if h in cache:
                    dense[cid] = cache[h]
        self._dense = dense

    def dense_vectors(self) -> np.ndarray:
        with self._lock:
            self._derived()
            return self._dense

    def graph_view(self) -> GraphView:
        with self._lock:
            self._derived()
            assert self._graph is not None
            return self._graph

    def note_links(self) -> NoteLinks:
        """Note-level out-links, in-degrees and chunk ids of this index generation (link
        votes read them on every related-notes request: built once, then a dict lookup)."""
        with self._lock:
            self._derived()
            assert self._note_links is not None
            return self._note_links

    def title_index(self) -> TitleIndex:
        """The notes' names (title, aliases, file name) of this index generation, for the
        note-name stage of search (``core/titles.py``)."""
        with self._lock:
            self._derived()
            if self._titles is None:
                store = self.store()
                titles = {p: n.title for p, n in store.notes().items() if not n.excluded}
                self._titles = TitleIndex.build(titles, store.note_aliases())
            return self._titles

    def resolver(self) -> LinkResolver:
        with self._lock:
            self._derived()
            assert self._resolver is not None
            return self._resolver

    def check_compatible(self, manifest: dict[str, Any]) -> None:
        wanted = stored_settings(self.settings, self.embedder)
        if manifest.get("stored") not in (None, wanted):
            raise IndexMismatchError(
                "this index was built with another embedding model or chunking settings; "
                "run `vaultheat index --full` to rebuild it before querying"
            )

    def index(
        self,
        *,
        full: bool = False,
        only: Sequence[str] | None = None,
        progress: ProgressFn | None = None,
        should_stop: Callable[[], bool] | None = None,
    ) -> IndexReport:
        indexer = Indexer(
            self.paths, self.settings, self.embedder, progress=progress, should_stop=should_stop
        )
        report = indexer.run(full=full, only=only)
        self.refresh()
        return report

    def refresh(self) -> None:
        with self._lock:
            self._generation = -1

    def close(self) -> None:
        with self._lock:
            if self._store is not None:
                self._store.close()
                self._store = None

    def reopen(self) -> None:
        """Forget every view of the index (store, vectors, graph, link resolver): the next call
        reads the index files afresh. For an index replaced or rebuilt under this engine: its
        generation counter may well equal the old one's, and its chunk ids reuse the old ones
        (the dense copy of the vectors assumes they never are)."""
        with self._lock:
            self.close()
            self._vectors = None
            self._generation = -1
            self._graph = None
            self._graph_key = ()
            self._resolver = None
            self._note_links = None
            self._titles = None
            self._derived_gen = -2
            self._dense = np.zeros((0, 0), dtype=np.float32)

    # -- documents ----------------------------------------------------------------------------
    def freshness(self) -> IndexFreshness:
        """The index against the vault on disk (one stat walk, no file read; see
        ``core.freshness``)."""
        from vaultheat.core.derived_notes import find_documents
        from vaultheat.core.discovery import discover
        from vaultheat.core.freshness import compare_with_disk, index_state
        from vaultheat.storage.lock import holder_pid

        disc = discover(self.paths.vault, self.settings.vault, index_dir=self.paths.root)
        find_documents(self.paths.vault, self.settings, disc, {})  # PDFs, canvases: as notes
        disk = ((e.path, e.mtime_ns, e.size) for e in [*disc.notes, *disc.documents])
        indexing = holder_pid(self.paths.lock) is not None
        pending = Pending()
        if not self.paths.db.exists():
            fresh = compare_with_disk(disk, {})
            mismatch, finished = False, False
        else:
            with self._lock:
                store = self.store()
                manifest = store.manifest()
                fresh = compare_with_disk(
                    disk, store.note_stats(), (s["path"] for s in store.skipped())
                )
                pending = Pending(**store.counts()["pending"])
            mismatch = manifest.get("stored") not in (
                None,
                stored_settings(self.settings, self.embedder),
            )
            finished = "stored" in manifest and manifest.get("run_complete", True) is True
        state, detail = index_state(
            fresh, indexing=indexing, mismatch=mismatch, finished=finished, pending=pending.total
        )
        return IndexFreshness(state, detail, fresh, pending)

    def status(self) -> Status:
        e = self.settings.embeddings
        name = canonical_model(e.model)
        model = ModelInfo(e.provider, name, e.backend, preset=e.model if name != e.model else None)
        if not self.paths.db.exists():
            return self._status(model, self.freshness())
        with self._lock:
            store = self.store()
            counts = store.counts()
            manifest = store.manifest()
            skipped = store.skipped() + store.unchunked_notes()
            fresh = self.freshness()
        stored_fp = (manifest.get("stored") or {}).get("fingerprint")
        if isinstance(stored_fp, str):  # what "auto" became when this index was built
            model = dataclasses.replace(model, backend=backend_label(stored_fp) or model.backend)
        with self._lock:
            unembedded = store.unembedded_count(
                stored_fp if isinstance(stored_fp, str) else self.embedder.fingerprint
            )
        phases = phases_of(
            built=True,
            indexing=fresh.state == "indexing",
            words_done=manifest.get("words_done", True) is True,
            chunks=counts["chunks"],
            unembedded=unembedded,
            meaning=manifest.get("meaning"),
            now=time.time(),
        )
        return self._status(
            dataclasses.replace(model, dimension=manifest.get("dimension")),
            fresh,
            built=True,
            notes=counts["notes"],
            excluded=counts["excluded"],
            chunks=counts["chunks"],
            links_resolved=counts["links"]["resolved"],
            links_unresolved=counts["links"]["unresolved"],
            tags=counts["tags"],
            edges={"similar": 0, "link": 0, **counts["edges"]},
            skipped=tuple(
                Skipped(s["path"], s["reason"]) for s in sorted(skipped, key=lambda s: s["path"])
            ),
            phases=phases,
        )

    def _status(self, model: ModelInfo, fresh: IndexFreshness, **counts: Any) -> Status:
        return Status(
            version=__version__,
            vault=str(self.paths.vault),
            index_dir=str(self.paths.root),
            model=model,
            exclude=tuple(self.settings.vault.exclude),
            index=fresh,
            **counts,
        )

    def note_status(self, path: str) -> NoteStatus:
        from vaultheat.indexer import content_hash
        from vaultheat.paths import safe_vault_path

        abs_path = safe_vault_path(self.paths.vault, path)
        exists = os.path.isfile(abs_path)  # False, not OSError, for a name too long
        disk_hash = content_hash(abs_path.read_bytes()) if exists else None
        absent = NoteStatus(path, exists, indexed=False, reason=None, disk_hash=disk_hash)
        if not self.paths.db.exists():
            return dataclasses.replace(absent, reason="the vault has not been indexed yet")
        with self._lock:
            store = self.store()
            row = store.note_by_path(path)
            skip = store.skip_reason(path)
            n_chunks = store.note_chunk_count(row.id) if row else 0
        if row is None:
            if skip:
                reason = f"skipped: {skip}"
            elif not exists:
                reason = "no such note in the vault"
            elif not path.lower().endswith((".md", ".pdf", ".canvas")):
                reason = "only Markdown notes, PDFs and canvases are indexed"
            else:
                reason = "not indexed yet (new since the last index run)"
            return dataclasses.replace(absent, reason=reason)
        note = dataclasses.replace(
            absent, indexed=not row.excluded, chunks=n_chunks, indexed_hash=row.content_hash
        )
        if row.excluded:
            reason = "opted out by its frontmatter"
        elif not note.fresh:
            reason = "changed on disk since it was indexed (re-index pending)"
        elif n_chunks == 0:
            reason = "the note has no body text"
        else:
            return note
        return dataclasses.replace(note, reason=reason)

    # -- queries ------------------------------------------------------------------------------
    def search(self, req: SearchRequest) -> SearchResults:
        from vaultheat.core.search import run_search

        store, vectors = self.view()
        res = run_search(self, store, vectors, req)
        return res.with_relevance(self._relevance_curve("search"))

    def related(
        self, req: RelatedRequest, *, resolver: LinkResolver | None = None
    ) -> RelatedResults:
        """Related notes of ``req.path``; ``resolver`` resolves the links of unsaved text
        (default: this index's, rebuilt when the index moves on; the evaluation passes one
        it keeps across many queries)."""
        from vaultheat.core.related import run_related

        store, vectors = self.view()
        row = store.note_by_path(req.path) if req.text is None else None
        if req.text is None and row is None:
            self._why_not_indexed(req.path)
        if row is not None and any(c.id not in vectors for c in store.note_chunks(row.id)):
            # still waiting for its vectors (the meaning phase): embed its text on the fly
            req = self._with_disk_text(req)
        res = run_related(self, store, vectors, req, resolver=resolver or self.resolver())
        return res.with_relevance(self._relevance_curve("related"))

    def _with_disk_text(self, req: RelatedRequest) -> RelatedRequest:
        from vaultheat.paths import safe_vault_path

        try:
            raw = safe_vault_path(self.paths.vault, req.path).read_bytes()
        except OSError:
            return req
        return dataclasses.replace(req, text=raw.decode("utf-8", "surrogateescape"))

    def _why_not_indexed(self, path: str) -> None:
        from vaultheat.paths import safe_vault_path

        if not safe_vault_path(self.paths.vault, path).is_file():
            raise NotFoundError(f"no such note: {path} is not in the vault", path=path)
        reason = self.note_status(path).reason or "not indexed"
        raise NotFoundError(
            f"{path} is not indexed ({reason}); pass its text to find related notes", path=path
        )

    def _relevance_curve(self, kind: str) -> Curve:
        e = self.settings.embeddings
        return curve_for(e.provider, e.model, kind)

    def explain_search(self, req: SearchRequest, chunk_id: int) -> Explanation:
        res = self.search(
            SearchRequest(**{**req.__dict__, "explain": True, "top": 100, "files_only": False})
        )
        for r in res.results:
            if isinstance(r, ChunkHit) and r.chunk_id == chunk_id:
                return explanation(res.query, r)
        raise NotFoundError(f"chunk {chunk_id} is not among the results of this query")

    def explain_missing(self, req: SearchRequest, path: str) -> MissingExplanation:
        """Where ``path`` landed for ``req`` and what kept it down (``core/missing.py``); a
        note the vault has but the index does not gets its reason; an unknown path is an
        error."""
        from vaultheat.core.missing import MissingExplanation, explain_missing

        store, vectors = self.view()
        row = store.note_by_path(path)
        if row is None or row.excluded:
            st = self.note_status(path)
            if not st.exists:
                raise NotFoundError(f"no such note: {path} is not in the vault", path=path)
            why = st.reason or "not indexed"
            return MissingExplanation(req.query, path, req.files_only, "not_indexed", why,
                                      req.top, 0)  # fmt: skip
        return explain_missing(self, store, vectors, req, path, self._relevance_curve("search"))

    def explain_related(self, req: RelatedRequest, target: str) -> Explanation:
        res = self.related(RelatedRequest(**{**req.__dict__, "explain": True, "top": 100}))
        for r in res.results:
            if r.path == target:
                return explanation(f"related to {req.path}", r)
        raise NotFoundError(f"{target} is not among the notes related to {req.path}")

    def text_key(self, text: str) -> str:
        return xxhash.xxh3_64_hexdigest(text.encode("utf-8", "surrogatepass"))
