"""``Engine.with_settings``: an engine for other settings on the same open index. It answers
with its own settings while the original keeps its own (the evaluation runs its configurations
this way instead of swapping ``engine.settings``); settings that change what the index stores
are a mismatch error, not a number measured with the old model's vectors; closing it leaves
the original open."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

import vaultheat.evaluation.heldout as heldout_mod
import vaultheat.modelset as modelset_mod
from vaultheat.core.requests import SearchRequest
from vaultheat.engine import Engine
from vaultheat.errors import IndexMismatchError
from vaultheat.evaluation.harness import EvalConfig, run_search_eval
from vaultheat.evaluation.sets import SearchItem

QUERY = "espresso extraction"  # a note's name in the test vault: the title part moves it
NOTE = "Coffee/Brewing/Espresso Extraction.md"


def _scores(engine: Engine) -> dict[str, float]:
    res = engine.search(SearchRequest(QUERY, top=20, files_only=True))
    return {r.path: r.score for r in res.results}


def test_a_derived_engine_answers_with_its_own_settings(fake_engine: Engine) -> None:
    base = fake_engine.settings
    off = fake_engine.with_settings(base.with_value("search.score_title", 0.0))
    assert off.settings.search.score_title == 0.0
    assert fake_engine.settings is base and base.search.score_title != 0.0
    with_title, without = _scores(fake_engine), _scores(off)
    assert with_title != without  # the title part counts on one and not on the other
    assert _scores(fake_engine) == with_title  # the original is unchanged by the derived run
    assert (
        off.models.embedder is fake_engine.models.embedder
        and off.models.cache is fake_engine.models.cache
    )


def test_an_evaluation_never_swaps_the_engines_settings(
    fake_engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a concurrent reader of ``engine.settings`` saw during ``run_search_eval``: always
    the engine's own settings object, although every configuration was run."""
    base = fake_engine.settings
    seen: list[object] = []
    used: list[float] = []
    search = Engine.search

    def spy(self: Engine, req: SearchRequest) -> Any:
        seen.append(fake_engine.settings)
        used.append(self.settings.search.score_title)
        return search(self, req)

    monkeypatch.setattr(Engine, "search", spy)
    configs = [EvalConfig("default"), EvalConfig("no-title", {"search.score_title": 0.0}),
               EvalConfig("heavy-title", {"search.score_title": 9.0})]  # fmt: skip
    items = [SearchItem(QUERY, (NOTE,))]
    out = run_search_eval(fake_engine, items, configs)
    assert [r.name for r in out] == ["default", "no-title", "heavy-title"]
    assert used == [base.search.score_title, 0.0, 9.0]
    assert seen and all(s is base for s in seen)
    assert fake_engine.settings is base


def test_a_heldout_run_never_swaps_the_engines_settings(
    fake_engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = fake_engine.settings
    seen: list[object] = []
    weights: list[float] = []
    run_related = heldout_mod.run_related

    def spy(view: Any, models: Any, settings: Any, req: Any, **kw: Any) -> Any:
        seen.append(fake_engine.settings)
        weights.append(settings.related.vote_weight)
        return run_related(view, models, settings, req, **kw)

    monkeypatch.setattr(heldout_mod, "run_related", spy)
    configs = [EvalConfig("plain", votes=False),
               EvalConfig("votes", {"related.vote_weight": 0.7}, votes=True)]  # fmt: skip
    heldout_mod.run_heldout(fake_engine, configs, share=0.3, seeds=2)
    assert seen and all(s is base for s in seen)
    assert 0.7 in weights and base.related.vote_weight in weights
    assert fake_engine.settings is base


MISMATCHES = [
    ("embeddings.model", "another-model"),
    ("embeddings.provider", "local"),
    ("embeddings.query_prefix", "query: "),
    ("chunking.min_chars", 7),
]


@pytest.mark.parametrize(("key", "value"), MISMATCHES)
def test_settings_that_change_the_stored_index_are_a_mismatch(
    fake_engine: Engine, key: str, value: Any
) -> None:
    with pytest.raises(IndexMismatchError, match=key.replace(".", r"\.")) as err:
        fake_engine.with_settings(fake_engine.settings.with_value(key, value))
    assert err.value.context["changed"] == [key]
    assert _scores(fake_engine)  # the original still answers


def test_an_eval_config_naming_another_embedding_model_is_an_error(fake_engine: Engine) -> None:
    configs = [EvalConfig("default"), EvalConfig("e5", {"embeddings.model": "e5-small"})]
    with pytest.raises(IndexMismatchError, match=r"embeddings\.model"):
        run_search_eval(fake_engine, [SearchItem(QUERY, (NOTE,))], configs)


def test_query_time_embeddings_keys_may_change(fake_engine: Engine) -> None:
    derived = fake_engine.with_settings(
        fake_engine.settings.with_value("embeddings.languages", "multi")
    )
    assert derived.settings.embeddings.languages == "multi"
    assert _scores(derived)


def test_closing_a_derived_engine_leaves_the_original_open(fake_engine: Engine) -> None:
    before = _scores(fake_engine)
    derived = fake_engine.with_settings(fake_engine.settings.with_value("search.top", 3))
    assert _scores(derived)
    derived.close()
    assert _scores(fake_engine) == before
    assert fake_engine.status()


@dataclass
class Made:
    model: str


def test_a_derived_engine_makes_its_own_models_and_never_replaces_the_originals(
    fake_engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[str] = []

    def reranker(settings: Any, **_: Any) -> Made:
        calls.append(settings.model)
        return Made(settings.model)

    monkeypatch.setattr(modelset_mod, "make_reranker", reranker)
    a = fake_engine.with_settings(fake_engine.settings.with_value("rerank.model", "ce-a"))
    assert _reranker(a) == Made("ce-a")
    b = a.with_settings(a.settings.with_value("rerank.model", "ce-b"))
    same = a.with_settings(a.settings.with_value("search.top", 3))
    assert _reranker(b) == Made("ce-b")
    assert _reranker(same) is _reranker(a)  # made already: shared, not made again
    assert _reranker(a) == Made("ce-a")
    assert calls == ["ce-a", "ce-b"]


def _reranker(engine: Engine) -> object:
    """The reranker ``engine`` answers with (made for its settings)."""
    return engine.models.reranker(engine.settings.rerank)
