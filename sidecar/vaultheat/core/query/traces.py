"""The traces of a retrieval (``core/query/pipeline.py``) for ``--explain``: each result chunk's
seed, its hops over the graph, its score arithmetic and the vector space that scored it, and the
score components of a result row (``core/query/explain.py`` checks the document made from them).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from vaultheat.core.models import ChunkRow
from vaultheat.core.ports import StorePort
from vaultheat.core.query.heat import trace_path
from vaultheat.core.query.pipeline import Retrieval
from vaultheat.core.query.results import HopTrace, ScoreParts, SeedTrace, SpaceTrace, Trace


def explain_unseen(
    parts: dict[str, Any], cid: int, store: StorePort, snippet: Callable[[str], Any]
) -> Trace:
    """The trace of a chunk that only link votes brought in: no seed score, no hops."""
    row = store.chunks([cid]).get(cid)
    seed = SeedTrace(
        chunk_id=cid,
        path=row.path if row else None,
        heading_path=tuple(row.heading_path) if row else (),
        text=snippet(row.text) if row else "",
        stage="votes",
        seed_score=0.0,
        **_locator(row),
    )
    return Trace(seed, (), ScoreParts(parts["raw"], parts["normalized"], parts["weights"],
                                      parts["final"]))  # fmt: skip


def components_of(r: Retrieval, cid: int) -> dict[str, float | None]:
    return {k: (None if v is None else round(v.get(cid, 0.0), 6)) for k, v in r.raw.items()}


def explain_chunk(
    r: Retrieval, cid: int, store: StorePort, snippet: Callable[[str], Any], decay: float
) -> Trace:
    """The trace of one candidate: its seed, each hop, and the score arithmetic."""
    path = trace_path(r.heat, cid) if r.heat is not None and cid in r.heat.trace else [cid]
    rows = store.chunks(path)
    seed_id = path[0]
    seed_row = rows.get(seed_id)
    hops = []
    for i, node in enumerate(path[1:], start=1):
        assert r.heat is not None
        t = r.heat.trace[node]
        row = rows.get(node)
        hops.append(
            HopTrace(
                hop=i,
                from_chunk=path[i - 1],
                to_chunk=node,
                edge=t.edge_type,
                edge_weight=t.edge_weight,
                type_weight=t.type_weight,
                hub_factor=t.hub_factor,
                decay=decay,
                heat=r.heat.heat[node],
                path=row.path if row else None,
                heading_path=tuple(row.heading_path) if row else (),
                text=snippet(row.text) if row else "",
            )
        )
    normalized = {k: (r.normalized[k].get(cid, 0.0) if k in r.normalized else None) for k in r.raw}
    seed = SeedTrace(
        chunk_id=seed_id,
        path=seed_row.path if seed_row else None,
        heading_path=tuple(seed_row.heading_path) if seed_row else (),
        text=snippet(seed_row.text) if seed_row else "",
        stage=r.seed_stage.get(seed_id, "graph"),
        seed_score=r.seeds.get(seed_id, 0.0),
        **_locator(seed_row),
    )
    parts = ScoreParts(
        raw={k: (None if v is None else v.get(cid, 0.0)) for k, v in r.raw.items()},
        normalized=normalized,
        weights={k: r.weights.get(k, 0.0) for k in r.raw},
        final=r.final[cid],
    )
    return Trace(seed, tuple(hops), parts, pointer=r.pointers.get(cid), space=space_trace(r, cid))


def space_of(r: Retrieval, cid: int) -> str | None:
    """The vector space that scored ``cid`` ("english" | "multilingual"), as the retrieval's
    routing decided it; None with one space."""
    return r.routing.space_of(cid) if r.routing is not None else None


def space_trace(r: Retrieval, cid: int) -> SpaceTrace | None:
    """Which vector space scored ``cid`` and why; None with one space."""
    rt = r.routing
    if rt is None:
        return None
    return SpaceTrace(rt.space_of(cid), rt.query_language, rt.chunk_language(cid),
                      rt.reason(cid), rt.space.partial)  # fmt: skip


def found_by(r: Retrieval, cid: int) -> str:
    if cid in r.seed_stage:
        return r.seed_stage[cid]
    return "graph"


def _locator(row: ChunkRow | None) -> dict[str, Any]:
    """A derived chunk's page range or card id (empty for a note's chunk or no row)."""
    if row is None:
        return {}
    return {"page": row.page, "page_end": row.page_end, "card_id": row.card_id}
