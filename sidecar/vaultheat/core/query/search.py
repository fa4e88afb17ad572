"""``search``: a query in, ranked chunks (or notes) out, each with its score parts and trace."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from vaultheat.config import SECOND_SPACE_MODELS, Settings
from vaultheat.core.graphview import GraphView
from vaultheat.core.models import ChunkRow
from vaultheat.core.ports import StorePort
from vaultheat.core.query.expansion import expand_query
from vaultheat.core.query.pipeline import (
    Retrieval,
    find_candidates,
    ranked,
    rerank,
    rescore,
    score_parts,
)
from vaultheat.core.query.plan import (
    NameMatch,
    QueryVector,
    RerankFn,
    RetrievalPlan,
    plan_for_search,
)
from vaultheat.core.query.pointer_credit import credit_pointers
from vaultheat.core.query.quotes import Fold, fold_quotes
from vaultheat.core.query.relevance import GOOD, Curve, curve_for
from vaultheat.core.query.results import ChunkHit, ChunkRef, NoteHit, SearchHit, SearchResults
from vaultheat.core.query.routing import Routing, route_query
from vaultheat.core.query.shape import diversify
from vaultheat.core.query.traces import components_of, explain_chunk, found_by, space_of
from vaultheat.core.query.view import IndexView, Models, text_key
from vaultheat.core.requests import SearchRequest
from vaultheat.core.vault.derived import match_page
from vaultheat.core.vault.lexical import MATCH_TERMS, fold, query_terms
from vaultheat.providers.base import Embedder


def embed_query(models: Models, text: str, embedder: Embedder | None = None) -> np.ndarray:
    """``text`` embedded as a query (by ``embedder``, default the index's model), cached."""
    key = "q:" + text_key(text)
    if embedder is not None:
        key = f"q:{embedder.fingerprint}:" + text_key(text)
    vec = models.cache.get(key)
    if vec is None:
        vec = np.asarray((embedder or models.embedder).embed_query(text), dtype=np.float32)
        models.cache[key] = vec
    return vec


def search_routing(
    view: IndexView, models: Models, s: Settings, query: str
) -> tuple[Routing | None, Embedder | None]:
    """The query's routing over the view's second space and the second model's embedder;
    (None, None) without a second space (or with the setting off)."""
    found = second_model(view, models, s, "search")
    if found is None:
        return None, None
    embedder, english, second_curve = found
    routing = route_query(view.second, query, english, second_curve, embedder.fingerprint)
    return (routing, embedder) if routing is not None else (None, None)


def second_model(
    view: IndexView, models: Models, s: Settings, kind: str
) -> tuple[Embedder, Curve, Curve] | None:
    """The second space's embedder and the two models' ``kind`` curves ("search" or
    "related"); None without a second space in the view or with the setting off."""
    if view.second is None or not s.embeddings.second_space:
        return None
    embedder = models.second_embedder(s.embeddings)
    if embedder is None:
        return None
    e = s.embeddings
    english = curve_for(e.provider, e.model, kind)
    # the second space's model (embeddings.second_space_model), local (the fake one in tests);
    # each reads its own fitted curves (core/query/relevance.py); a model without any, the default
    second_curve = curve_for("fake" if e.provider == "fake" else "local",
                             SECOND_SPACE_MODELS[e.second_space_model], kind)  # fmt: skip
    return embedder, english, second_curve


def snippet_fn(limit: int) -> Any:
    def snippet(text: str) -> str:
        from vaultheat.core.models import display_text

        t = display_text(text)
        return t if len(t) <= limit else t[:limit].rstrip() + "…"

    return snippet


def allowed_chunks(store: StorePort, req: SearchRequest) -> set[int] | None:
    """Chunk ids that pass the folder / tag / property filters (None = no filter)."""
    if not (req.folder or req.tag or req.property):
        return None
    return store.filtered_chunk_ids(
        folder=req.folder.strip("/") if req.folder else None,
        tag=req.tag.lstrip("#").casefold() if req.tag else None,
        properties=req.property,
    )


def make_rerank(
    models: Models, settings: Settings, store: StorePort, query: str
) -> RerankFn | None:
    reranker = models.reranker(settings.rerank)
    if reranker is None:
        return None

    def rerank(ids: list[int]) -> dict[int, float]:
        rows = store.chunks(ids)
        texts = [rows[i].text if i in rows else "" for i in ids]
        scores = reranker.score(query, texts)
        return dict(zip(ids, (float(s) for s in scores), strict=True))

    return rerank


def page_values(view: IndexView) -> Callable[[Sequence[int]], dict[int, float]]:
    """Chunk ids -> 1.0 for a chunk of a plain note, 0.0 for one of a digest or a list page."""
    kinds, path_of = view.page_kinds, view.graph.path_of

    def values(ids: Sequence[int]) -> dict[int, float]:
        return {c: 0.0 if kinds.get(path_of(c) or "") else 1.0 for c in ids}

    return values


def search_retrieval(
    view: IndexView, models: Models, s: Settings, req: SearchRequest
) -> tuple[RetrievalPlan, Retrieval, str]:
    """The plan and the retrieval ``run_search`` ranks (after the keyword fallback, if it
    ran), and how it ranked ("meaning" or "words"): explain of a missing note reads them."""
    store, vectors = view.store, view.vectors
    routing, second = search_routing(view, models, s, req.query)

    def in_second(text: str) -> np.ndarray | None:
        return embed_query(models, text, second) if second is not None else None

    left_out: list[str] = []  # the common words the lexical queries leave out

    def words(text: str) -> str:
        kept, common = without_common(view, s.search.lexical_common_share, text)
        left_out.extend(t for t in common if t not in left_out)
        return kept

    queries = [QueryVector(embed_query(models, req.query), 1.0, "vector", in_second(req.query))]
    lexical = [(words(req.query), 1.0, "lexical")]
    expand = s.expansion.enabled if req.expand is None else req.expand
    if expand:
        exp = expand_query(models.generator(s.expansion), req.query,
                           variants=s.expansion.variants, hyde=s.expansion.hyde)  # fmt: skip
        for i, v in enumerate(exp.variants, start=1):
            queries.append(QueryVector(embed_query(models, v), 0.7, f"variant:{i}", in_second(v)))
            lexical.append((words(v), 0.7, f"variant:{i}"))
        if exp.hyde:  # a made-up answer passage: embedded as a document, not as a query
            hyde_vec = np.asarray(models.embedder.embed_documents([exp.hyde])[0], dtype=np.float32)
            hyde_2 = None
            if second is not None:
                hyde_2 = np.asarray(second.embed_documents([exp.hyde])[0], dtype=np.float32)
            queries.append(QueryVector(hyde_vec, 0.7, "hyde", hyde_2))
    plan = plan_for_search(
        s,
        req,
        queries,
        lexical,
        make_rerank=lambda: make_rerank(models, s, store, req.query),
        graph=view.graph,
        dense=view.dense,
        allowed=allowed_chunks(store, req),
        names=named_notes(view, s, req.query) if s.search.score_title > 0 else None,
        # a few words ("keychain") ask for the passage that has them; a longer query describes
        # what the note is about, which is what the note part weighs (core/query/notevec.py)
        notes=view.notes if len(query_terms(req.query)) > KEYWORD_TERMS else None,
        pages=page_values(view),
    )
    if routing is not None:
        plan = dataclasses.replace(plan, routing=routing)
    if left_out:
        plan = dataclasses.replace(plan, lexical_common=tuple(left_out))
    cands = find_candidates(store, vectors, plan)
    parts = score_parts(cands, plan)
    result = ranked(cands, rerank(parts, plan))
    ranked_by = "meaning"
    # part of the index still awaits its vectors (a first index's meaning phase): chunks
    # without one cannot be found by meaning, so the words decide and the results say so. The
    # chunks in other languages that have a vector in the second space only (issue #40) are
    # found by meaning there
    only = routing.space.only if routing is not None else 0
    partial = len(vectors) + only < view.chunk_count()
    if partial or (s.search.score_lexical_weak > 0 and _words_lead(s, req.query, result)):
        plan = words_plan(s, plan)
        # the same candidates weighed again (no second retrieval); the reranker is asked
        # only about chunks the new weights bring into its shortlist
        result = rescore(cands, parts, plan, result.raw["rerank"] or {})
        ranked_by = "words"
    # a digest's bullet that matched hands part of its score to the notes it links
    result = credit_pointers(
        view, result, req.query, s.experimental.search_pointer_credit, plan.allowed
    )
    return plan, result, ranked_by


# a word is common only when it is also in more chunks than this: scoring fewer costs BM25 under
# ~10 ms, and leaving such a word out would change a small vault's results for no speed
COMMON_MIN_CHUNKS = 10_000


def without_common(view: IndexView, share: float, query: str) -> tuple[str, tuple[str, ...]]:
    """``query`` as the lexical (FTS5 BM25) search reads it with its common words left out
    (``search.lexical_common_share``): its index terms (``query_terms``, the first
    ``MATCH_TERMS``) found in more than ``share`` of the view's chunks (and more than
    ``COMMON_MIN_CHUNKS``), unless every term is
    (a query of common words only keeps them all: it must still find something). Returns the
    text to search and the terms left out; ``query`` itself and () when none is or ``share`` is
    0. Why: BM25 scores every chunk holding any query word, and a word in most chunks ("that",
    "have") costs a scan of most of the index for a weight near 0 (FTS5's idf)."""
    if share <= 0:
        return query, ()
    terms = query_terms(query)[:MATCH_TERMS]
    if len(terms) < 2:
        return query, ()
    counts = view.term_counts(sorted({fold(t) for t in terms}))
    most = max(share * view.chunk_count(), COMMON_MIN_CHUNKS)
    common = tuple(t for t in terms if counts[fold(t)] > most)
    if not common or len(common) == len(terms):
        return query, ()
    # the kept terms joined by spaces are read back as the same terms (``query_terms``)
    return " ".join(t for t in terms if t not in common), common


def words_plan(s: Settings, plan: RetrievalPlan) -> RetrievalPlan:
    """``plan`` for a query the words lead (the keyword fallback): the exact matches decide."""
    weak = max(s.search.score_lexical_weak, plan.weights.score_lexical)
    # a name match is an exact match too, weighed at least as the words
    title = max(plan.weights.score_title, weak)
    weights = dataclasses.replace(plan.weights, score_lexical=weak, score_title=title)
    # the note part is meaning evidence too, and meaning is what is weak here: off (with
    # it on, help-en rare-word keywords lost nDCG@10 -0.037 [-0.066, -0.014])
    return dataclasses.replace(plan, weights=weights, notes=None)


def run_search(view: IndexView, models: Models, s: Settings, req: SearchRequest) -> SearchResults:
    """``req`` against ``view`` with settings ``s``: embed (and expand) the query, retrieve,
    re-weight a keyword query toward its words, then the chunk or note rows."""
    t0 = time.perf_counter()
    store = view.store
    _, result, ranked_by = search_retrieval(view, models, s, req)
    snippet = snippet_fn(s.search.snippet_chars)
    results: Sequence[SearchHit]
    if req.files_only:
        results = file_results(result, store, view.graph, req.top, s.search.files_top_chunks,
                               snippet, long_note=s.search.files_bonus_chunks,
                               query=req.query, fold=s.search.fold_quotes)  # fmt: skip
    else:
        ids = diversify(result.order, view.graph.note_of, s.search.chunks_per_note)
        ranked = [(view.graph.path_of(c) or "", result.final[c], c) for c in ids]
        folded = fold_ranked(ranked, store, result, view.graph, req.top, s.search.fold_quotes)
        results = [
            dataclasses.replace(
                chunk_result(rank, folded.rows[cid], result, store, snippet, req.explain,
                             s.experimental.search_decay, query=req.query),
                duplicates=dups,
            )
            for rank, ((_, _, cid), dups) in enumerate(folded.kept, start=1)
        ]  # fmt: skip
    took_ms = round((time.perf_counter() - t0) * 1000, 2)
    per_note = 0 if req.files_only else max(s.search.chunks_per_note, 0)
    partial = result.routing is not None and result.routing.space.partial
    return SearchResults(req.query, took_ms, req.files_only, tuple(results), ranked_by, per_note,
                         partial_space=partial)  # fmt: skip


def named_notes(view: IndexView, settings: Settings, query: str) -> list[NameMatch]:
    """The notes whose title, alias or file name matches the query (``core/query/titles.py``)."""
    chunks = view.links.chunks
    s = settings.search
    return [
        NameMatch(path, score, tuple(int(c) for c in chunks[path]))
        for path, score in view.titles.match(
            query, limit=s.title_top, partial=s.title_partial
        ).items()
        if path in chunks
    ]


NoteScore = tuple[str, float, int]  # (note path, score, its best chunk id)
KEYWORD_TERMS = 3  # at most this many index terms: a keyword query, not a question


def _words_lead(s: Settings, query: str, r: Retrieval) -> bool:
    """A keyword query (a few terms: "ulysses", "textbundle export") whose words were found
    while no vector match is even "good" (the model's search curve, core/query/relevance.py): then
    the exact matches should decide the order. Longer questions keep the usual weights (with
    weak vectors their incidental word matches mislead: cross-lingual questions over help/en,
    docs/eval.md "Keyword queries")."""
    if len(query_terms(query)) > KEYWORD_TERMS:
        return False
    lexical = r.raw.get("lexical")
    if not lexical or not any(v > 0 for v in lexical.values()):
        return False
    best = max((r.raw["vector"] or {}).values(), default=0.0)
    e = s.embeddings
    return curve_for(e.provider, e.model, "search")(best) < GOOD


def chunk_result(
    rank: int,
    row: ChunkRow,
    r: Retrieval,
    store: StorePort,
    snippet: Any,
    explain: bool,
    decay: float,
    *,
    query: str | None = None,
) -> ChunkHit:
    text = snippet(row.text)
    return ChunkHit(
        rank=rank,
        chunk_id=row.id,
        path=row.path,
        title=row.title,
        heading_path=tuple(row.heading_path),
        line_start=row.line_start,
        line_end=row.line_end,
        byte_start=row.byte_start,
        byte_end=row.byte_end,
        text=text,
        text_truncated=text.endswith("…") and not row.text.endswith("…"),
        score=r.final[row.id],
        found_by=found_by(r, row.id),
        components=components_of(r, row.id),
        explain=explain_chunk(r, row.id, store, snippet, decay) if explain else None,
        page=row.page,
        page_end=row.page_end,
        card_id=row.card_id,
        open_page=match_page(row.text, row.page, row.page_starts, query),
        space=space_of(r, row.id),
    )


def chunk_ref(row: ChunkRow, snippet: Any, query: str | None = None) -> ChunkRef:
    """A result's best chunk: its place in the note and its snippet; a PDF's page to open is
    the one holding the match of ``query`` (the first page with none: related notes)."""
    return ChunkRef(
        chunk_id=row.id,
        heading_path=tuple(row.heading_path),
        line_start=row.line_start,
        line_end=row.line_end,
        byte_start=row.byte_start,
        byte_end=row.byte_end,
        text=snippet(row.text),
        page=row.page,
        page_end=row.page_end,
        card_id=row.card_id,
        open_page=match_page(row.text, row.page, row.page_starts, query),
    )


def note_scores(
    r: Retrieval, graph: GraphView, top_chunks: int, *, long_note: int = 0
) -> list[NoteScore]:
    """(path, score, best chunk) per note: the best chunk's score plus a small bonus for each
    further strong chunk (``top_chunks`` counted), so a note that matches in several places
    edges out one lucky paragraph. ``long_note`` > 0: a note of more chunks than that gets
    the bonus x ``long_note`` / its chunk count: a 279 KB list page has many dense chunks to
    offer, and the plain bonus made it win by volume (issue #22). The ``page`` part (the note
    is a note proper) is the note's, not its chunks': it counts once, in the best chunk, and
    the further chunks' bonus leaves it out (else a note would gain by having more chunks)."""
    page_w = r.weights.get("page", 0.0)
    page = r.normalized.get("page", {})
    per: dict[str, list[tuple[float, int]]] = {}
    for cid in r.order:
        path = graph.path_of(cid)
        if path is not None:
            per.setdefault(path, []).append((r.final[cid], cid))
    sizes = _chunk_counts(graph) if long_note > 0 else None
    out = []
    for path, scored in per.items():
        scored.sort(key=lambda x: (-x[0], x[1]))
        best = scored[0][0]
        bonus = sum(sc - page_w * page.get(c, 0.0) for sc, c in scored[1:top_chunks]) * 0.05
        if sizes is not None:
            nid = graph.note_of(scored[0][1])
            bonus *= min(1.0, long_note / max(int(sizes[nid]) if 0 <= nid < len(sizes) else 1, 1))
        out.append((path, best + bonus, scored[0][1]))
    out.sort(key=lambda x: (-x[1], x[0]))
    return out


def _chunk_counts(graph: GraphView) -> np.ndarray:
    """note id -> its number of chunks."""
    notes = graph.chunk_note[graph.chunk_note >= 0]
    return np.bincount(notes) if len(notes) else np.zeros(0, dtype=np.int64)


def file_results(
    r: Retrieval,
    store: StorePort,
    graph: GraphView,
    top: int,
    top_chunks: int,
    snippet: Any,
    *,
    long_note: int = 0,
    query: str | None = None,
    fold: float = 0.0,
) -> list[NoteHit]:
    """The top notes, each with its best chunk; with ``fold`` > 0 a note whose best chunk is
    mostly text of a note above it folds into that one (``core/query/quotes.py``)."""
    ranked = note_scores(r, graph, top_chunks, long_note=long_note)
    folded = fold_ranked(ranked, store, r, graph, top, fold)
    return [
        NoteHit(
            rank,
            path,
            folded.rows[cid].title,
            score,
            chunk_ref(folded.rows[cid], snippet, query),
            components_of(r, cid),
            duplicates=dups,
            space=space_of(r, cid),
        )
        for rank, ((path, score, cid), dups) in enumerate(folded.kept, start=1)
    ]


@dataclass(frozen=True)
class Folded:
    """A ranking after quote folding: the kept entries with the paths folded into each, the
    folded entries with why, and the chunk rows read (by chunk id)."""

    kept: list[tuple[NoteScore, tuple[str, ...]]]
    folded: list[tuple[NoteScore, Fold]]
    rows: dict[int, ChunkRow]
    examined: int  # entries of the ranking the walk looked at

    def shown(self, ranked: Sequence[NoteScore]) -> list[NoteScore]:
        """``ranked`` in the order the search shows it: the kept entries, then the entries
        below the walk (never compared, so never folded)."""
        return [e for e, _ in self.kept] + list(ranked[self.examined :])


def proper_of(r: Retrieval) -> Callable[[int], bool]:
    """Whether a candidate chunk's note is a note proper, not a digest or a list page (its
    ``page`` part, ``core/vault/pagekind.py``; a chunk without one counts as proper)."""
    page = r.raw.get("page") or {}

    def proper(cid: int) -> bool:
        v = page.get(cid)
        return v is None or v > 0

    return proper


def fold_ranked(
    ranked: Sequence[NoteScore],
    store: StorePort,
    r: Retrieval,
    graph: GraphView,
    top: int,
    fold: float,
) -> Folded:
    """Walk ``ranked`` (path, score, best chunk) until ``top`` entries are kept, folding each
    whose best chunk is at least ``fold`` of a kept note's candidate text (``core/query/quotes.py``;
    a note proper takes the place of a digest quoting it). An
    entry whose chunk has no row (deleted by a re-index since retrieval) is left out, not a
    500. The rows are read ``top`` x ``FOLD_WINDOW`` at a time."""
    known: dict[int, ChunkRow] = {}  # the rows read so far, by chunk id
    per = candidate_chunks(r, graph)
    proper, note_text = proper_of(r), candidate_text(store, per, known)
    n = max(top, 1) * FOLD_WINDOW
    while True:
        window = ranked[:n]
        wanted = [cid for _, _, cid in window]
        if fold > 0:  # the candidate text of the notes likely kept, read with the window
            likely = dict.fromkeys(p for p, _, _ in window[:top])
            wanted += [c for p in likely for c in per.get(p, [])]
        missing = [c for c in dict.fromkeys(wanted) if c not in known]
        if missing:
            known.update(store.chunks(missing))
        rows = {cid: known[cid] for _, _, cid in window if cid in known}
        present = [e for e in window if e[2] in rows]
        texts = {cid: row.text for cid, row in rows.items()}
        walk = fold_quotes([(p, cid) for p, _, cid in present], texts.__getitem__,
                           note_text, top, fold, proper)  # fmt: skip
        if len(walk.kept) >= top or n >= len(ranked):
            break
        n *= 2
    examined = window.index(present[walk.examined - 1]) + 1 if walk.examined else 0
    return Folded(
        [(present[k.index], tuple(k.duplicates)) for k in walk.kept],
        [(present[i], f) for i, f in sorted(walk.folded.items())],
        rows,
        examined,
    )


FOLD_WINDOW = 3  # quote folding looks this many times ``top`` down the ranking for results


def candidate_chunks(r: Retrieval, graph: GraphView) -> dict[str, list[int]]:
    """Each note's candidate chunks, in the retrieval's order."""
    per: dict[str, list[int]] = {}
    for cid in r.order:
        path = graph.path_of(cid)
        if path is not None:
            per.setdefault(path, []).append(cid)
    return per


def candidate_text(
    store: StorePort, per: Mapping[str, Sequence[int]], known: dict[int, ChunkRow]
) -> Callable[[str], str]:
    """A note's text as retrieval found it, for quote folding: its candidate chunks (``per``,
    ``candidate_chunks``) joined (a digest quotes the part of a note that matches the query, and
    that part is among the note's candidates; reading whole notes cost help-en search 60 ms a
    query). ``known``: the rows read so far, by chunk id (read here only when missing)."""

    def text(path: str) -> str:
        ids = per.get(path, [])
        missing = [c for c in ids if c not in known]
        if missing:
            known.update(store.chunks(missing))
        rows = {c: known[c] for c in ids if c in known}
        return "\n".join(rows[c].text for c in sorted(rows))

    return text
