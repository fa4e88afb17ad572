"""The README's multilingual switch: a hub model is downloaded once where a network exists, and
without one the error names the exact next step. A fake hub (``snapshot_download``) stands in
for the network: tests never touch it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import huggingface_hub
import pytest

from vaultheat.config import EmbeddingSettings
from vaultheat.errors import ModelMissingError
from vaultheat.providers.auto_backend import AutoEmbedder
from vaultheat.providers.onnx_embedder import find_cached_hub_model

MODEL = "intfloat/multilingual-e5-small"


class FakeHub:
    """A hub cache in a folder; ``network`` says whether a download can succeed."""

    def __init__(self, root: Path, *, network: bool) -> None:
        self.root, self.network = root, network
        self.downloads: list[str] = []

    def __call__(self, repo_id: str, *, local_files_only: bool = False, **kw: Any) -> str:
        path = self.root / repo_id.replace("/", "--")
        if path.is_dir():
            return str(path)
        if local_files_only:
            raise FileNotFoundError(f"{repo_id} not cached")
        if not self.network:
            raise ConnectionError("no network")
        self.downloads.append(repo_id)
        path.mkdir(parents=True)
        (path / "config.json").write_text("{}", encoding="utf-8")
        return str(path)


@pytest.fixture(autouse=True)
def online(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)


def test_cached_model_is_used_without_download(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hub = FakeHub(tmp_path, network=True)
    (tmp_path / MODEL.replace("/", "--")).mkdir()
    monkeypatch.setattr(huggingface_hub, "snapshot_download", hub)
    assert find_cached_hub_model(MODEL) == tmp_path / MODEL.replace("/", "--")
    assert hub.downloads == []


def test_uncached_model_is_downloaded_once_with_a_network(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hub = FakeHub(tmp_path, network=True)
    monkeypatch.setattr(huggingface_hub, "snapshot_download", hub)
    path = find_cached_hub_model(MODEL)
    assert (path / "config.json").is_file()
    assert find_cached_hub_model(MODEL) == path
    assert hub.downloads == [MODEL]


@pytest.mark.parametrize("offline", [False, True], ids=["no-network", "offline-env"])
def test_without_a_network_the_message_names_the_next_step(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, offline: bool
) -> None:
    hub = FakeHub(tmp_path, network=False)
    monkeypatch.setattr(huggingface_hub, "snapshot_download", hub)
    if offline:
        monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(ModelMissingError) as info:
        find_cached_hub_model(MODEL)
    message = info.value.message
    assert "never downloads" not in message
    assert f"S('{MODEL}').save('DIR')" in message
    assert "vaultheat config set embeddings.model DIR" in message
    assert "index --full" in message


def test_auto_backend_reports_the_lookup_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(huggingface_hub, "snapshot_download", FakeHub(tmp_path, network=False))
    monkeypatch.setattr("vaultheat.providers.auto_backend.onnx_runtime_available", lambda: True)
    emb = AutoEmbedder(EmbeddingSettings(model=MODEL), cache_dir=tmp_path / "cache",
                       gpu_probe=lambda: False)  # fmt: skip
    with pytest.raises(ModelMissingError, match="could not be downloaded"):
        _ = emb.fingerprint
