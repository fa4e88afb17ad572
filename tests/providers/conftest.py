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
