"""The Indexer: vault → diff → parse/chunk → store (words) → embed (meaning) → graph repair,
per edit; one run's steps in order, the run's start (settings checked, a full rebuild) and end
(vector file saved, run marked complete, labels fitted).

Order of cheapness: ``stat`` (mtime, size) first, an xxhash of the bytes only when the stat
changed, and the model only for embedding inputs the cache has never seen. A no-op run reads no
file and never loads the model.

Two phases. **Words**: every changed note is parsed, chunked and stored with its lexical (FTS5)
rows, tags and links, batch by batch, each batch one SQLite transaction; a chunk whose input the
embedding cache already holds gets its vector at once, the others are stored without one. Links
are resolved and the link graph repaired before any embedding, so a first index of a large vault
answers by words, links and tags within seconds to a minute. **Meaning**: the chunks still
awaiting a vector (derived from the tables: a chunk whose input has no cached vector) are
embedded note by note, most recently modified first (the notes the user is working on), each
batch one transaction that stores the vectors in the cache. Their inputs are the ones the words
phase kept in memory (up to ``HOLD_BYTES`` of text, so a typical first index does not read and
chunk every note twice) or are derived again from the note on disk (read, checked against the
stored content hash, chunked): memory stays bounded on a huge vault, and a run that resumes
after a crash does what a fresh one does. A note edited since it was stored is left for the
next run, which re-indexes it anyway.

**Second pass** (``embeddings.second_space = "multilingual"``, off by default; issue #40): last
in the run, once the English index is complete and saved, every chunk (English ones too) gets
the multilingual model's vector in the second space (storage/vectorsync.py), in batches, each
one transaction, resumable as the meaning phase is; the model runs in a low-priority thread.

Crash safety: every batch of either phase is one transaction that also queues graph work
(pending_knn / pending_links). The hnswlib file is saved atomically with the store's generation
(after the words phase, now and then during the meaning phase, and at the end); a process killed
at any moment leaves a database that opens, and the next run reconciles the vector file from the
database, embeds what still lacks a vector and finishes the queued graph work without redoing
committed batches. Nothing half-written is visible: a chunk is either absent, stored with its
words only (search says so: ``ranked_by`` "words", no "strong" label without a vector) or whole.

The phases live beside this module: indexing/words.py, indexing/meaning.py (the second pass
too), indexing/graph.py; their sizes and pacing in indexing/limits.py, the report and hashes in
indexing/report.py.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from vaultheat.core.vault.derived_notes import MANIFEST_KEY, document_kind, find_documents
from vaultheat.core.vault.discovery import Discovery, FileEntry, Skip, discover, discover_changed
from vaultheat.errors import IndexMismatchError
from vaultheat.indexing import limits
from vaultheat.indexing.graph import repair_graph
from vaultheat.indexing.meaning import MeaningPhase
from vaultheat.indexing.report import IndexReport, meaning_doc, stored_settings
from vaultheat.indexing.words import WordsPhase, diff_vault
from vaultheat.storage.lock import WriterLock
from vaultheat.storage.store import Store
from vaultheat.storage.vectorspace import VectorSpace
from vaultheat.storage.vectorsync import (
    ENGLISH_ONLY_KEY,
    MULTILINGUAL,
    SPACES_KEY,
    english_only,
    save_vectors,
)


class Indexer(WordsPhase, MeaningPhase):
    """Brings an index in line with its vault (``run``): the words phase, graph repair, the
    meaning phase, then the second pass, each step timed into the run's report."""

    # -- entry point --------------------------------------------------------------------------
    def run(self, *, full: bool = False, only: Sequence[str] | None = None) -> IndexReport:
        """Bring the index in line with the vault. ``only``: vault-relative paths known to have
        changed (the server's file events): just those are looked at, the rest of the vault is
        taken as stored (the server's periodic scan is the safety net); a path that needs the
        full walk (a folder) gets it. Ignored with ``full``."""
        self.paths.root.mkdir(parents=True, exist_ok=True)
        report = IndexReport(full=full)
        with WriterLock(self.paths.lock):
            store = Store(self.paths.db)
            try:
                self._run(store, report, full=full, only=None if full else only)
            finally:
                store.close()
        return report

    def _run(
        self, store: Store, report: IndexReport, *, full: bool, only: Sequence[str] | None
    ) -> None:
        """The steps in order, each timed into the report: discover, diff, parse (and resolve
        the vault's names), index (chunk, embed, store, per batch), resolve (links whose target
        changed), graph (kNN lists and link edges), save (vector file, run marked complete)."""
        t0 = time.perf_counter()
        before = store.manifest()
        m = before.get("meaning") or {}
        # only a run after one that left chunks without a vector scans the whole index for
        # them; otherwise they are the chunks this run stored without one (``_awaiting``).
        # A second space turned off since: the chunks in other languages await their English
        # vector again (issue #40), wherever they are
        self._scan_all = (
            before.get("run_complete", True) is not True
            or m.get("done", 0) < m.get("total", 0)
            or english_only(before) != (self._second_settings is not None)
        )
        manifest, wanted = self._prepare(store, full=full)
        disc = self._discover(store, only)
        # PDFs and canvases (core/derived_notes.py): indexed as notes are, skips remembered
        self._doc_skips = find_documents(
            self.paths.vault, self.settings, disc, {} if full else manifest.get(MANIFEST_KEY) or {}
        )
        report.timings["discover"] = time.perf_counter() - t0

        t1 = time.perf_counter()
        diff = diff_vault(store, disc, report, full=full)
        report.timings["diff"] = time.perf_counter() - t1

        plan = self._parse_all(store, disc, diff, report)
        vectors = self._vectors_for(store, manifest, diff, plan)

        t2 = time.perf_counter()
        self._store_changes(store, vectors, diff, plan, report)
        report.timings["index"] = time.perf_counter() - t2

        t3 = time.perf_counter()
        self._classify_pages(store)
        self._resolve_and_report(store, disc, diff, plan, wanted, report)
        report.timings["resolve"] = time.perf_counter() - t3
        # the parsed notes and their bytes go: the meaning phase needs only the held inputs
        # (or the notes on disk), so memory is not the whole vault's text twice
        del plan
        diff.work.clear()

        t4 = time.perf_counter()
        if vectors is None and store.pending_links():
            vectors = self._open_vectors(store, store.manifest())
        if vectors is not None and not self.should_stop():
            repair_graph(store, vectors, report, self.settings.graph, self.progress)
        report.timings["graph"] = time.perf_counter() - t4

        vectors = self._meaning_phase(store, vectors, report, t0)

        t8 = time.perf_counter()
        if not self.should_stop():
            self._detect_languages(store)
        report.timings["languages"] = time.perf_counter() - t8

        t6 = time.perf_counter()
        self._save(store, vectors)
        # saved: the labels' fit below reads the vectors through a view of its own (its copy
        # loaded from the file), so this one goes first: never two copies of every vector
        vectors = None
        report.timings["save"] = time.perf_counter() - t6

        t7 = time.perf_counter()
        if self.settings.related.fit_labels and not self.should_stop():
            self._fit_labels(store)
        report.timings["labels"] = time.perf_counter() - t7

        t9 = time.perf_counter()
        if not self.should_stop():  # last: the English index is complete and saved before it
            self._second_pass(store, report)
        self._held.clear()
        report.timings["second_space"] = time.perf_counter() - t9
        report.timings["total"] = time.perf_counter() - t0

    def _meaning_phase(
        self, store: Store, vectors: VectorSpace | None, report: IndexReport, t0: float
    ) -> VectorSpace | None:
        """The words phase marked done (``words_total`` timed from ``t0``), then the meaning
        phase: the chunks without a vector embedded, their kNN lists repaired. Returns the
        vector file, opened if this step needed it."""
        # the words phase is committed: every note is findable by its words and links now
        fp = self.embedder.fingerprint
        only_notes = None if self._scan_all else sorted(self._awaiting)
        # with a second space, the chunks in other languages get no English vector (issue #40)
        en_only = self._second_settings is not None
        candidates = store.unembedded_notes(fp, only_notes, english_only=en_only)
        unembedded = sum(n for *_, n in candidates)
        with store.transaction():
            store.set_manifest(words_done=True, **{ENGLISH_ONLY_KEY: en_only})
            if unembedded or "meaning" in store.manifest():
                store.set_manifest(meaning=meaning_doc(unembedded, 0, time.time()))
        report.timings["words_total"] = time.perf_counter() - t0

        t5 = time.perf_counter()
        if unembedded and not self.should_stop():
            if vectors is None:
                vectors = self._open_vectors(store, store.manifest())
            if unembedded >= limits.EMBED_BATCH:
                # a long meaning phase ahead: readers that open the index meanwhile load the
                # words phase's vectors from the file instead of rebuilding them from the cache
                # (an edit's few chunks skip this: the save at the end is enough)
                save_vectors(vectors, self.paths.vectors, store.generation())
            self._embed_pending(store, vectors, candidates, unembedded, report)
            if not self.should_stop():  # the kNN lists of the chunks just embedded
                repair_graph(store, vectors, report, self.settings.graph, self.progress)
        report.timings["embed"] = time.perf_counter() - t5
        return vectors

    # -- the steps of a run -------------------------------------------------------------------
    def _prepare(self, store: Store, *, full: bool) -> tuple[dict[str, Any], dict[str, Any]]:
        """Check the stored model and chunking settings against ours (a full run with another
        model empties the index, with the same one requeues the derived graph) and mark the
        run incomplete. Returns the manifest to build on and the settings this run stores."""
        manifest = store.manifest()
        wanted = stored_settings(self.settings, self.embedder)
        same_model = (manifest.get("stored") or {}).get("fingerprint") == wanted["fingerprint"]
        if full and not same_model:
            self._wipe(store)
            manifest = {}
        elif full:
            # same model: rebuild in place, note by note, so queries keep being answered
            # from the old data meanwhile and unchanged embedding inputs come from the cache
            self._reset_derived(store)
        elif manifest.get("stored") not in (None, wanted):
            raise IndexMismatchError(
                "the embedding model or chunking settings changed since this index was built; "
                "run `vaultheat index --full` to rebuild it",
                stored=json.dumps(manifest.get("stored")),
                wanted=json.dumps(wanted),
            )
        with store.transaction():  # until the end of this run: status says "incomplete"
            store.set_manifest(run_complete=False, words_done=False)
        return manifest, wanted

    def _save(self, store: Store, vectors: VectorSpace | None) -> None:
        """Save the vector file with a fresh generation (when it was opened) and mark the run
        complete unless it was stopped."""
        if vectors is not None:
            with store.transaction():
                gen = store.bump_generation()
                spaces = store.manifest().get(SPACES_KEY) or {}  # their vectors are kept too
                store.gc_embeddings(self.embedder.fingerprint,
                                    [s["fingerprint"] for s in spaces.values()])  # fmt: skip
            save_vectors(vectors, self.paths.vectors, gen)
        if not self.should_stop():
            with store.transaction():
                store.set_manifest(run_complete=True)

    def _fit_labels(self, store: Store) -> None:
        """Fit the related notes' labels on the vault's own links (core/calibration.py) when
        there is no fit yet or the vault moved on; only once every chunk has its vector."""
        from vaultheat.core.query.calibration import (
            LABELS_KEY,
            VaultCurve,
            fit_vault_curve,
        )
        from vaultheat.core.query.relevance import curve_for
        from vaultheat.modelset import ModelSet
        from vaultheat.views import ViewSource

        fp = self.embedder.fingerprint
        manifest = store.manifest()
        if "dimension" not in manifest or store.unembedded_count(
            fp, english_only=english_only(manifest)
        ):
            return
        notes, links = store.note_count(), store.resolved_link_count()
        old = VaultCurve.from_doc(json.loads(store.manifest_raw(LABELS_KEY) or "null"))
        if old is not None and not old.stale(fp, notes, links):
            return
        e = self.settings.embeddings
        source = ViewSource(self.paths, fp)
        try:
            wanted = stored_settings(self.settings, self.embedder)
            view = source.current(self.settings.graph, wanted)
            fit = fit_vault_curve(view, ModelSet(self.embedder), self.settings,
                                  curve_for(e.provider, e.model, "related"), model=fp,
                                  notes=notes, links=links)  # fmt: skip
        finally:
            source.close()
        with store.transaction():
            store.set_manifest(**{LABELS_KEY: fit.to_doc()})

    # -- steps --------------------------------------------------------------------------------
    def _discover(self, store: Store, only: Sequence[str] | None) -> Discovery:
        """The full walk, or with ``only`` the stored view of the vault with those paths looked
        at again (falling back to the walk when one of them needs it)."""
        if only is not None:
            known = Discovery(
                notes=[
                    FileEntry(r.path, self.paths.vault / r.path, r.size, r.mtime_ns)
                    for r in store.notes().values()
                    if document_kind(r.path) is None  # found again among other_files
                ],
                other_files=sorted(store.attachments()),
                skipped=[Skip(d["path"], d["reason"]) for d in store.skipped()],
            )
            disc = discover_changed(
                self.paths.vault, self.settings.vault, list(only), known, index_dir=self.paths.root
            )
            if disc is not None:
                return disc
        return discover(self.paths.vault, self.settings.vault, index_dir=self.paths.root)

    def _vector_files(self) -> list[Path]:
        """The vector files, the second space's too, each with its metadata file."""
        files = [self.paths.vectors, self.paths.space_vectors(MULTILINGUAL)]
        return [q for p in files for q in (p, p.with_suffix(".meta.json"))]

    def _wipe(self, store: Store) -> None:
        store.clear(keep_fingerprint=self.embedder.fingerprint)  # the spaces' records go too
        for p in self._vector_files():
            p.unlink(missing_ok=True)

    def _reset_derived(self, store: Store) -> None:
        """For a same-model rebuild: recompute every similarity list and link edge, and rebuild
        the vector file from the embedding cache (the database is the source of truth)."""
        store.requeue_graph()
        for p in self._vector_files():  # a second space's is rebuilt from the cache as well
            p.unlink(missing_ok=True)
