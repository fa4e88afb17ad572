"""Models made from the settings are keyed by them: reassigning ``engine.settings`` (the CLI,
the eval harness, the sweep) to a config naming another model gets that model, not the cached
one; an injected model stays. A fake factory stands in for the model loaders."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

import vaultheat.modelset as engine_mod
from vaultheat.engine import Engine


@dataclass
class Made:
    model: str


def _factories(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    calls: list[str] = []

    def reranker(settings: Any, **_: Any) -> Made:
        calls.append("rerank:" + settings.model)
        return Made(settings.model)

    def generator(settings: Any) -> Made:
        calls.append("gen:" + settings.model)
        return Made(settings.model)

    monkeypatch.setattr(engine_mod, "make_reranker", reranker)
    monkeypatch.setattr(engine_mod, "make_generator", generator)
    return calls


def test_a_config_naming_another_reranker_gets_that_reranker(
    fake_engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = _factories(monkeypatch)
    base = fake_engine.settings.with_value("rerank.model", "ce-a")
    fake_engine.settings = base
    assert fake_engine.reranker == Made("ce-a")
    assert fake_engine.reranker == Made("ce-a") and calls == ["rerank:ce-a"]  # cached
    fake_engine.settings = base.with_value("rerank.model", "ce-b")
    assert fake_engine.reranker == Made("ce-b")
    fake_engine.settings = base.with_value("search.top", 7)  # other sections: same model
    assert fake_engine.reranker == Made("ce-a")
    assert calls == ["rerank:ce-a", "rerank:ce-b", "rerank:ce-a"]


def test_a_config_naming_another_generator_gets_that_generator(
    fake_engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = _factories(monkeypatch)
    on = fake_engine.settings.with_value("expansion.enabled", True)
    fake_engine.settings = on.with_value("expansion.model", "gen-a")
    assert fake_engine.generator == Made("gen-a")
    fake_engine.settings = on.with_value("expansion.model", "gen-b")
    assert fake_engine.generator == Made("gen-b")
    fake_engine.settings = on.with_value("expansion.enabled", False)
    assert fake_engine.generator is None
    assert calls == ["gen:gen-a", "gen:gen-b"]


def test_an_injected_reranker_stays_whatever_the_settings(
    fake_engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = _factories(monkeypatch)
    mine = Made("injected")
    engine = Engine(fake_engine.paths, fake_engine.settings, embedder=fake_engine.embedder,
                    reranker=mine)  # type: ignore[arg-type]  # fmt: skip
    engine.settings = engine.settings.with_value("rerank.model", "ce-b")
    assert engine.reranker is mine and calls == []
    engine.close()
