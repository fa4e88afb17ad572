"""The retrieval pipeline shared by search and related notes.

query vectors (+ lexical query) → hnswlib top-N per vector and FTS5 BM25 → weighted RRF into
seeds → heat propagation over the typed chunk graph → candidates = seeds ∪ heated nodes →
components per candidate (vector = true cosine to the query, lexical = BM25, heat, rerank) →
min-max normalization and a weighted sum (weights renormalized over the stages that ran).

Every candidate's vector component is its real cosine to the query, also for nodes that only
the graph found: the graph widens the candidate set (recall) and the final order still rests
mostly on similarity (precision), which is what the parameter study showed to work.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from vaultheat.config import GraphSettings, SearchSettings
from vaultheat.core.fusion import rrf
from vaultheat.core.heat import HeatResult, propagate_heat, trace_path
from vaultheat.core.scoring import combine
from vaultheat.storage.store import Store
from vaultheat.storage.vectors import VectorIndex

EDGE_TYPE = {("similar", True): "similar", ("similar", False): "similar",
             ("link", True): "link", ("link", False): "backlink"}  # fmt: skip


@dataclass(frozen=True)
class QueryVector:
    vector: np.ndarray
    weight: float
    stage: str  # "vector", "variant:1", "hyde", "note", "chunk:3" ...


@dataclass
class Retrieval:
    final: dict[int, float]
    raw: dict[str, dict[int, float] | None]
    normalized: dict[str, dict[int, float]]
    weights: dict[str, float]
    seeds: dict[int, float]
    seed_stage: dict[int, str]
    heat: HeatResult | None
    order: list[int] = field(default_factory=list)


@dataclass(frozen=True)
class Stages:
    lexical: bool = True
    graph: bool = True
    rerank: bool = False


def make_neighbors(
    store: Store,
    settings: SearchSettings,
    blocked: set[int],
    tag_neighbors: Callable[[int], list[tuple[int, float]]] | None = None,
) -> Callable[[int], list[tuple[int, float, str]]]:
    """Typed neighbours of a chunk: stored edges both ways (a link read backwards is a
    ``backlink``), plus tag neighbours when enabled. Blocked chunks neither receive nor relay."""
    cache: dict[int, list[tuple[int, float, str]]] = {}

    def neighbors(u: int) -> list[tuple[int, float, str]]:
        if u in cache:
            return cache[u]
        out: dict[tuple[int, str], float] = {}
        if u not in blocked:
            for dst, kind, w in store.edges_from(u):
                if dst not in blocked:
                    t = EDGE_TYPE.get((kind, True), kind)
                    out[(dst, t)] = max(out.get((dst, t), 0.0), w)
            for src, kind, w in store.edges_to(u):
                if src not in blocked:
                    t = EDGE_TYPE.get((kind, False), kind)
                    out[(src, t)] = max(out.get((src, t), 0.0), w)
            if tag_neighbors is not None and settings.weight_tag > 0:
                for v, w in tag_neighbors(u):
                    if v not in blocked and v != u:
                        out[(v, "tag")] = max(out.get((v, "tag"), 0.0), w)
        res = sorted(((v, w, t) for (v, t), w in out.items()), key=lambda x: (x[2], x[0]))
        cache[u] = res
        return res

    return neighbors


def retrieve(
    store: Store,
    vectors: VectorIndex,
    queries: Sequence[QueryVector],
    lexical_queries: Sequence[tuple[str, float, str]],
    settings: SearchSettings,
    stages: Stages,
    *,
    allowed: set[int] | None = None,
    blocked: set[int] | None = None,
    rerank: Callable[[list[int]], dict[int, float]] | None = None,
    rerank_shortlist: int = 30,
    tag_neighbors: Callable[[int], list[tuple[int, float]]] | None = None,
) -> Retrieval:
    blocked = blocked or set()
    rankings: list[list[int]] = []
    weights: list[float] = []
    stage_of: list[str] = []
    lexical_raw: dict[int, float] = {}

    def ok(cid: int) -> bool:
        return cid not in blocked and (allowed is None or cid in allowed)

    filter_ids = None
    if allowed is not None or blocked:
        filter_ids = (allowed if allowed is not None else vectors.labels()) - blocked
    for q in queries:
        hits = vectors.search(q.vector, settings.vector_top, filter_ids=filter_ids)[0]
        rankings.append([cid for cid, _ in hits if ok(cid)])
        weights.append(settings.vector_weight * q.weight)
        stage_of.append(q.stage)
    if stages.lexical:
        for text, weight, stage in lexical_queries:
            hits = store.lexical_search(text, settings.lexical_top + len(blocked))
            ranked = [(cid, s) for cid, s in hits if ok(cid)][: settings.lexical_top]
            for cid, s in ranked:
                lexical_raw[cid] = max(lexical_raw.get(cid, 0.0), s)
            rankings.append([cid for cid, _ in ranked])
            weights.append(settings.lexical_weight * weight)
            stage_of.append(stage)
    seeds = rrf(rankings, k=settings.rrf_k, weights=weights)
    seed_stage = _seed_stages(rankings, weights, stage_of, settings.rrf_k)

    qmat = np.stack([q.vector for q in queries]).astype(np.float32)
    sim_cache: dict[int, float] = {}

    def query_sim(ids: Sequence[int]) -> dict[int, float]:
        todo = [i for i in ids if i not in sim_cache and i in vectors]
        if todo:
            sims = vectors.get_vectors(todo) @ qmat.T
            for i, s in zip(todo, sims.max(axis=1), strict=True):
                sim_cache[i] = float(s)
        return {i: sim_cache.get(i, 0.0) for i in ids}

    heat: HeatResult | None = None
    if stages.graph and seeds:
        heat = propagate_heat(
            seeds,
            make_neighbors(store, settings, blocked, tag_neighbors),
            lambda ids: query_sim([i for i in ids if ok(i)]) | {i: -1.0 for i in ids if not ok(i)},
            hops=settings.hops,
            decay=settings.decay,
            query_floor=settings.query_floor,
            max_frontier=settings.max_frontier,
            type_weights={
                "similar": settings.weight_similar,
                "link": settings.weight_link,
                "backlink": settings.weight_backlink,
                "tag": settings.weight_tag,
            },
            hub_degree=settings.hub_degree,
        )
        candidates = sorted(cid for cid in heat.heat if ok(cid))
    else:
        candidates = sorted(seeds)

    vec = query_sim(candidates)
    raw: dict[str, dict[int, float] | None] = {
        "vector": vec,
        "lexical": {c: lexical_raw.get(c, 0.0) for c in candidates} if stages.lexical else None,
        "heat": {c: heat.heat.get(c, 0.0) for c in candidates} if heat is not None else None,
        "rerank": None,
    }
    score_weights = {
        "vector": settings.score_vector,
        "lexical": settings.score_lexical,
        "heat": settings.score_heat,
        "rerank": settings.score_rerank,
    }
    first = combine(candidates, raw, score_weights)
    if stages.rerank and rerank is not None and candidates:
        shortlist = sorted(candidates, key=lambda c: (-first.final[c], c))[:rerank_shortlist]
        scores = rerank(shortlist)
        candidates = shortlist
        raw = {k: ({c: v[c] for c in shortlist} if v is not None else None) for k, v in raw.items()}
        raw["rerank"] = {c: scores.get(c, 0.0) for c in shortlist}
        result = combine(candidates, raw, score_weights)
    else:
        result = first
    order = sorted(candidates, key=lambda c: (-result.final[c], c))
    return Retrieval(
        final=dict(result.final),
        raw=raw,
        normalized={k: dict(v) for k, v in result.normalized.items()},
        weights=dict(result.weights),
        seeds=dict(seeds),
        seed_stage=seed_stage,
        heat=heat,
        order=order,
    )


def _seed_stages(
    rankings: list[list[int]], weights: list[float], stage_of: list[str], k: int
) -> dict[int, str]:
    """For each seed, the retriever that contributed most to its RRF score."""
    best: dict[int, tuple[float, str]] = {}
    for ranking, w, stage in zip(rankings, weights, stage_of, strict=True):
        for rank, cid in enumerate(ranking, start=1):
            contrib = w / (k + rank)
            if cid not in best or contrib > best[cid][0]:
                best[cid] = (contrib, stage)
    return {cid: s for cid, (_, s) in best.items()}


def components_of(r: Retrieval, cid: int) -> dict[str, float | None]:
    return {k: (None if v is None else round(v.get(cid, 0.0), 6)) for k, v in r.raw.items()}


def explain_chunk(
    r: Retrieval, cid: int, store: Store, snippet: Callable[[str], Any], decay: float
) -> dict[str, Any]:
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
            {
                "hop": i,
                "from_chunk": path[i - 1],
                "to_chunk": node,
                "edge": t.edge_type,
                "edge_weight": t.edge_weight,
                "type_weight": t.type_weight,
                "hub_factor": t.hub_factor,
                "decay": decay,
                "heat": r.heat.heat[node],
                "path": row.path if row else None,
                "heading_path": list(row.heading_path) if row else [],
                "text": snippet(row.text) if row else "",
            }
        )
    normalized = {k: (r.normalized[k].get(cid, 0.0) if k in r.normalized else None) for k in r.raw}
    return {
        "seed": {
            "chunk_id": seed_id,
            "path": seed_row.path if seed_row else None,
            "heading_path": list(seed_row.heading_path) if seed_row else [],
            "text": snippet(seed_row.text) if seed_row else "",
            "stage": r.seed_stage.get(seed_id, "graph"),
            "seed_score": r.seeds.get(seed_id, 0.0),
        },
        "hops": hops,
        "hop_count": len(hops),
        "components": {
            "raw": {k: (None if v is None else v.get(cid, 0.0)) for k, v in r.raw.items()},
            "normalized": normalized,
            "weights": {k: r.weights.get(k, 0.0) for k in r.raw},
            "final": r.final[cid],
        },
    }


def found_by(r: Retrieval, cid: int) -> str:
    if cid in r.seed_stage:
        return r.seed_stage[cid]
    return "graph"


def cursor_weight(distance: int, window: int) -> float:
    return 0.5 + 1.5 * math.exp(-distance / max(window, 1))


def make_tag_neighbors(
    store: Store, graph: GraphSettings
) -> Callable[[int], list[tuple[int, float]]] | None:
    """Tag edges, computed at query time from the tags table so they are never stale: a chunk
    reaches the first chunk of every other note sharing one of its note's *rare* tags. Tags on
    more than ``tag_max_share`` of the notes (or ``tag_max_notes``) make no edges: ``#daily``
    relates nothing. Weight 1/log2(1 + notes with the tag), so rarer tags bind tighter."""
    if not graph.tag_edges:
        return None
    counts = store.tag_counts()
    total = max(int(store.counts()["notes"]), 1)
    limit = min(graph.tag_max_notes, max(2, int(graph.tag_max_share * total)))
    rare = {t: n for t, n in counts.items() if 2 <= n <= limit}
    if not rare:
        return None
    note_of: dict[int, int] = {}
    lead: dict[int, int] = {}
    by_note: dict[int, list[tuple[int, float]]] = {}

    def neighbors(u: int) -> list[tuple[int, float]]:
        if u not in note_of:
            row = store.db.execute("SELECT note_id FROM chunks WHERE id = ?", (u,)).fetchone()
            if row is None:
                return []
            note_of[u] = row[0]
        nid = note_of[u]
        if nid not in by_note:
            out: dict[int, float] = {}
            for (tag_key,) in store.db.execute(
                "SELECT tag_key FROM tags WHERE note_id = ?", (nid,)
            ).fetchall():
                if tag_key not in rare:
                    continue
                w = 1.0 / math.log2(1 + rare[tag_key])
                for other in store.notes_with_tag(tag_key):
                    if other == nid:
                        continue
                    if other not in lead:
                        r = store.db.execute(
                            "SELECT id FROM chunks WHERE note_id = ? ORDER BY ordinal LIMIT 1",
                            (other,),
                        ).fetchone()
                        lead[other] = r[0] if r else -1
                    if lead[other] >= 0:
                        out[lead[other]] = max(out.get(lead[other], 0.0), w)
            by_note[nid] = sorted(out.items())
        return by_note[nid]

    return neighbors
