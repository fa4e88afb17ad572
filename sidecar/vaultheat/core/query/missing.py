"""Why is a note missing? Where a note the user expected landed in a search, and what kept it
down (``vaultheat explain QUERY --path NOTE``, ``POST /v1/explain/missing``).

It reads the very retrieval the search ranks (``search.search_retrieval``: the same plan, the
keyword fallback included), so the rank it reports is the rank the search gives. A note among
the candidates is explained by its best chunk's own trace. A note outside them is scored the
way retrieval scores chunks only the graph found (``pipeline.score_unseen`` / ``unseen_parts``:
its best cosine, every other part 0 raw, min-max scaled with the candidates' bounds), which
gives the rank it would have had with everything else unchanged; and the retrievers say why it
was not a candidate: its exact place by cosine among all chunks (the vector retriever keeps the
top ``vector_top``) and by BM25 (the lexical one keeps ``lexical_top``). The trade-off: the
exact cosine rank is brute force over the dense matrix (one product per query vector), cheap
for one explained note but not something a search could do per result.

Statuses, in the order they are checked (the engine answers ``not_indexed`` itself):
``not_indexed`` · ``no_chunks`` · ``no_vectors`` · ``filtered`` · ``shown`` (rank <= top) ·
``folded`` (its best chunk is mostly the text of a note shown above it: ``core/query/quotes.py``) ·
``ranked`` (a candidate below the shown results) · ``cut_by_rerank`` (a candidate the rerank
shortlist left out) · ``not_retrieved``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from vaultheat.config import SearchSettings, Settings
from vaultheat.core.graphview import GraphView
from vaultheat.core.models import ChunkRow
from vaultheat.core.ports import StorePort, VectorIndexPort
from vaultheat.core.query.pipeline import (
    Retrieval,
    plan_sims,
    score_unseen,
    unseen_parts,
)
from vaultheat.core.query.plan import RetrievalPlan
from vaultheat.core.query.quotes import Fold
from vaultheat.core.query.relevance import Curve, label
from vaultheat.core.query.results import ChunkRef, ScoreParts, Trace
from vaultheat.core.query.routing import SecondSpace
from vaultheat.core.query.search import (
    allowed_chunks,
    chunk_ref,
    fold_ranked,
    note_scores,
    search_retrieval,
    snippet_fn,
)
from vaultheat.core.query.shape import diversify
from vaultheat.core.query.traces import explain_chunk
from vaultheat.core.query.view import IndexView, Models
from vaultheat.core.requests import SearchRequest

STATUSES = (
    "not_indexed",
    "no_chunks",
    "no_vectors",
    "filtered",
    "shown",
    "folded",
    "ranked",
    "cut_by_rerank",
    "not_retrieved",
)


@dataclass(frozen=True, slots=True)
class RetrieverPlace:
    """Where the note's highest-placed chunk stands in one retriever's full ranking of the
    vault's chunks (for the vector retriever that is its best chunk by cosine)."""

    stage: str  # "vector" | "lexical"
    rank: int | None  # 1-based; None: the retriever does not match it at all (no query word)
    score: float | None  # its cosine (vector) or BM25 score (lexical)
    keeps: int  # how many the retriever passes on (vector_top / lexical_top)
    cutoff: float | None  # the score of the last one it keeps (None: it matched fewer)


@dataclass(frozen=True, slots=True)
class Rival:
    """The result the note would have to beat."""

    rank: int
    path: str
    chunk_id: int
    score: float


@dataclass(frozen=True, slots=True)
class MissingExplanation:
    """Where ``path`` landed for ``query``; ``rank`` is its rank in the search (None: not among
    the candidates), ``would_rank`` the rank its score would give it were it retrieved."""

    query: str
    path: str
    files_only: bool
    status: str  # one of STATUSES
    reason: str
    top: int  # results the search shows
    candidates: int  # how many it ranked (chunks; notes when files_only)
    rank: int | None = None
    would_rank: int | None = None
    score: float | None = None
    best_chunk: ChunkRef | None = None
    trace: Trace | None = None  # a candidate's own trace (seed, hops, score parts)
    components: ScoreParts | None = None  # the best chunk's score parts
    retrievers: tuple[RetrieverPlace, ...] = ()
    to_beat: Rival | None = None
    ranked_by: str = "meaning"
    relevance: float | None = None  # the curve read at its best chunk's cosine
    relevance_label: str | None = None


