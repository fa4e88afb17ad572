"""``vaultheat check``: is the index consistent?

Three answers (``state``):

- ``clean``: every chunk has its vector and every live vector a chunk; no edge points at a
  missing chunk; every chunk belongs to a note with its byte range inside the note; no graph
  work is queued; SQLite's own integrity check passes.  Exit 0.
- ``interrupted``: a run stopped part-way and left only what the next ``vaultheat index``
  finishes: notes of the vault it never stored (a run stopped in its words phase; notes added
  after a finished run are not counted: that is freshness, which ``status`` reports), chunks
  awaiting their vector or their language, graph work still queued, a vector file behind the
  database generation (its missing or extra vectors are the ones that run had not yet saved).
  ``pending`` says what is left, in sentences.  Exit 0.
- ``inconsistent``: the index disagrees with itself in a way a run does not simply finish
  (a vector file that cannot be read or is ahead of the database, vectors missing while the
  generations agree, dangling edges, orphan chunks, ...).  ``problems`` lists them.  Exit 2.

The second vector space (storage/vectorsync.py, multilingual) is checked the same way against
its own generation and its model's cached vectors, once the manifest records it; ``spaces``
counts its vectors.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from vaultheat.storage.vectors import VectorIndex
from vaultheat.storage.vectorspace import EXACT, saved_kind
from vaultheat.storage.vectorsync import (
    MULTILINGUAL,
    english_only,
    space_state,
    vector_file_generation,
)

CLEAN, INTERRUPTED, INCONSISTENT = "clean", "interrupted", "inconsistent"
FINISH = "`vaultheat index` finishes it."


def _n(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


def check_index(engine: Any) -> dict[str, Any]:
    problems: list[str] = []
    pending: list[str] = []
    store = engine.views.store()
    db = store.integrity()
    if db.sqlite:
        problems.append(f"sqlite: {db.sqlite}")
    ids = set(db.chunk_ids)
    if db.dangling_edges:
        problems.append(f"{db.dangling_edges} edges point at missing chunks")
    if db.orphan_chunks:
        problems.append(f"{db.orphan_chunks} chunks belong to no note")
    if db.bad_ranges:
        problems.append(f"{db.bad_ranges} chunks have byte ranges outside their note")
    if db.lexical_rows != len(ids):
        problems.append(f"lexical index has {db.lexical_rows} rows for {len(ids)} chunks")
    elif db.lexical_strays:
        problems.append(f"{db.lexical_strays} chunks and lexical rows do not match by id")
    queued = store.counts()["pending"]
    if queued.get("knn"):
        pending.append(
            _n(int(queued["knn"]), "chunk awaits its", "chunks await their") + " neighbours"
        )
    if queued.get("links"):
        pending.append(_n(int(queued["links"]), "note awaits its", "notes await their") + " links")
    languages = store.language_counts()
    if languages.get("pending"):
        pending.append(
            _n(languages["pending"], "chunk awaits its", "chunks await their") + " language"
        )
    manifest = store.manifest()
    fingerprint = (manifest.get("stored") or {}).get("fingerprint")
    awaiting = only = 0
    if isinstance(fingerprint, str):
        # with a second space the chunks in other languages have no English vector by design
        # (issue #40): they live only in the second space, awaiting nothing in the first
        en_only = english_only(manifest)
        awaiting = store.unembedded_count(fingerprint, english_only=en_only)
        only = store.second_only_count(fingerprint) if en_only else 0
    vectors_ok = _check_vectors(engine, store, manifest, ids, awaiting, problems, pending,
                                only=only)  # fmt: skip
    spaces = {MULTILINGUAL: _check_space(engine, store, manifest, MULTILINGUAL, problems, pending)}
    if only:  # chunks in other languages, read in the second space only (as in status)
        spaces[MULTILINGUAL]["only"] = only
    if manifest.get("run_complete") is False:
        # stopped in its words phase: notes of the vault it never stored (a finished run's
        # later additions are freshness, for `status`, and not looked at here)
        from vaultheat.index_status import unstored_notes

        unstored = unstored_notes(engine.paths, engine.settings, store)
        if unstored:
            pending.insert(
                0,
                _n(unstored, "note of the vault is", "notes of the vault are") + " not indexed yet",
            )
        elif not pending:
            # stopped after its last write (or between steps): the next run scans and finishes
            pending.append("the last run did not reach its end")
    state = INCONSISTENT if problems else INTERRUPTED if pending else CLEAN
    return {
        "schema": "vaultheat.check.v1",
        "state": state,
        "ok": state != INCONSISTENT,
        "problems": problems,
        "pending": pending,
        "chunks": len(ids),
        "vectors_ok": vectors_ok,
        "languages": languages,
        "spaces": spaces,
    }


def _check_vectors(
    engine: Any, store: Any, manifest: dict[str, Any], ids: set[int], awaiting: int,
    problems: list[str], pending: list[str], *, only: int = 0,
) -> bool | None:  # fmt: skip
    """The vector file against the database: whether it holds exactly the chunks (None when
    there is none to read; with a second space, the chunks in English); what is wrong goes to
    ``problems``, what a run would finish to ``pending`` (``awaiting``: the chunks still
    without a vector; ``only``: those without one by right, in the second space only)."""
    fingerprint = (manifest.get("stored") or {}).get("fingerprint")
    vectors_ok = None
    path = engine.paths.vectors
    if ids and "dimension" in manifest and saved_kind(path) is not None:
        try:
            vi = _read_space(path, int(manifest["dimension"]), store, fingerprint)
        except Exception as exc:  # truncated or corrupt: no run repairs this by finishing
            vi = None
            problems.append(f"the vector file cannot be read: {exc}")
        if vi is not None:
            labels, generation = vi
            missing, extra = len(ids - labels), len(labels - ids)
            missing -= min(only, missing)
            vectors_ok = not missing and not extra
            if awaiting:  # a run stopped in its meaning phase: words only, not damage
                pending.append(_n(awaiting, "chunk awaits its", "chunks await their") + " vector")
                missing -= min(awaiting, missing)
            _file_against_db("the vector file", generation, store.generation(),
                             missing, extra, problems, pending)  # fmt: skip
    elif ids and only < len(ids):
        if awaiting or not isinstance(fingerprint, str):
            # a first run stopped before its meaning phase saved the vector file
            if awaiting:
                pending.append(_n(awaiting, "chunk awaits its", "chunks await their") + " vector")
            pending.append("the vector file is not written yet")
        else:
            problems.append("the vector file is missing")
    return vectors_ok


def _check_space(
    engine: Any, store: Any, manifest: dict[str, Any], space: str,
    problems: list[str], pending: list[str],
) -> dict[str, Any]:  # fmt: skip
    """A second space's file against the chunks its model's vectors the cache holds, as the
    first's: {vectors (chunks with theirs in the cache), vectors_ok (None: no file read)}."""
    state = space_state(manifest, space)
    if state is None:
        return {"vectors": 0, "vectors_ok": None}
    have = {cid for cid, _ in store.embedded_chunk_keys(state["fingerprint"])}
    path = engine.paths.space_vectors(space)
    if saved_kind(path) is None:
        if have:
            pending.append(f"the {space} vector file is not written yet")
        return {"vectors": len(have), "vectors_ok": None}
    try:
        vi = _read_space(path, int(state["dimension"]), store, state["fingerprint"])
    except Exception as exc:  # truncated or corrupt: no run repairs this by finishing
        problems.append(f"the {space} vector file cannot be read: {exc}")
        return {"vectors": len(have), "vectors_ok": None}
    labels, generation = vi
    missing, extra = len(have - labels), len(labels - have)
    _file_against_db(f"the {space} vector file", generation, int(state["generation"]),
                     missing, extra, problems, pending, f" in the {space} space")  # fmt: skip
    return {"vectors": len(have), "vectors_ok": not missing and not extra}


