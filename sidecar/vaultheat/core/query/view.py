"""What one query reads: a frozen view of one index generation, and the models beside it.

Why: core used to call back into its host (a ``Context`` protocol the engine implemented by
passing itself) for the graph, the dense vectors and the link data, each call re-entering the
engine's cache logic, and one query could read two index generations while an index run
committed. Now the host builds one ``IndexView`` per index generation (and graph settings),
replaces it when the index moves on and never changes it, and hands core that view bound to a
store snapshot of the same generation (``reading``), with the settings and a ``Models`` object.
Core reads only these; it never learns where they came from, and a test can hand it an
in-memory view (``tests/core/fakes.py``).

The trade-off: a view holds everything derived from an index generation, so a new generation
costs a rebuild of the graph, the link data and the note-name index before the next query (as
before, once per generation); the vectors are shared with the next view and only changed while
no query runs.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import xxhash

from vaultheat.config import EmbeddingSettings, ExpansionSettings, RerankSettings
from vaultheat.core.graphview import GraphView
from vaultheat.core.lru import LRU
from vaultheat.core.ports import StorePort, VectorIndexPort
from vaultheat.core.query.notevec import NoteVectors
from vaultheat.core.query.routing import SecondSpace
from vaultheat.core.query.shared_text import SharedText
from vaultheat.core.query.titles import TitleIndex
from vaultheat.core.query.votes import NoteLinks
from vaultheat.core.vault.resolve import LinkResolver
from vaultheat.providers.base import Embedder, Generator, Reranker

TERM_DF_ENTRIES = 200_000  # about 20 MB of words and counts at most


@dataclass(frozen=True)
class IndexView:
    """One index generation: its store (a snapshot while a query runs), vectors, chunk graph,
    dense chunk vectors (rows by chunk id), note links, link resolver, the notes' names
    (title, aliases, file name: the note-name stage of search, ``core/query/titles.py``) and the
    note vectors (the ``note`` score part, ``core/query/notevec.py``; None: no such part)."""

    generation: int
    store: StorePort
    vectors: VectorIndexPort
    graph: GraphView
    dense: np.ndarray
    links: NoteLinks
    resolver: LinkResolver
    titles: TitleIndex
    notes: NoteVectors | None = None
    # path -> "digest" | "list" for the notes that are not plain notes (core/vault/pagekind.py)
    page_kinds: Mapping[str, str] = dataclasses.field(default_factory=dict)
    # ``shared_text()`` once read (a generation's own, shared with the views ``reading`` makes)
    shared_read: list[SharedText] = dataclasses.field(default_factory=list)
    # ``chunk_count()`` once read (a generation's own, shared with the views ``reading`` makes)
    count_read: list[int] = dataclasses.field(default_factory=list)
    # words' document counts read so far (``related.distinctive_terms``, ``term_counts``): a
    # generation's own
    term_df: LRU[str, int] = dataclasses.field(default_factory=lambda: LRU(TERM_DF_ENTRIES))
    # the second vector space (issue #40, ``core/query/routing.py``); None: off, empty or unreadable
    second: SecondSpace | None = None

    def reading(self, store: StorePort) -> IndexView:
        """This view reading ``store`` (a snapshot of the same generation)."""
        return dataclasses.replace(self, store=store)

    def shared_text(self) -> SharedText:
        """The chunk texts several notes hold word for word (a template's text,
        ``core/query/shared_text.py``), read on first use: only related notes ask, and the read
        scans every chunk's text (0.15-0.2 s at 55,000 chunks)."""
        if not self.shared_read:
            self.shared_read.append(SharedText.from_rows(self.store.shared_chunk_texts()))
        return self.shared_read[0]

    def chunk_count(self) -> int:
        """The generation's number of chunks, read on first use: a view is one generation,
        and the count scans the chunks table (1.7 ms a search at 280,000 chunks)."""
        if not self.count_read:
            self.count_read.append(self.store.chunk_count())
        return self.count_read[0]

    def term_counts(self, terms: Sequence[str]) -> dict[str, int]:
        """term -> the number of the generation's chunks whose lexical text holds it (0: none),
        each read from the store once (``term_df``, shared with related notes' words)."""
        out: dict[str, int] = {}
        unread: list[str] = []
        for t in terms:
            count = self.term_df.get(t)
            if count is None:
                unread.append(t)
            else:
                out[t] = count
        if unread:
            fresh = self.store.term_doc_counts(unread)
            for t in unread:
                out[t] = fresh.get(t, 0)
                self.term_df[t] = out[t]
        return out

    def chunk_vectors(self, ids: np.ndarray) -> np.ndarray:
        """The vectors of chunks ``ids``, one per row: from the dense copy when it covers
        them, else from the vector index (a chunk newer than the dense copy)."""
        if len(self.dense) > int(ids.max()):
            return np.asarray(self.dense[ids], dtype=np.float32)
        return self.vectors.get_vectors([int(i) for i in ids])


class Models(Protocol):
    """The models a query uses, each made for the settings it is given, and their cache."""

    @property
    def embedder(self) -> Embedder: ...

    @property
    def cache(self) -> LRU[str, np.ndarray]:
        """Query and unsaved-text chunk vectors by their text (bounded)."""
        ...

    def reranker(self, settings: RerankSettings) -> Reranker | None: ...

    def second_embedder(self, settings: EmbeddingSettings) -> Embedder | None:
        """The query embedder of the second vector space's model (``embeddings.second_space``),
        made on first use; None while the setting is off."""
        ...

    def generator(self, settings: ExpansionSettings) -> Generator | None: ...


def text_key(text: str) -> str:
    """A short stable key of ``text`` (the embedding cache's keys)."""
    return xxhash.xxh3_64_hexdigest(text.encode("utf-8", "surrogatepass"))
