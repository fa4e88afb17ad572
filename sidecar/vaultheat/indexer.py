"""vault → diff → parse/chunk → store (words) → embed (meaning) → graph repair, per edit.

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
"""

from __future__ import annotations

import json
import logging
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import xxhash

from vaultheat.config import EmbeddingSettings, Settings
from vaultheat.core.binary import binary_reason
from vaultheat.core.chunking import context_header
from vaultheat.core.derived_notes import (
    MANIFEST_KEY,
    document_kind,
    find_documents,
    read_document,
    remember_skip,
)
from vaultheat.core.discovery import Discovery, FileEntry, Skip, discover, discover_changed
from vaultheat.core.knn import affected_ids, knn_lists
from vaultheat.core.language import detect
from vaultheat.core.models import ChunkDraft, NoteRow, ParsedNote
from vaultheat.core.pagekind import NOTE, note_page_kind
from vaultheat.core.parsing import parse_note
from vaultheat.core.resolve import LinkResolver
from vaultheat.core.sizing import chunk_for
from vaultheat.errors import IndexMismatchError
from vaultheat.paths import IndexPaths
from vaultheat.providers.base import Embedder
from vaultheat.providers.registry import make_embedder, second_space_settings
from vaultheat.storage.embedcache import as_stored
from vaultheat.storage.lock import WriterLock
from vaultheat.storage.store import Store, name_key
from vaultheat.storage.vectors import VectorIndex
from vaultheat.storage.vectorsync import (
    MULTILINGUAL,
    SPACES_KEY,
    bump_space_generation,
    clear_space,
    mark_space_synced,
    open_space,
    open_vectors,
    reconcile,
    save_vectors,
    space_state,
    start_space,
    vector_file_generation,
)

log = logging.getLogger("vaultheat.indexer")

ProgressFn = Callable[[str, int, int], None]  # (stage, done, total)
# One batch = one transaction and one embedding call. Batches are large because the embedder
# sorts a call's inputs by token length and pads per sub-batch: measured on vaultofknowledge
# (8,294 inputs, ONNX int8), embedding them per 64-note batch took 126 s, per ~1,000 inputs
# 110 s, all at once 105 s. A batch ends at NOTE_BATCH notes or BATCH_BYTES of note text.
NOTE_BATCH = 256
BATCH_BYTES = 1_500_000
GRAPH_BATCH = 2000
# The words phase keeps up to this much embedding-input text in memory for the meaning phase
# of the same run (beyond it, and on a resumed run, inputs are derived again from the notes on
# disk): saves re-reading and re-chunking a typical vault, bounds memory on a huge one.
HOLD_BYTES = 64_000_000
# The meaning phase embeds about this many chunks per model call and transaction: large enough
# for the embedder's length-sorted sub-batches (see above), small enough that status moves and
# a stop request is honoured within seconds.
EMBED_BATCH = 512
SAVE_EVERY_S = 60.0
# The second pass's model runs in a thread of its own at least this nice (Linux, where niceness
# is per thread and the threads it starts, the model's, inherit it): the English index, queries
# and the user's other work come first. Elsewhere it runs at the process's priority.
SECOND_PASS_NICE = 10


def _lower_thread_priority() -> None:
    """Raise the calling thread's niceness to ``SECOND_PASS_NICE`` (Linux only: elsewhere
    ``os.nice`` would nice the whole process, for good)."""
    if sys.platform.startswith("linux"):
        try:
            current = os.nice(0)
            if current < SECOND_PASS_NICE:
                os.nice(SECOND_PASS_NICE - current)
        except OSError:
            pass


def note_batches(
    parsed: list[tuple[_Work, ParsedNote]], max_notes: int, max_bytes: int
) -> Iterator[list[tuple[_Work, ParsedNote]]]:
    """Consecutive batches of at most ``max_notes`` notes, cut once ``max_bytes`` of note text
    is reached (a batch always holds at least one note)."""
    batch: list[tuple[_Work, ParsedNote]] = []
    size = 0
    for item in parsed:
        batch.append(item)
        size += len(item[1].raw)
        if len(batch) >= max_notes or size >= max_bytes:
            yield batch
            batch, size = [], 0
    if batch:
        yield batch


def _note_groups(
    notes: list[tuple[int, str, str, int]], max_chunks: int
) -> Iterator[list[tuple[int, str, str, int]]]:
    """Consecutive groups of notes (id, path, hash, chunks awaiting a vector) holding about
    ``max_chunks`` such chunks (a group always holds at least one note)."""
    group: list[tuple[int, str, str, int]] = []
    n = 0
    for item in notes:
        group.append(item)
        n += item[3]
        if n >= max_chunks:
            yield group
            group, n = [], 0
    if group:
        yield group


