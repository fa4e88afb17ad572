"""Related notes for the note being written, from its saved or unsaved text.

The query is the note itself: its mean chunk vector plus its chunks one by one (weighted toward
the section around the cursor), and its most distinctive words (tf·idf over the index) as a
lexical query (the note and its vectors: ``core/query/query_note.py``). Unsaved text is parsed and
chunked exactly like a saved note and embedded on the fly (cached by text hash) without writing
anything. The note's own chunks neither appear nor relay heat, so its own links cannot leak into
its suggestions. Then link votes (``core/query/votes.py``): notes that many of the closest notes
link to rise; only links between other notes are read (the neighbours come from the text, the links
from the index).
"""

from __future__ import annotations

import dataclasses
import fnmatch
import math
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from vaultheat.config import RelatedSettings, Settings
from vaultheat.core.graphview import GraphView
from vaultheat.core.lru import LRU
from vaultheat.core.models import ChunkRow
from vaultheat.core.ports import StorePort, VectorIndexPort
from vaultheat.core.query.coverage import MIN_CHUNKS, coverages
from vaultheat.core.query.linkheat import LinkHeat, link_heat
from vaultheat.core.query.pipeline import (
    Retrieval,
    retrieve,
    score_unseen,
    second_qmat,
    unseen_parts,
)
from vaultheat.core.query.plan import plan_for_related
from vaultheat.core.query.query_note import QueryNote, query_note, query_vectors
from vaultheat.core.query.results import RelatedHit, RelatedResults
from vaultheat.core.query.routing import Routing, route_language
from vaultheat.core.query.search import (
    NoteScore,
    chunk_ref,
    make_rerank,
    note_scores,
    second_model,
    snippet_fn,
    without_common,
)
from vaultheat.core.query.shared_text import SharedText
from vaultheat.core.query.traces import (
    components_of,
    explain_chunk,
    explain_unseen,
    space_of,
    space_trace,
)
from vaultheat.core.query.view import IndexView, Models
from vaultheat.core.query.votes import Vote, best_chunks, link_votes, rank_floor, reachable
from vaultheat.core.requests import RelatedRequest
from vaultheat.core.vault.resolve import LinkResolver
from vaultheat.providers.base import Embedder

LEXICAL_TERMS = 24


def distinctive_terms(
    store: StorePort, text: str, n: int = LEXICAL_TERMS, known: LRU[str, int] | None = None
) -> str:
    """The note's most distinctive words (tf × idf over the index) as a lexical query.

    ``known``: document counts already read from this index generation (0: a word the index
    does not hold). Reading them is FTS5's vocabulary walking each word's document list, half
    of a related query at 10k notes; the words of one vault recur from note to note, so a batch
    of related queries (the mobile snapshot's build) reads each word about once."""
    words = Counter(_all_terms(text))
    if not words:
        return ""
    total = max(store.chunk_count(), 1)
    wanted = [w for w, _ in words.most_common(400)]
    df: dict[str, int] = {}
    if known is None:
        df = store.term_doc_counts(wanted)
    else:
        unread = []
        for w in wanted:
            count = known.get(w)
            if count is None:
                unread.append(w)
            elif count:
                df[w] = count
        if unread:
            fresh = store.term_doc_counts(unread)
            for w in unread:
                known[w] = fresh.get(w, 0)
            df.update(fresh)
    scored = []
    for w, tf in words.items():
        if w not in df or len(w) < 2 or w.isdigit():
            continue
        idf = np.log(1 + total / df[w])
        scored.append((tf**0.5 * idf, w))
    scored.sort(reverse=True)
    return " ".join(w for _, w in scored[:n])


def _all_terms(text: str) -> list[str]:
    from vaultheat.core.vault.lexical import _STOP, _WORD, lexical_text

    return [w for w in _WORD.findall(lexical_text(text).lower()) if w not in _STOP]


@dataclass(frozen=True)
class Kept:
    """A note that made the list: its score and chunk, and the near-duplicates folded in."""

    path: str
    score: float
    cid: int
    status: str
    duplicates: list[str]


