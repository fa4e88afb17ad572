"""The one object the CLI and the server talk to: an opened index with its models.

It loads the settings, the embedder (lazily: status and no-op indexing never load a model) and
answers queries. Each query runs core on one frozen ``IndexView`` of one index generation, read
inside one read transaction (``vaultheat.views``), with the engine's settings (read-only:
``with_settings`` gives an engine for others) and the models made for them
(``vaultheat.modelset``); core never calls back here.

How to read the index:
- a query: ``read(fn)`` runs ``fn`` on the current view bound to one read transaction (what
  ``search``, ``related`` and the explanations run in);
- the evaluation, the sweep, benchmarks and tests: ``index_view()``, the current view reading
  the shared store (``.store``, ``.vectors``, ``.graph``, ``.dense``, ``.links``, ``.resolver``,
  ``.titles``).

Two grouped attributes hold the rest: ``models`` (``vaultheat.modelset``: the embedder, the
reranker and generator made for given settings, the query cache) and ``views``
(``vaultheat.views``: the store connections and the view cache). ``views`` is for what reads
no view: status, freshness and a note's status (``vaultheat.index_status``), the check and
inspect commands (``views.store()``, ``views.snapshot()``); ``views.refresh()`` and
``views.reopen()`` after the index changed under the engine; ``views.use_similar_edges`` swaps
in similarity edges computed elsewhere (the evaluation sweep tries kNN variants this way without
re-indexing). Close it through ``Engine.close``, never directly (a derived engine shares it).

``with_settings`` gives an engine for other settings on the same index (evaluation configs, the
sweep's points, ``--full-text``) without touching this one: it shares the embedder, the query
cache, the view source (store connections, vector index, views) and the models already made,
and keeps its own settings and models made for them. Settings that change what the index
stores (the embedding model, chunking) cannot be swapped this way: they need another index.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from vaultheat import index_status
from vaultheat.config import Settings, load_settings
from vaultheat.core.query.calibration import LABELS_KEY, VaultCurve
from vaultheat.core.query.relevance import Curve, curve_for
from vaultheat.core.query.results import (
    ChunkHit,
    Explanation,
    RelatedResults,
    SearchResults,
    explanation,
)
from vaultheat.core.query.view import IndexView
from vaultheat.core.requests import RelatedRequest, SearchRequest
from vaultheat.core.vault.resolve import LinkResolver
from vaultheat.core.vault.status import Status
from vaultheat.errors import IndexMismatchError, IndexMissingError, NotFoundError
from vaultheat.indexing.report import IndexReport, ProgressFn, stored_settings
from vaultheat.indexing.run import Indexer
from vaultheat.modelset import ModelSet
from vaultheat.paths import IndexPaths, index_paths
from vaultheat.providers.base import Embedder, Generator, Reranker
from vaultheat.providers.registry import make_embedder
from vaultheat.views import ViewSource

if TYPE_CHECKING:
    from vaultheat.core.query.missing import MissingExplanation

T = TypeVar("T")

# embeddings settings read at query time or that only tune how the (shared) embedder runs: a
# derived engine may change them; every other embeddings or chunking key changes the vectors
QUERY_TIME_EMBEDDINGS = frozenset({"languages", "batch_size", "threads", "device", "timeout_s",
                                   "retries"})  # fmt: skip


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
        self._settings = settings
        self.models = ModelSet(
            embedder or make_embedder(settings.embeddings),
            reranker=reranker,
            generator=generator,
            embedder_injected=embedder is not None,
        )
        self.views = ViewSource(paths, self.models.embedder.fingerprint)
        self._owns_views = True  # False on a derived engine (``with_settings``)
        # the stored label fit as last read (its JSON text) and parsed: ``_related_curve``
        self._labels: tuple[str | None, VaultCurve | None] = (None, None)

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

    def with_settings(self, settings: Settings) -> Engine:
        """A new engine on this index answering with ``settings``; this engine is unchanged.

        Shared: the embedder, the query cache, ``views`` (store connections, vector index, the
        cached view and ``use_similar_edges``) and the reranker and generator made so far. Its
        own: the settings and the models it makes for them (this engine never sees those).
        Closing it closes nothing shared (closing this engine does; the derived engine is
        unusable after that); ``views.reopen`` and ``views.refresh`` act on the shared views.

        Raises ``IndexMismatchError`` when ``settings`` change what the index stores (the
        embedding model, provider, backend, precision, prefixes, chunking): the shared
        embedder and the stored vectors would not be the ones those settings name."""
        changed = index_changes(self.settings, settings)
        if changed:
            raise IndexMismatchError(
                f"{', '.join(changed)} changed: these settings change what the index stores "
                "(another embedding model or chunking), so they cannot be used on this open "
                "index; build an index with them (`vaultheat index --full`) and open that",
                changed=changed,
            )
        derived = Engine.__new__(Engine)
        derived.paths = self.paths
        derived._settings = settings
        derived.models = self.models.derive()
        derived.views = self.views
        derived._owns_views = False
        derived._labels = (None, None)
        return derived

    @property
    def settings(self) -> Settings:
        """The settings this engine answers with; read-only: other settings on the same index
        are another engine (``with_settings``)."""
        return self._settings

    # -- index access -------------------------------------------------------------------------
    def index_view(self) -> IndexView:
        """The current view for the current settings, reading the shared store (for the
        evaluation, the sweep and tests; queries get theirs bound to a snapshot)."""
        return self.views.current(self.settings.graph, self._wanted())

    def read(self, fn: Callable[[IndexView], T]) -> T:
        """``fn`` on the current view bound to one read transaction: what every query runs in."""
        return self.views.query(self.settings.graph, self._wanted(), fn)

    def _wanted(self) -> dict[str, Any]:
        return stored_settings(self.settings, self.models.embedder)

    def index(
        self,
        *,
        full: bool = False,
        only: Sequence[str] | None = None,
        progress: ProgressFn | None = None,
        should_stop: Callable[[], bool] | None = None,
    ) -> IndexReport:
        indexer = Indexer(
            self.paths,
            self.settings,
            self.models.embedder,
            progress=progress,
            should_stop=should_stop,
        )
        report = indexer.run(full=full, only=only)
        self.views.refresh()
        return report

    def close(self) -> None:
        """Close the store connections; a derived engine (``with_settings``) closes nothing:
        they belong to the engine it came from."""
        if self._owns_views:
            self.views.close()

    # -- status (freshness and a note's status: ``vaultheat.index_status``) -------------------
    def status(self) -> Status:
        return index_status.status(self)

    # -- queries ------------------------------------------------------------------------------
    def search(self, req: SearchRequest) -> SearchResults:
        from vaultheat.core.query.search import run_search

        s = self.settings  # one query, one set of settings
        res = self.views.query(
            s.graph, self._wanted(), lambda view: run_search(view, self.models, s, req)
        )
        return res.with_relevance(self._relevance_curve(s, "search"))

    def related(
        self, req: RelatedRequest, *, resolver: LinkResolver | None = None
    ) -> RelatedResults:
        """Related notes of ``req.path``; ``resolver`` resolves the links of unsaved text
        (default: the view's; the evaluation passes one it keeps across many queries)."""
        from vaultheat.core.query.related import run_related

        s = self.settings

        def run(view: IndexView) -> RelatedResults | None:
            store, vectors = view.store, view.vectors
            row = store.note_by_path(req.path) if req.text is None else None
            if req.text is None and row is None:
                return None  # the note status says why, outside the read (see below)
            asked = req
            chunks = store.note_chunks(row.id) if row is not None else []
            ids = [c.id for c in chunks]
            second = view.second.vectors if view.second is not None else None
            # every chunk with its vector in one space: a note in another language may have
            # none in the English space, by design (issue #40), and read the second space
            stored = all(c in vectors for c in ids) or (
                second is not None and all(c in second for c in ids)
            )
            if row is not None and (not chunks or not stored):
                # still waiting for its vectors (the meaning phase): embed its text on the fly;
                # no body at all: its name and properties stand in (core/query/query_note.py)
                asked = self._with_disk_text(req)
            return run_related(view, self.models, s, asked, resolver=resolver)

        res = self.views.query(s.graph, self._wanted(), run)
        if res is None:
            # not under the view's shared lock: the note status opens a read of its own, and
            # an index replaced meanwhile makes ``reopen`` wait for that lock (a self-deadlock
            # if this thread still held it as a reader)
            self._why_not_indexed(req.path)
        assert res is not None
        return res.with_relevance(self._related_curve(s))

    def _with_disk_text(self, req: RelatedRequest) -> RelatedRequest:
        from vaultheat.paths import safe_vault_path

        try:
            raw = safe_vault_path(self.paths.vault, req.path).read_bytes()
        except OSError:
            return req
        return dataclasses.replace(req, text=raw.decode("utf-8", "surrogateescape"))

    def _why_not_indexed(self, path: str) -> None:
        from vaultheat.paths import safe_vault_path

        try:
            exists = safe_vault_path(self.paths.vault, path).is_file()
        except OSError:  # a name the file system cannot hold (too long, ...) is no note
            exists = False
        if not exists:
            raise NotFoundError(f"no such note: {path} is not in the vault", path=path)
        reason = index_status.note_status(self, path).reason or "not indexed"
        raise NotFoundError(
            f"{path} is not indexed ({reason}); pass its text to find related notes", path=path
        )

    def _related_curve(self, s: Settings) -> Curve:
        """The related notes' curve: the vault's own fit (``core/query/calibration.py``, made by the
        index run) when the index holds one for this model and ``related.fit_labels`` is on,
        else the model's."""
        base = self._relevance_curve(s, "related")
        if not s.related.fit_labels:
            return base
        raw = self.views.store().manifest_raw(LABELS_KEY)
        seen, fit = self._labels
        if raw != seen:  # parsed once per fit, not per query
            fit = VaultCurve.from_doc(json.loads(raw)) if raw else None
            self._labels = (raw, fit)
        if fit is None or fit.curve is None or fit.model != self.models.embedder.fingerprint:
            return base
        return fit.curve

    @staticmethod
    def _relevance_curve(s: Settings, kind: str) -> Curve:
        return curve_for(s.embeddings.provider, s.embeddings.model, kind)

    def explain(self, req: SearchRequest | RelatedRequest, target: int | str) -> Explanation:
        """Why one result is among the results of ``req``: a search's chunk (``target`` its
        chunk id) or a related note (``target`` its path)."""
        if isinstance(req, RelatedRequest):
            return self._explain_related(req, str(target))
        if not isinstance(target, int):
            raise TypeError(f"a search result is explained by its chunk id, not {target!r}")
        return self._explain_search(req, target)

    def _explain_search(self, req: SearchRequest, chunk_id: int) -> Explanation:
        res = self.search(
            SearchRequest(**{**req.__dict__, "explain": True, "top": 100, "files_only": False})
        )
        for r in res.results:
            if isinstance(r, ChunkHit) and r.chunk_id == chunk_id:
                return explanation(res.query, r)
        raise NotFoundError(f"chunk {chunk_id} is not among the results of this query")

    def explain_missing(self, req: SearchRequest, path: str) -> MissingExplanation:
        """Where ``path`` landed for ``req`` and what kept it down (``core/query/missing.py``); a
        note the vault has but the index does not gets its reason; an unknown path is an
        error."""
        from vaultheat.core.query.missing import MissingExplanation, explain_missing

        s = self.settings  # one query, one set of settings
        curve = self._relevance_curve(s, "search")

        def run(view: IndexView) -> MissingExplanation | None:
            row = view.store.note_by_path(path)
            if row is None or row.excluded:
                return None  # the note status below says why, outside the read transaction
            return explain_missing(view, self.models, s, req, path, curve)

        found = self.views.query(s.graph, self._wanted(), run)
        if found is not None:
            return found
        st = index_status.note_status(self, path)
        if not st.exists:
            raise NotFoundError(f"no such note: {path} is not in the vault", path=path)
        why = st.reason or "not indexed"
        return MissingExplanation(req.query, path, req.files_only, "not_indexed", why,
                                  req.top, 0)  # fmt: skip

    def _explain_related(self, req: RelatedRequest, target: str) -> Explanation:
        res = self.related(RelatedRequest(**{**req.__dict__, "explain": True, "top": 100}))
        for r in res.results:
            if r.path == target:
                return explanation(f"related to {req.path}", r)
        raise NotFoundError(f"{target} is not among the notes related to {req.path}")


def index_changes(old: Settings, new: Settings) -> list[str]:
    """The ``section.key`` names whose change from ``old`` to ``new`` changes what an index
    stores (every chunking key, every embeddings key but ``QUERY_TIME_EMBEDDINGS``)."""
    changed = []
    for section in ("embeddings", "chunking"):
        a, b = getattr(old, section), getattr(new, section)
        for f in dataclasses.fields(a):
            if section == "embeddings" and f.name in QUERY_TIME_EMBEDDINGS:
                continue
            if getattr(a, f.name) != getattr(b, f.name):
                changed.append(f"{section}.{f.name}")
    return changed
