"""The keyword fallback weighs the candidates it has again (``pipeline.rescore``) instead of
retrieving a second time: its results must be those of the full second retrieval it replaced.

The reference is the old path itself: ``search.rescore`` swapped for ``pipeline.retrieve``
with the fallback plan. Scores are compared to 1e-9 relative (they come out exactly equal:
the same parts summed in the same order)."""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np
import pytest

import vaultheat.core.query.search as search_mod
from tests.conftest import search_doc
from vaultheat.config import SearchSettings
from vaultheat.core.query import pipeline
from vaultheat.core.query.pipeline import (
    Candidates,
    ranked,
    rerank,
    rescore,
    retrieve,
    score_parts,
)
from vaultheat.core.query.plan import QueryVector, RetrievalPlan, Stages
from vaultheat.core.query.scoring import combine
from vaultheat.core.requests import SearchRequest
from vaultheat.engine import Engine
from vaultheat.modelset import ModelSet
from vaultheat.providers.fake import FakeReranker

# keyword queries over examples/vault whose words lead (ranked_by "words"): rare words, a
# German one, two-word queries, and note names (the title part)
QUERIES = ["aeropress", "aphids", "acidity", "allotment", "arbeitsweg", "altitude",
           "espresso grind", "garden compost", "meeting notes", "budget"]  # fmt: skip
REL = 1e-9


class CountingReranker(FakeReranker):
    def __init__(self) -> None:
        super().__init__()
        self.texts = 0

    def score(self, query: str, texts: Any) -> list[float]:
        self.texts += len(texts)
        return super().score(query, texts)


def _same(a: Any, b: Any, where: str = "") -> None:
    if isinstance(a, float) and isinstance(b, float):
        assert math.isclose(a, b, rel_tol=REL, abs_tol=1e-12), f"{where}: {a} != {b}"
    elif isinstance(a, dict) and isinstance(b, dict):
        assert a.keys() == b.keys(), where
        for k in a:
            _same(a[k], b[k], f"{where}.{k}")
    elif isinstance(a, list) and isinstance(b, list):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _same(x, y, f"{where}[{i}]")
    else:
        assert a == b, f"{where}: {a!r} != {b!r}"


