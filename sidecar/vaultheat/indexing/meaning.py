"""The meaning phase and the second pass: the vectors of the chunks the words phase stored
without one, and the second vector space's.

**Meaning**: the chunks still awaiting a vector (derived from the tables: a chunk whose input
has no cached vector) are embedded note by note, most recently modified first (the notes the
user is working on), each batch one model call and one transaction that stores the vectors in
the cache. Their inputs are the ones the words phase held in memory or are derived again from
the note on disk (read, checked against the stored content hash, chunked): memory stays bounded
on a huge vault, and a run that resumes after a crash does what a fresh one does. A note edited
since it was stored is left for the next run, which re-indexes it anyway. The chunks whose
vector came from the cache get their language here too.

With a second space configured (below), each input's language is detected before it is
embedded, and only the inputs in English or of no determinable language ("und") get the English
model's vector: the others are read in the second space only (core/query/routing.py), so their
English vectors would be wasted work (most of the phase on a vault in Japanese) and, while the
second space fills, poor matches. They await no vector in the English space (storage
``english_only``); turned off again, the next run gives them their English vectors.

**Second pass** (``embeddings.second_space = "multilingual"``, off by default; issue #40): last
in the run, once the English index is complete and saved, every chunk (English ones too) gets
the multilingual model's vector in the second space (storage/vectorsync.py), in batches, each
one transaction, resumable as the meaning phase is; the model runs in a low-priority thread.
"""

from __future__ import annotations

import logging
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from vaultheat.core.language import detect, forget_identifier
from vaultheat.core.query.routing import ENGLISH_CODES
from vaultheat.indexing import limits
from vaultheat.indexing.base import IndexerBase
from vaultheat.indexing.limits import note_groups
from vaultheat.indexing.report import IndexReport, content_hash, input_hash, meaning_doc
from vaultheat.providers.base import Embedder
from vaultheat.providers.memory import release_model, trim_heap
from vaultheat.storage.embedcache import as_stored
from vaultheat.storage.store import Store
from vaultheat.storage.vectorspace import VectorSpace
from vaultheat.storage.vectorsync import (
    MULTILINGUAL,
    bump_space_generation,
    clear_space,
    mark_space_synced,
    open_space,
    outgrown_file,
    reconcile,
    save_vectors,
    space_state,
    start_space,
    vector_file_generation,
)

log = logging.getLogger("vaultheat.indexer")


def _lower_thread_priority() -> None:
    """Raise the calling thread's niceness to ``limits.SECOND_PASS_NICE`` (Linux only:
    elsewhere ``os.nice`` would nice the whole process, for good)."""
    if sys.platform.startswith("linux"):
        try:
            current = os.nice(0)
            if current < limits.SECOND_PASS_NICE:
                os.nice(limits.SECOND_PASS_NICE - current)
        except OSError:
            pass


