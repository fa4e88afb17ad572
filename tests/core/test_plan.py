"""The retrieval plan search and related notes share: rerank choice, script fallback, stages,
weights and shortlist decided in one place (``core/query/plan.py``)."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest

from vaultheat.config import Settings
from vaultheat.core.graphview import GraphView
from vaultheat.core.language import even_weights
from vaultheat.core.query.plan import (
    HeatParams,
    QueryVector,
    RetrievalPlan,
    plan_for_related,
    plan_for_search,
)
from vaultheat.core.requests import RelatedRequest, SearchRequest

GRAPH: Any = object.__new__(GraphView)  # never read by the builder: only passed on
QUERIES = [QueryVector(np.ones(4, dtype=np.float32), 1.0, "vector")]
LEXICAL = [("coffee", 1.0, "lexical")]


def reranker(ids: list[int]) -> dict[int, float]:
    return dict.fromkeys(ids, 1.0)


class Maker:
    """A ``make_rerank`` that counts its calls (making a reranker loads a model)."""

    def __init__(self, fn: Any = reranker) -> None:
        self.fn, self.calls = fn, 0

    def __call__(self) -> Any:
        self.calls += 1
        return self.fn


def search_plan(settings: Settings, maker: Maker, **req: Any) -> RetrievalPlan:
    return plan_for_search(settings, SearchRequest(**{"query": "coffee", **req}), QUERIES,
                           LEXICAL, make_rerank=maker, graph=GRAPH, dense=None,
                           allowed=None)  # fmt: skip


def related_plan(settings: Settings, maker: Maker, text: str = "Coffee\nbeans", **req: Any
                 ) -> RetrievalPlan:  # fmt: skip
    return plan_for_related(settings, RelatedRequest(**{"path": "a.md", **req}), text, QUERIES,
                            LEXICAL, make_rerank=maker, graph=GRAPH, dense=None,
                            blocked={3, 4})  # fmt: skip


RERANK_CASES = [  # (settings rerank.enabled, request rerank, reranker made, plan reranks)
    pytest.param(False, None, False, False, id="off-by-default"),
    pytest.param(True, None, True, True, id="on-in-settings"),
    pytest.param(True, False, False, False, id="request-says-no"),
    pytest.param(False, True, True, True, id="request-says-yes"),
]


@pytest.mark.parametrize(("enabled", "asked", "made", "reranks"), RERANK_CASES)
@pytest.mark.parametrize("task", ["search", "related"])
def test_rerank_choice_is_the_same_for_both_tasks(
    task: str, enabled: bool, asked: bool | None, made: bool, reranks: bool
) -> None:
    settings = Settings().with_value("rerank.enabled", enabled)
    maker = Maker()
    build = search_plan if task == "search" else related_plan
    plan = build(settings, maker, rerank=asked)
    assert maker.calls == int(made)
    assert plan.stages.rerank is reranks
    assert (plan.rerank is reranker) is reranks
    assert plan.rerank_shortlist == settings.rerank.shortlist


def test_no_reranker_available_means_no_rerank_stage() -> None:
    plan = search_plan(Settings(), Maker(fn=None), rerank=True)
    assert plan.rerank is None and plan.stages.rerank is False


@pytest.mark.parametrize("task", ["search", "related"])
def test_script_fallback_gives_even_weights(task: str) -> None:
    settings = Settings().with_value("embeddings.languages", "en")
    if task == "search":
        latin = search_plan(settings, Maker(), query="coffee grounds")
        cjk = search_plan(settings, Maker(), query="コーヒーの淹れ方")
    else:
        latin = related_plan(settings, Maker(), text="Coffee\ngrounds")
        cjk = related_plan(settings, Maker(), text="コーヒー\nの淹れ方")
    assert cjk.weights == even_weights(latin.weights) != latin.weights


def test_a_multilingual_model_keeps_its_weights() -> None:
    settings = Settings().with_value("embeddings.languages", "multi")
    plan = search_plan(settings, Maker(), query="コーヒーの淹れ方")
    assert plan.weights == settings.search


def test_related_reads_its_own_heat_fusion_lexical_and_note_weights() -> None:
    settings = Settings().with_overrides({"experimental.related_score_heat": 0.9,
                                          "experimental.search_score_heat": 0.4,
                                          "related.score_lexical": 0.1,
                                          "related.score_fusion": 0.3,
                                          "experimental.related_score_note": 0.2})  # fmt: skip
    plan = related_plan(settings, Maker())
    assert plan.weights == dataclasses.replace(settings.search, score_lexical=0.1,
                                               score_fusion=0.3, score_note=0.2)  # fmt: skip
    assert plan.heat == HeatParams.of(settings.experimental, 0.9)
    assert search_plan(settings, Maker()).weights == settings.search
    assert search_plan(settings, Maker()).heat == HeatParams.of(settings.experimental, 0.4)


@pytest.mark.parametrize(("graph", "lexical"), [(True, True), (False, True), (True, False)])
def test_stages_follow_the_request(graph: bool, lexical: bool) -> None:
    for plan in (search_plan(Settings(), Maker(), graph=graph, lexical=lexical),
                 related_plan(Settings(), Maker(), graph=graph, lexical=lexical)):  # fmt: skip
        assert plan.stages.graph is graph and plan.stages.lexical is lexical
        assert (plan.graph is GRAPH) is graph  # no graph, no heat stage


def test_related_blocks_the_query_note_and_search_filters() -> None:
    related = related_plan(Settings(), Maker())
    assert related.blocked == {3, 4} and related.allowed is None
    search = plan_for_search(Settings(), SearchRequest("coffee"), QUERIES, LEXICAL,
                             make_rerank=Maker(), graph=GRAPH, dense=None,
                             allowed={1, 2})  # fmt: skip
    assert search.allowed == {1, 2} and search.blocked == frozenset()
    assert search.queries == tuple(QUERIES) and search.lexical == tuple(LEXICAL)
