"""The fakes must behave like real providers where tests rely on them."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from vaultheat.providers.base import Embedder, Generator, Reranker
from vaultheat.providers.fake import (
    FakeEmbedder,
    FakeGenerator,
    FakeReranker,
    embed_text,
    hash_feature,
    tokenize_words,
)


def cos(a: str, b: str, dim: int = 64) -> float:
    emb = FakeEmbedder(dim)
    return float(emb.embed_query(a) @ emb.embed_query(b))


def test_protocols() -> None:
    assert isinstance(FakeEmbedder(), Embedder)
    assert isinstance(FakeReranker(), Reranker)
    assert isinstance(FakeGenerator("x"), Generator)


def test_hash_feature_matches_reference() -> None:
    digest = hashlib.blake2b(b"w:cat", digest_size=8).digest()
    value = int.from_bytes(digest, "big")
    assert hash_feature("w:cat", 64) == (value % 64, 1.0 if value >> 63 else -1.0)


def test_deterministic_across_instances() -> None:
    a = FakeEmbedder().embed_documents(["the cat sat", "tax filing"])
    b = FakeEmbedder().embed_documents(["the cat sat", "tax filing"])
    np.testing.assert_array_equal(a, b)


@given(st.text(max_size=200))
def test_always_unit_norm_float32(text: str) -> None:
    vec = embed_text(text, 64)
    assert vec.dtype == np.float32 and vec.shape == (64,)
    assert abs(float(np.linalg.norm(vec)) - 1.0) < 1e-5


@pytest.mark.parametrize(
    ("a", "b", "c", "margin"),
    [
        ("the cat sat on the mat", "a cat sat on a mat", "quarterly tax filing deadline", 0.3),
        ("Heat propagation over a graph", "graph heat propagation", "banana bread recipe", 0.3),
        ("Straße und Häuser", "straße häuser", "quarterly tax filing", 0.3),
        ("cats", "cat", "invoice", 0.1),  # only shared trigrams: weaker, still clearly closer
    ],
    ids=["sentence", "reordered", "unicode", "trigram-overlap"],
)
def test_similar_texts_closer_than_unrelated(a: str, b: str, c: str, margin: float) -> None:
    assert cos(a, b, 256) > cos(a, c, 256) + margin


def test_identical_texts_cosine_one() -> None:
    assert cos("some words here", "Some WORDS here!") == pytest.approx(1.0, abs=1e-6)


@pytest.mark.parametrize(
    ("text", "tokens"),
    [("", 2), ("one", 3), ("Hello, world!", 4), ("naïve café 東京", 5), ("a-b_c d", 5)],
    ids=["empty", "one", "punct", "unicode", "underscore-is-word"],
)
def test_count_tokens(text: str, tokens: int) -> None:
    assert FakeEmbedder().count_tokens(text) == tokens
    assert len(tokenize_words(text)) == tokens - 2


def test_embedded_count_and_metadata() -> None:
    emb = FakeEmbedder(dimension=16, max_tokens=50)
    emb.embed_documents(["a", "b", "c"])
    emb.embed_query("q")
    assert emb.embedded_count == 4
    assert emb.embed_documents([]).shape == (0, 16)
    assert (emb.dimension, emb.max_tokens, emb.fingerprint) == (16, 50, "fake:dim:16:max:50")


def test_fake_reranker_word_overlap() -> None:
    rr = FakeReranker()
    assert rr.score("cat mat", ["the cat on a mat", "a cat", "tax"]) == [1.0, 0.5, 0.0]
    assert rr.score("", ["x"]) == [0.0]
    assert rr.calls == 2


def test_fake_generator_sequence_and_errors() -> None:
    gen = FakeGenerator(["first", RuntimeError("boom"), "last"])
    assert gen.generate("p1") == "first"
    with pytest.raises(RuntimeError, match="boom"):
        gen.generate("p2", max_tokens=7)
    assert gen.generate("p3") == "last"
    assert gen.generate("p4") == "last"  # the last reply repeats
    assert gen.prompts == ["p1", "p2", "p3", "p4"]
    assert gen.max_tokens == [1024, 7, 1024, 1024]
    with pytest.raises(ValueError):
        FakeGenerator([])


def test_fake_embedder_pickles_with_its_vectors() -> None:
    """The server sends an injected embedder to its index child by pickling it."""
    import pickle

    emb = FakeEmbedder(dimension=32)
    emb.embed_documents(["one text"])
    copy = pickle.loads(pickle.dumps(emb))
    assert copy.fingerprint == emb.fingerprint and copy.embedded_count == 1
    texts = ["coffee beans", "garden compost"]
    assert np.array_equal(copy.embed_documents(texts), emb.embed_documents(texts))
    assert copy.embedded_count == 3  # its own lock and counter work after the copy