def run_related(
    view: IndexView,
    models: Models,
    s: Settings,
    req: RelatedRequest,
    *,
    resolver: LinkResolver | None = None,
) -> RelatedResults:
    """The steps: the query note → its query vectors and words → the retrieval → note scores
    (damped) → link votes → the result rows, near-duplicates folded together. ``resolver``
    resolves the links of unsaved text (default: the view's)."""
    t0 = time.perf_counter()
    store, vectors, graph = view.store, view.vectors, view.graph
    shared = view.shared_text() if s.related.shared_text_notes >= 2 else SharedText()
    found = second_model(view, models, s, "related")
    space = view.second
    second = None  # the space and its model, when a query may read it (as route_language)
    if found is not None and space is not None and len(space.vectors):
        second = (space, found[0]) if found[0].fingerprint == space.fingerprint else None
    note = query_note(models, s, store, vectors, req, resolver or view.resolver, shared, second)
    backlinks = store.backlinking_paths(req.path)
    if len(note.mat) == 0 or note.mat.shape[1] != vectors.dim:
        return _doc(req, [], t0)
    routing = _note_routing(view, note, found)
    if routing is None and note.second_mat is not None:
        note = dataclasses.replace(note, second_mat=None)
    muted = shared.chunk_ids(s.related.shared_text_notes)
    result, second_q = _retrieve(view, models, s, req, note, muted, routing)
    damp = damping(view, s.related)
    ranked = note_ranking(result, graph, req, s.related, s.search.files_top_chunks, damp)
    cover = _coverage_fn(view, note, s.experimental.related_score_coverage, muted, routing)
    covered: dict[str, float] = {}  # path -> the coverage part added to its content score
    if cover is not None:
        ranked = _with_coverage(ranked, cover, damp, covered)
    content = {p: sc for p, sc, _ in ranked}
    vote_of: dict[str, Vote] = {}
    heat_of: dict[str, LinkHeat] = {}
    unseen: dict[int, float] = {}  # chunks only the graph brought in -> their cosine
    if votes_on(s, req) or link_heat_on(s, req):
        ranked, vote_of, heat_of, unseen = _add_graph(
            view, s, req, note, result, ranked, content, damp, shared, second_q, cover, covered
        )
    rows = store.chunks([cid for _, _, cid in ranked[: max(req.top * 3 + 10, s.related.vote_k)]])
    titles = _voter_titles(store, rows, ranked, vote_of, heat_of)
    kept = _keep(ranked, rows, store, vectors, req, s.related.duplicate_sim,
                 lambda p: _link_status(p in note.links_out, p in backlinks),
                 routing)  # fmt: skip
    results = _hits(kept, rows, titles, result, unseen, content, vote_of, heat_of, store, s, req,
                    covered)  # fmt: skip
    # as search: a note that may read the second space while it is still being filled (one
    # whose own chunks lack their vectors there yet stays in the English space meanwhile)
    return _doc(req, results, t0, second is not None and second[0].partial)


def _voter_titles(
    store: StorePort,
    rows: dict[int, ChunkRow],
    ranked: list[NoteScore],
    vote_of: dict[str, Vote],
    heat_of: dict[str, LinkHeat],
) -> dict[str, str]:
    """path -> title of each note that voted (its best chunk read into ``rows``) and of each
    note link heat came through."""
    voting = {v.path for vote in vote_of.values() for v in vote.voters}
    voter_cids = {p: cid for p, _, cid in ranked if p in voting}
    rows.update(store.chunks([c for c in voter_cids.values() if c not in rows]))
    titles = {p: rows[cid].title for p, cid in voter_cids.items() if cid in rows}
    for p in {v for h in heat_of.values() for v in h.via} - set(titles):
        via_row = store.note_by_path(p)  # link heat's receipt names the notes it came through
        titles[p] = via_row.title if via_row is not None else p
    return titles


