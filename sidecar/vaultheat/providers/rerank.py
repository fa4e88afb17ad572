"""Local cross-encoder reranking; optional, so a missing model turns it off instead of failing.

Scores: cross-encoders disagree on their output activation (some configs say sigmoid, some
identity, i.e. raw logits), so we always ask for raw logits and apply the activation ourselves:
a sigmoid for single-logit models, the softmax probability of the last class for classifiers.
Scores are then in (0, 1) and comparable across models; ranking is unchanged by the activation.

``make_reranker`` is the seam the search shells use. Rerank is a quality boost, never a
requirement: when it is off, unconfigured or its model cannot load, it logs ONE warning line
saying why and returns None, and search proceeds without the stage. By default it loads the model
right away (``eager``) so that the failure shows up there and not in the middle of a query.
"""

from __future__ import annotations

import inspect
import logging
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from vaultheat.config import RerankSettings
from vaultheat.errors import ModelMissingError, ProviderError, VaultheatError
from vaultheat.providers.base import Reranker
from vaultheat.providers.local import is_offline, looks_like_path, resolve_device

log = logging.getLogger(__name__)


def sigmoid(x: np.ndarray) -> np.ndarray:
    """Numerically stable logistic function."""
    out = np.empty_like(x, dtype=np.float64)
    pos = x >= 0
    out[pos] = 1.0 / (1.0 + np.exp(-x[pos]))
    ex = np.exp(x[~pos])
    out[~pos] = ex / (1.0 + ex)
    return out


def activate_logits(logits: np.ndarray) -> np.ndarray:
    """(n,) or (n, 1) -> sigmoid; (n, k>1) -> softmax probability of the last class."""
    arr = np.asarray(logits, dtype=np.float64)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    if arr.ndim == 1:
        return sigmoid(arr)
    shifted = arr - arr.max(axis=1, keepdims=True)
    exp = np.exp(shifted)
    return exp[:, -1] / exp.sum(axis=1)


class CrossEncoderReranker:
    """Reranker over sentence_transformers.CrossEncoder, loaded on first use under a lock."""

    def __init__(self, settings: RerankSettings, *, batch_size: int = 32) -> None:
        if not settings.model:
            raise ProviderError("rerank.model is empty: no reranker configured")
        self.settings = settings
        self.batch_size = batch_size
        self._lock = threading.Lock()
        self._model: Any = None
        self._activation_kw: str | None = None

    @property
    def name(self) -> str:
        return self.settings.model

    @property
    def loaded(self) -> bool:
        return self._model is not None

    def load(self) -> None:
        """Load the model now (idempotent); ModelMissingError when it cannot be loaded."""
        if self._model is not None:
            return
        with self._lock:
            if self._model is None:
                self._model = self._load()

    def score(self, query: str, texts: Sequence[str]) -> list[float]:
        if not texts:
            return []
        self.load()
        import torch

        kwargs: dict[str, Any] = {
            "batch_size": self.batch_size,
            "show_progress_bar": False,
            "convert_to_numpy": True,
        }
        if self._activation_kw is not None:
            kwargs[self._activation_kw] = torch.nn.Identity()
        try:
            logits = self._model.predict([(query, t) for t in texts], **kwargs)
        except Exception as exc:
            raise ProviderError(f"rerank with {self.name!r} failed: {exc}") from exc
        return [float(s) for s in activate_logits(np.asarray(logits))]

    def _load(self) -> Any:
        try:
            from sentence_transformers import CrossEncoder
        except ImportError as exc:
            raise ModelMissingError(
                "reranking needs torch and sentence-transformers: `pip install 'vaultheat[torch]'`"
            ) from exc
        model_id = self.settings.model
        path = Path(model_id).expanduser()
        if looks_like_path(model_id) and not path.is_dir():
            raise ModelMissingError(f"reranker directory not found: {model_id}", path=str(path))
        location = str(path) if path.is_dir() else model_id
        device = resolve_device(self.settings.device)
        try:
            model = CrossEncoder(location, device=device, local_files_only=True)
        except Exception as cached_exc:
            if path.is_dir() or is_offline():
                raise ModelMissingError(
                    f"cannot load reranker {model_id!r}: {cached_exc}", model=model_id
                ) from cached_exc
            try:
                model = CrossEncoder(location, device=device)
            except Exception as exc:
                raise ModelMissingError(
                    f"cannot load reranker {model_id!r}: {exc}", model=model_id
                ) from exc
        params = inspect.signature(model.predict).parameters
        # sentence-transformers >= 4 names it activation_fn, 3.x activation_fct
        self._activation_kw = next(
            (kw for kw in ("activation_fn", "activation_fct") if kw in params), None
        )
        return model


def make_reranker(settings: RerankSettings, *, eager: bool = True) -> Reranker | None:
    """A reranker, or None (with one log line saying why) when rerank is off or unavailable."""
    if not settings.enabled:
        log.info("rerank: off (disabled in settings)")
        return None
    if not settings.model:
        log.warning("rerank: off (no reranker configured)")
        return None
    reranker = CrossEncoderReranker(settings)
    if eager:
        try:
            reranker.load()
        except VaultheatError as exc:
            log.warning("rerank: off (%s)", exc.message)
            return None
        except Exception as exc:  # a broken install must not take search down
            log.warning("rerank: off (cannot load %r: %s)", settings.model, exc)
            return None
    return reranker
