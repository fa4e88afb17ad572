"""The words phase: what changed in the vault, every changed note parsed, chunked and stored
with its lexical (FTS5) rows, tags and links, batch by batch, each batch one SQLite transaction.

A chunk whose input the embedding cache already holds gets its vector at once; the others are
stored without one and their inputs held in memory (up to ``limits.HOLD_BYTES`` of text) for
the meaning phase (indexing/meaning.py). No model call: a first index of a large vault answers
by words, links and tags within seconds to a minute. ``diff_vault`` compares the vault found
with the notes stored, ``WordsPhase`` holds the phase's steps and ``store_batch`` writes one
batch.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from vaultheat.core.models import ChunkDraft, NoteRow, ParsedNote
from vaultheat.core.vault.binary import binary_reason
from vaultheat.core.vault.chunk_header import context_header
from vaultheat.core.vault.derived_notes import (
    MANIFEST_KEY,
    document_kind,
    read_document,
    remember_skip,
)
from vaultheat.core.vault.discovery import Discovery, FileEntry, Skip
from vaultheat.core.vault.pagekind import NOTE, note_page_kind
from vaultheat.core.vault.parsing import parse_note
from vaultheat.core.vault.resolve import LinkResolver
from vaultheat.indexing import limits
from vaultheat.indexing.base import IndexerBase
from vaultheat.indexing.graph import link_rows, reresolve
from vaultheat.indexing.limits import note_batches
from vaultheat.indexing.report import IndexReport, content_hash, input_hash
from vaultheat.storage.store import Store, name_key
from vaultheat.storage.vectorspace import VectorSpace
from vaultheat.storage.vectorsync import outgrown_file, save_vectors, vector_file_generation

log = logging.getLogger("vaultheat.indexer")


@dataclass
class Work:
    """A note to (re)index: where it is, its bytes and their hash, its stored row if any."""

    entry: FileEntry
    raw: bytes
    digest: str
    note_id: int | None  # existing note row (modified) or None (added)


@dataclass
class Diff:
    """What the vault changed since the index: stored rows, paths seen, notes to (re)index and
    stored notes to remove (parsing may add to ``deleted``)."""

    stored: dict[str, NoteRow]
    seen: set[str]
    work: list[Work]
    deleted: list[NoteRow]


@dataclass
class Plan:
    """The parsed notes and what resolving their names needs."""

    parsed: list[tuple[Work, ParsedNote]]
    resolver: LinkResolver
    changed_keys: set[str]  # name keys whose link resolution may have changed
    attachments: set[str]  # the vault's non-note files now
    attachments_changed: bool


def _skip(path: str, reason: str) -> Skip:
    return Skip(path=path, reason=reason)


def diff_vault(store: Store, disc: Discovery, report: IndexReport, *, full: bool) -> Diff:
    """Found notes against stored ones: stat first, content hash only when the stat moved
    (``full`` reads every stored note again). Counts go into ``report.notes``."""
    stored = store.notes()
    seen: set[str] = set()
    work: list[Work] = []
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
            work.append(Work(entry, raw, content_hash(raw), row.id))
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
        work.append(Work(entry, raw, digest, row.id if row else None))
    deleted = [row for path, row in stored.items() if path not in seen]
    report.removed = sorted(row.path for row in deleted)
    added_hashes = {w.digest for w in work if w.note_id is None}
    renamed = sum(1 for row in deleted if row.content_hash in added_hashes)
    report.notes["renamed"] = renamed
    report.notes["added"] = sum(1 for w in work if w.note_id is None) - renamed
    report.notes["modified"] = sum(1 for w in work if w.note_id is not None)
    report.notes["deleted"] = len(deleted) - renamed
    return Diff(stored, seen, work, deleted)


class WordsPhase(IndexerBase):
    """The words phase's steps (``Indexer._run`` calls them in order)."""

    def _parse_all(self, store: Store, disc: Discovery, diff: Diff, report: IndexReport) -> Plan:
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
        parsed: list[tuple[Work, ParsedNote]] = []
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
        return Plan(parsed, resolver, changed_keys, new_attachments,
                     attachments_changed=old_attachments != new_attachments)  # fmt: skip

    def _vectors_for(
        self, store: Store, manifest: dict[str, Any], diff: Diff, plan: Plan
    ) -> VectorSpace | None:
        """The vector file, opened only when this run will write something."""
        stale_file = "dimension" in manifest and (
            vector_file_generation(self.paths.vectors) != store.generation()
            or outgrown_file(self.paths.vectors, store)
        )  # missing, damaged or behind (a crash, a failed save), or too big: repair it now
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
        vectors: VectorSpace | None,
        diff: Diff,
        plan: Plan,
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
        for batch in note_batches(plan.parsed, limits.NOTE_BATCH, limits.BATCH_BYTES):
            if self.should_stop():
                break
            assert vectors is not None
            self._index_batch(store, vectors, plan.resolver, batch, report)
            done += len(batch)
            self.progress("index", done, total)
            if time.perf_counter() - last_save > limits.SAVE_EVERY_S:
                save_vectors(vectors, self.paths.vectors, store.generation())
                last_save = time.perf_counter()

    def _resolve_and_report(
        self,
        store: Store,
        disc: Discovery,
        diff: Diff,
        plan: Plan,
        wanted: dict[str, Any],
        report: IndexReport,
    ) -> None:
        """Re-point stored links whose target name changed, record the skipped files and the
        settings this index now holds, and fill the report's lists and counts."""
        with store.transaction():
            reresolve(store, plan.resolver, plan.changed_keys, {r.path for r in diff.deleted})
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

    def _parse(self, w: Work, disc: Discovery) -> ParsedNote | None:
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

    def _index_batch(
        self,
        store: Store,
        vectors: VectorSpace,
        resolver: LinkResolver,
        batch: list[tuple[Work, ParsedNote]],
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
                if (
                    h not in cache
                    and h not in self._held
                    and self._held_bytes < limits.HOLD_BYTES
                ):
                    self._held[h] = d.embed_input
                    self._held_bytes += len(d.embed_input)
        added, removed = store_batch(store, resolver, drafts, cache, report, self._awaiting)
        if removed:
            vectors.delete(removed)
        if added:
            vectors.add([cid for cid, _ in added], np.stack([v for _, v in added]))

    def _chunk_batch(
        self, batch: list[tuple[Work, ParsedNote]], report: IndexReport
    ) -> list[tuple[Work, ParsedNote, list[ChunkDraft]]]:
        """Each note's chunks; a note that cannot be chunked is kept without chunks, with why."""
        drafts: list[tuple[Work, ParsedNote, list[ChunkDraft]]] = []
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


def store_batch(
    store: Store,
    resolver: LinkResolver,
    drafts: list[tuple[Work, ParsedNote, list[ChunkDraft]]],
    cache: dict[str, np.ndarray],
    report: IndexReport,
    awaiting: set[int],
) -> tuple[list[tuple[int, np.ndarray]], list[int]]:
    """Write the batch in one transaction: each note with its chunks (an unchanged input
    keeps its chunk id), tags and links, and the graph work they queue. Returns the chunks
    added with a cached vector (id, vector) and the chunk ids removed; chunks added without
    one await the meaning phase (their notes join ``awaiting``)."""
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
                    awaiting.add(note_id)
                if free.get(h):
                    cid = free[h].pop(0)
                    store.update_chunk_position(cid, d, header)
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
            store.replace_links(note_id, link_rows(note, resolver))
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