def _hits(
    kept: list[Kept],
    rows: dict[int, ChunkRow],
    titles: dict[str, str],
    result: Retrieval,
    unseen: dict[int, float],
    content: dict[str, float],
    vote_of: dict[str, Vote],
    heat_of: dict[str, LinkHeat],
    store: StorePort,
    s: Settings,
    req: RelatedRequest,
    covered: Mapping[str, float] | None = None,
) -> list[RelatedHit]:
    """The result rows, best first: each kept note's best chunk, score parts, coverage, votes
    and link heat, and (``req.explain``) its trace; a chunk only the graph brought in
    (``unseen``: its cosine) is explained from that cosine."""
    covered = covered or {}
    snippet = snippet_fn(s.search.snippet_chars)
    results = []
    for rank, k in enumerate(kept, start=1):
        trace = None
        if req.explain:
            if k.cid in unseen:  # the space that scored it, as explain_chunk says it
                trace = explain_unseen(unseen_parts(result, unseen[k.cid]), k.cid, store, snippet)
                trace = dataclasses.replace(trace, space=space_trace(result, k.cid))
            else:
                trace = explain_chunk(result, k.cid, store, snippet, s.experimental.search_decay)
            trace = dataclasses.replace(trace, content_score=content[k.path], score=k.score,
                                        coverage=covered.get(k.path))  # fmt: skip
        row = rows[k.cid]
        results.append(
            RelatedHit(
                rank=rank,
                path=k.path,
                title=row.title,
                folder=k.path.rsplit("/", 1)[0] if "/" in k.path else "",
                score=k.score,
                link_status=k.status,
                best_chunk=chunk_ref(row, snippet),
                duplicates=tuple(k.duplicates),
                components=unseen_parts(result, unseen[k.cid])["raw"]
                if k.cid in unseen
                else components_of(result, k.cid),
                votes=vote_of.get(k.path),
                voter_titles=titles,
                explain=trace,
                link_heat=heat_of.get(k.path),
                space=space_of(result, k.cid),
                coverage=covered.get(k.path),
            )
        )
    return results


def _note_routing(
    view: IndexView, note: QueryNote, found: tuple[Embedder, Any, Any] | None
) -> Routing | None:
    """The query note's routing (``core/query/routing.py``): read in its own language's space, as a
    search query in that language is; None without a second space, or while the space lacks
    some of the note's chunks (unsaved text is embedded by the second model: never)."""
    if found is None or note.second_mat is None or not len(note.second_mat):
        return None
    space = view.second
    if space is None or note.second_mat.shape[1] != space.vectors.dim:
        return None
    embedder, english, second = found
    return route_language(space, note.language, english, second, embedder.fingerprint)


def _retrieve(
    view: IndexView,
    models: Models,
    s: Settings,
    req: RelatedRequest,
    note: QueryNote,
    muted: frozenset[int] = frozenset(),
    routing: Routing | None = None,
) -> tuple[Retrieval, np.ndarray | None]:
    """The shared retrieval (``core/query/plan.py``) with the note's vectors and distinctive words;
    the note's own chunks are blocked, ``muted`` ones (shared text) are no candidates. With
    ``routing`` each chunk is scored in its routed space; the query vectors in the second
    space come back too (one per row; None without routing)."""
    text = f"{note.title}\n{note.body}"
    # the words in most chunks leave the query as they leave search's (the same setting,
    # search.lexical_common_share): a note's distinctive words still hold "that" or "were"
    # when it has few others, and BM25 then scores most of the index for a weight near 0
    lexical_query, common = without_common(
        view, s.search.lexical_common_share, distinctive_terms(view.store, text, known=view.term_df)
    )
    plan = plan_for_related(
        s,
        req,
        text,
        query_vectors(note, req.cursor, s.related.cursor_window_chars),
        [(lexical_query, 1.0, "lexical")] if lexical_query else [],
        make_rerank=lambda: make_rerank(models, s, view.store, note.body[:2000]),
        graph=view.graph,
        dense=view.dense,
        notes=view.notes,
        blocked=set(note.own_ids),
        muted=muted,
        second_space=routing is not None and routing.everything,
    )
    if routing is not None:
        plan = dataclasses.replace(plan, routing=routing)
    if common:
        plan = dataclasses.replace(plan, lexical_common=common)
    return retrieve(view.store, view.vectors, plan), second_qmat(plan)


