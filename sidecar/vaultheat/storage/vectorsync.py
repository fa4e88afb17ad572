"""Keep the hnswlib file in step with the SQLite store, which is the source of truth.

The vector file is saved with the store generation it reflects. When they differ (a crash
between a committed batch and the save, or a reader opening mid-index) the index is
reconciled from the database: vectors of chunks it lacks are added from the embedding cache,
labels of chunks that no longer exist are marked deleted. A damaged or missing file is rebuilt
the same way, so the vectors can never disagree with the chunks for long. Chunks still awaiting
their vector (stored by the words phase, not embedded yet) simply have no label. The cache
holds float16 vectors (embedcache.py); the indexer adds a vector just embedded rounded the same
way (``as_stored``), so a file rebuilt or reconciled from the cache holds what the file written
after embedding held. A vault of up to ``EXACT_MAX`` chunks has no hnswlib file at all: its
spaces are searched exactly, filled from the cache at every open (vectorspace.py), and their
"file" is a meta file recording the generation.

A second vector space (issue #40: the multilingual model's vectors of the same chunks) has a
file of its own (``IndexPaths.space_vectors``) and a generation of its own, kept with its
model's fingerprint and dimension in the manifest (``SPACES_KEY``), so filling it never makes
the first file stale. Its crash safety is the first's: a batch commits its vectors to the
embedding cache and bumps the space's generation in one transaction; the file is saved with
the generation it reflects; a file behind (or missing, or damaged) is reconciled from the
cache. A space the manifest does not name is empty (no file is opened or written).
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import numpy as np

from vaultheat.errors import IndexCorruptError, IndexMissingError
from vaultheat.storage import vectorspace
from vaultheat.storage.store import Store
from vaultheat.storage.vectors import VectorIndex, meta_path_for
from vaultheat.storage.vectorspace import HNSW, VectorSpace, saved_kind

log = logging.getLogger("vaultheat.vectors")


MULTILINGUAL = "multilingual"  # the second space (filled from issue #40's slice 2 on)
RECONCILE_BLOCK = 4096  # vectors read from the cache and added to the index at a time
SPACES_KEY = "spaces"  # manifest: space -> {"fingerprint", "dimension", "generation", "synced"}
# manifest: true while the last run's meaning phase embedded only the chunks in English (or of
# no language) with the first model: a second space was configured, and the chunks in other
# languages live only there (issue #40)
ENGLISH_ONLY_KEY = "english_only"


def open_vectors(
    store: Store, path: Path, dim: int, fingerprint: str, *, generation: int | None = None
) -> VectorSpace:
    """The space whose file is at ``path``, in step with ``generation`` (default: the store's,
    the first space's). A vault of up to ``EXACT_MAX`` chunks, or one saved exact that still has
    up to ``EXACT_MAX`` vectors, gets an exact space filled from the cache (a file, if any, is
    not read); a larger one its hnswlib file, reconciled from the cache unless it reflects
    ``generation``, or built from the cache when it is missing, damaged or was saved exact."""
    expected = store.generation() if generation is None else generation
    chunks = store.chunk_count()
    limit = vectorspace.EXACT_MAX
    keys: dict[int, str] | None = None
    if chunks > limit and saved_kind(path) != HNSW:  # saved exact, or never: its size decides
        keys = dict(store.embedded_chunk_keys(fingerprint))
    if chunks <= limit or (keys is not None and len(keys) <= limit):  # what a save keeps exact
        space = VectorSpace.exact(dim, capacity=chunks, generation=expected)
        reconcile(space, store, fingerprint, keys=keys)
        return space
    index: VectorIndex | None = None
    if keys is None:
        try:
            index = VectorIndex.load(path, dim)
        except (IndexCorruptError, IndexMissingError) as exc:
            log.warning("vector file unusable (%s); rebuilding it from the database", exc)
    if index is None:
        index = VectorIndex.create(dim, capacity=max(1024, chunks + 256))
    elif index.generation == expected:
        return VectorSpace(index, generation=expected)
    space = VectorSpace(index, generation=expected)
    reconcile(space, store, fingerprint, keys=keys)
    return space


def reconcile(
    index: VectorSpace, store: Store, fingerprint: str, *, keys: dict[int, str] | None = None
) -> tuple[int, int]:
    """Make the index's live labels exactly the store's chunk ids that have a vector; returns
    (added, removed). A chunk whose input the cache holds no vector for is awaiting its vector
    (the indexer's meaning phase embeds it later), not lost: it is left out until then.
    ``keys``: those chunks (id -> input hash), when the caller has just read them."""
    if keys is None:
        keys = dict(store.embedded_chunk_keys(fingerprint))
    live = index.labels()
    extra = [label for label in live if label not in keys]
    if extra:
        index.delete(extra)
    missing = [cid for cid in keys if cid not in live]
    # a block at a time: a file rebuilt from the cache never holds the whole cache twice more
    # (as a dict of vectors and stacked) beside the index it fills
    for start in range(0, len(missing), RECONCILE_BLOCK):
        block = missing[start : start + RECONCILE_BLOCK]
        cache = store.cached_vectors(fingerprint, [keys[c] for c in block])
        have = [c for c in block if keys[c] in cache]
        if have:
            index.add(have, np.stack([cache[keys[c]] for c in have]))
    return len(missing), len(extra)


def english_only(manifest: dict[str, Any]) -> bool:
    """Whether the first (English) space holds only the chunks in English or of no language
    (``ENGLISH_ONLY_KEY``): what counts as a chunk awaiting its vector there."""
    return manifest.get(ENGLISH_ONLY_KEY) is True


def space_state(manifest: dict[str, Any], space: str) -> dict[str, Any] | None:
    """The manifest's record of a second space (fingerprint, dimension, generation), or None
    while the space is empty (never started, or the index was rebuilt since)."""
    state = (manifest.get(SPACES_KEY) or {}).get(space)
    return state if isinstance(state, dict) and isinstance(state.get("fingerprint"), str) else None


def start_space(
    store: Store, path: Path, space: str, fingerprint: str, dimension: int
) -> dict[str, Any]:
    """Record that ``space`` (its file at ``path``) holds ``fingerprint``'s vectors (call
    inside a transaction); a space started before with another model starts again empty: its
    file goes (reconciling keeps the vectors of chunks it has, which would be the old model's)
    and its generation moves on."""
    spaces = dict(store.manifest().get(SPACES_KEY) or {})
    found = spaces.get(space)
    old: dict[str, Any] = found if isinstance(found, dict) else {}
    if old.get("fingerprint") == fingerprint and old.get("dimension") == dimension:
        return dict(old)
    for p in (path, meta_path_for(path)):
        p.unlink(missing_ok=True)
    state = {"fingerprint": fingerprint, "dimension": int(dimension),
             "generation": int(old.get("generation", 0)) + 1}  # fmt: skip
    spaces[space] = state
    store.set_manifest(**{SPACES_KEY: spaces})
    return state


def bump_space_generation(store: Store, space: str) -> int:
    """The space's next generation, recorded (inside the transaction of the batch it marks)."""
    spaces = dict(store.manifest().get(SPACES_KEY) or {})
    state = dict(spaces[space])
    state["generation"] = int(state.get("generation", 0)) + 1
    spaces[space] = state
    store.set_manifest(**{SPACES_KEY: spaces})
    return int(state["generation"])


def mark_space_synced(store: Store, space: str, store_generation: int) -> None:
    """Record that every chunk of the store at ``store_generation`` has its vector in the space
    (inside a transaction): until the store moves on, an index run has nothing to do for it."""
    spaces = dict(store.manifest().get(SPACES_KEY) or {})
    spaces[space] = {**spaces[space], "synced": int(store_generation)}
    store.set_manifest(**{SPACES_KEY: spaces})


def clear_space(store: Store, path: Path, space: str) -> None:
    """Empty ``space`` (inside a transaction): its record and its file go; its model's cached
    vectors are no longer kept by the cache's garbage collection."""
    spaces = dict(store.manifest().get(SPACES_KEY) or {})
    spaces.pop(space, None)
    store.set_manifest(**{SPACES_KEY: spaces})
    for p in (path, meta_path_for(path)):
        p.unlink(missing_ok=True)


def open_space(store: Store, path: Path, space: str) -> VectorSpace | None:
    """The second space's vector file, reconciled from the cache when it is behind its
    generation, missing or damaged; None while the space is empty."""
    state = space_state(store.manifest(), space)
    if state is None:
        return None
    return open_vectors(store, path, int(state["dimension"]), state["fingerprint"],
                        generation=int(state["generation"]))  # fmt: skip


def outgrown_file(path: Path, store: Store) -> bool:
    """Whether ``path`` holds an hnswlib file that a vault this small no longer keeps (an index
    made before spaces of up to ``EXACT_MAX`` vectors were exact, or a vault that shrank): the
    next save drops it (``VectorSpace.save``), so a run opens and saves the space even when it
    has nothing else to write."""
    return saved_kind(path) == HNSW and store.chunk_count() <= vectorspace.EXACT_MAX


def save_vectors(index: VectorSpace, path: Path, generation: int) -> None:
    index.save(path, generation=generation)


def vector_file_generation(path: Path) -> int | None:
    """The store generation a saved vector file reflects (None: missing or unreadable)."""
    import json

    try:
        meta = json.loads(meta_path_for(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    gen = meta.get("generation") if isinstance(meta, dict) else None
    return gen if isinstance(gen, int) else None
