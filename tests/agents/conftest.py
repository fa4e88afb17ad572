"""Fixtures: the example vault indexed once with the fake embedder, configured so that a
``vaultheat mcp`` / ``agent`` / ``serve`` subprocess uses the fake embedder too."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import copy_vault, open_fake_index
from vaultheat.agents.backend import AutoBackend
from vaultheat.paths import index_paths
from vaultheat.providers.fake import FakeEmbedder

REPO = Path(__file__).resolve().parents[2]


def subprocess_env() -> dict[str, str]:
    """The environment for a vaultheat child: this checkout's code, no proxy, no hub."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO / "sidecar") + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("VAULTHEAT_INDEX_DIR", None)
    return env


def vaultheat_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "vaultheat", *args]


@pytest.fixture(scope="session")
def agent_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    vault = copy_vault(tmp_path_factory.mktemp("agents") / "vault")
    engine = open_fake_index(vault)
    engine.close()
    return vault


@pytest.fixture
def agent_vault(tmp_path: Path, agent_template: Path) -> Path:
    dest = tmp_path / "vault"
    shutil.copytree(agent_template, dest, symlinks=True)
    return dest


@pytest.fixture
def auto(agent_vault: Path) -> Iterator[AutoBackend]:
    backend = AutoBackend(index_paths(agent_vault), embedder=FakeEmbedder(), prefer_server=False)
    yield backend
    backend.close()