def note_ranking(
    result: Retrieval,
    graph: GraphView,
    req: RelatedRequest,
    r: RelatedSettings,
    top_chunks: int,
    damp: Callable[[str], float] | None = None,
) -> list[NoteScore]:
    """(path, score, best chunk) per note, best first: the query note and excluded notes left
    out, each score times ``damp(path)`` (``damping``)."""
    damp = damp or (lambda _: 1.0)
    ranked = [(p, sc * damp(p), cid)
              for p, sc, cid in note_scores(result, graph, top_chunks)
              if p != req.path and not _matches(p, r.exclude)]  # fmt: skip
    ranked.sort(key=lambda x: (-x[1], x[0]))
    return ranked


def _keep(
    ranked: list[NoteScore],
    rows: dict[int, ChunkRow],
    store: StorePort,
    vectors: VectorIndexPort,
    req: RelatedRequest,
    duplicate_sim: float,
    status_of: Callable[[str], str],
    routing: Routing | None = None,
) -> list[Kept]:
    """The top ``req.top`` notes (only unlinked ones if asked); a note whose best chunk is
    within ``duplicate_sim`` of a kept one's is folded into it as a duplicate. ``rows`` gets
    the chunks it reads. With ``routing`` two chunks are compared in the space both are read
    in, or in the second space when both have a vector there; else they are no duplicates."""
    kept: list[Kept] = []
    kept_vecs: list[np.ndarray] = []
    kept_second: list[tuple[bool, np.ndarray | None]] = []  # routed?, second-space vector
    for path, score, cid in ranked:
        status = status_of(path)
        if req.unlinked_only and status != "unlinked":
            continue
        if cid not in rows:
            rows.update(store.chunks([cid]))
        if cid not in rows:  # deleted by a re-index since retrieval: skipped, not a KeyError
            continue
        # a chunk awaiting its vector (first index, meaning phase) cannot be a near-duplicate
        v = vectors.get_vectors([cid])[0] if cid in vectors else np.zeros(vectors.dim)
        here: tuple[bool, np.ndarray | None] = (False, None)
        if routing is None:
            dup_of = next((i for i, kv in enumerate(kept_vecs)
                           if float(kv @ v) >= duplicate_sim), None)  # fmt: skip
        else:
            second = routing.space.vectors
            w = second.get_vectors([cid])[0] if cid in second else None
            here = (routing.second(cid), w)
            dup_of = next((i for i, kv in enumerate(kept_vecs)
                           if _near(v, here, kv, kept_second[i], duplicate_sim)),
                          None)  # fmt: skip
        if dup_of is not None:
            kept[dup_of].duplicates.append(path)
            continue
        if len(kept) >= req.top:
            break
        kept_vecs.append(v)
        kept_second.append(here)
        kept.append(Kept(path, score, cid, status, []))
    return kept


def _near(
    v: np.ndarray,
    here: tuple[bool, np.ndarray | None],
    kv: np.ndarray,
    there: tuple[bool, np.ndarray | None],
    duplicate_sim: float,
) -> bool:
    """Whether two chunks are near-duplicates under routing: both read in the English space,
    compared there; else compared in the second space if both have a vector there."""
    (routed, w), (kept_routed, kw) = here, there
    if not routed and not kept_routed:
        return float(kv @ v) >= duplicate_sim
    return w is not None and kw is not None and float(kw @ w) >= duplicate_sim