def explain_missing(
    view: IndexView,
    models: Models,
    settings: Settings,
    req: SearchRequest,
    path: str,
    curve: Curve | None = None,
) -> MissingExplanation:
    """``path`` must be an indexed note (the engine says why one is not)."""
    store, vectors = view.store, view.vectors
    note = store.note_by_path(path)
    base = MissingExplanation(
        req.query, path, req.files_only, "not_indexed", f"{path} is not indexed", req.top, 0
    )
    if note is None:
        return base
    rows = store.note_chunks(note.id)
    if not rows:
        return dataclasses.replace(base, status="no_chunks", reason="the note has no body text")
    # a chunk in another language may have no English vector by design (a second space,
    # issue #40): it is read in the second space when it has a vector there
    second = view.second
    in_second = second.vectors if second is not None else ()
    with_vec = [row for row in rows if row.id in vectors or row.id in in_second]
    if not with_vec:
        return dataclasses.replace(base, status="no_vectors", reason=_no_vectors(rows, second))
    allowed = allowed_chunks(store, req)
    if allowed is not None and not any(row.id in allowed for row in rows):
        why = f"the search's filter ({_filters(req)}) leaves it out"
        return dataclasses.replace(base, status="filtered", reason=why)
    plan, r, ranked_by = search_retrieval(view, models, settings, req)
    if plan.routing is None:  # the second space not read (another query model): English only
        with_vec = [row for row in with_vec if row.id in vectors]
        if not with_vec:
            return dataclasses.replace(base, status="no_vectors", reason=_no_vectors(rows, None))
    graph = view.graph
    s = settings.search
    ok_rows = [row for row in with_vec if allowed is None or row.id in allowed]
    ids = [row.id for row in ok_rows]
    sims = _sims(r, plan, vectors, ids)
    places = _places(r, plan, store, graph, vectors, allowed, ids, sims)
    ranking, fold = _folded(_ranking(r, graph, req.files_only, s), r, graph, store, req.top, s,
                            path)  # fmt: skip
    run = _Scored(req, plan, r, store, snippet_fn(s.snippet_chars), curve, sims, places, ranking,
                  {row.id: row for row in rows})  # fmt: skip
    base = dataclasses.replace(base, ranked_by=ranked_by)
    if fold is not None:
        return _as_folded(run, base, fold, s.fold_quotes)
    found = next((i for i, (p, _, _) in enumerate(ranking) if p == path), None)
    if found is not None:
        return _as_ranked(run, base, found)
    return _as_unseen(run, base, ids, graph, s)


@dataclass(frozen=True)
class _Scored:
    """What ``explain_missing`` read of the search, for the outcome it reports."""

    req: SearchRequest
    plan: RetrievalPlan
    r: Retrieval
    store: StorePort
    snippet: Any  # ``snippet_fn``'s
    curve: Curve | None
    sims: dict[int, float]  # the note's chunks -> their best cosine to the query
    places: tuple[RetrieverPlace, ...]
    ranking: list[tuple[str, float, int]]  # what the search ranked, best first
    by_id: dict[int, ChunkRow]  # the note's chunks

    def labelled(self, base: MissingExplanation, cid: int) -> MissingExplanation:
        """``base`` with the relevance its chunk ``cid`` would read."""
        cosine = (self.r.raw["vector"] or {}).get(cid, self.sims.get(cid, 0.0))
        return _with_label(base, self.curve, cosine)

    def best(self, cid: int) -> ChunkRef:
        return chunk_ref(self.by_id[cid], self.snippet, self.req.query)


