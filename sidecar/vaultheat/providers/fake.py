"""Deterministic stand-ins for the model seams, so tests run without torch or a network.

``FakeEmbedder`` is a signed feature-hashing bag of words (plus character trigrams, so "cats" and
"cat" still overlap): texts that share words get a high cosine, unrelated texts land near zero.
It is stable across processes and platforms (blake2b, not Python's salted ``hash``), which lets
tests compare vectors with stored ones. ``embedded_count`` counts the texts it embedded, so a
test can prove that a cache avoided work.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Sequence

import numpy as np

WORD_RE = re.compile(r"\w+", re.UNICODE)
TRIGRAM_WEIGHT = 0.35


def tokenize_words(text: str) -> list[str]:
    """Lowercased unicode word tokens."""
    return WORD_RE.findall(text.lower())


def hash_feature(feature: str, dimension: int) -> tuple[int, float]:
    """A stable (bucket, sign) for one feature."""
    value = int.from_bytes(hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest(), "big")
    return value % dimension, (1.0 if (value >> 63) & 1 else -1.0)


def embed_text(text: str, dimension: int) -> np.ndarray:
    """The L2-normalized hashed bag of words + trigrams of ``text`` (float32)."""
    vec = np.zeros(dimension, dtype=np.float64)
    for word in tokenize_words(text):
        bucket, sign = hash_feature("w:" + word, dimension)
        vec[bucket] += sign
        padded = f"<{word}>"
        for i in range(len(padded) - 2):
            bucket, sign = hash_feature("t:" + padded[i : i + 3], dimension)
            vec[bucket] += sign * TRIGRAM_WEIGHT
    norm = float(np.linalg.norm(vec))
    if norm == 0.0:  # no words: a fixed unit vector keeps the output normalized
        vec[0] = 1.0
        norm = 1.0
    return (vec / norm).astype(np.float32)


class FakeEmbedder:
    """Embedder protocol over ``embed_text``; ``embedded_count`` counts embedded texts."""

    def __init__(self, dimension: int = 64, max_tokens: int = 128, *, tag: str = "") -> None:
        if dimension < 2:
            raise ValueError("dimension must be at least 2")
        self._dimension = dimension
        self._tag = tag  # another model's stand-in: in the fingerprint
        self._max_tokens = max_tokens
        self._lock = threading.Lock()
        self.embedded_count = 0

    def __getstate__(self) -> dict[str, object]:  # picklable: the server's index child gets one
        state = self.__dict__.copy()
        del state["_lock"]
        return state

    def __setstate__(self, state: dict[str, object]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return "fake"

    @property
    def dimension(self) -> int:
        return self._dimension

    @property
    def fingerprint(self) -> str:
        tag = f":{self._tag}" if self._tag else ""
        return f"fake:dim:{self._dimension}:max:{self._max_tokens}{tag}"

    @property
    def max_tokens(self) -> int:
        return self._max_tokens

    def count_tokens(self, text: str) -> int:
        return len(tokenize_words(text)) + 2

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        with self._lock:
            self.embedded_count += len(texts)
        out = np.zeros((len(texts), self._dimension), dtype=np.float32)
        for i, text in enumerate(texts):
            out[i] = embed_text(text, self._dimension)
        return out

    def embed_query(self, text: str) -> np.ndarray:
        with self._lock:
            self.embedded_count += 1
        return embed_text(text, self._dimension)


class FakeReranker:
    """Score = share of the query's distinct words that occur in the text (0..1)."""

    def __init__(self) -> None:
        self.calls = 0

    @property
    def name(self) -> str:
        return "fake-reranker"

    def score(self, query: str, texts: Sequence[str]) -> list[float]:
        self.calls += 1
        words = set(tokenize_words(query))
        if not words:
            return [0.0] * len(texts)
        return [len(words & set(tokenize_words(t))) / len(words) for t in texts]


class FakeGenerator:
    """Replies with ``responses`` in order (the last one repeats); an exception is raised.

    ``prompts`` records every prompt, ``max_tokens`` every requested limit.
    """

    def __init__(self, responses: str | BaseException | Sequence[str | BaseException]) -> None:
        if isinstance(responses, str | BaseException):
            responses = [responses]
        if not responses:
            raise ValueError("FakeGenerator needs at least one response")
        self._responses = list(responses)
        self.prompts: list[str] = []
        self.max_tokens: list[int] = []

    def generate(self, prompt: str, *, max_tokens: int = 1024) -> str:
        self.prompts.append(prompt)
        self.max_tokens.append(max_tokens)
        index = min(len(self.prompts) - 1, len(self._responses) - 1)
        reply = self._responses[index]
        if isinstance(reply, BaseException):
            raise reply
        return reply
