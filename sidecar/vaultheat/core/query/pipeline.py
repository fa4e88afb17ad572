"""The retrieval pipeline shared by search and related notes.

query vectors (+ lexical query, + the notes the query names) → hnswlib top-N per vector, FTS5
BM25 and each named note's best chunk → weighted RRF into seeds → heat propagation over the
typed chunk graph (only when ``hops`` > 0) → candidates = seeds ∪ heated nodes → components per
candidate (vector = true cosine to the query, lexical = BM25, heat, or without heat the seeds'
RRF score as ``fusion``, rerank, title = the note-name score, note = the cosine to the chunk's
note vector in the chunk's space, ``core/query/notevec.py``) → min-max normalization (title is
absolute, only clipped) and a weighted sum (weights renormalized over the stages that ran).

Every candidate's vector component is its real cosine to the query, also for nodes that only
the graph found: the graph widens the candidate set (recall) and the final order still rests
mostly on similarity (precision), which is what the parameter study showed to work.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from vaultheat.config import SearchSettings
from vaultheat.core.graphview import GraphView
from vaultheat.core.ports import StorePort, VectorIndexPort
from vaultheat.core.query.fusion import rrf
from vaultheat.core.query.heat import HeatResult, propagate_heat
from vaultheat.core.query.notevec import NoteVectors
from vaultheat.core.query.plan import HeatParams, NameMatch, QueryVector, RetrievalPlan
from vaultheat.core.query.results import (
    PointerTrace,
)
from vaultheat.core.query.routing import Routing
from vaultheat.core.query.scoring import CombineResult, combine

# score parts already on an absolute [0, 1] scale (core/query/titles.py)
ABSOLUTE = ("title", "page")
# score parts added after the weighted sum, already in score units (weight 1, not scaled):
# the pointer credit (core/query/pointer_credit.py); a chunk it did not touch has 0
ADDED = ("pointer",)


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
    qmat: np.ndarray | None = None  # the query vectors, one per row
    # experimental.search_pointer_credit: the chunks that gave or received pointer credit, and how
    pointers: dict[int, PointerTrace] = field(default_factory=dict)
    routing: Routing | None = None  # a second vector space: which one scored each chunk
    unseen_sim: float | None = None  # Candidates.unseen_sim


def make_neighbors(
    graph: GraphView, blocked: AbstractSet[int]
) -> Callable[[int], list[tuple[int, float, str]]]:
    """Typed neighbours from the in-memory graph; blocked chunks neither receive nor relay."""
    cache: dict[int, list[tuple[int, float, str]]] = {}

    def neighbors(u: int) -> list[tuple[int, float, str]]:
        if u in cache:
            return cache[u]
        best: dict[tuple[int, str], float] = {}
        if u not in blocked:
            for v, w, t in graph.edges(u):
                if v != u and v not in blocked and w > best.get((v, t), -1.0):
                    best[(v, t)] = w
        res = sorted(((v, w, t) for (v, t), w in best.items()), key=lambda x: (x[2], x[0]))
        cache[u] = res
        return res

    return neighbors


@dataclass(frozen=True)
class Candidates:
    """Step 1, what the retrievers found: the chunks to score and what fusion and heat made
    of them. Only the plan's retrieval settings shaped it (``weights``), none of its score
    weights, so ``rescore`` can weigh the same candidates again."""

    ids: list[int]  # sorted: the seeds, or every chunk heat reached
    seeds: dict[int, float]  # weighted RRF over the rankings
    seed_stage: dict[int, str]  # the retriever that gave each seed most
    heat: HeatResult | None
    sims: dict[int, float]  # each candidate's best cosine to the query vectors
    lexical: dict[int, float]  # the best BM25 score of every chunk a lexical ranking returned
    names: dict[int, float] | None  # named notes' best chunks -> name score; None: no stage
    qmat: np.ndarray  # the query vectors, one per row
    weights: SearchSettings  # the settings the candidates were found with
    heat_params: HeatParams = field(default_factory=HeatParams)  # the heat stage's, the same
    routing: Routing | None = None  # the plan's (core/query/routing.py)
    # no chunk the vector rankings left out is closer than this to any query vector (see
    # ``_vector_rankings``); None: not known (a routed query)
    unseen_sim: float | None = None


@dataclass(frozen=True)
class Parts:
    """Step 2 (and 3 after a rerank): each component's raw value per chunk and their fused
    score (``scoring.combine``: min-max normalized, weighted, summed)."""

    ids: list[int]  # the chunks scored: every candidate, or the rerank shortlist
    raw: dict[str, dict[int, float] | None]  # None: the part is off
    scored: CombineResult


# the plan's score weights, in the order explain lists them: the only settings ``rescore`` may
# change; the heat part's weight is the heat stage's own (``plan.heat.score``), not a field
SCORE_WEIGHTS = {
    "vector": "score_vector",
    "lexical": "score_lexical",
    "heat": "",
    "fusion": "score_fusion",
    "rerank": "score_rerank",
    "title": "score_title",
    "note": "score_note",
    "page": "score_page",
}


def retrieve(store: StorePort, vectors: VectorIndexPort, plan: RetrievalPlan) -> Retrieval:
    """Run ``plan`` (``core/query/plan.py``): seeds, heat, scores and the final order."""
    cands = find_candidates(store, vectors, plan)
    return ranked(cands, rerank(score_parts(cands, plan), plan))


def rescore(
    cands: Candidates, parts: Parts, plan: RetrievalPlan, reranked: Mapping[int, float]
) -> Retrieval:
    """The retrieval of ``plan`` from the candidates and parts an earlier plan found, when
    ``plan`` differs from it only in its score weights or in a part it turns off (``notes``,
    ``pages`` None): the same as ``retrieve(store, vectors, plan)``, without retrieving.
    The rerank shortlist is the top of the fused score, so it moves with the weights; a
    reranker scores each (query, chunk) pair on its own, so ``reranked`` (the earlier
    retrieval's ``raw["rerank"]``) is reused and only the chunks new to the shortlist are
    sent to the reranker."""
    kept = {f: getattr(cands.weights, f) for f in SCORE_WEIGHTS.values() if f}
    heat = dataclasses.replace(plan.heat, score=cands.heat_params.score)
    if dataclasses.replace(plan.weights, **kept) != cands.weights or heat != cands.heat_params:
        raise ValueError("rescore changes score weights only: this plan retrieves differently")
    return ranked(cands, rerank(score_parts(cands, plan, known=parts.raw), plan, reranked))


def find_candidates(store: StorePort, vectors: VectorIndexPort, plan: RetrievalPlan) -> Candidates:
    """Vector, lexical and note-name rankings, fused by weighted RRF into seeds; heat from the
    seeds over the graph when ``hops`` > 0; each candidate's cosine to the query."""
    settings, stages, allowed, blocked = plan.weights, plan.stages, plan.allowed, plan.blocked
    muted = plan.muted

    def ok(cid: int) -> bool:
        return cid not in blocked and cid not in muted and (allowed is None or cid in allowed)

    rankings, weights, stage_of, unseen_sim = _vector_rankings(vectors, plan, ok)
    lexical_raw: dict[int, float] = {}
    if stages.lexical:
        for ranked_ids, weight, stage in _lexical_rankings(store, plan, ok, lexical_raw):
            rankings.append(ranked_ids)
            weights.append(weight)
            stage_of.append(stage)
    qmat = np.stack([q.vector for q in plan.queries]).astype(np.float32)
    query_sim = plan_sims(plan, qmat, vectors)
    names_raw: dict[int, float] | None = None
    if plan.names is not None:
        names_raw, ranking = name_chunks(plan.names, ok, query_sim)
        rankings.append(ranking)
        weights.append(settings.title_weight)
        stage_of.append("title")
    seeds = rrf(rankings, k=settings.rrf_k, weights=weights)
    seed_stage = _seed_stages(rankings, weights, stage_of, settings.rrf_k)
    heat = _heat(seeds, plan, ok, query_sim, store)
    ids = sorted(cid for cid in heat.heat if ok(cid)) if heat is not None else sorted(seeds)
    return Candidates(ids, seeds, seed_stage, heat, query_sim(ids), lexical_raw, names_raw,
                      qmat, settings, plan.heat, plan.routing, unseen_sim)  # fmt: skip


def score_parts(
    cands: Candidates,
    plan: RetrievalPlan,
    known: Mapping[str, Mapping[int, float] | None] | None = None,
) -> Parts:
    """Each candidate's components and their fused score under ``plan``'s score weights.
    ``known``: parts computed before over the same candidates, reused for the ones the plan
    would otherwise compute again (the note and page parts) while it keeps them on."""
    ids, settings, stages, heat = cands.ids, plan.weights, plan.stages, cands.heat
    known = known or {}

    def from_plan(name: str, fn: Callable[[], dict[int, float]]) -> dict[int, float]:
        prior = known.get(name)
        return dict(prior) if prior is not None else fn()

    # without heat (hops = 0) the seeds' fusion score is a part of its own, named for what it is
    fusion = heat is None and plan.heat.hops <= 0 and settings.score_fusion > 0
    notes, pages = plan.notes, plan.pages
    raw: dict[str, dict[int, float] | None] = {
        "vector": dict(cands.sims),
        "lexical": {c: cands.lexical.get(c, 0.0) for c in ids} if stages.lexical else None,
        "heat": {c: heat.heat.get(c, 0.0) for c in ids} if heat is not None else None,
        "fusion": {c: cands.seeds.get(c, 0.0) for c in ids} if fusion else None,
        "rerank": None,
        # no name matched: the part is off, so the scores read exactly as without the stage
        "title": {c: cands.names.get(c, 0.0) for c in ids} if cands.names else None,
        # the note as a whole (its lead chunk and the mean of its chunks) against the query
        "note": (from_plan("note", lambda: _note_sims(notes, cands, second_qmat(plan)))
                 if notes is not None else None),
        # 1 for a chunk of a plain note, 0 of a digest or a list page (core/vault/pagekind.py)
        "page": from_plan("page", lambda: pages(ids)) if pages is not None else None,
        # credit moved from a digest's bullet to the notes it links: search only, after the
        # ranking (core/query/pointer_credit.py); off here
        "pointer": None,
    }  # fmt: skip
    return Parts(ids, raw, combine(ids, raw, score_weights(plan), ABSOLUTE))


def _note_sims(
    notes: NoteVectors, cands: Candidates, second: np.ndarray | None = None
) -> dict[int, float]:
    """The ``note`` part: each candidate's note vector against the query, in the space the
    chunk is read in. A chunk read in the second space (issue #40) gets its note's vector there
    against the query's second-space vectors (``second``, one per row), on the English scale as
    its ``vector`` part is (``_query_sims``). Without second-space note vectors, or for a note
    with none there, it keeps the English note vector; a note in another language may have no
    English vector at all, and then the chunk's own cosine in the second space stands in."""
    sims = notes.sims(cands.ids, cands.qmat)
    rt = cands.routing
    if rt is None:
        return sims
    there = rt.space.notes
    done: set[int] = set()
    if there is not None and second is not None:
        routed = [c for c in cands.ids if rt.second(c) and there.has_vector(c)]
        if routed:
            raw = there.sims(routed, second)
            mapped = rt.to_english(np.array([raw[c] for c in routed], dtype=np.float64))
            for c, m in zip(routed, mapped, strict=True):
                sims[c] = float(m)
            done.update(routed)
    for c, s in sims.items():
        if c not in done and s == 0.0 and rt.second(c) and not notes.has_vector(c):
            sims[c] = cands.sims.get(c, 0.0)
    return sims


def score_weights(plan: RetrievalPlan) -> dict[str, float]:
    """Each part's weight under ``plan``, in the order explain lists them."""
    w = plan.weights
    return {part: getattr(w, f) if f else plan.heat.score for part, f in SCORE_WEIGHTS.items()}


def rerank(parts: Parts, plan: RetrievalPlan, known: Mapping[int, float] | None = None) -> Parts:
    """The fused score's top ``plan.rerank_shortlist``, with the reranker's score as a part
    and fused again; ``parts`` itself when the plan does not rerank. ``known``: reranker
    scores from before, asked for again only for the chunks they lack."""
    if not (plan.stages.rerank and plan.rerank is not None and parts.ids):
        return parts
    final = parts.scored.final
    shortlist = sorted(parts.ids, key=lambda c: (-final[c], c))[: plan.rerank_shortlist]
    scores = dict(known or {})
    todo = [c for c in shortlist if c not in scores]
    if todo:
        scores.update(plan.rerank(todo))
    raw = {k: ({c: v[c] for c in shortlist} if v is not None else None)
           for k, v in parts.raw.items()}  # fmt: skip
    raw["rerank"] = {c: scores.get(c, 0.0) for c in shortlist}
    return Parts(shortlist, raw, combine(shortlist, raw, score_weights(plan), ABSOLUTE))


def ranked(cands: Candidates, parts: Parts) -> Retrieval:
    """The retrieval: ``parts`` in their final order, with the candidates' seeds and heat."""
    result = parts.scored
    return Retrieval(
        final=dict(result.final),
        raw=parts.raw,
        normalized={k: dict(v) for k, v in result.normalized.items()},
        weights=dict(result.weights),
        seeds=dict(cands.seeds),
        seed_stage=dict(cands.seed_stage),
        heat=cands.heat,
        order=sorted(parts.ids, key=lambda c: (-result.final[c], c)),
        qmat=cands.qmat,
        routing=cands.routing,
        unseen_sim=cands.unseen_sim,
    )


Rankings = tuple[list[list[int]], list[float], list[str]]  # (rankings, RRF weights, stages)
# the unseen bound's allowance for the dense copy's rounding (float16 vectors against hnswlib's
# float32 ones differ by about 1e-3 in cosine)
UNSEEN_MARGIN = 0.01


def _vector_rankings(
    vectors: VectorIndexPort, plan: RetrievalPlan, ok: Callable[[int], bool]
) -> tuple[list[list[int]], list[float], list[str], float | None]:
    """One hnswlib top-N per query vector (with a second space, one per space, merged); and
    the unseen bound: no chunk these rankings leave out has a cosine to any query vector above
    it (the last kept hit's cosine when a ranking is full, else the last hit's; -inf when a
    search returned every chunk it could), up to the vector index's approximation, plus
    ``UNSEEN_MARGIN`` for the dense copy's rounding. None with routing (two spaces)."""
    settings, allowed, blocked = plan.weights, plan.allowed, plan.blocked
    # a filter makes hnswlib call back into Python per visited node: only for real filters;
    # the note's own chunks (related notes) are simply asked for extra and dropped
    filter_ids = set(allowed - blocked) if allowed is not None else None
    extra = len(blocked) if filter_ids is None else 0
    rankings: list[list[int]] = []
    weights: list[float] = []
    stage_of: list[str] = []
    routing = plan.routing
    unseen: float | None = -math.inf
    for q in plan.queries:
        if routing is not None and q.second is not None:
            ranking = _routed_ranking(vectors, routing, q, settings.vector_top, filter_ids,
                                      extra, ok)  # fmt: skip
            unseen = None
        else:
            want = settings.vector_top + extra
            hits = vectors.search(q.vector, want, filter_ids=filter_ids)[0]
            kept = [(cid, sim) for cid, sim in hits if ok(cid)][: settings.vector_top]
            ranking = [cid for cid, _ in kept]
            if unseen is not None and len(hits) >= want:  # fewer: nothing was left out
                last = kept[-1][1] if len(kept) == settings.vector_top else hits[-1][1]
                unseen = max(unseen, float(last) + UNSEEN_MARGIN)
        rankings.append(ranking)
        weights.append(settings.vector_weight * q.weight)
        stage_of.append(q.stage)
    return rankings, weights, stage_of, unseen


def _routed_ranking(
    vectors: VectorIndexPort,
    routing: Routing,
    q: QueryVector,
    top: int,
    filter_ids: set[int] | None,
    extra: int,
    ok: Callable[[int], bool],
) -> list[int]:
    """The top-N of both spaces, each chunk from the space it is routed to, merged by the
    English-scale cosine (``core/query/routing.py``). The English space is asked for extra (the
    chunks routed away from it are dropped); the second space, which holds every chunk, is
    filtered to the chunks routed to it unless the query sends every chunk there."""
    assert q.second is not None
    scored: list[tuple[float, int]] = []
    space = routing.space
    if not routing.everything:
        away = len(routing.routed)  # the chunks read in the second space instead
        hits = vectors.search(q.vector, top + extra + away, filter_ids=filter_ids)[0]
        scored += [(s, c) for c, s in hits if ok(c) and not routing.second(c)]
    second_ids = filter_ids
    if not routing.everything:
        second_ids = set(routing.routed if filter_ids is None else routing.routed & filter_ids)
    if second_ids is None or second_ids:
        hits = space.vectors.search(q.second, top + (extra if second_ids is None else 0),
                                    filter_ids=second_ids)[0]  # fmt: skip
        kept = [(c, s) for c, s in hits if ok(c)]
        if kept:
            mapped = routing.to_english(np.array([s for _, s in kept]))
            scored += [(float(m), c) for (c, _), m in zip(kept, mapped, strict=True)]
    scored.sort(key=lambda x: (-x[0], x[1]))
    return [c for _, c in scored][:top]


def _lexical_rankings(
    store: StorePort,
    plan: RetrievalPlan,
    ok: Callable[[int], bool],
    best: dict[int, float],
) -> list[tuple[list[int], float, str]]:
    """One FTS5 BM25 top-N per lexical query; ``best`` gathers each chunk's best BM25."""
    settings = plan.weights
    out: list[tuple[list[int], float, str]] = []
    for text, weight, stage in plan.lexical:
        hits = store.lexical_search(text, settings.lexical_top + len(plan.blocked))
        ranked_hits = [(cid, s) for cid, s in hits if ok(cid)][: settings.lexical_top]
        for cid, s in ranked_hits:
            best[cid] = max(best.get(cid, 0.0), s)
        out.append(([cid for cid, _ in ranked_hits], settings.lexical_weight * weight, stage))
    return out


def second_qmat(plan: RetrievalPlan) -> np.ndarray | None:
    """The query vectors in the second space, one per row; None without routing."""
    if plan.routing is None or any(q.second is None for q in plan.queries):
        return None
    return np.stack([q.second for q in plan.queries]).astype(np.float32)  # type: ignore[misc]


def plan_sims(
    plan: RetrievalPlan, qmat: np.ndarray, vectors: VectorIndexPort
) -> Callable[[Sequence[int]], dict[int, float]]:
    """Chunk ids -> their best cosine to ``plan``'s query vectors, each in its routed space."""
    second = second_qmat(plan)
    return _query_sims(qmat, plan.dense, vectors, plan.routing if second is not None else None,
                       second)  # fmt: skip


def _query_sims(
    qmat: np.ndarray,
    dense: np.ndarray | None,
    vectors: VectorIndexPort,
    routing: Routing | None = None,
    second: np.ndarray | None = None,
) -> Callable[[Sequence[int]], dict[int, float]]:
    """Chunk ids -> their best cosine to the query vectors (0 for a chunk without a vector),
    each computed once. With ``routing``, a chunk routed to the second space gets its best
    cosine to the query's second-space vectors (``second``, one per row) on the English scale."""
    cache: dict[int, float] = {}

    def query_sim(ids: Sequence[int]) -> dict[int, float]:
        todo_ids = [i for i in ids if i not in cache]
        if routing is not None and second is not None and todo_ids:
            routed = [i for i in todo_ids if routing.second(i)]
            if routed:
                sims2 = (routing.space.vectors.get_vectors(routed) @ second.T).max(axis=1)
                for i, s in zip(routed, routing.to_english(sims2), strict=True):
                    cache[i] = float(s)
        if dense is not None:
            todo = [i for i in ids if i not in cache and 0 <= i < len(dense)]
        else:
            todo = [i for i in ids if i not in cache and i in vectors]
        if todo:
            mat = (dense[todo].astype(np.float32) if dense is not None
                   else vectors.get_vectors(todo))  # fmt: skip
            sims = mat @ qmat.T
            for i, s in zip(todo, sims.max(axis=1), strict=True):
                cache[i] = float(s)
        return {i: cache.get(i, 0.0) for i in ids}

    return query_sim


def _heat(
    seeds: dict[int, float],
    plan: RetrievalPlan,
    ok: Callable[[int], bool],
    query_sim: Callable[[Sequence[int]], dict[int, float]],
    store: StorePort,
) -> HeatResult | None:
    """Heat from the seeds over the graph. It runs only when it can move something: with
    hops = 0 (the default) it would hand back the seeds' fusion scores under the name "heat";
    then no heat part is reported at all. The graph's edges are read here on first use, from
    this query's snapshot."""
    h, graph = plan.heat, plan.graph
    if not (plan.stages.graph and seeds and graph is not None and h.hops > 0):
        return None
    graph.csr(store)
    return propagate_heat(
        seeds,
        make_neighbors(graph, plan.blocked),
        lambda ids: query_sim([i for i in ids if ok(i)]) | {i: -1.0 for i in ids if not ok(i)},
        hops=h.hops,
        decay=h.decay,
        query_floor=h.query_floor,
        max_frontier=h.max_frontier,
        type_weights=dict(h.type_weights),
        hub_degree=h.hub_degree,
    )


def name_chunks(
    names: Sequence[NameMatch],
    ok: Callable[[int], bool],
    query_sim: Callable[[Sequence[int]], dict[int, float]],
) -> tuple[dict[int, float], list[int]]:
    """The note-name stage: each named note's chunk most similar to the query carries its
    name score (once per note, so a named note does not flood chunk results), best name
    first as a ranking for the seeds."""
    raw: dict[int, float] = {}
    ranking: list[int] = []
    for m in names:
        ids = [c for c in m.chunks if ok(c)]
        if not ids:
            continue
        sims = query_sim(ids)
        best = max(ids, key=lambda c: (sims[c], -c))
        raw[best] = m.score
        ranking.append(best)
    return raw, ranking


def score_unseen(r: Retrieval, sims: Mapping[int, float]) -> dict[int, float]:
    """The final score of chunks the retrieval never saw (notes found by link votes), the way
    it scores chunks only the graph found: the vector part is the chunk's best cosine to the
    query vectors, the other parts are 0 raw; each is scaled with the candidates' min-max and
    clipped to [0, 1], so the candidates' own scores stay exactly as they were.
    ``unseen_parts`` gives the same number with its parts (for explain)."""
    scale = _unseen_scale(r)
    keys = list(r.weights)
    terms = [r.weights[k] * scale(k, 0.0) for k in keys]  # every part but vector is 0 raw
    at = keys.index("vector") if "vector" in keys else -1
    out: dict[int, float] = {}
    for cid, sim in sims.items():
        if at >= 0:
            terms[at] = r.weights["vector"] * scale("vector", float(sim))
        out[cid] = sum(terms)  # the same terms in the same order as unseen_parts: exact
    return out


def unseen_parts(r: Retrieval, sim: float) -> dict[str, Any]:
    """``score_unseen``'s parts for one chunk: ``final == Σ weights[k] · normalized[k]``."""
    scale = _unseen_scale(r)
    raw: dict[str, float | None] = {k: (None if v is None else 0.0) for k, v in r.raw.items()}
    raw["vector"] = float(sim)
    norm = {k: (scale(k, float(raw[k] or 0.0)) if k in r.weights else None) for k in r.raw}
    final = sum(r.weights[k] * scale(k, float(raw[k] or 0.0)) for k in r.weights)
    weights = {k: r.weights.get(k, 0.0) for k in r.raw}  # every part, as explain_chunk says it
    return {"raw": raw, "normalized": norm, "weights": weights, "final": final}


def _unseen_scale(r: Retrieval) -> Callable[[str, float], float]:
    bounds: dict[str, tuple[float, float]] = {}
    for k in r.weights:
        vals = (r.raw.get(k) or {}).values()
        bounds[k] = (min(vals), max(vals)) if vals else (0.0, 0.0)

    def scale(k: str, value: float) -> float:
        if k in ADDED:
            return value
        low, high = bounds[k]
        scaled = (value - low) / (high - low) if high > low else float(value >= high)
        return min(1.0, max(0.0, scaled))

    return scale


def best_unseen_chunks(
    r: Retrieval,
    chunks: Mapping[str, np.ndarray],
    dense: np.ndarray | None,
    vectors: VectorIndexPort,
) -> dict[str, tuple[int, float]]:
    """path -> (its chunk most similar to any query vector, that cosine); one matrix product
    for all the notes."""
    paths = [p for p, ids in chunks.items() if len(ids)]
    if r.qmat is None or not paths:
        return {}
    ids = np.concatenate([chunks[p] for p in paths])
    if dense is not None and len(dense) > int(ids.max()):
        mat = dense[ids].astype(np.float32)
    else:
        mat = vectors.get_vectors([int(i) for i in ids])
    sims = (mat @ r.qmat.T).max(axis=1)
    out: dict[str, tuple[int, float]] = {}
    start = 0
    for p in paths:
        end = start + len(chunks[p])
        best = start + int(np.argmax(sims[start:end]))
        out[p] = (int(ids[best]), float(sims[best]))
        start = end
    return out


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