def _read_space(path: Path, dim: int, store: Any, fingerprint: Any) -> tuple[set[int], int]:
    """(live labels, generation) of the space saved at ``path``: an hnswlib file's, read and
    verified (raises when it cannot be); a space saved exact (no file: storage/vectorspace.py)
    holds what the cache holds, as of its meta file's generation."""
    if saved_kind(path) == EXACT:
        have = store.embedded_chunk_keys(fingerprint) if isinstance(fingerprint, str) else []
        return {cid for cid, _ in have}, vector_file_generation(path) or 0
    vi = VectorIndex.load(path, dim)
    return vi.labels(), vi.generation


def _file_against_db(
    name: str, file_gen: int, db_gen: int, missing: int, extra: int,
    problems: list[str], pending: list[str], extra_where: str = "",
) -> None:  # fmt: skip
    """A vector file (``name``) against the database: a file ahead of it is damage; a file
    behind it (the run committed the database, then stopped before saving its vectors) is
    pending, and so are the chunks it lacks and the vectors it has to spare."""
    if file_gen > db_gen:
        problems.append(
            f"{name} (generation {file_gen}) is ahead of the database (generation {db_gen})"
        )
    behind = file_gen < db_gen
    if behind:
        pending.append(
            f"{name} (generation {file_gen}) is behind the database (generation {db_gen})"
        )
    if missing:
        text = f"{_n(missing, 'chunk has', 'chunks have')} no vector in {name}"
        (pending if behind else problems).append(text)
    if extra:
        text = f"{_n(extra, 'vector belongs', 'vectors belong')} to no chunk{extra_where}"
        (pending if behind else problems).append(text)


def describe_check(doc: dict[str, Any]) -> str:
    """The plain-sentence text of a check report."""
    if doc["state"] == CLEAN:
        return f"The index is consistent ({doc['chunks']} chunks)."
    if doc["state"] == INTERRUPTED:
        return f"The last index run stopped part-way: {'; '.join(doc['pending'])}. {FINISH}"
    lines = ["The index is inconsistent; a run does not simply finish it:"]
    lines += [f"- {p}" for p in doc["problems"]]
    if doc["pending"]:
        lines.append(f"Also left by an unfinished run: {'; '.join(doc['pending'])}.")
    lines.append("Rebuild it with `vaultheat index --full`.")
    return "\n".join(lines)
