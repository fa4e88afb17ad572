"""Keep the hnswlib file in step with the SQLite store, which is the source of truth.

The vector file is saved with the store generation it reflects. When they differ (a crash
between a committed batch and the save, or a reader opening mid-index) the index is
reconciled from the database: vectors of chunks it lacks are added from the embedding cache,
labels of chunks that no longer exist are marked deleted. A damaged or missing file is rebuilt
the same way, so the vectors can never disagree with the chunks for long. Chunks still awaiting
their vector (stored by the words phase, not embedded yet) simply have no label.
"""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np

from vaultheat.errors import IndexCorruptError
from vaultheat.storage.store import Store
from vaultheat.storage.vectors import VectorIndex

log = logging.getLogger("vaultheat.vectors")


def open_vectors(store: Store, path: Path, dim: int, fingerprint: str) -> VectorIndex:
    index: VectorIndex | None = None
    if path.exists():
        try:
            index = VectorIndex.load(path, dim)
        except IndexCorruptError as exc:
            log.warning("vector file unusable (%s); rebuilding it from the database", exc)
    if index is None:
        index = VectorIndex.create(dim, capacity=max(1024, store.chunk_count() + 256))
    elif index.generation == store.generation():
        return index
    reconcile(index, store, fingerprint)
    return index


def reconcile(index: VectorIndex, store: Store, fingerprint: str) -> tuple[int, int]:
    """Make the index's live labels exactly the store's chunk ids that have a vector; returns
    (added, removed). A chunk whose input the cache holds no vector for is awaiting its vector
    (the indexer's meaning phase embeds it later), not lost: it is left out until then."""
    keys = dict(store.embedded_chunk_keys(fingerprint))
    live = index.labels()
    extra = [label for label in live if label not in keys]
    if extra:
        index.delete(extra)
    missing = [cid for cid in keys if cid not in live]
    if missing:
        cache = store.cached_vectors(fingerprint, [keys[c] for c in missing])
        have = [c for c in missing if keys[c] in cache]
        if have:
            index.add(have, np.stack([cache[keys[c]] for c in have]))
    return len(missing), len(extra)


def save_vectors(index: VectorIndex, path: Path, generation: int) -> None:
    index.save(path, generation=generation)


def vector_file_generation(path: Path) -> int | None:
    """The store generation a saved vector file reflects (None: missing or unreadable)."""
    import json

    from vaultheat.storage.vectors import meta_path_for

    try:
        meta = json.loads(meta_path_for(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    gen = meta.get("generation") if isinstance(meta, dict) else None
    return gen if isinstance(gen, int) else None
