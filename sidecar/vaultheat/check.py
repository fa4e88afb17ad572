"""``vaultheat check``: is the index consistent?

Every chunk has its vector and every live vector a chunk; no edge points at a missing chunk;
every chunk belongs to a note and its byte range lies inside the note's size; no graph work
is left queued; SQLite's own integrity check passes.
"""

from __future__ import annotations

from typing import Any

from vaultheat.storage.db import check_integrity
from vaultheat.storage.vectors import VectorIndex


def check_index(engine: Any) -> dict[str, Any]:
    problems: list[str] = []
    store = engine.store()
    integrity = check_integrity(store.db)
    if integrity:
        problems.append(f"sqlite: {integrity}")
    q = store.db.execute
    ids = {r[0] for r in q("SELECT id FROM chunks")}
    dangling = q(
        "SELECT count(*) FROM edges WHERE src NOT IN (SELECT id FROM chunks) "
        "OR dst NOT IN (SELECT id FROM chunks)"
    ).fetchone()[0]
    if dangling:
        problems.append(f"{dangling} edges point at missing chunks")
    orphans = q(
        "SELECT count(*) FROM chunks WHERE note_id NOT IN (SELECT id FROM notes)"
    ).fetchone()[0]
    if orphans:
        problems.append(f"{orphans} chunks belong to no note")
    bad_ranges = q(
        "SELECT count(*) FROM chunks c JOIN notes n ON n.id = c.note_id "
        "WHERE c.byte_start < 0 OR c.byte_end > n.size OR c.byte_end <= c.byte_start"
    ).fetchone()[0]
    if bad_ranges:
        problems.append(f"{bad_ranges} chunks have byte ranges outside their note")
    fts = q("SELECT count(*) FROM chunks_fts").fetchone()[0]
    if fts != len(ids):
        problems.append(f"lexical index has {fts} rows for {len(ids)} chunks")
    pending = store.counts()["pending"]
    if pending["knn"] or pending["links"]:
        problems.append(f"graph work left queued: {pending}")
    manifest = store.manifest()
    vectors_ok = None
    if ids and "dimension" in manifest and engine.paths.vectors.exists():
        vi = VectorIndex.load(engine.paths.vectors, int(manifest["dimension"]))
        labels = vi.labels()
        missing, extra = len(ids - labels), len(labels - ids)
        vectors_ok = not missing and not extra
        if missing:
            problems.append(f"{missing} chunks have no vector in the vector file")
        if extra:
            problems.append(f"{extra} vectors belong to no chunk")
        if vi.generation != store.generation():
            problems.append(
                f"vector file generation {vi.generation} != database {store.generation()}"
            )
    elif ids:
        problems.append("the vector file is missing")
    return {
        "schema": "vaultheat.check.v1",
        "ok": not problems,
        "problems": problems,
        "chunks": len(ids),
        "vectors_ok": vectors_ok,
    }
