"""Issue #40 item 6: ``OnnxEmbedder.release`` drops the onnxruntime session (most of a model's
memory) and the next embed makes it again, with the same vectors; token counts keep the
tokenizer and need no session. The indexer releases its first model this way before the
second pass (tests/test_release_first_model.py covers the order with fakes)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from vaultheat.config import EmbeddingSettings, Settings, save_settings
from vaultheat.indexing.run import Indexer
from vaultheat.paths import index_paths
from vaultheat.providers.auto_backend import AutoEmbedder
from vaultheat.providers.base import Embedder
from vaultheat.providers.fake import FakeEmbedder
from vaultheat.providers.onnx_embedder import OnnxEmbedder

TEXTS = ["a note about links and backlinks", "graph view settings", "daily notes"]


def _embedder(model: Path, cache: Path) -> OnnxEmbedder:
    s = EmbeddingSettings(model=str(model), device="cpu", backend="onnx", precision="fp32")
    return OnnxEmbedder(s, cache_dir=cache)


def test_release_drops_the_session_and_the_next_embed_makes_it_again(
    tiny_st_dir: Path, tmp_path: Path
) -> None:
    e = _embedder(tiny_st_dir, tmp_path)
    before, query = e.embed_documents(TEXTS), e.embed_query("links")
    assert e.loaded
    e.release()
    assert not e.loaded and e._session is None
    assert e.count_tokens("a note about links") > 0  # the tokenizer stays
    assert not e.loaded  # counting made no session
    assert np.array_equal(e.embed_documents(TEXTS), before)
    assert np.array_equal(e.embed_query("links"), query)
    assert e.loaded


def test_release_before_any_load_is_harmless(tiny_st_dir: Path, tmp_path: Path) -> None:
    e = _embedder(tiny_st_dir, tmp_path)
    e.release()
    assert e.embed_documents(TEXTS[:1]).shape[0] == 1


def test_auto_releases_its_resolved_backend_only(tiny_st_dir: Path, tmp_path: Path) -> None:
    s = EmbeddingSettings(model=str(tiny_st_dir), device="cpu", precision="fp32")
    auto = AutoEmbedder(s, cache_dir=tmp_path, gpu_probe=lambda: False)
    auto.release()  # unresolved: nothing to drop, and nothing resolved for it
    assert auto._inner is None
    before = auto.embed_documents(TEXTS)
    assert auto.loaded
    auto.release()
    assert not auto.loaded
    assert np.array_equal(auto.embed_documents(TEXTS), before)


def test_after_a_second_pass_the_first_model_still_embeds(
    tiny_st_dir: Path, tmp_path: Path
) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    for t in ("coffee", "tea", "bread"):
        (vault / f"{t}.md").write_text(f"# {t}\n\nAll about {t}, how it is made and kept.\n")
    paths = index_paths(vault)
    paths.root.mkdir()
    settings = (
        Settings()
        .with_value("embeddings.model", str(tiny_st_dir))
        .with_value("embeddings.backend", "onnx")
        .with_value("embeddings.precision", "fp32")
        .with_value("embeddings.device", "cpu")
        .with_value("embeddings.second_space", "multilingual")
    )
    save_settings(paths.config, settings)
    first = _embedder(tiny_st_dir, tmp_path / "cache")
    before = first.embed_query("coffee")
    second: list[FakeEmbedder] = []

    def make_second(e: EmbeddingSettings) -> Embedder:
        second.append(FakeEmbedder(tag="multilingual"))
        return second[0]

    report = Indexer(paths, settings, first, make_second=make_second).run()
    assert report.chunks["second_space"] > 0 and second[0].embedded_count > 0
    assert not first.loaded  # given back before the second model ran
    assert np.array_equal(first.embed_query("coffee"), before)  # the engine's next query
    (vault / "honey.md").write_text("# honey\n\nAll about honey and bees.\n")
    again = Indexer(paths, settings, first, make_second=make_second).run()  # the next run
    assert again.chunks["embedded"] >= 1
