"""Models made from the settings are keyed by them: asking ``engine.models`` with a config naming
another model (an engine from ``Engine.with_settings``: the CLI, the eval harness, the sweep)
gets that model, not the cached one; an injected model stays. A fake factory stands in for the
model loaders."""

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
    models = fake_engine.models
    base = fake_engine.settings.with_value("rerank.model", "ce-a")
    assert models.reranker(base.rerank) == Made("ce-a")
    assert models.reranker(base.rerank) == Made("ce-a") and calls == ["rerank:ce-a"]  # cached
    assert models.reranker(base.with_value("rerank.model", "ce-b").rerank) == Made("ce-b")
    other = base.with_value("search.top", 7)  # other sections: same model
    assert models.reranker(other.rerank) == Made("ce-a")
    assert calls == ["rerank:ce-a", "rerank:ce-b", "rerank:ce-a"]


def test_a_config_naming_another_generator_gets_that_generator(
    fake_engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = _factories(monkeypatch)
    models = fake_engine.models
    on = fake_engine.settings.with_value("expansion.enabled", True)
    assert models.generator(on.with_value("expansion.model", "gen-a").expansion) == Made("gen-a")
    assert models.generator(on.with_value("expansion.model", "gen-b").expansion) == Made("gen-b")
    assert models.generator(on.with_value("expansion.enabled", False).expansion) is None
    assert calls == ["gen:gen-a", "gen:gen-b"]


def test_an_injected_reranker_stays_whatever_the_settings(
    fake_engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = _factories(monkeypatch)
    mine = Made("injected")
    engine = Engine(fake_engine.paths, fake_engine.settings, embedder=fake_engine.models.embedder,
                    reranker=mine)  # type: ignore[arg-type]  # fmt: skip
    other = engine.with_settings(engine.settings.with_value("rerank.model", "ce-b"))
    assert other.models.reranker(other.settings.rerank) is mine and calls == []
    engine.close()