def _as_folded(
    run: _Scored,
    base: MissingExplanation,
    fold: tuple[tuple[str, float, int], Fold],
    fold_quotes: float,
) -> MissingExplanation:
    """The note was folded into the note it quotes (``search.fold_quotes``)."""
    _, score, cid = fold[0]
    trace = explain_chunk(run.r, cid, run.store, run.snippet, run.plan.heat.decay)
    f = fold[1]
    return dataclasses.replace(
        run.labelled(base, cid),
        status="folded",
        reason=(
            f"folded into {f.into} (#{f.into_rank}): {f.share:.0%} of its best chunk's "
            f"words are that note's text, so the search shows it once, there "
            f"(search.fold_quotes = {fold_quotes})"
        ),
        candidates=len(run.ranking),
        score=score,
        best_chunk=run.best(cid),
        trace=trace,
        components=trace.components,
        retrievers=run.places,
    )


def _as_ranked(run: _Scored, base: MissingExplanation, found: int) -> MissingExplanation:
    """The note is a candidate, at index ``found`` of the ranking: shown, or ranked below."""
    req, ranking = run.req, run.ranking
    _, score, cid = ranking[found]
    rank = found + 1
    trace = explain_chunk(run.r, cid, run.store, run.snippet, run.plan.heat.decay)
    base = run.labelled(base, cid)
    shown = rank <= req.top
    rival = _rival(ranking, min(req.top, rank - 1)) if rank > 1 else None
    if shown:
        reason = f"shown at #{rank} of the top {req.top}"
    else:
        assert rival is not None  # rank > top >= 1
        reason = (
            f"ranked #{rank} of {len(ranking)}: the search shows the top {req.top}; "
            f"#{req.top} scores {rival.score:.4f}, {rival.score - score:.4f} more"
        )
    return dataclasses.replace(
        base,
        status="shown" if shown else "ranked",
        reason=reason,
        rank=rank,
        candidates=len(ranking),
        score=score,
        best_chunk=run.best(cid),
        trace=trace,
        components=trace.components,
        retrievers=run.places,
        to_beat=rival,
    )


def _as_unseen(
    run: _Scored, base: MissingExplanation, ids: list[int], graph: GraphView, s: SearchSettings
) -> MissingExplanation:
    """Not a candidate: scored as retrieval scores a chunk only the graph found."""
    req, r, plan, ranking, sims = run.req, run.r, run.plan, run.ranking, run.sims
    unseen = score_unseen(r, sims)
    cid = min(unseen, key=lambda c: (-unseen[c], c))
    parts = unseen_parts(r, sims[cid])
    base = _with_label(base, run.curve, sims[cid])
    components = ScoreParts(parts["raw"], parts["normalized"], parts["weights"], parts["final"])
    would = _ranking(_with_unseen(r, unseen), graph, req.files_only, s)
    at = next(i for i, (p, _, _) in enumerate(would) if p == base.path)
    score = would[at][1]
    rival = _rival(ranking, req.top) if len(ranking) >= req.top else None
    pre = set(r.heat.heat) if r.heat is not None else set(r.seeds)
    cut = plan.stages.rerank and any(c in pre for c in ids)
    status = "cut_by_rerank" if cut else "not_retrieved"
    reason = _why_not(plan, run.places, len(pre) if cut else len(r.order), cut) + (
        f"; if retrieved it would score {score:.4f} and rank #{at + 1}"
        + (f" (#{req.top} scores {rival.score:.4f})" if rival else "")
    )
    return dataclasses.replace(
        base,
        status=status,
        reason=reason,
        candidates=len(ranking),
        would_rank=at + 1,
        score=score,
        best_chunk=run.best(cid),
        components=components,
        retrievers=run.places,
        to_beat=rival,
    )


def _with_label(m: MissingExplanation, curve: Curve | None, cosine: float) -> MissingExplanation:
    """The relevance a search result with this chunk would read (its cosine on the curve)."""
    if curve is None:
        return m
    rel = round(curve(round(cosine, 6)), 2)  # as ``relevance.rate`` reads a result
    return dataclasses.replace(m, relevance=rel, relevance_label=label(rel))


def _filters(req: SearchRequest) -> str:
    out = []
    if req.folder:
        out.append(f"folder {req.folder}")
    if req.tag:
        out.append(f"tag {req.tag}")
    out += [f"{k} = {v}" for k, v in req.property.items()]
    return ", ".join(out)