def _full_second_retrieval(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fallback as it was before rescore: retrieve again with the fallback plan."""
    seen: dict[str, Any] = {}

    def find(store: Any, vectors: Any, plan: RetrievalPlan) -> Candidates:
        seen["at"] = (store, vectors)
        return pipeline.find_candidates(store, vectors, plan)

    def again(cands: Candidates, parts: Any, plan: RetrievalPlan, reranked: Any) -> Any:
        return retrieve(*seen["at"], plan)

    monkeypatch.setattr(search_mod, "find_candidates", find)
    monkeypatch.setattr(search_mod, "rescore", again)


def _record(monkeypatch: pytest.MonkeyPatch, into: list[dict[str, Any]]) -> None:
    """Keep each search's retrieval at full precision (the documents round scores)."""
    real = search_mod.search_retrieval

    def spy(*args: Any) -> Any:
        plan, r, ranked_by = real(*args)
        into.append({"order": r.order, "final": r.final, "raw": r.raw, "normalized": r.normalized,
                     "weights": r.weights, "seeds": r.seeds, "seed_stage": r.seed_stage,
                     "pointers": r.pointers, "ranked_by": ranked_by})  # fmt: skip
        return plan, r, ranked_by

    monkeypatch.setattr(search_mod, "search_retrieval", spy)


def _docs(engine: Engine, **kw: Any) -> dict[str, Any]:
    out = {}
    for q in QUERIES:
        for files_only in (False, True):
            req = SearchRequest(query=q, explain=True, files_only=files_only, top=20, **kw)
            doc = search_doc(engine, req)
            doc.pop("took_ms")
            assert doc["results"], q
            out[f"{q}|{files_only}"] = doc
    return out


@pytest.mark.parametrize("reranked", [False, True], ids=["no-rerank", "rerank-shortlist-5"])
def test_rescore_gives_the_full_second_retrieval(
    fake_engine: Engine, monkeypatch: pytest.MonkeyPatch, reranked: bool
) -> None:
    counter = CountingReranker()
    engine = fake_engine
    if reranked:
        fake_engine.models = ModelSet(fake_engine.models.embedder, reranker=counter)
        engine = fake_engine.with_settings(fake_engine.settings.with_value("rerank.shortlist", 5))
    new_r: list[dict[str, Any]] = []
    old_r: list[dict[str, Any]] = []
    with monkeypatch.context() as m:
        _record(m, new_r)
        new = _docs(engine, rerank=reranked)
    # the fallback ran: for every query, or with a rerank for those whose word matches made
    # the shortlist (the words must lead among the chunks it kept)
    words = [q for q, doc in new.items() if doc["ranked_by"] == "words"]
    assert len(words) == len(new) if not reranked else len(words) >= len(new) // 2
    scored_by_rescore = counter.texts
    with monkeypatch.context() as m:
        _full_second_retrieval(m)
        _record(m, old_r)
        old = _docs(engine, rerank=reranked)
    # paths, chunk ids, scores, components and the explain trace, hit by hit
    _same(new, old)
    _same(new_r, old_r)
    if reranked:
        first = new["aeropress|False"]["results"][0]
        assert first["components"]["rerank"] is not None
        # the second pass asks the reranker only about chunks new to the shortlist
        assert 0 < scored_by_rescore < counter.texts - scored_by_rescore


# -- rescore on its own: three candidates, the words decide once weighed up


class RecordingRerank:
    """A rerank function that keeps the chunk ids it was asked about."""

    def __init__(self) -> None:
        self.asked: list[list[int]] = []

    def __call__(self, ids: list[int]) -> dict[int, float]:
        self.asked.append(list(ids))
        return {c: {1: 0.2, 2: 0.9, 3: 0.5}[c] for c in ids}


def _plan(rerank_fn: RecordingRerank, lexical: float = 0.05) -> RetrievalPlan:
    return RetrievalPlan(
        queries=(QueryVector(np.ones(2, dtype=np.float32), 1.0, "vector"),),
        lexical=(("word", 1.0, "lexical"),),
        weights=SearchSettings(score_lexical=lexical, score_note=0.0, score_page=0.0),
        stages=Stages(rerank=True),
        rerank=rerank_fn,
        rerank_shortlist=2,
    )


def _cands(plan: RetrievalPlan) -> Candidates:
    return Candidates(
        ids=[1, 2, 3],
        seeds={1: 0.02, 2: 0.015, 3: 0.01},
        seed_stage={1: "vector", 2: "vector", 3: "lexical"},
        heat=None,
        sims={1: 0.9, 2: 0.6, 3: 0.1},
        lexical={3: 8.0, 2: 1.0},
        names=None,
        qmat=np.ones((1, 2), dtype=np.float32),
        weights=plan.weights,
    )


def test_rescore_unit_reuses_rerank_scores_and_matches_a_fresh_ranking() -> None:
    asked = RecordingRerank()
    plan = _plan(asked)
    cands = _cands(plan)
    parts = score_parts(cands, plan)
    first = ranked(cands, rerank(parts, plan))
    assert asked.asked == [[1, 2]]
    assert first.order == [1, 2]

    words = dataclasses.replace(plan, weights=dataclasses.replace(plan.weights, score_lexical=1.5))
    again = rescore(cands, parts, words, first.raw["rerank"] or {})
    # the words lift chunk 3 into the shortlist: only it goes to the reranker
    assert asked.asked == [[1, 2], [3]]
    assert again.order == [3, 1]
    # what a fresh ranking of the same candidates under the new weights gives
    fresh_plan = _plan(RecordingRerank(), lexical=1.5)
    fresh = ranked(cands, rerank(score_parts(cands, fresh_plan), fresh_plan))
    assert again.order == fresh.order
    assert again.final == fresh.final
    assert again.raw == fresh.raw
    # and the score arithmetic still adds up: final = sum of weights x normalized parts
    check = combine(again.order, again.raw, pipeline.score_weights(words), ("title",))
    for c in again.order:
        assert math.isclose(check.final[c], again.final[c], rel_tol=REL)


def test_rescore_refuses_a_plan_that_retrieves_differently() -> None:
    plan = _plan(RecordingRerank())
    cands = _cands(plan)
    other = dataclasses.replace(plan, weights=dataclasses.replace(plan.weights, vector_top=5))
    with pytest.raises(ValueError, match="score weights only"):
        rescore(cands, score_parts(cands, plan), other, {})
