"""``vaultheat check``: is the index consistent?

Every chunk has its vector (or awaits it: a run stopped in its meaning phase, said as such) and
every live vector a chunk; no edge points at a missing chunk;
every chunk belongs to a note and its byte range lies inside the note's size; no graph work
is left queued; SQLite's own integrity check passes.
"""

from __future__ import annotations

from typing import Any

from vaultheat.storage.vectors import VectorIndex


def check_index(engine: Any) -> dict[str, Any]:
    problems: list[str] = []
    store = engine.store()
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
        fingerprint = (manifest.get("stored") or {}).get("fingerprint")
        awaiting = store.unembedded_count(fingerprint) if isinstance(fingerprint, str) else 0
        if awaiting:  # a run stopped in its meaning phase: words only, not damage
            problems.append(
                f"{awaiting} chunks await their vector (an interrupted run: `vaultheat index` "
                "finishes it)"
            )
            missing -= min(awaiting, missing)
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
