"""``embeddings.backend = "auto"`` (the default): ONNX Runtime on CPU machines, torch on GPUs.

Measured (docs/onnx.md): on a CPU the onnx int8 export indexes the help vault about 4x faster
than torch with the eval metrics held, so it is the CPU default; a GPU runs torch faster than
either, so GPU machines keep torch.

Resolution happens once, the first time anything but ``name`` is asked, because the
fingerprint -- which the index manifest is checked against -- depends on it:

1. ``embeddings.device`` is ``cuda`` or ``mps``, or ``auto`` on a machine with an NVIDIA GPU,
   and torch + sentence-transformers are installed (the ``torch`` extra) -> torch;
2. onnxruntime, onnx or tokenizers cannot be imported -> torch;
3. otherwise onnx. Its export is made now (or found in the cache). When the export fails (an
   architecture the exporter does not handle, a model without a fast tokenizer), a marker
   ``<cache>/<key>.failed`` records why, a warning says so, and torch is used -- on this run
   and on every later one until the marker is deleted, so an index never flips between
   backends from one run to the next. Without the torch extra there is nothing to fall back
   to: the error is raised as it is (it names ``pip install 'vaultheat[torch]'`` when the
   model needs torch) and no marker is written.

Explicit ``backend = "torch"`` or ``"onnx"`` bypasses all of this (and an explicit onnx that
cannot export is an error, not a fallback).
"""

from __future__ import annotations

import dataclasses
import importlib.util
import logging
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from vaultheat.config import EmbeddingSettings
from vaultheat.errors import ConfigError, ModelMissingError, ProviderError
from vaultheat.providers.base import Embedder

log = logging.getLogger(__name__)

ONNX_RUNTIME_MODULES = ("onnxruntime", "onnx", "tokenizers")
GPU_DEVICES = ("cuda", "mps")
TORCH_MODULES = ("torch", "sentence_transformers")  # the `torch` extra


def has_nvidia_gpu() -> bool:
    """True when an NVIDIA driver is loaded (Linux) -- checked without importing torch."""
    return Path("/proc/driver/nvidia/version").exists()


def onnx_runtime_available() -> bool:
    return _importable(ONNX_RUNTIME_MODULES)


def torch_available() -> bool:
    """True when the ``torch`` extra is installed (checked without importing torch)."""
    return _importable(TORCH_MODULES)


def _importable(modules: tuple[str, ...]) -> bool:
    try:
        return all(importlib.util.find_spec(m) is not None for m in modules)
    except (ImportError, ValueError):  # a module set to None in sys.modules, or a broken one
        return False


def preferred_backend(
    settings: EmbeddingSettings, *, gpu_probe: Callable[[], bool] = has_nvidia_gpu
) -> str:
    """What ``auto`` means on this machine before any export is tried: "onnx" or "torch"."""
    if not onnx_runtime_available():
        return "torch"
    if not torch_available():
        return "onnx"
    if settings.device in GPU_DEVICES:
        return "torch"
    if settings.device == "auto" and gpu_probe():
        return "torch"
    return "onnx"


class AutoEmbedder:
    """An Embedder that picks the onnx or torch backend on first use, then delegates to it."""

    def __init__(
        self,
        settings: EmbeddingSettings,
        *,
        cache_dir: Path | None = None,
        gpu_probe: Callable[[], bool] = has_nvidia_gpu,
    ) -> None:
        if settings.backend != "auto":
            raise ConfigError(f"AutoEmbedder resolves backend 'auto', not {settings.backend!r}")
        self.settings = settings
        self.cache_dir = cache_dir
        self._gpu_probe = gpu_probe
        self._lock = threading.Lock()
        self._inner: Embedder | None = None
        self.fallback_reason: str | None = None

    # -- resolution ----------------------------------------------------------------------------
    @property
    def inner(self) -> Embedder:
        """The concrete embedder; resolving it may export the model once (see module doc)."""
        if self._inner is None:
            with self._lock:
                if self._inner is None:
                    self._inner = self._resolve()
        return self._inner

    @property
    def backend(self) -> str:
        return "onnx" if type(self.inner).__name__ == "OnnxEmbedder" else "torch"

    def _resolve(self) -> Embedder:
        if preferred_backend(self.settings, gpu_probe=self._gpu_probe) == "torch":
            return self._torch()
        from vaultheat.providers.onnx_embedder import OnnxEmbedder

        onnx = OnnxEmbedder(
            dataclasses.replace(self.settings, backend="onnx"), cache_dir=self.cache_dir
        )
        marker = onnx.export_dir.with_name(onnx.export_dir.name + ".failed")
        if marker.is_file():
            self.fallback_reason = _read(marker)
            log.info("embeddings: torch backend (ONNX export failed before: %s)", marker)
            return self._torch()
        try:
            onnx.prepare()
        except (ProviderError, ModelMissingError) as exc:
            if not torch_available():
                raise  # nothing to fall back to; the error says what to install
            self.fallback_reason = str(exc)
            _write_marker(marker, str(exc))
            log.warning(
                "embeddings: the ONNX export failed (%s); using the torch backend instead. "
                "Delete %s to try again.",
                exc,
                marker,
            )
            return self._torch()
        return onnx

    def _torch(self) -> Embedder:
        from vaultheat.providers.local import SentenceTransformerEmbedder

        return SentenceTransformerEmbedder(dataclasses.replace(self.settings, backend="torch"))

    # -- Embedder ------------------------------------------------------------------------------
    @property
    def name(self) -> str:
        return self.settings.model

    @property
    def loaded(self) -> bool:
        return self._inner is not None and bool(getattr(self._inner, "loaded", True))

    @property
    def document_prefix(self) -> str:
        return str(getattr(self.inner, "document_prefix", "") or "")

    @property
    def dimension(self) -> int:
        return self.inner.dimension

    @property
    def fingerprint(self) -> str:
        return self.inner.fingerprint

    @property
    def max_tokens(self) -> int:
        return self.inner.max_tokens

    def count_tokens(self, text: str) -> int:
        return self.inner.count_tokens(text)

    def word_token_spans(self, text: str) -> tuple[list[int], list[int], list[int]] | None:
        spans = getattr(self.inner, "word_token_spans", None)
        return spans(text) if spans is not None else None

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> np.ndarray:
        return self.inner.embed_query(text)

    def release(self) -> None:
        """The resolved backend's ``release`` (providers/memory.py); nothing before it is."""
        from vaultheat.providers.memory import release_model

        if self._inner is not None:
            release_model(self._inner)


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8").strip()
    except OSError:
        return "unknown"


def _write_marker(marker: Path, reason: str) -> None:
    try:
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.write_text(reason + "\n", encoding="utf-8")
    except OSError as exc:  # a read-only cache: fall back anyway, just retry next time
        log.debug("cannot write %s: %s", marker, exc)