def _coverage_fn(
    view: IndexView,
    note: QueryNote,
    weight: float,
    muted: frozenset[int],
    routing: Routing | None,
) -> Callable[[list[str]], dict[str, float]] | None:
    """paths -> ``weight`` x the open note's coverage by each (``core/query/coverage.py``), for
    the notes it applies to: None when it applies to none (weight 0, an open note of fewer than
    ``MIN_CHUNKS`` chunks with an English vector, or one read in the second space); digests and
    list pages, and notes without chunks, are left out of the answer. A candidate's chunks of
    shared text (template lines: ``muted``) are left out, as retrieval leaves them out.

    Coverage is read in the English space. With a second space an English note is routed too
    (its chunks in other languages are read there): its chunks without an English vector (zero
    rows of ``note.mat``) and the candidates' chunks read in the second space are left out, and
    a candidate with no chunk left gets none."""
    if weight <= 0 or (routing is not None and routing.everything):
        return None
    mat, routed = note.mat, frozenset[int]()
    if routing is not None:
        mat, routed = mat[np.any(mat != 0, axis=1)], routing.routed
    if len(mat) < MIN_CHUNKS:
        return None
    kinds, chunks = view.page_kinds, view.links.chunks

    def cover(paths: list[str]) -> dict[str, float]:
        wanted = [(p, _own_chunks(chunks[p], muted)) for p in paths
                  if p in chunks and p not in kinds]  # fmt: skip
        if routed:
            wanted = [(p, ids[[int(c) not in routed for c in ids]]) for p, ids in wanted]
        wanted = [(p, ids) for p, ids in wanted if len(ids)]
        if not wanted:
            return {}
        vecs = view.chunk_vectors(np.concatenate([ids for _, ids in wanted]))
        mats = np.split(vecs, np.cumsum([len(ids) for _, ids in wanted])[:-1])
        return {p: weight * c for (p, _), c in zip(wanted, coverages(mat, mats), strict=True)}

    return cover


def _with_coverage(
    ranked: list[NoteScore],
    cover: Callable[[list[str]], dict[str, float]],
    damp: Callable[[str], float],
    covered: dict[str, float],
) -> list[NoteScore]:
    """``ranked`` with each note's coverage part (times its damping, as its content score)
    added, best first again; ``covered`` gets each part added."""
    extra = cover([p for p, _, _ in ranked])
    out = []
    for p, sc, cid in ranked:
        if p in extra:
            covered[p] = extra[p] * damp(p)
            sc += covered[p]
        out.append((p, sc, cid))
    out.sort(key=lambda x: (-x[1], x[0]))
    return out


def damping(view: IndexView, r: RelatedSettings) -> Callable[[str], float]:
    """path -> the content score's factor: ``damp_factor`` for the ``damp`` globs, times
    ``page_factor`` for a digest or a list page (core/vault/pagekind.py)."""
    kinds = view.page_kinds

    def damp(path: str) -> float:
        factor = r.damp_factor if _matches(path, r.damp) else 1.0
        return factor * r.page_factor if path in kinds else factor

    return damp


def damp_factors(r: RelatedSettings) -> tuple[float, ...]:
    """Every factor ``damping``'s function can return, computed as it computes them."""
    return (1.0, r.damp_factor, 1.0 * r.page_factor, r.damp_factor * r.page_factor)


