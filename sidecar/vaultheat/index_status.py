"""What the engine reports about its index: freshness against the disk, status, one note's status.

Kept apart from the engine (which answers queries) because none of it reads a view: these read
the engine's shared store (``engine.views.snapshot()``) and the vault on disk, and run while an
index run is in progress. ``Engine.status`` calls ``status``; callers ask ``freshness(engine)``
and ``note_status(engine, path)`` here.
"""

from __future__ import annotations

import dataclasses
import os
import re
import time
from typing import Any, Protocol

from vaultheat import __version__
from vaultheat.config import Settings, canonical_model
from vaultheat.core.query.calibration import LABELS_KEY, VaultCurve
from vaultheat.core.vault.freshness import IndexFreshness, Pending
from vaultheat.core.vault.status import (
    LabelFit,
    ModelInfo,
    NoteStatus,
    Skipped,
    SpaceCount,
    Status,
    count_kinds,
    phases_of,
)
from vaultheat.indexing.report import stored_settings
from vaultheat.modelset import ModelSet
from vaultheat.paths import IndexPaths
from vaultheat.storage.store import Store
from vaultheat.storage.vectorsync import MULTILINGUAL, english_only, space_state
from vaultheat.views import ViewSource


class Engine(Protocol):
    """What these read of the engine (a protocol, so that this module does not import the
    engine that imports it)."""

    paths: IndexPaths
    models: ModelSet
    views: ViewSource

    @property
    def settings(self) -> Settings: ...


def backend_label(fingerprint: str) -> str | None:
    """The backend in a local embedder's fingerprint: torch, onnx/int8, ...; else None."""
    match = re.search(r"\|backend=(\w+)\|(\w+)", fingerprint)
    if match is None:
        return None
    backend, precision = match.groups()
    return backend if backend == "torch" else f"{backend}/{precision}"


def notes_on_disk(paths: IndexPaths, settings: Settings) -> list[tuple[str, int, int]]:
    """(path, mtime_ns, size) of every note the indexer would look at: its own discovery walk,
    PDFs and canvases included. One stat walk, no file read."""
    from vaultheat.core.vault.derived_notes import find_documents
    from vaultheat.core.vault.discovery import discover

    disc = discover(paths.vault, settings.vault, index_dir=paths.root)
    find_documents(paths.vault, settings, disc, {})  # PDFs, canvases: as notes
    return [(e.path, e.mtime_ns, e.size) for e in [*disc.notes, *disc.documents]]


def unstored_notes(paths: IndexPaths, settings: Settings, store: Store) -> int:
    """How many notes on disk the index does not hold (skipped files not counted): after a run
    stopped in its words phase, the notes it never stored."""
    from vaultheat.core.vault.freshness import compare_with_disk

    skipped = [s["path"] for s in store.skipped()]
    return compare_with_disk(
        notes_on_disk(paths, settings), store.note_stats(), skipped
    ).not_indexed


def freshness(engine: Engine) -> IndexFreshness:
    """The index against the vault on disk (one stat walk, no file read; see
    ``core.vault.freshness``)."""
    from vaultheat.core.vault.freshness import compare_with_disk, index_state
    from vaultheat.storage.lock import holder_pid

    paths, settings = engine.paths, engine.settings
    disk = notes_on_disk(paths, settings)
    indexing = holder_pid(paths.lock) is not None
    pending = Pending()
    if not paths.db.exists():
        fresh = compare_with_disk(disk, {})
        mismatch, finished = False, False
    else:
        with engine.views.snapshot() as store:
            manifest = store.manifest()
            stats, skipped = store.note_stats(), [s["path"] for s in store.skipped()]
            pending = Pending(**store.counts()["pending"])
        fresh = compare_with_disk(disk, stats, skipped)
        wanted = stored_settings(settings, engine.models.embedder)
        mismatch = manifest.get("stored") not in (None, wanted)
        finished = "stored" in manifest and manifest.get("run_complete", True) is True
    state, detail = index_state(
        fresh, indexing=indexing, mismatch=mismatch, finished=finished, pending=pending.total
    )
    return IndexFreshness(state, detail, fresh, pending)


