"""Session-scoped tiny models (built once, on the fly, offline) for the provider tests."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from tiny_models import build_tiny_cross_encoder, build_tiny_sentence_transformer

sys.path.pop(0)

# the tiny models are local directories: nothing here may reach a model hub
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")


@pytest.fixture(scope="session")
def tiny_st_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_sentence_transformer(tmp_path_factory.mktemp("tiny") / "st")


@pytest.fixture(scope="session")
def tiny_ce_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_cross_encoder(tmp_path_factory.mktemp("tiny") / "ce")


@pytest.fixture(autouse=True)
def exports_in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """First-use exports run here, not in a spawned child (``onnx_export.run_in_child``): the
    tests' monkeypatches then reach them, and no test pays a fresh interpreter's torch import.
    ``test_onnx_memory`` checks the child itself."""
    from vaultheat.providers import onnx_embedder

    monkeypatch.setattr(onnx_embedder, "run_in_child", lambda fn, *args: fn(*args))