def _no_vectors(rows: Sequence[ChunkRow], second: SecondSpace | None) -> str:
    """Why none of a note's chunks (``rows``) can match by meaning: no vector in the English
    space, and none in the second space either (or that space not read)."""
    n = len(rows)
    if second is not None and any(row.id in second.languages for row in rows):
        return (
            f"none of its {n} chunks has a vector yet: not in English, they have no vector in "
            "the English space and are read in the multilingual space, which `vaultheat index` "
            "is still filling; until then it matches by its words only"
        )
    return f"none of its {n} chunks has a vector: it cannot match by meaning"


def _sims(
    r: Retrieval, plan: RetrievalPlan, vectors: VectorIndexPort, ids: Sequence[int]
) -> dict[int, float]:
    """Each chunk's best cosine to the query vectors, as ``retrieve`` computes it (in the
    space each is routed to, ``core/query/routing.py``)."""
    assert r.qmat is not None
    if plan.routing is not None:
        return plan_sims(plan, r.qmat, vectors)(list(ids))
    dense = plan.dense
    if dense is not None and len(dense) > max(ids):
        mat = dense[list(ids)].astype(np.float32)
    else:
        mat = vectors.get_vectors(list(ids))
    sims = (mat @ r.qmat.T).max(axis=1)
    return {cid: float(s) for cid, s in zip(ids, sims, strict=True)}


def _places(
    r: Retrieval,
    plan: RetrievalPlan,
    store: StorePort,
    graph: GraphView,
    vectors: VectorIndexPort,
    allowed: set[int] | None,
    ids: Sequence[int],
    sims: Mapping[int, float],
) -> tuple[RetrieverPlace, ...]:
    s = plan.weights
    best = max(sims.values())
    live = np.flatnonzero(graph.chunk_note >= 0)
    if allowed is not None:
        live = live[np.isin(live, np.fromiter(allowed, dtype=np.int64, count=len(allowed)))]
    dense = plan.dense
    if dense is not None and len(dense) > int(live.max(initial=0)):
        mat: np.ndarray = dense[live].astype(np.float32)
        has = mat.any(axis=1)  # a row of zeros: a chunk without a vector
    else:  # a chunk without an English vector stays when it is read in the second space
        rt = plan.routing
        live = np.array([c for c in live.tolist() if c in vectors or (rt and rt.second(c))],
                        dtype=np.int64)  # fmt: skip
        has = np.array([c in vectors for c in live.tolist()], dtype=bool)
        mat = np.zeros((len(live), vectors.dim), dtype=np.float32)
        if has.any():
            mat[has] = vectors.get_vectors(live[has].tolist())
    assert r.qmat is not None
    if plan.routing is not None:  # each chunk's cosine in its routed space
        sims_of = plan_sims(plan, r.qmat, vectors)(live.tolist())
        routed = plan.routing.second
        flags = [bool(h) for h in np.atleast_1d(has)]
        keep = [c for c, h in zip(live.tolist(), flags, strict=True) if h or routed(c)]
        found = np.array([sims_of[c] for c in keep], dtype=np.float64)
        all_sims = np.sort(found)[::-1]
    elif has.any():
        all_sims = np.sort((mat[has] @ r.qmat.T).max(axis=1))[::-1]
    else:
        all_sims = np.zeros(0)
    vrank = int(np.sum(all_sims > best)) + 1
    cutoff = float(all_sims[s.vector_top - 1]) if len(all_sims) >= s.vector_top else None
    places = [RetrieverPlace("vector", vrank, best, s.vector_top, cutoff)]
    if plan.stages.lexical:
        mine = set(ids)
        lrank: int | None = None
        lscore: float | None = None
        lcut: float | None = None
        for text, _, _ in plan.lexical:
            hits = [
                (c, sc)
                for c, sc in store.lexical_search(text, store.chunk_count())
                if allowed is None or c in allowed
            ]
            if len(hits) >= s.lexical_top:
                last = hits[s.lexical_top - 1][1]
                lcut = last if lcut is None else max(lcut, last)
            at = next((i for i, (c, _) in enumerate(hits) if c in mine), None)
            if at is not None and (lrank is None or at + 1 < lrank):
                lrank, lscore = at + 1, hits[at][1]
        places.append(RetrieverPlace("lexical", lrank, lscore, s.lexical_top, lcut))
    return tuple(places)