def meaning_doc(total: int, done: int, started: float) -> dict[str, Any]:
    """The meaning phase's progress as the manifest keeps it (``status`` reads it)."""
    return {"total": total, "done": done, "started": round(started, 3),
            "updated": round(time.time(), 3)}  # fmt: skip


def content_hash(raw: bytes) -> str:
    return xxhash.xxh3_128_hexdigest(raw)


def input_hash(text: str) -> str:
    return xxhash.xxh3_128_hexdigest(text.encode("utf-8", "surrogatepass"))


def stored_settings(settings: Settings, embedder: Embedder) -> dict[str, Any]:
    """Everything that changes what the index stores; a change needs ``index --full``."""
    c = settings.chunking
    return {
        "fingerprint": embedder.fingerprint,
        "chunking": [
            c.max_tokens,
            c.target_tokens,
            c.min_chars,
            c.overlap_chars,
            c.header_aliases_tags,
        ],
    }


@dataclass
class IndexReport:
    notes: dict[str, int] = field(
        default_factory=lambda: dict.fromkeys(
            ("added", "modified", "deleted", "renamed", "unchanged"), 0
        )
    )
    chunks: dict[str, int] = field(
        default_factory=lambda: dict.fromkeys(("embedded", "reused", "deleted"), 0)
    )
    skipped: int = 0
    graph: dict[str, int] = field(default_factory=lambda: {"knn_updated": 0, "link_notes": 0})
    timings: dict[str, float] = field(default_factory=dict)
    model_loaded: bool = False
    full: bool = False
    failed: list[Any] = field(default_factory=list)  # notes stored without chunks, with why
    # after the run, what `status` lists too: files not searchable and notes with problems
    skipped_files: list[dict[str, str]] = field(default_factory=list)
    warnings: list[dict[str, str]] = field(default_factory=list)
    notes_indexed: int = 0
    excluded: int = 0
    # which notes this run wrote and removed (renames: both), for the server's note events;
    # left out of ``to_dict`` so a full index's JSON report stays small
    written: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "notes": self.notes,
            "chunks": self.chunks,
            "skipped": self.skipped,
            "skipped_files": self.skipped_files,
            "warnings": self.warnings,
            "notes_indexed": self.notes_indexed,
            "excluded": self.excluded,
            "graph": self.graph,
            "timings_s": {k: round(v, 4) for k, v in self.timings.items()},
            "model_loaded": self.model_loaded,
            "full": self.full,
        }


@dataclass
class _Work:
    entry: FileEntry
    raw: bytes
    digest: str
    note_id: int | None  # existing note row (modified) or None (added)


@dataclass
class _Diff:
    """What the vault changed since the index: stored rows, paths seen, notes to (re)index and
    stored notes to remove (parsing may add to ``deleted``)."""

    stored: dict[str, NoteRow]
    seen: set[str]
    work: list[_Work]
    deleted: list[NoteRow]


@dataclass
class _Plan:
    """The parsed notes and what resolving their names needs."""

    parsed: list[tuple[_Work, ParsedNote]]
    resolver: LinkResolver
    changed_keys: set[str]  # name keys whose link resolution may have changed
    attachments: set[str]  # the vault's non-note files now
    attachments_changed: bool


