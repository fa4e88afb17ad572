"""One retrieval plan for search and related notes: what ``pipeline.retrieve`` runs.

Search and related notes differ in where their query comes from (a typed query and its
expansions; a note's chunks and distinctive words) and in their fusion weights (related reads
its own heat and lexical weights). Everything else is decided here, once, for both: whether
to rerank (the request, else the settings), the script fallback (an English-only model given
text in another script gets even weights, ``core/language.py``), which stages run, and the
rerank shortlist. A plan is a frozen value: the run it describes can be read off it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from vaultheat.config import ExperimentalSettings, SearchSettings, Settings
from vaultheat.core.graphview import GraphView
from vaultheat.core.language import even_weights, model_misses_script
from vaultheat.core.query.notevec import NoteVectors
from vaultheat.core.query.routing import Routing
from vaultheat.core.requests import RelatedRequest, SearchRequest

RerankFn = Callable[[list[int]], dict[int, float]]  # chunk ids -> reranker score
LexicalQuery = tuple[str, float, str]  # (text, weight, stage)


@dataclass(frozen=True)
class QueryVector:
    vector: np.ndarray
    weight: float
    stage: str  # "vector", "variant:1", "hyde", "note", "chunk:3" ...
    second: np.ndarray | None = None  # the same text in the second space's model (routing)


@dataclass(frozen=True)
class NameMatch:
    """A note the query names (``core/query/titles.py``): its name score in [0, 1] and its
    chunks."""

    path: str
    score: float
    chunks: tuple[int, ...]


@dataclass(frozen=True)
class HeatParams:
    """Heat propagation from the seeds over the chunk graph (``core/query/heat.py``), an experiment
    (the ``experimental.search_*`` keys): it runs when ``hops`` > 0 and the plan has a graph;
    ``score`` weighs its part (search: ``search_score_heat``, related: ``related_score_heat``)."""

    hops: int = 0
    decay: float = 0.5
    query_floor: float = 0.35
    max_frontier: int = 150
    type_weights: tuple[tuple[str, float], ...] = (
        ("similar", 1.0), ("link", 1.0), ("backlink", 0.8), ("tag", 0.5),
    )  # fmt: skip
    hub_degree: int = 20
    score: float = 0.0

    @classmethod
    def of(cls, e: ExperimentalSettings, score: float) -> HeatParams:
        return cls(
            hops=e.search_hops,
            decay=e.search_decay,
            query_floor=e.search_query_floor,
            max_frontier=e.search_max_frontier,
            type_weights=(
                ("similar", e.search_weight_similar),
                ("link", e.search_weight_link),
                ("backlink", e.search_weight_backlink),
                ("tag", e.search_weight_tag),
            ),
            hub_degree=e.search_hub_degree,
            score=score,
        )


@dataclass(frozen=True)
class Stages:
    lexical: bool = True
    graph: bool = True
    rerank: bool = False


@dataclass(frozen=True)
class RetrievalPlan:
    queries: tuple[QueryVector, ...]
    lexical: tuple[LexicalQuery, ...]
    weights: SearchSettings  # retrieval depths, fusion and score weights
    stages: Stages
    allowed: frozenset[int] | None = None  # only these chunks (folder / tag / property filters)
    blocked: frozenset[int] = frozenset()  # never these (the query note's own chunks)
    # never these either, and not asked for beyond the depth (a template's text, related notes)
    muted: frozenset[int] = frozenset()
    rerank: RerankFn | None = None
    rerank_shortlist: int = 30
    graph: GraphView | None = None  # None: no heat stage
    heat: HeatParams = field(default_factory=HeatParams)  # heat propagation (runs when hops > 0)
    dense: np.ndarray | None = None  # chunk id -> vector, for scoring (else the vector index)
    names: tuple[NameMatch, ...] | None = None  # None: no note-name stage (related notes)
    notes: NoteVectors | None = None  # None: no note part (weights.score_note 0, no vectors)
    # chunk ids -> 1.0 for a chunk of a plain note, 0.0 of a digest or a list page (the page
    # part, core/vault/pagekind.py); None: no page part (related notes, weights.score_page 0)
    pages: Callable[[Sequence[int]], dict[int, float]] | None = None
    # search with a second vector space: which space scores each chunk (core/query/routing.py);
    # every query vector then has its ``second``. None: one space, as before
    routing: Routing | None = None
    # the query words the lexical queries leave out as common (search.lexical_common_share)
    lexical_common: tuple[str, ...] = ()


def plan_for_search(
    settings: Settings,
    req: SearchRequest,
    queries: Sequence[QueryVector],
    lexical: Sequence[LexicalQuery],
    *,
    make_rerank: Callable[[], RerankFn | None],
    graph: GraphView,
    dense: np.ndarray | None,
    allowed: set[int] | None,
    names: Sequence[NameMatch] | None = None,
    notes: NoteVectors | None = None,
    pages: Callable[[Sequence[int]], dict[int, float]] | None = None,
) -> RetrievalPlan:
    """``names``: the notes the query names; the stage runs with the lexical one, when
    ``search.score_title`` is above 0. ``notes``: the note vectors, for the ``note`` part;
    ``pages``: each chunk's page value, for the ``page`` part (``search.score_page`` > 0)."""
    plan = build_plan(settings, settings.search, req.query, queries, lexical,
                      heat_score=settings.experimental.search_score_heat,
                      rerank=req.rerank, lexical_stage=req.lexical, graph_stage=req.graph,
                      make_rerank=make_rerank, graph=graph, dense=dense,
                      allowed=allowed, notes=notes)  # fmt: skip
    if pages is not None and settings.search.score_page > 0:
        plan = dataclasses.replace(plan, pages=pages)
    if names is None or not req.lexical or settings.search.score_title <= 0:
        return plan
    return dataclasses.replace(plan, names=tuple(names))