def status(engine: Engine) -> Status:
    e = engine.settings.embeddings
    name = canonical_model(e.model)
    model = ModelInfo(e.provider, name, e.backend, preset=e.model if name != e.model else None)
    if not engine.paths.db.exists():
        return _status(engine, model, freshness(engine))
    with engine.views.snapshot() as store:
        counts = store.counts()
        pages = store.page_kind_counts()
        languages = store.language_counts()
        space = space_state(store.manifest(), MULTILINGUAL)
        space_vectors = (
            counts["chunks"] - store.unembedded_count(space["fingerprint"]) if space else 0
        )
        manifest = store.manifest()
        skipped = store.skipped() + store.unchunked_notes()
        stored_fp = (manifest.get("stored") or {}).get("fingerprint")
        first_fp = stored_fp if isinstance(stored_fp, str) else engine.models.embedder.fingerprint
        # with a second space the chunks in other languages await no English vector (issue #40)
        en_only = english_only(manifest)
        unembedded = store.unembedded_count(first_fp, english_only=en_only)
        only = store.second_only_count(first_fp) if en_only else 0
    fresh = freshness(engine)
    listed = tuple(
        Skipped(s["path"], s["reason"]) for s in sorted(skipped, key=lambda s: s["path"])
    )
    if isinstance(stored_fp, str):  # what "auto" became when this index was built
        model = dataclasses.replace(model, backend=backend_label(stored_fp) or model.backend)
    phases = phases_of(
        built=True,
        indexing=fresh.state == "indexing",
        words_done=manifest.get("words_done", True) is True,
        chunks=counts["chunks"],
        unembedded=unembedded,
        meaning=manifest.get("meaning"),
        now=time.time(),
    )
    return _status(
        engine,
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
        skipped=listed,
        phases=phases,
        kinds=count_kinds(counts["kinds"], listed),
        pages={(k or "unclassified"): n for k, n in sorted(pages.items())},
        labels=label_fit(engine.settings, manifest.get(LABELS_KEY), stored_fp),
        languages=languages,
        multilingual=SpaceCount(
            space_vectors, counts["chunks"], filled=space is not None, only=only
        ),
    )


def label_fit(settings: Settings, doc: Any, fingerprint: Any) -> LabelFit | None:
    """The related labels' fit as status reports it; None when there is none for this model or
    the setting is off (the model's curve applies then too, as ``Engine.related`` reads it)."""
    fit = VaultCurve.from_doc(doc)
    if not settings.related.fit_labels or fit is None or fit.model != fingerprint:
        return None
    source = "vault" if fit.curve is not None else "model"
    return LabelFit(source, fit.sampled, fit.points, fit.linked)


def _status(engine: Engine, model: ModelInfo, fresh: IndexFreshness, **counts: Any) -> Status:
    return Status(
        version=__version__,
        vault=str(engine.paths.vault),
        index_dir=str(engine.paths.root),
        model=model,
        exclude=tuple(engine.settings.vault.exclude),
        index=fresh,
        **counts,
    )


def note_status(engine: Engine, path: str) -> NoteStatus:
    from vaultheat.indexing.report import content_hash
    from vaultheat.paths import safe_vault_path

    abs_path = safe_vault_path(engine.paths.vault, path)
    exists = os.path.isfile(abs_path)  # False, not OSError, for a name too long
    disk_hash = content_hash(abs_path.read_bytes()) if exists else None
    absent = NoteStatus(path, exists, indexed=False, reason=None, disk_hash=disk_hash)
    if not engine.paths.db.exists():
        return dataclasses.replace(absent, reason="the vault has not been indexed yet")
    with engine.views.snapshot() as store:
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
