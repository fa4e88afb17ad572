"""Shared fixtures: a private copy of the example vault and an engine on the fake embedder."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
EXAMPLE_VAULT = REPO / "examples" / "vault"


def _shared() -> Path:
    """The shared corpora (corpus/, eval/): $VAULTHEAT_SHARED as bench/ reads it, else the
    ``shared`` folder beside the repo, else beside the repo a clean clone was made from (CI
    clones the working repo elsewhere: its ``origin`` is that repo's folder)."""
    if os.environ.get("VAULTHEAT_SHARED"):
        return Path(os.environ["VAULTHEAT_SHARED"])
    beside = REPO.parent / "shared"
    if beside.is_dir():
        return beside
    try:
        out = subprocess.run(["git", "-C", str(REPO), "remote", "get-url", "origin"],
                             capture_output=True, text=True, timeout=10, check=False)  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return beside
    origin = Path(out.stdout.strip()) if out.returncode == 0 else None
    if origin is not None and origin.is_absolute() and (origin.parent / "shared").is_dir():
        return origin.parent / "shared"
    return beside


SHARED = _shared()
CORPUS = SHARED / "corpus"


def copy_vault(dst: Path) -> Path:
    shutil.copytree(EXAMPLE_VAULT, dst, symlinks=True)
    return dst


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    return copy_vault(tmp_path / "vault")


def open_fake_index(vault: Path) -> Any:
    """Give ``vault`` an index folder configured for the fake embedder, index it, and return the
    open engine (the caller closes it)."""
    from vaultheat.config import Settings, save_settings
    from vaultheat.engine import Engine
    from vaultheat.paths import index_paths
    from vaultheat.providers.fake import FakeEmbedder

    paths = index_paths(vault)
    paths.root.mkdir()
    save_settings(paths.config, Settings().with_value("embeddings.provider", "fake"))
    engine = Engine.open(vault, embedder=FakeEmbedder())
    engine.index()
    return engine


@pytest.fixture
def fake_engine(vault: Path) -> Iterator[object]:
    engine = open_fake_index(vault)
    yield engine
    engine.close()


def corpus_vault(name: str) -> Path:
    path = CORPUS / name
    if not path.is_dir():
        pytest.skip(f"shared corpus {path} is not present (it lives beside the repo in CI)")
    return path


# The query documents as clients get them (``vaultheat.documents`` over the engine's typed
# results): tests that check the wire contract read these.
def search_doc(engine: Any, req: Any) -> dict[str, Any]:
    from vaultheat.documents import search_document

    return search_document(engine.search(req))


def related_doc(engine: Any, req: Any) -> dict[str, Any]:
    from vaultheat.documents import related_document

    return related_document(engine.related(req))


def explain_related_doc(engine: Any, req: Any, target: str) -> dict[str, Any]:
    from vaultheat.documents import explain_document

    return explain_document(engine.explain(req, target))


def status_doc(engine: Any) -> dict[str, Any]:
    """The ``vaultheat.status.v1`` document of the engine's index, as ``status --json``."""
    from vaultheat.documents import status_document

    return status_document(engine.status())


@pytest.fixture
def hnsw_files(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every vector space in hnswlib with its file, as a vault of over ``EXACT_MAX`` chunks has
    them (a small vault's spaces are exact and keep no file: storage/vectorspace.py)."""
    from vaultheat.storage import vectorspace

    monkeypatch.setattr(vectorspace, "EXACT_MAX", -1)