class MeaningPhase(IndexerBase):
    """The meaning phase's and the second pass's steps (``Indexer._run`` calls them)."""

    def _embed_pending(
        self,
        store: Store,
        vectors: VectorSpace,
        notes: list[tuple[int, str, str, int]],
        total: int,
        report: IndexReport,
    ) -> None:
        """Embed every chunk still awaiting its vector, most recently modified notes first, in
        batches (one model call and one transaction each), recording the phase's progress in
        the manifest for ``status`` (done, total, when it started)."""
        fp = self.embedder.fingerprint
        # with a second space, a chunk in another language gets no English vector: it is read
        # in the second space only (core/query/routing.py; issue #40)
        en_only = self._second_settings is not None
        started = time.time()
        last_save = time.perf_counter()
        done = 0
        self.progress("meaning", 0, total)
        for group in note_groups(notes, limits.EMBED_BATCH):
            if self.should_stop():
                break
            want = store.unembedded_hashes(fp, [g[0] for g in group], english_only=en_only)
            inputs = self._inputs_of(group, want, keep=self._keep_held)
            if not inputs:
                continue
            # the language of each input first, where it costs least (about 0.6 ms a chunk
            # against tens of ms for its vector; the words phase stays model-free and fast)
            languages = {k: detect(text).code for k, text in inputs.items()}
            keys = [k for k in inputs if not en_only or languages[k] in ENGLISH_CODES]
            if keys:
                report.model_loaded = True
            fresh = self._embed_until_stopped(keys, inputs)
            if len(fresh) < len(keys):  # stopped: the rest waits for the next run
                kept = set(fresh) | (set(inputs) - set(keys))
                inputs = {k: v for k, v in inputs.items() if k in kept}
                languages = {k: v for k, v in languages.items() if k in kept}
            report.chunks["embedded"] += len(fresh)
            if len(inputs) > len(fresh):
                report.chunks["second_only"] = (
                    report.chunks.get("second_only", 0) + len(inputs) - len(fresh)
                )
            # every chunk with one of these inputs gets its vector (or language), in any note
            chunks = store.chunks_with_hashes(list(inputs))
            embedded = [(cid, h) for cid, h in chunks if h in fresh]
            with store.transaction():
                store.put_vectors(fp, fresh)
                store.set_languages(languages)
                store.add_pending_knn(cid for cid, _ in embedded)
                done += len(chunks)
                store.set_manifest(meaning=meaning_doc(total, done, started))
                store.bump_generation()
            live = [(cid, h) for cid, h in embedded if cid not in vectors]
            if live:
                vectors.add([cid for cid, _ in live], np.stack([fresh[h] for _, h in live]))
            self.progress("meaning", min(done, total), total)
            if time.perf_counter() - last_save > limits.SAVE_EVERY_S:
                save_vectors(vectors, self.paths.vectors, store.generation())
                last_save = time.perf_counter()

    def _embed_until_stopped(
        self, keys: list[str], inputs: dict[str, str]
    ) -> dict[str, np.ndarray]:
        """The vectors of ``keys``' inputs, ``EMBED_STOP_EVERY`` to a model call, float16-rounded
        as the cache stores them (the vector file, the dense copy and a file rebuilt from the
        cache later all hold the same vector for a chunk). A stop request between calls ends it
        early with the vectors made so far (the first call always runs: a run makes progress)."""
        fresh: dict[str, np.ndarray] = {}
        step = limits.EMBED_STOP_EVERY
        if len(keys) > step:  # calls of like lengths pad least (the model sorts within a call)
            keys = sorted(keys, key=lambda k: len(inputs[k]))
        for i in range(0, len(keys), step):
            if i and self.should_stop():
                break
            part = keys[i : i + step]
            vecs = self.embedder.embed_documents([inputs[k] for k in part])
            fresh.update((k, as_stored(v)) for k, v in zip(part, vecs, strict=True))
        return fresh

    def _second_pass(self, store: Store, report: IndexReport) -> None:
        """Fill the second vector space (``embeddings.second_space``: multilingual vectors of
        every chunk, English ones too) after the English index is complete: the chunks whose
        input the cache holds no vector of the second model for, note by note, most recently
        modified first, one model call and one transaction per batch (the vectors cached under
        the second model's fingerprint, the space's generation bumped), the space's file saved
        now and then and at the end. A stop or a crash keeps the committed batches; the next
        run embeds the rest. The pass comes last in the run and its model runs at low priority
        (``SECOND_PASS_NICE``, Linux). Off: a space filled before is cleared (its record and
        file; its cached vectors stay until the cache's garbage collection drops them).
        Another model: the space starts again (``start_space``). A run that changed nothing
        since the space was last complete reads one manifest entry and loads no model."""
        path = self.paths.space_vectors(MULTILINGUAL)
        state = space_state(store.manifest(), MULTILINGUAL)
        if self._second_settings is None:
            if state is not None:
                with store.transaction():
                    clear_space(store, path, MULTILINGUAL)
            return
        if "dimension" not in store.manifest():
            return  # nothing indexed yet
        model = self._make_second(self._second_settings)  # cheap: models load on first use
        fp = model.fingerprint
        if (
            state is not None
            and state["fingerprint"] == fp
            and state.get("synced") == store.generation()
        ):
            return  # complete with this model, and no chunk changed since
        with store.transaction():
            state = start_space(store, path, MULTILINGUAL, fp, model.dimension)
        vectors = open_space(store, path, MULTILINGUAL)
        assert vectors is not None
        gen = int(state["generation"])
        # chunks deleted or re-chunked since the file was saved leave it; cached ones join it
        dirty = (
            reconcile(vectors, store, fp) != (0, 0)
            or vector_file_generation(path) != gen
            or outgrown_file(path, store)
        )
        notes = store.unembedded_notes(fp)
        total = sum(n for *_, n in notes)
        self.progress(MULTILINGUAL, 0, total)
        if notes:  # the model loads and runs in one low-priority thread (SECOND_PASS_NICE)
            self._release_first_model()
            pool = ThreadPoolExecutor(1, "second-pass", initializer=_lower_thread_priority)
            try:
                gen, dirty = self._fill_space(
                    store, model, vectors, notes, pool, report, gen=gen, dirty=dirty, total=total
                )
            finally:
                pool.shutdown()
                release_model(model)  # a lingering index process keeps neither model loaded
                trim_heap()
        if dirty:
            if vector_file_generation(path) == gen:  # reconciled only: a new generation
                with store.transaction():
                    gen = bump_space_generation(store, MULTILINGUAL)
            save_vectors(vectors, path, gen)
        if not self.should_stop() and not store.unembedded_count(fp):
            with store.transaction():
                mark_space_synced(store, MULTILINGUAL, store.generation())

    def _release_first_model(self) -> None:
        """Before the second model loads (issue #40 item 6): the first model's session goes
        (``release_model``: made again on its next use, by a later run or a query of the engine
        that lent it), and the language detector (the pass detects nothing); then the heap is
        trimmed, so the two models never sit in memory side by side. The first model's
        tokenizer stays: chunking a note again for the pass counts tokens with it."""
        release_model(self.embedder)
        forget_identifier()
        trim_heap()

    def _fill_space(
        self,
        store: Store,
        model: Embedder,
        vectors: VectorSpace,
        notes: list[tuple[int, str, str, int]],
        pool: ThreadPoolExecutor,
        report: IndexReport,
        *,
        gen: int,
        dirty: bool,
        total: int,
    ) -> tuple[int, bool]:
        """The second pass's batches (see ``_second_pass``); returns the space's generation
        and whether its file must be saved."""
        fp = model.fingerprint
        path = self.paths.space_vectors(MULTILINGUAL)
        done = 0
        last_save = time.perf_counter()
        for group in note_groups(notes, limits.EMBED_BATCH):
            if self.should_stop():
                break
            inputs = self._inputs_of(group, store.unembedded_hashes(fp, [g[0] for g in group]))
            if not inputs:
                continue
            keys = list(inputs)
            vecs = pool.submit(model.embed_documents, [inputs[k] for k in keys]).result()
            fresh = {k: as_stored(v) for k, v in zip(keys, vecs, strict=True)}
            chunks = store.chunks_with_hashes(keys)
            with store.transaction():
                store.put_vectors(fp, fresh)
                gen = bump_space_generation(store, MULTILINGUAL)
            live = [(cid, h) for cid, h in chunks if cid not in vectors]
            if live:
                vectors.add([cid for cid, _ in live], np.stack([fresh[h] for _, h in live]))
            dirty = True
            done += len(chunks)
            report.chunks["second_space"] = report.chunks.get("second_space", 0) + len(keys)
            self.progress(MULTILINGUAL, min(done, total), total)
            if time.perf_counter() - last_save > limits.SAVE_EVERY_S:
                save_vectors(vectors, path, gen)
                last_save = time.perf_counter()
        return gen, dirty

    def _detect_languages(self, store: Store) -> None:
        """Give a language to the chunks the meaning phase did not embed: those whose vector
        came from the embedding cache, and every chunk of an index from before languages
        (m006). Their inputs are derived again from the notes on disk, note by note, most
        recently modified first, one transaction per group; a note changed since is left for
        the next run."""
        todo = store.notes_without_language()
        total = sum(n for *_, n in todo)
        done = 0
        for group in note_groups(todo, limits.EMBED_BATCH):
            if self.should_stop():
                break
            want = store.hashes_without_language([g[0] for g in group])
            inputs = self._inputs_of(group, want, keep=self._keep_held)
            languages = {h: detect(text).code for h, text in inputs.items()}
            if languages:
                with store.transaction():
                    store.set_languages(languages)
            done += sum(g[3] for g in group)
            self.progress("languages", min(done, total), total)

    def _inputs_of(
        self,
        group: list[tuple[int, str, str, int]],
        want: dict[int, set[str]],
        *,
        keep: bool = False,
    ) -> dict[str, str]:
        """input hash -> embedding input of the group's chunks whose input hash ``want`` lists
        (note id -> hashes), derived from each note on disk as the words phase did; a note
        changed or gone since (its stored content hash no longer matches) is left for the next
        run, which re-indexes it. Held inputs are taken (``keep``: read, left for a later pass)."""
        out: dict[str, str] = {}
        for note_id, path, digest, _n in group:
            hashes = want.get(note_id)
            if not hashes:
                continue  # embedded meanwhile through a chunk of another note
            if hashes <= self._held.keys():  # stored by this run's words phase: no disk read
                out.update((h, self._held[h] if keep else self._held.pop(h)) for h in hashes)
                continue
            try:
                raw = (self.paths.vault / path).read_bytes()
            except OSError:
                continue
            if content_hash(raw) != digest:
                continue
            try:
                note = self._reparse(path, raw)
                drafts = self._chunk(note) if note is not None else []
            except Exception as exc:  # stored by the words phase, so this is unexpected
                log.warning("cannot embed %s: %s", path, exc)
                continue
            for d in drafts:
                h = input_hash(d.embed_input)
                if h in hashes:
                    out[h] = d.embed_input
        return out