def _add_graph(
    view: IndexView,
    s: Settings,
    req: RelatedRequest,
    note: QueryNote,
    result: Retrieval,
    ranked: list[NoteScore],
    content: dict[str, float],
    damp: Callable[[str], float],
    shared: SharedText,
    second_q: np.ndarray | None = None,
    cover: Callable[[list[str]], dict[str, float]] | None = None,
    covered: dict[str, float] | None = None,
) -> tuple[list[NoteScore], dict[str, Vote], dict[str, LinkHeat], dict[int, float]]:
    """Link votes (core/query/votes.py) and link heat (core/query/linkheat.py) added to the note
    scores. A note that only the graph found joins with its best chunk's content score (cosine
    scaled and clipped, as graph-found chunks are scored, added to ``content``); votes never read
    the query note's own links, link heat starts from them (as the note states them now). With a
    routing, each chunk's cosine is read in its routed space (``second_q``: the query vectors
    there), on the English scale. ``cover`` gives the coverage part of the notes only the
    graph found (recorded in ``covered``), as ``run_related`` adds it to the others."""
    r = s.related
    links = view.links
    found: dict[str, Vote] = {}
    if votes_on(s, req):
        found = link_votes(
            [(p, sc) for p, sc, _ in ranked],
            links.out_links,
            k=r.vote_k,
            weight=r.vote_weight,
            query=req.path,
            query_links=links.out_links.get(req.path, frozenset()),
            in_degree=links.in_degree,
            hub_degree=r.vote_hub_degree,
            notes=len(links.chunks),
            chance=r.vote_chance,
            linked=note.links_out,
            linked_hub_degree=r.vote_linked_hub_degree,
        ).votes
    heated: Mapping[str, LinkHeat] = {}
    heat_bonus: dict[str, float] = {}
    if link_heat_on(s, req):
        seeds = set(note.links_out) | links.linking_to(req.path)
        heated = link_heat(links.graph, req.path, seeds, kind=r.link_heat,
                           weight=r.link_heat_weight, alpha=r.link_heat_alpha,
                           chance=r.link_heat_chance)  # fmt: skip
        heat_bonus = heated.bonuses()
    bonus = {t: v.bonus for t, v in found.items()}
    for t, b in heat_bonus.items():
        bonus[t] = bonus.get(t, 0.0) + b
    if not bonus:
        return ranked, {}, {}, {}
    seen = {p for p, _, _ in ranked}
    targets = _graph_targets(result, ranked, req, r, bonus, seen, links.chunks, damp,
                             s.experimental.related_score_coverage if cover is not None
                             else 0.0)  # fmt: skip
    muted = shared.chunk_ids(r.shared_text_notes)
    fresh = {t: _own_chunks(links.chunks[t], muted) for t in targets}
    best = _best_chunks(view, result, fresh, second_q)
    finals = score_unseen(result, {cid: sim for cid, sim in best.values()})
    out = list(ranked)
    extra = cover(sorted(best)) if cover is not None else {}
    for t, (cid, _) in sorted(best.items()):
        content[t] = finals[cid] * damp(t)
        if t in extra:
            part = extra[t] * damp(t)
            content[t] += part
            if covered is not None:
                covered[t] = part
        out.append((t, content[t], cid))
    kept = seen | set(best)
    out = [(p, sc + bonus[p] if p in bonus and p in kept else sc, cid) for p, sc, cid in out]
    out.sort(key=lambda x: (-x[1], x[0]))
    votes = {t: v for t, v in found.items() if t in kept}
    heat = {t: heated[t] for t in sorted(kept) if t in heated}
    return out, votes, heat, {cid: sim for cid, sim in best.values()}


def _graph_targets(
    result: Retrieval,
    ranked: list[NoteScore],
    req: RelatedRequest,
    r: RelatedSettings,
    bonus: dict[str, float],
    seen: set[str],
    chunks: Mapping[str, np.ndarray],
    damp: Callable[[str], float],
    cover_max: float = 0.0,
) -> list[str]:
    """The notes only the graph found (a ``bonus``, not ``seen``, indexed, not excluded), in
    ``bonus`` order, less those that cannot reach the depth results are read from.

    Pruning: each such note's content score is at most ``cap`` (its vector part at the
    maximum, the other parts 0 raw, plus ``cover_max``: the largest coverage part, the weight
    times coverage's maximum 1) and its bonus is known, while the notes already scored fix
    a floor the final score at that depth can only rise above. Exact
    (tests/core/test_votes_pruning) unless more than 2·top + 9 of the notes above collapse as
    duplicates, which makes ``_keep`` read past the depth; ``unlinked_only`` always may, so it
    is not pruned. Pruned before their chunks are read: link heat reaches thousands of notes."""

    def wanted(t: str) -> bool:
        return t not in seen and t in chunks and not _matches(t, r.exclude)

    if req.unlinked_only:
        return [t for t in bonus if wanted(t)]
    depth = max(req.top * 3 + 10, r.vote_k)
    floor = rank_floor((sc + bonus.get(p, 0.0) for p, sc, _ in ranked), depth)
    # the vector rankings' unseen bound: a note they did not find has no chunk closer than it
    # (hnswlib's approximation aside); without one, the vector part's maximum
    bound = math.inf if result.unseen_sim is None else result.unseen_sim
    cap = score_unseen(result, {-1: bound}).get(-1, 0.0) + cover_max
    # First with the factor ``damp`` can give that makes ``cap × damp`` largest: rounding is
    # monotone, so a note that cannot reach the floor with it cannot with its own, and most
    # notes are skipped before their own factor and the other checks are read. (A negative
    # factor is never bounded: ``reachable`` keeps such a note.)
    factors = damp_factors(r)
    quick = min(factors) >= 0 and all(math.isfinite(x) for x in (cap, *factors))
    most = max(factors) if cap >= 0 else min(factors)
    return [t for t, b in bonus.items()
            if (not quick or reachable(cap, most, b, floor))
            and wanted(t) and reachable(cap, damp(t), b, floor)]  # fmt: skip