def _ranking(
    r: Retrieval, graph: GraphView, files_only: bool, s: SearchSettings
) -> list[tuple[str, float, int]]:
    """(path, score, chunk) in the order the search shows them: notes when ``files_only``,
    else chunks (a note then appears as often as it has candidate chunks, after the per-note
    rule of ``search.chunks_per_note``)."""
    if files_only:
        return note_scores(r, graph, s.files_top_chunks, long_note=s.files_bonus_chunks)
    out = []
    for cid in diversify(r.order, graph.note_of, s.chunks_per_note):
        p = graph.path_of(cid)
        if p is not None:
            out.append((p, r.final[cid], cid))
    return out


def _folded(
    ranking: list[tuple[str, float, int]],
    r: Retrieval,
    graph: GraphView,
    store: StorePort,
    top: int,
    s: SearchSettings,
    path: str,
) -> tuple[list[tuple[str, float, int]], tuple[tuple[str, float, int], Fold] | None]:
    """``ranking`` as the search shows it, quotes folded (``search.fold_ranked``, the walk the
    search makes, carried down to ``path``'s first entry so its rank is the one a search long
    enough to show it gives), and ``path``'s fold (its entry and why) when the search shows no
    entry of it because it was folded (None otherwise)."""
    at = next((i for i, (p, _, _) in enumerate(ranking) if p == path), None)
    folded = fold_ranked(ranking, store, r, graph, max(top, (at or 0) + 1), s.fold_quotes)
    shown = folded.shown(ranking)
    if any(p == path for p, _, _ in shown):
        return shown, None
    return shown, next(((e, f) for e, f in folded.folded if e[0] == path), None)


def _with_unseen(r: Retrieval, unseen: Mapping[int, float]) -> Retrieval:
    """``r`` with the unseen chunks ranked in at their scores, every other score unchanged."""
    final = {**r.final, **unseen}
    order = sorted(set(r.order) | set(unseen), key=lambda c: (-final[c], c))
    return dataclasses.replace(r, final=final, order=order)


def _rival(ranking: Sequence[tuple[str, float, int]], rank: int) -> Rival | None:
    if rank < 1 or rank > len(ranking):
        return None
    p, score, cid = ranking[rank - 1]
    return Rival(rank, p, cid, score)


def _why_not(plan: RetrievalPlan, places: Sequence[RetrieverPlace], pool: int, cut: bool) -> str:
    if cut:
        return (
            f"it was among the {pool} candidate chunks, but not in the {plan.rerank_shortlist} "
            "the reranker reads (by the first score)"
        )
    parts = []
    common = ""  # the common words the lexical search left out (search.lexical_common_share)
    if plan.lexical_common:
        words = ", ".join(f"'{w}'" for w in plan.lexical_common)
        share = plan.weights.lexical_common_share
        common = f" (it left out {words}: each in more than {share * 100:g}% of chunks)"
    for p in places:
        if p.stage == "vector":
            assert p.score is not None and p.rank is not None
            where = f"its best chunk is #{p.rank} by cosine ({p.score:.3f})"
            if p.rank <= p.keeps:
                where += f", inside the vector top {p.keeps}, but the approximate index missed it"
            else:
                last = f", the last at {p.cutoff:.3f}" if p.cutoff is not None else ""
                where += f", the vector retriever keeps the top {p.keeps}{last}"
            parts.append(where)
        elif p.rank is None:
            if plan.lexical_common:
                parts.append("no word of the query the lexical search read is in it" + common)
            else:
                parts.append("no word of the query is in it (lexical)")
        else:
            assert p.score is not None
            parts.append(
                f"#{p.rank} by BM25 ({p.score:.3f}; the lexical retriever keeps the top {p.keeps})"
                + common
            )
    if not plan.stages.lexical:
        parts.append("the lexical stage was off")
    if plan.graph is not None and plan.heat.hops > 0:
        parts.append(f"no graph path of {plan.heat.hops} hops from the seeds reached it")
    return f"not among the {pool} candidate chunks: " + "; ".join(parts)
