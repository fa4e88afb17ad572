"""The rerank stage end to end: a tiny cross-encoder built on the fly reorders a shortlist."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from tests.conftest import search_doc
from tests.providers.tiny_models import build_tiny_cross_encoder
from vaultheat.config import RerankSettings
from vaultheat.core.query.explain import recompute_final
from vaultheat.core.requests import SearchRequest
from vaultheat.engine import Engine
from vaultheat.modelset import ModelSet
from vaultheat.providers.rerank import CrossEncoderReranker


@pytest.fixture(scope="module")
def tiny_ce(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_cross_encoder(tmp_path_factory.mktemp("ce") / "ce")


def test_rerank_scores_a_capped_shortlist_and_stays_faithful(
    fake_engine: Engine, tiny_ce: Path
) -> None:
    settings = RerankSettings(enabled=True, model=str(tiny_ce), shortlist=7, device="cpu")
    # injected: kept whatever the settings
    fake_engine.models = ModelSet(
        fake_engine.models.embedder, reranker=CrossEncoderReranker(settings)
    )
    engine = fake_engine.with_settings(fake_engine.settings.with_value("rerank.shortlist", 7))
    doc = search_doc(engine, SearchRequest(query="coffee roasting", top=20, rerank=True,
                                           explain=True))  # fmt: skip
    results = doc["results"]
    assert 0 < len(results) <= 7, "only the shortlist survives a rerank"
    for r in results:
        assert r["components"]["rerank"] is not None
        assert math.isclose(recompute_final(r["explain"]["components"]), r["score"], abs_tol=1e-5)
    off = search_doc(engine, SearchRequest(query="coffee roasting", top=20, rerank=False))
    assert all(r["components"]["rerank"] is None for r in off["results"])
    assert len(off["results"]) > 7


def test_no_reranker_configured_means_rerank_off(fake_engine: Engine) -> None:
    engine = fake_engine.with_settings(fake_engine.settings.with_value("rerank.enabled", True))
    # the rerank settings changed: the engine asks make_reranker again (model empty: None)
    doc = search_doc(engine, SearchRequest(query="coffee roasting", top=5))
    assert doc["results"] and all(r["components"]["rerank"] is None for r in doc["results"])