class Indexer:
    def __init__(
        self,
        paths: IndexPaths,
        settings: Settings,
        embedder: Embedder,
        *,
        progress: ProgressFn | None = None,
        should_stop: Callable[[], bool] | None = None,
        make_second: Callable[[EmbeddingSettings], Embedder] = make_embedder,
    ) -> None:
        self.paths = paths
        self.settings = settings
        self.embedder = embedder
        # the second space's model (embeddings.second_space), built only when the pass runs
        self._second_settings = second_space_settings(settings.embeddings)
        self._make_second = make_second
        self.progress = progress or (lambda stage, done, total: None)
        self.should_stop = should_stop or (lambda: False)
        # embedding inputs the words phase stored without a vector, up to HOLD_BYTES of text
        self._held: dict[str, str] = {}
        # with a second pass, the meaning phase leaves them held for it (popped there)
        self._keep_held = self._second_settings is not None
        self._held_bytes = 0
        self._awaiting: set[int] = set()  # notes this run stored with a chunk lacking a vector
        self._scan_all = True
        self._doc_skips: dict[str, list[Any]] = {}  # PDFs/canvases skipped: stat, caps, reason

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
        # them; otherwise they are the chunks this run stored without one (``_awaiting``)
        self._scan_all = before.get("run_complete", True) is not True or (
            m.get("done", 0) < m.get("total", 0)
        )
        manifest, wanted = self._prepare(store, full=full)
        disc = self._discover(store, only)
        # PDFs and canvases (core/derived_notes.py): indexed as notes are, skips remembered
        self._doc_skips = find_documents(
            self.paths.vault, self.settings, disc, {} if full else manifest.get(MANIFEST_KEY) or {}
        )
        report.timings["discover"] = time.perf_counter() - t0

        t1 = time.perf_counter()
        diff = self._diff(store, disc, report, full=full)
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
            self._repair_graph(store, vectors, report)
        report.timings["graph"] = time.perf_counter() - t4

        # the words phase is committed: every note is findable by its words and links now
        fp = self.embedder.fingerprint
        only_notes = None if self._scan_all else sorted(self._awaiting)
        candidates = store.unembedded_notes(fp, only_notes)
        unembedded = sum(n for *_, n in candidates)
        with store.transaction():
            store.set_manifest(words_done=True)
            if unembedded or "meaning" in store.manifest():
                store.set_manifest(meaning=meaning_doc(unembedded, 0, time.time()))
        report.timings["words_total"] = time.perf_counter() - t0

        t5 = time.perf_counter()
        if unembedded and not self.should_stop():
            if vectors is None:
                vectors = self._open_vectors(store, store.manifest())
            if unembedded >= EMBED_BATCH:
                # a long meaning phase ahead: readers that open the index meanwhile load the
                # words phase's vectors from the file instead of rebuilding them from the cache
                # (an edit's few chunks skip this: the save at the end is enough)
                save_vectors(vectors, self.paths.vectors, store.generation())
            self._embed_pending(store, vectors, candidates, unembedded, report)
            if not self.should_stop():
                self._repair_graph(store, vectors, report)  # kNN of the chunks just embedded
        report.timings["embed"] = time.perf_counter() - t5

        t8 = time.perf_counter()
        if not self.should_stop():
            self._detect_languages(store)
        report.timings["languages"] = time.perf_counter() - t8

        t6 = time.perf_counter()
        self._save(store, vectors)
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

    def _diff(self, store: Store, disc: Discovery, report: IndexReport, *, full: bool) -> _Diff:
        """Found notes against stored ones: stat first, content hash only when the stat moved
        (``full`` reads every stored note again). Counts go into ``report.notes``."""
        stored = store.notes()
        seen: set[str] = set()
        work: list[_Work] = []
        # PDFs indexed before page starts (m004) are read again, unchanged or not: their chunks
        # keep their ids and vectors (same embedding input) and gain where each page starts
        again = store.notes_without_page_starts()
        for entry in [*disc.notes, *disc.documents]:
            seen.add(entry.path)
            row = stored.get(entry.path)
            if (full or entry.path in again) and row is not None:
                try:
                    raw = entry.abs_path.read_bytes()
                except OSError as exc:
                    disc.skipped.append(_skip(entry.path, f"unreadable: {exc.strerror or exc}"))
                    continue
                work.append(_Work(entry, raw, content_hash(raw), row.id))
                continue
            if row is not None and row.mtime_ns == entry.mtime_ns and row.size == entry.size:
                report.notes["unchanged"] += 1
                continue
            try:
                raw = entry.abs_path.read_bytes()
            except OSError as exc:
                disc.skipped.append(_skip(entry.path, f"unreadable: {exc.strerror or exc}"))
                continue
            digest = content_hash(raw)
            if row is not None and row.content_hash == digest:
                report.notes["unchanged"] += 1
                store.touch_note(row.id, entry.mtime_ns, entry.size)
                continue
            work.append(_Work(entry, raw, digest, row.id if row else None))
        deleted = [row for path, row in stored.items() if path not in seen]
        report.removed = sorted(row.path for row in deleted)
        added_hashes = {w.digest for w in work if w.note_id is None}
        renamed = sum(1 for row in deleted if row.content_hash in added_hashes)
        report.notes["renamed"] = renamed
        report.notes["added"] = sum(1 for w in work if w.note_id is None) - renamed
        report.notes["modified"] = sum(1 for w in work if w.note_id is not None)
        report.notes["deleted"] = len(deleted) - renamed
        return _Diff(stored, seen, work, deleted)

    def _parse_all(self, store: Store, disc: Discovery, diff: _Diff, report: IndexReport) -> _Plan:
        """Parse every changed note and build the resolver over the vault as it is now; collect
        the name keys whose resolution may have changed (new, renamed, deleted notes, changed
        aliases, attachments). A changed note that no longer parses leaves the index."""
        old_attachments = store.attachments()
        new_attachments = set(disc.other_files)
        changed_keys: set[str] = set()
        for path in old_attachments ^ new_attachments:
            changed_keys.add(name_key(path))
            changed_keys.add(path.rsplit("/", 1)[-1].casefold())
        aliases = store.note_aliases()

        # parse first: the resolver must know every path and alias before links resolve
        parsed: list[tuple[_Work, ParsedNote]] = []
        for w in diff.work:
            note = self._parse(w, disc)
            if note is None:
                if w.note_id is not None:  # was a note, is garbage now: it leaves the index
                    diff.deleted.append(diff.stored[w.entry.path])
                    report.notes["modified"] -= 1
                    report.notes["deleted"] += 1
                elif document_kind(w.entry.path) is not None:
                    report.notes["added"] -= 1  # a PDF or canvas skipped: never added
                continue
            if w.note_id is None:
                changed_keys.add(name_key(note.path))
            old = aliases.get(note.path, [])
            if sorted(old) != sorted(note.aliases):
                changed_keys.update(a.casefold() for a in [*old, *note.aliases])
            aliases[note.path] = note.aliases
            parsed.append((w, note))
        for row in diff.deleted:
            changed_keys.add(name_key(row.path))
            changed_keys.update(a.casefold() for a in aliases.pop(row.path, []))
        resolver = LinkResolver(
            [e.path for e in disc.notes],
            disc.other_files,
            {p: a for p, a in aliases.items() if p in diff.seen},
        )
        return _Plan(parsed, resolver, changed_keys, new_attachments,
                     attachments_changed=old_attachments != new_attachments)  # fmt: skip

    def _vectors_for(
        self, store: Store, manifest: dict[str, Any], diff: _Diff, plan: _Plan
    ) -> VectorIndex | None:
        """The vector file, opened only when this run will write something."""
        stale_file = (
            "dimension" in manifest
            and vector_file_generation(self.paths.vectors) != store.generation()
        )  # missing, damaged or behind (a crash, a failed save): repair it on this run
        # Every write below bumps the store generation, and the vector file is saved with the
        # generation it reflects; so the file is opened (and saved at the end) whenever anything
        # will be written, and a run with nothing to do writes nothing: `check` compares the two.
        if (
            plan.parsed
            or diff.deleted
            or plan.attachments_changed
            or store.pending_knn()
            or stale_file
        ):
            return self._open_vectors(store, manifest)
        return None

    def _store_changes(
        self,
        store: Store,
        vectors: VectorIndex | None,
        diff: _Diff,
        plan: _Plan,
        report: IndexReport,
    ) -> None:
        """Remove deleted notes, then chunk, embed and store the parsed ones batch by batch
        (each batch one transaction), saving the vector file now and then on long runs."""
        last_save = time.perf_counter()
        if diff.deleted or plan.attachments_changed:
            with store.transaction():
                for row in diff.deleted:
                    ids = store.delete_note(row.id)
                    report.chunks["deleted"] += len(ids)
                    if vectors is not None:
                        vectors.delete(ids)
                store.replace_attachments(plan.attachments)
                store.bump_generation()
        total = len(plan.parsed)
        done = 0
        for batch in note_batches(plan.parsed, NOTE_BATCH, BATCH_BYTES):
            if self.should_stop():
                break
            assert vectors is not None
            self._index_batch(store, vectors, plan.resolver, batch, report)
            done += len(batch)
            self.progress("index", done, total)
            if time.perf_counter() - last_save > SAVE_EVERY_S:
                save_vectors(vectors, self.paths.vectors, store.generation())
                last_save = time.perf_counter()

    def _resolve_and_report(
        self,
        store: Store,
        disc: Discovery,
        diff: _Diff,
        plan: _Plan,
        wanted: dict[str, Any],
        report: IndexReport,
    ) -> None:
        """Re-point stored links whose target name changed, record the skipped files and the
        settings this index now holds, and fill the report's lists and counts."""
        with store.transaction():
            self._reresolve(store, plan.resolver, plan.changed_keys, {r.path for r in diff.deleted})
            store.replace_skipped((s.path, s.reason) for s in disc.skipped)
            store.set_manifest(stored=wanted, vault=str(self.paths.vault))
            store.set_manifest(**{MANIFEST_KEY: self._doc_skips})
        report.skipped_files = store.skipped() + store.unchunked_notes()
        report.skipped = len(report.skipped_files)
        report.warnings = store.note_warnings()
        counts = store.counts()
        report.notes_indexed, report.excluded = counts["notes"], counts["excluded"]

    def _classify_pages(self, store: Store) -> None:
        """Give a page kind (core/pagekind.py) to the notes an index from before page kinds
        holds: each is read and parsed again, nothing is re-chunked or re-embedded. A note that
        cannot be read now counts as a plain note (its next change classifies it again)."""
        todo = store.notes_without_page_kind()
        if not todo:
            return
        kinds = []
        for note_id, path in todo:
            kind = NOTE
            if document_kind(path) is None:
                try:
                    raw = (self.paths.vault / path).read_bytes()
                    kind = note_page_kind(
                        parse_note(path, raw, exclude_property=self.settings.vault.exclude_property)
                    )
                except Exception as exc:  # a bad note is a plain note, never fatal
                    log.warning("page kind of %s: %s", path, exc)
            kinds.append((note_id, kind))
        with store.transaction():
            store.set_page_kinds(kinds)
            store.bump_generation()  # views built before read no kinds

    def _save(self, store: Store, vectors: VectorIndex | None) -> None:
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
        from vaultheat.core.calibration import (
            LABELS_KEY,
            VaultCurve,
            fit_vault_curve,
        )
        from vaultheat.core.relevance import curve_for
        from vaultheat.modelset import ModelSet
        from vaultheat.views import ViewSource

        fp = self.embedder.fingerprint
        if "dimension" not in store.manifest() or store.unembedded_count(fp):
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

    def _open_vectors(self, store: Store, manifest: dict[str, Any]) -> VectorIndex:
        dim = manifest.get("dimension")
        if dim is None:
            dim = self.embedder.dimension
            with store.transaction():
                store.set_manifest(dimension=dim, model=self.embedder.name)
        return open_vectors(store, self.paths.vectors, int(dim), self.embedder.fingerprint)

    def _parse(self, w: _Work, disc: Discovery) -> ParsedNote | None:
        if document_kind(w.entry.path) is not None:
            doc = read_document(w.entry, w.raw, self.settings, self.embedder.max_tokens)
            w.raw = b""  # the file's bytes are hashed already: only the extracted text is kept
            if isinstance(doc, str):
                log.warning("skipping %s: %s", w.entry.path, doc)
                disc.skipped.append(_skip(w.entry.path, doc))
                remember_skip(self._doc_skips, self.settings, w.entry, doc)
                return None
            return doc
        reason = binary_reason(w.raw)
        if reason is not None:
            log.warning("skipping %s: %s", w.entry.path, reason)
            disc.skipped.append(_skip(w.entry.path, reason))
            return None
        try:
            return parse_note(
                w.entry.path, w.raw, exclude_property=self.settings.vault.exclude_property
            )
        except Exception as exc:  # a bad note is skipped with a reason, never fatal
            log.warning("skipping %s: %s", w.entry.path, exc)
            disc.skipped.append(_skip(w.entry.path, f"could not be parsed: {exc}"))
            return None

    def _reparse(self, path: str, raw: bytes) -> ParsedNote | None:
        """A stored note (or PDF, canvas) parsed again from its bytes, as the words phase did."""
        if document_kind(path) is None:
            return parse_note(path, raw, exclude_property=self.settings.vault.exclude_property)
        abs_path = self.paths.vault / path
        st = abs_path.stat()
        entry = FileEntry(path, abs_path, st.st_size, st.st_mtime_ns)
        doc = read_document(entry, raw, self.settings, self.embedder.max_tokens)
        return None if isinstance(doc, str) else doc

    def _chunk(self, note: ParsedNote) -> list[ChunkDraft]:
        if note.drafts is not None:  # a PDF or canvas: chunked when read
            return note.drafts
        return chunk_for(note, self.settings, self.embedder)

    def _index_batch(
        self,
        store: Store,
        vectors: VectorIndex,
        resolver: LinkResolver,
        batch: list[tuple[_Work, ParsedNote]],
        report: IndexReport,
    ) -> None:
        """One batch of the words phase: chunk, store (one transaction) with the vectors the
        cache already holds, then update the vector index. No model call: chunks the cache
        has no vector for wait for the meaning phase (``_embed_pending``)."""
        drafts = self._chunk_batch(batch, report)
        hashes = [input_hash(d.embed_input) for _, _, cs in drafts for d in cs]
        cache = store.cached_vectors(self.embedder.fingerprint, hashes)
        for _, _, cs in drafts:  # kept for the meaning phase while they fit (see _inputs_of)
            for d in cs:
                h = input_hash(d.embed_input)
                if h not in cache and h not in self._held and self._held_bytes < HOLD_BYTES:
                    self._held[h] = d.embed_input
                    self._held_bytes += len(d.embed_input)
        added, removed = self._store_batch(store, resolver, drafts, cache, report)
        if removed:
            vectors.delete(removed)
        if added:
            vectors.add([cid for cid, _ in added], np.stack([v for _, v in added]))

    def _chunk_batch(
        self, batch: list[tuple[_Work, ParsedNote]], report: IndexReport
    ) -> list[tuple[_Work, ParsedNote, list[ChunkDraft]]]:
        """Each note's chunks; a note that cannot be chunked is kept without chunks, with why."""
        drafts: list[tuple[_Work, ParsedNote, list[ChunkDraft]]] = []
        for w, note in batch:
            try:
                chunks = [] if note.excluded else self._chunk(note)
            except Exception as exc:  # indexed without chunks, listed with the reason
                log.warning("skipping %s: chunking failed: %s", note.path, exc)
                chunks = []
                note.warnings.append(f"chunking failed: {exc}")
                report.failed.append(_skip(note.path, f"could not be chunked: {exc}"))
            drafts.append((w, note, chunks))
        return drafts

    # -- the meaning phase ----------------------------------------------------------------------
    def _embed_pending(
        self,
        store: Store,
        vectors: VectorIndex,
        notes: list[tuple[int, str, str, int]],
        total: int,
        report: IndexReport,
    ) -> None:
        """Embed every chunk still awaiting its vector, most recently modified notes first, in
        batches (one model call and one transaction each), recording the phase's progress in
        the manifest for ``status`` (done, total, when it started)."""
        fp = self.embedder.fingerprint
        started = time.time()
        last_save = time.perf_counter()
        done = 0
        self.progress("meaning", 0, total)
        for group in _note_groups(notes, EMBED_BATCH):
            if self.should_stop():
                break
            want = store.unembedded_hashes(fp, [g[0] for g in group])
            inputs = self._inputs_of(group, want, keep=self._keep_held)
            if not inputs:
                continue
            keys = list(inputs)
            report.model_loaded = True
            vecs = self.embedder.embed_documents([inputs[k] for k in keys])
            # float16-rounded as the cache stores them: the vector file, the dense copy and a
            # file rebuilt from the cache later all hold the same vector for a chunk
            fresh = {k: as_stored(v) for k, v in zip(keys, vecs, strict=True)}
            report.chunks["embedded"] += len(keys)
            # the language of each input, where it costs least (about 0.6 ms a chunk against
            # tens of ms for its vector; the words phase stays model-free and fast)
            languages = {k: detect(inputs[k]).code for k in keys}
            # every chunk with one of these inputs gets its vector, in any note
            chunks = store.chunks_with_hashes(keys)
            with store.transaction():
                store.put_vectors(fp, fresh)
                store.set_languages(languages)
                store.add_pending_knn(cid for cid, _ in chunks)
                done += len(chunks)
                store.set_manifest(meaning=meaning_doc(total, done, started))
                store.bump_generation()
            live = [(cid, h) for cid, h in chunks if cid not in vectors]
            if live:
                vectors.add([cid for cid, _ in live], np.stack([fresh[h] for _, h in live]))
            self.progress("meaning", min(done, total), total)
            if time.perf_counter() - last_save > SAVE_EVERY_S:
                save_vectors(vectors, self.paths.vectors, store.generation())
                last_save = time.perf_counter()

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
        dirty = reconcile(vectors, store, fp) != (0, 0) or vector_file_generation(path) != gen
        notes = store.unembedded_notes(fp)
        total = sum(n for *_, n in notes)
        self.progress(MULTILINGUAL, 0, total)
        if notes:  # the model loads and runs in one low-priority thread (SECOND_PASS_NICE)
            pool = ThreadPoolExecutor(1, "second-pass", initializer=_lower_thread_priority)
            try:
                gen, dirty = self._fill_space(
                    store, model, vectors, notes, pool, report, gen=gen, dirty=dirty, total=total
                )
            finally:
                pool.shutdown()
        if dirty:
            if vector_file_generation(path) == gen:  # reconciled only: a new generation
                with store.transaction():
                    gen = bump_space_generation(store, MULTILINGUAL)
            save_vectors(vectors, path, gen)
        if not self.should_stop() and not store.unembedded_count(fp):
            with store.transaction():
                mark_space_synced(store, MULTILINGUAL, store.generation())

    def _fill_space(
        self,
        store: Store,
        model: Embedder,
        vectors: VectorIndex,
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
        for group in _note_groups(notes, EMBED_BATCH):
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
            if time.perf_counter() - last_save > SAVE_EVERY_S:
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
        for group in _note_groups(todo, EMBED_BATCH):
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

    def _store_batch(
        self,
        store: Store,
        resolver: LinkResolver,
        drafts: list[tuple[_Work, ParsedNote, list[ChunkDraft]]],
        cache: dict[str, np.ndarray],
        report: IndexReport,
    ) -> tuple[list[tuple[int, np.ndarray]], list[int]]:
        """Write the batch in one transaction: each note with its chunks (an unchanged input
        keeps its chunk id), tags and links, and the graph work they queue. Returns the chunks
        added with a cached vector (id, vector) and the chunk ids removed; chunks added without
        one await the meaning phase."""
        inserts: list[tuple[int, ChunkDraft, str, str]] = []
        cached: list[tuple[int, np.ndarray]] = []  # (index in inserts, its cached vector)
        removed: list[int] = []
        with store.transaction():
            for w, note, chunks in drafts:
                old = store.chunk_hashes(w.note_id) if w.note_id is not None else []
                note_id = store.upsert_note(
                    note, content_hash=w.digest, mtime_ns=w.entry.mtime_ns, size=w.entry.size,
                    page_kind=note_page_kind(note),
                )  # fmt: skip
                report.written.append(note.path)
                free: dict[str, list[int]] = {}
                for cid, h in old:
                    free.setdefault(h, []).append(cid)
                changed = False
                headers: dict[tuple[str, ...], str] = {}  # one per section, not per chunk
                for d in chunks:
                    h = input_hash(d.embed_input)
                    header = headers.get(d.heading_path)
                    if header is None:  # lexical: all of it
                        header = headers[d.heading_path] = context_header(note, d.heading_path)
                    if h not in cache:
                        self._awaiting.add(note_id)
                    if free.get(h):
                        cid = free[h].pop(0)
                        store.update_chunk_position(cid, d)
                        report.chunks["reused"] += 1
                    else:
                        inserts.append((note_id, d, h, header))
                        changed = True
                        if h in cache:
                            cached.append((len(inserts) - 1, cache[h]))
                            report.chunks["reused"] += 1
                gone = [cid for ids in free.values() for cid in ids]
                if gone:
                    changed = True
                    store.delete_chunks(gone)
                    removed.extend(gone)
                    report.chunks["deleted"] += len(gone)
                store.replace_tags(
                    note_id, [t.name for t in note.tags] if not note.excluded else []
                )
                store.replace_links(note_id, self._link_rows(note, resolver))
                store.add_pending_links([note_id])
                if changed or w.note_id is None:
                    # notes linking here must re-point their link edges at the new chunks
                    for r in store.links_to_paths([note.path]):
                        if r["note_id"] != note_id:
                            store.add_pending_links([r["note_id"]])
            # new chunks last, all at once: nothing above reads them, and ids are given in order
            ids = store.insert_chunks(inserts)
            added = [(ids[i], vec) for i, vec in cached]
            store.add_pending_knn(cid for cid, _ in added)
            store.bump_generation()
        return added, removed

    def _link_rows(self, note: ParsedNote, resolver: LinkResolver) -> list[tuple[Any, ...]]:
        if note.excluded:
            return []
        rows = []
        for link in note.links:
            if not link.target:
                continue  # [[#Heading]] inside the note: not an edge between notes
            resolved = resolver.resolve_link(link, note.path)
            rows.append(
                (
                    link.raw,
                    link.target,
                    name_key(link.target),
                    link.subpath,
                    link.alias,
                    link.kind,
                    link.byte_start,
                    link.byte_end,
                    link.line,
                    resolved,
                )
            )
        return rows

    def _reresolve(
        self, store: Store, resolver: LinkResolver, keys: set[str], deleted_paths: set[str]
    ) -> None:
        rows = store.links_with_keys(keys) + store.links_to_paths(deleted_paths)
        touched: set[int] = set()
        notes = {r.id: r.path for r in store.notes().values()}
        for r in rows:
            source = notes.get(r["note_id"])
            if source is None:
                continue
            new = resolver.resolve(r["target"], source)
            if new != r["resolved_path"]:
                store.set_link_resolution(r["rowid"], new)
                touched.add(r["note_id"])
        store.add_pending_links(touched)

    def _repair_graph(self, store: Store, vectors: VectorIndex, report: IndexReport) -> None:
        g = self.settings.graph
        note_of = store.chunk_notes()
        exclude = None if g.same_note else (lambda a, b: note_of.get(a) == note_of.get(b))
        pending = [cid for cid in store.pending_knn() if cid in note_of]
        done = 0
        for start in range(0, len(pending), GRAPH_BATCH):
            ids = pending[start : start + GRAPH_BATCH]
            lists = knn_lists(vectors, ids, k=g.knn_k, min_sim=g.knn_min_sim, exclude=exclude)
            more = [i for i in affected_ids(lists) if i in note_of and i not in lists]
            if more:
                lists.update(
                    knn_lists(vectors, more, k=g.knn_k, min_sim=g.knn_min_sim, exclude=exclude)
                )
            with store.transaction():
                store.replace_similar(lists)
                store.clear_pending_knn(ids)
            done += len(ids)
            report.graph["knn_updated"] += len(lists)
            self.progress("graph", done, len(pending))
        with store.transaction():
            store.clear_pending_knn([cid for cid in store.pending_knn() if cid not in note_of])
        notes_pending = store.pending_links()
        for start in range(0, len(notes_pending), GRAPH_BATCH):
            ids = notes_pending[start : start + GRAPH_BATCH]
            with store.transaction():
                self._link_edges(store, ids)
                store.clear_pending_links(ids)
            report.graph["link_notes"] += len(ids)

    def _link_edges(self, store: Store, note_ids: Sequence[int]) -> None:
        """Replace the link edges from the chunks of ``note_ids``: three reads for the batch
        (its chunks, its resolved links, the chunks of the notes they point at) and one write,
        not several queries per note."""
        chunks = store.chunks_of_notes(note_ids)
        links = store.resolved_links_of_notes(list(chunks))
        wanted = {r for rows in links.values() for *_, r in rows}
        by_path = {cs[0].path: cs for cs in chunks.values()}
        by_path.update(store.chunks_of_paths(sorted(wanted - by_path.keys())))
        edges = link_edges(chunks, links, by_path)
        store.replace_link_edges([c.id for cs in chunks.values() for c in cs], edges)


def link_edges(
    chunks: dict[int, list[Any]],
    links: dict[int, list[tuple[str | None, str, int, str]]],
    target_chunks: dict[str, list[Any]],
) -> list[tuple[int, int, float]]:
    """The link edges (src chunk, dst chunk, 1.0) of the notes in ``chunks`` (note id -> its
    chunks by ordinal), from their resolved ``links`` (note id -> (subpath, kind, byte start,
    resolved path)) and the chunks of the notes they point at (path -> chunks). Self links and
    links to what is neither a markdown note nor a document are left out."""
    edges: dict[tuple[int, int], float] = {}
    for note_id, own in chunks.items():
        self_path = own[0].path
        derived = document_kind(self_path) is not None  # a canvas: its links are not in bytes
        for subpath, kind, b0, resolved in links.get(note_id, ()):
            if resolved == self_path:
                continue
            if not resolved.lower().endswith(".md") and document_kind(resolved) is None:
                continue
            targets = _pick_targets(target_chunks.get(resolved, []), subpath)
            # a property link, or a canvas's (file card, link in a card): from the first chunk
            src = own[0] if kind == "property" or derived else _chunk_at(own, b0)
            for t in targets:
                edges[(src.id, t.id)] = 1.0
    return [(s, d, w) for (s, d), w in edges.items()]


def _skip(path: str, reason: str) -> Any:
    from vaultheat.core.discovery import Skip

    return Skip(path=path, reason=reason)


def _chunk_at(chunks: list[Any], byte_offset: int) -> Any:
    best = chunks[0]
    for c in chunks:
        if c.byte_start <= byte_offset:
            best = c
        else:
            break
    return best


def _pick_targets(chunks: list[Any], subpath: str | None) -> list[Any]:
    """The chunk(s) a link points at: the heading's or block's chunk when named, else all."""
    if not chunks:
        return []
    if subpath:
        if subpath.startswith("page=") and subpath[5:].isdigit():  # [[Manual.pdf#page=3]]
            n = int(subpath[5:])
            hits = [c for c in chunks if c.page is not None and c.page <= n <= (c.page_end or n)]
            return hits[:1] or chunks
        if subpath.startswith("^"):
            marker = subpath
            hits = [c for c in chunks if marker in c.text]
        else:
            want = subpath.split("#")[-1].strip().casefold()
            hits = [c for c in chunks if c.heading_path and c.heading_path[-1].casefold() == want]
            if not hits:
                hits = [c for c in chunks if any(h.casefold() == want for h in c.heading_path)]
        if hits:
            return hits[:1]
    return chunks