def plan_for_related(
    settings: Settings,
    req: RelatedRequest,
    text: str,
    queries: Sequence[QueryVector],
    lexical: Sequence[LexicalQuery],
    *,
    make_rerank: Callable[[], RerankFn | None],
    graph: GraphView,
    dense: np.ndarray | None,
    blocked: set[int],
    notes: NoteVectors | None = None,
    muted: frozenset[int] = frozenset(),
    second_space: bool = False,
) -> RetrievalPlan:
    """``text`` is the note's title and body (its script decides the fallback); ``muted``:
    chunks that are no candidates either (text shared word for word by many notes);
    ``second_space``: the note is read in the second vector space (not in English), whose note
    part has a weight of its own (``related.second_space_score_note``)."""
    note_weight = (settings.related.second_space_score_note if second_space
                   else settings.experimental.related_score_note)  # fmt: skip
    fusion = dataclasses.replace(settings.search, score_fusion=settings.related.score_fusion,
                                 score_lexical=settings.related.score_lexical,
                                 score_note=note_weight)  # fmt: skip
    plan = build_plan(settings, fusion, text, queries, lexical,
                      heat_score=settings.experimental.related_score_heat,
                      rerank=req.rerank, lexical_stage=req.lexical, graph_stage=req.graph,
                      make_rerank=make_rerank, graph=graph, dense=dense,
                      blocked=blocked, notes=notes)  # fmt: skip
    return dataclasses.replace(plan, muted=muted) if muted else plan


def build_plan(
    settings: Settings,
    fusion: SearchSettings,
    text: str,
    queries: Sequence[QueryVector],
    lexical: Sequence[LexicalQuery],
    *,
    heat_score: float,
    rerank: bool | None,
    lexical_stage: bool,
    graph_stage: bool,
    make_rerank: Callable[[], RerankFn | None],
    graph: GraphView,
    dense: np.ndarray | None,
    allowed: set[int] | None = None,
    blocked: set[int] | None = None,
    notes: NoteVectors | None = None,
) -> RetrievalPlan:
    """The plan both tasks share: ``rerank`` is the request's choice (None: the settings');
    the reranker is only made (and its model loaded) when the plan reranks."""
    want_rerank = settings.rerank.enabled if rerank is None else rerank
    rerank_fn = make_rerank() if want_rerank else None
    if model_misses_script(settings.embeddings, settings.search, text):
        fusion = even_weights(fusion)
    return RetrievalPlan(
        queries=tuple(queries),
        lexical=tuple(lexical),
        weights=fusion,
        stages=Stages(lexical=lexical_stage, graph=graph_stage, rerank=rerank_fn is not None),
        allowed=frozenset(allowed) if allowed is not None else None,
        blocked=frozenset(blocked or ()),
        rerank=rerank_fn,
        rerank_shortlist=settings.rerank.shortlist,
        graph=graph if graph_stage else None,
        heat=HeatParams.of(settings.experimental, heat_score),
        dense=dense,
        notes=notes if fusion.score_note > 0 else None,
    )
