"""``embeddings.backend = "auto"``: onnx on CPU machines, torch on GPUs, torch when export fails.

Runs on the tiny model with a temporary ONNX cache; nothing reaches a model hub.
"""

from __future__ import annotations

import importlib.util
import logging
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from vaultheat.config import EmbeddingSettings
from vaultheat.errors import ConfigError, ProviderError
from vaultheat.providers import auto_backend, onnx_export
from vaultheat.providers.auto_backend import AutoEmbedder, preferred_backend
from vaultheat.providers.local import SentenceTransformerEmbedder
from vaultheat.providers.onnx_embedder import OnnxEmbedder


def auto(model: Path, cache: Path, *, gpu: bool = False, **kw: Any) -> AutoEmbedder:
    settings = EmbeddingSettings(model=str(model), backend="auto", **kw)
    return AutoEmbedder(settings, cache_dir=cache, gpu_probe=lambda: gpu)


@pytest.mark.parametrize(
    ("device", "gpu", "runtime", "expected"),
    [
        ("auto", False, True, "onnx"),
        ("cpu", False, True, "onnx"),
        ("cpu", True, True, "onnx"),  # the user asked for the CPU: onnx is the faster there
        ("auto", True, True, "torch"),  # an NVIDIA GPU: torch runs on it
        ("cuda", False, True, "torch"),
        ("mps", False, True, "torch"),
        ("auto", False, False, "torch"),  # onnxruntime not installed
    ],
)
def test_preferred_backend(
    monkeypatch: pytest.MonkeyPatch, device: str, gpu: bool, runtime: bool, expected: str
) -> None:
    real = importlib.util.find_spec

    def find_spec(name: str, *args: Any) -> Any:
        if name == "onnxruntime" and not runtime:
            return None
        return real(name, *args)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    settings = EmbeddingSettings(device=device)
    assert preferred_backend(settings, gpu_probe=lambda: gpu) == expected


def test_auto_is_the_default_and_lazy(tiny_st_dir: Path, tmp_path: Path) -> None:
    assert EmbeddingSettings().backend == "auto"
    emb = auto(tiny_st_dir, tmp_path)
    assert emb.name == str(tiny_st_dir) and not emb.loaded
    assert not any(tmp_path.iterdir())  # constructing it exported nothing


def test_cpu_resolves_to_onnx_with_its_fingerprint(tiny_st_dir: Path, tmp_path: Path) -> None:
    emb = auto(tiny_st_dir, tmp_path)
    direct = OnnxEmbedder(
        EmbeddingSettings(model=str(tiny_st_dir), backend="onnx", precision="int8"),
        cache_dir=tmp_path,
    )
    assert emb.fingerprint == direct.fingerprint
    assert emb.backend == "onnx" and "backend=onnx|int8" in emb.fingerprint
    texts = ["the cat sat on the mat", "quarterly tax filing"]
    np.testing.assert_allclose(emb.embed_documents(texts), direct.embed_documents(texts))
    assert emb.count_tokens("the cat sat") == direct.count_tokens("the cat sat")
    assert (emb.dimension, emb.max_tokens) == (direct.dimension, direct.max_tokens)
    assert emb.embed_query("cat").shape == (emb.dimension,)
    assert emb.fallback_reason is None


def test_gpu_resolves_to_torch(tiny_st_dir: Path, tmp_path: Path) -> None:
    emb = auto(tiny_st_dir, tmp_path, gpu=True)
    torch_emb = SentenceTransformerEmbedder(
        EmbeddingSettings(model=str(tiny_st_dir), backend="torch")
    )
    assert emb.backend == "torch" and emb.fingerprint == torch_emb.fingerprint
    assert not any(tmp_path.iterdir())  # no export attempted


def test_failed_export_falls_back_to_torch_and_sticks(
    tiny_st_dir: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    calls: list[Path] = []

    def broken_export(model_dir: Path, out_dir: Path, *, precision: str) -> Path:
        calls.append(out_dir)
        raise ProviderError("ONNX export of the model failed: unsupported op")

    monkeypatch.setattr(onnx_export, "export_model", broken_export)
    caplog.set_level(logging.WARNING, logger=auto_backend.__name__)
    first = auto(tiny_st_dir, tmp_path)
    assert first.backend == "torch" and "backend=torch" in first.fingerprint
    assert first.fallback_reason is not None and "unsupported op" in first.fallback_reason
    assert len(calls) == 1
    assert any("using the torch backend" in r.getMessage() for r in caplog.records)
    vecs = first.embed_documents(["a cat"])  # and it works: torch embeds
    assert vecs.shape == (1, first.dimension)

    # a later run does not retry (the index must not flip backends run to run) ...
    markers = list(tmp_path.glob("*.failed"))
    assert len(markers) == 1 and "unsupported op" in markers[0].read_text()
    again = auto(tiny_st_dir, tmp_path)
    assert again.fingerprint == first.fingerprint and len(calls) == 1
    # ... until the marker is deleted
    markers[0].unlink()
    monkeypatch.undo()
    retried = auto(tiny_st_dir, tmp_path)
    assert retried.backend == "onnx"


def test_explicit_onnx_that_cannot_export_is_an_error(
    tiny_st_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken_export(model_dir: Path, out_dir: Path, *, precision: str) -> Path:
        raise ProviderError("ONNX export failed")

    monkeypatch.setattr(onnx_export, "export_model", broken_export)
    emb = OnnxEmbedder(
        EmbeddingSettings(model=str(tiny_st_dir), backend="onnx"), cache_dir=tmp_path
    )
    with pytest.raises(ProviderError, match="export failed"):
        emb.embed_query("x")


def test_auto_embedder_refuses_other_backends() -> None:
    with pytest.raises(ConfigError):
        AutoEmbedder(EmbeddingSettings(backend="torch"))