def _best_chunks(
    view: IndexView,
    result: Retrieval,
    chunks: dict[str, np.ndarray],
    second_q: np.ndarray | None,
) -> dict[str, tuple[int, float]]:
    """``votes.best_chunks`` with each chunk read in its routed space: the chunks routed to
    the second space against ``second_q``, their cosines mapped to the English scale; a note
    keeps its best chunk of either (the English one on a tie)."""
    rt = result.routing
    if rt is None or second_q is None:
        return best_chunks(result.qmat, chunks, view.chunk_vectors)
    routed = {p: np.fromiter((rt.second(int(c)) for c in ids), dtype=bool, count=len(ids))
              for p, ids in chunks.items()}  # fmt: skip
    best = best_chunks(result.qmat, {p: ids[~routed[p]] for p, ids in chunks.items()},
                       view.chunk_vectors)  # fmt: skip
    space = rt.space.vectors
    there = best_chunks(second_q, {p: ids[routed[p]] for p, ids in chunks.items()},
                        lambda ids: space.get_vectors([int(i) for i in ids]))  # fmt: skip
    for p, (cid, sim) in sorted(there.items()):
        mapped = float(rt.to_english(np.array([sim]))[0])
        if p not in best or mapped > best[p][1]:
            best[p] = (cid, mapped)
    return best


def _own_chunks(ids: np.ndarray, muted: frozenset[int]) -> np.ndarray:
    """A note's chunk ids less those of shared text, unless nothing else is left."""
    if not muted:
        return ids
    own = ids[[int(c) not in muted for c in ids]]
    return own if len(own) else ids


def link_heat_on(s: Settings, req: RelatedRequest) -> bool:
    """Link heat runs when the settings choose a kind and the request keeps the graph on."""
    return s.related.link_heat != "off" and s.related.link_heat_weight > 0 and req.graph


def votes_on(s: Settings, req: RelatedRequest) -> bool:
    """Link votes run unless the settings or the request turn them off (``--no-votes``)."""
    return s.related.votes and req.votes and s.related.vote_weight > 0


def _doc(
    req: RelatedRequest, results: list[RelatedHit], t0: float, partial: bool = False
) -> RelatedResults:
    """The results; ``partial``: the note was read in a second space still being filled."""
    took_ms = round((time.perf_counter() - t0) * 1000, 2)
    return RelatedResults(req.path, took_ms, tuple(results), partial_space=partial)


def _link_status(linked: bool, backlinked: bool) -> str:
    if linked and backlinked:
        return "both"
    if linked:
        return "linked"
    if backlinked:
        return "backlinked"
    return "unlinked"


def _matches(path: str, globs: tuple[str, ...]) -> bool:
    if not globs:
        return False
    return any(fnmatch.fnmatch(path, g) or path.startswith(g.rstrip("*")) for g in globs if g)
