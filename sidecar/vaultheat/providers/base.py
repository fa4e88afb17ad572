"""The protocols every model provider implements; tests inject fakes through the same seam."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalized float32 vectors of a fixed dimension.

    ``fingerprint`` identifies everything that changes the vectors (model, revision/weights hash,
    backend, precision, prefixes); the index manifest and the embedding cache are keyed by it.
    ``max_tokens`` is the model's input window; ``count_tokens`` counts with the model's own
    tokenizer (special tokens included) so the chunker never exceeds the window.
    Models load lazily: constructing an embedder is cheap, the first embed/count loads it.
    """

    @property
    def name(self) -> str: ...

    @property
    def dimension(self) -> int: ...

    @property
    def fingerprint(self) -> str: ...

    @property
    def max_tokens(self) -> int: ...

    def count_tokens(self, text: str) -> int: ...

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray: ...  # (n, dim) float32

    def embed_query(self, text: str) -> np.ndarray: ...  # (dim,) float32


@runtime_checkable
class Reranker(Protocol):
    @property
    def name(self) -> str: ...

    def score(self, query: str, texts: Sequence[str]) -> list[float]: ...


@runtime_checkable
class Generator(Protocol):
    """A chat model used for optional query expansion."""

    def generate(self, prompt: str, *, max_tokens: int = 1024) -> str: ...
