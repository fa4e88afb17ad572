"""The models a query uses, made for the settings it carries: core's ``Models``.

Models made from the settings are keyed by their settings section, so when the settings change
(an engine derived with ``Engine.with_settings``: ``derive`` gives it a set of its own) a config
naming another model gets that model, made on first use (status and no-op indexing never load
one). A model given to the constructor
(tests, the evaluation's injected fakes) stays whatever the settings say; ``embedder_injected``
says whether the embedder was given (the server sends a given one to its index process). The
embedding cache of query and unsaved-text vectors lives here, bounded.
"""

from __future__ import annotations

import threading

import numpy as np

from vaultheat.config import EmbeddingSettings, ExpansionSettings, RerankSettings
from vaultheat.core.lru import LRU
from vaultheat.providers.base import Embedder, Generator, Reranker
from vaultheat.providers.registry import (
    make_embedder,
    make_generator,
    make_reranker,
    second_space_settings,
)

# query and unsaved-text chunk vectors kept by their text (about 1.5 KB each at 384 dimensions):
# bounded, so a server that only feeds the sidebar does not grow for the whole session
QUERY_CACHE_SIZE = 4096
_UNMADE = object()  # no model made yet


class ModelSet:
    def __init__(
        self,
        embedder: Embedder,
        *,
        reranker: Reranker | None = None,
        generator: Generator | None = None,
        cache_size: int = QUERY_CACHE_SIZE,
        embedder_injected: bool = False,
    ) -> None:
        self.embedder = embedder
        self.embedder_injected = embedder_injected  # else made from the settings
        self.cache: LRU[str, np.ndarray] = LRU(cache_size)
        self._reranker = reranker
        self._reranker_key: object = None if reranker is not None else _UNMADE
        self._generator = generator
        self._generator_key: object = None if generator is not None else _UNMADE
        self._second: Embedder | None = None
        self._second_key: object = _UNMADE
        self._lock = threading.Lock()  # two query threads never make the same model twice

    def derive(self) -> ModelSet:
        """A model set for another engine on the same index (``Engine.with_settings``): the
        same embedder and embedding cache (the same model gives the same vectors), and the
        reranker and generator made so far; models it makes later are its own."""
        with self._lock:
            other = ModelSet(self.embedder, embedder_injected=self.embedder_injected)
            other.cache = self.cache
            other._reranker, other._reranker_key = self._reranker, self._reranker_key
            other._generator, other._generator_key = self._generator, self._generator_key
            other._second, other._second_key = self._second, self._second_key
        return other

    def reranker(self, settings: RerankSettings) -> Reranker | None:
        with self._lock:
            if self._reranker_key is not None and self._reranker_key != settings:
                self._reranker = make_reranker(settings)
                self._reranker_key = settings
            return self._reranker

    def second_embedder(self, settings: EmbeddingSettings) -> Embedder | None:
        """The second vector space's model (``second_space_settings``: the one
        ``embeddings.second_space_model`` names; e5 applies its own "query: " prefix, USE has
        none), made on first use for these settings; None while it is off."""
        second = second_space_settings(settings)
        with self._lock:
            if self._second_key != second:
                self._second = make_embedder(second) if second is not None else None
                self._second_key = second
            return self._second

    def generator(self, settings: ExpansionSettings) -> Generator | None:
        with self._lock:
            if self._generator_key is not None and self._generator_key != settings:
                self._generator = make_generator(settings) if settings.enabled else None
                self._generator_key = settings
            return self._generator
