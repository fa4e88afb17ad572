"""An in-memory index for core's tests: ``fake_view(notes)`` is an ``IndexView`` with no SQLite
and no hnswlib, so search, related notes, votes and explain run through the same seam the
engine uses (``core/query/view.py``). One chunk per paragraph; lexical search counts query words
(a stand-in for BM25 with the same contract: (chunk id, score >= 0), best first); vectors come
from the honest fake embedder and nearest neighbours are exact (brute force)."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from vaultheat.config import (
    EmbeddingSettings,
    ExpansionSettings,
    GraphSettings,
    RerankSettings,
    Settings,
)
from vaultheat.core.graphview import GraphView
from vaultheat.core.lru import LRU
from vaultheat.core.models import ChunkRow, NoteRow
from vaultheat.core.query.notevec import note_vectors, space_note_vectors
from vaultheat.core.query.routing import SecondSpace
from vaultheat.core.query.titles import TitleIndex
from vaultheat.core.query.view import IndexView
from vaultheat.core.query.votes import NoteLinks
from vaultheat.core.vault.lexical import query_terms
from vaultheat.core.vault.pagekind import NOTE, page_kind
from vaultheat.core.vault.resolve import LinkResolver
from vaultheat.providers.base import Embedder, Generator, Reranker
from vaultheat.providers.fake import FakeEmbedder

Note = tuple[str, str, Sequence[str]]  # (path, text, paths it links to)


@dataclass
class FakeStore:
    notes_: dict[str, NoteRow]
    chunk_rows: dict[int, ChunkRow]
    embed_inputs: dict[int, str]
    links: dict[str, frozenset[str]]
    reads: int = 0  # chunk row reads, so a test can tell a store was used

    def notes(self) -> dict[str, NoteRow]:
        return dict(self.notes_)

    def note_by_path(self, path: str) -> NoteRow | None:
        return self.notes_.get(path)

    def note_aliases(self) -> dict[str, list[str]]:
        return {}

    def note_paths(self) -> dict[int, str]:
        return {n.id: n.path for n in self.notes_.values()}

    def attachments(self) -> set[str]:
        return set()

    def chunks(self, ids: Sequence[int]) -> dict[int, ChunkRow]:
        self.reads += 1
        return {i: self.chunk_rows[i] for i in ids if i in self.chunk_rows}

    def note_chunks(self, note_id: int) -> list[ChunkRow]:
        return sorted((c for c in self.chunk_rows.values() if c.note_id == note_id),
                      key=lambda c: c.ordinal)  # fmt: skip

    def chunk_count(self) -> int:
        return len(self.chunk_rows)

    def chunk_positions(self) -> list[tuple[int, int, int]]:
        return [(c.id, c.note_id, c.ordinal) for c in self.chunk_rows.values()]

    def filtered_chunk_ids(
        self, *, folder: str | None, tag: str | None, properties: Mapping[str, Any]
    ) -> set[int]:
        return {c.id for c in self.chunk_rows.values()
                if folder is None or c.path.startswith(folder + "/")}  # fmt: skip

    def shared_chunk_texts(self, min_notes: int = 2) -> list[tuple[str, int, list[int]]]:
        by_text: dict[str, list[ChunkRow]] = {}
        for row in self.chunk_rows.values():
            by_text.setdefault(row.text, []).append(row)
        counts = {t: len({r.note_id for r in rows}) for t, rows in by_text.items()}
        return [(t, counts[t], [r.id for r in rows])
                for t, rows in by_text.items() if counts[t] >= min_notes]  # fmt: skip

    def linked_paths(self, note_id: int) -> set[str]:
        path = self.note_paths()[note_id]
        return set(self.links.get(path, ()))

    def backlinking_paths(self, path: str) -> set[str]:
        return {src for src, dsts in self.links.items() if path in dsts}

    def note_tag_keys(self) -> list[tuple[str, int]]:
        return []

    def edge_rows(self, *, similar: bool = True) -> list[tuple[int, int, str, float]]:
        lead = {n.path: min(c.id for c in self.note_chunks(n.id)) for n in self.notes_.values()}
        return [(lead[s], lead[d], "link", 1.0) for s, ds in sorted(self.links.items())
                for d in sorted(ds) if d in lead]  # fmt: skip

    def lexical_search(self, query: str, limit: int) -> list[tuple[int, float]]:
        terms = set(query_terms(query))
        scored = []
        for cid, text in self.embed_inputs.items():
            hits = sum(1 for w in re.findall(r"\w+", text.lower()) if w in terms)
            if hits:
                scored.append((cid, float(hits)))
        scored.sort(key=lambda x: (-x[1], x[0]))
        return scored[:limit]

    def term_doc_counts(self, terms: Sequence[str]) -> dict[str, int]:
        out: dict[str, int] = {}
        for text in self.embed_inputs.values():
            words = set(re.findall(r"\w+", text.lower()))
            for t in terms:
                if t in words:
                    out[t] = out.get(t, 0) + 1
        return out


class RecordingLexical:
    """A store (wrapping another) that records the text of every lexical search and the chunks
    it found."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.searched: list[tuple[str, set[int]]] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def lexical_search(self, query: str, limit: int) -> list[tuple[int, float]]:
        hits: list[tuple[int, float]] = self.inner.lexical_search(query, limit)
        self.searched.append((query, {c for c, _ in hits}))
        return hits


@dataclass
class FakeVectors:
    """Exact cosine search over unit vectors, keyed by chunk id."""

    matrix: dict[int, np.ndarray]
    dimension: int

    @property
    def dim(self) -> int:
        return self.dimension

    def __len__(self) -> int:
        return len(self.matrix)

    def __contains__(self, label: object) -> bool:
        return label in self.matrix

    def get_vectors(self, ids: Sequence[int]) -> np.ndarray:
        return np.stack([self.matrix[int(i)] for i in ids]) if ids else np.zeros((0, self.dim))

    def search(
        self, query: np.ndarray, k: int, *, filter_ids: set[int] | None = None
    ) -> list[list[tuple[int, float]]]:
        q = np.atleast_2d(query)
        ids = sorted(i for i in self.matrix if filter_ids is None or i in filter_ids)
        if not ids:
            return [[] for _ in q]
        sims = q @ np.stack([self.matrix[i] for i in ids]).T
        return [sorted(((ids[j], float(row[j])) for j in range(len(ids))),
                       key=lambda x: (-x[1], x[0]))[:k] for row in sims]  # fmt: skip


@dataclass
class FakeModels:
    """core's ``Models``: the fake embedder, a small cache, optional reranker and generator."""

    embedder: FakeEmbedder = field(default_factory=lambda: FakeEmbedder(dimension=64))
    cache: LRU[str, np.ndarray] = field(default_factory=lambda: LRU(64))
    rerank_model: Reranker | None = None
    expansion_model: Generator | None = None
    # the second vector space's query model (core/query/routing.py); None: no second space
    second_model: Embedder | None = None

    def second_embedder(self, settings: EmbeddingSettings) -> Embedder | None:
        return self.second_model

    def reranker(self, settings: RerankSettings) -> Reranker | None:
        return self.rerank_model

    def generator(self, settings: ExpansionSettings) -> Generator | None:
        return self.expansion_model


def fake_view(
    notes: Sequence[Note], models: FakeModels, *, graph: GraphSettings | None = None
) -> IndexView:
    """The view of a vault of ``notes``: each paragraph (blank-line separated) one chunk."""
    rows: dict[str, NoteRow] = {}
    chunk_rows: dict[int, ChunkRow] = {}
    inputs: dict[int, str] = {}
    cid = 0
    for nid, (path, text, _) in enumerate(notes, start=1):
        title = path.rsplit("/", 1)[-1].removesuffix(".md")
        rows[path] = NoteRow(nid, path, f"h{nid}", 0, len(text), title, False)
        pos = 0
        for ordinal, para in enumerate(text.split("\n\n")):
            start = text.index(para, pos)
            pos = start + len(para)
            b0, b1 = len(text[:start].encode()), len(text[:pos].encode())
            line0 = text[:start].count("\n") + 1
            chunk_rows[cid] = ChunkRow(cid, nid, path, title, ordinal, b0, b1, line0,
                                       line0 + para.count("\n"), (), para, f"e{cid}")  # fmt: skip
            inputs[cid] = f"{title}\n\n{para}"
            cid += 1
    links = {path: frozenset(dsts) for path, _, dsts in notes if dsts}
    store = FakeStore(rows, chunk_rows, inputs, links)
    ids = sorted(inputs)
    vecs = models.embedder.embed_documents([inputs[i] for i in ids])
    vectors = FakeVectors(dict(zip(ids, vecs, strict=True)), models.embedder.dimension)
    dense = np.zeros((len(ids), models.embedder.dimension), dtype=np.float32)
    dense[ids] = vecs
    gv = GraphView.from_store(store, graph or GraphSettings())
    pairs = [(s, d) for s, ds in links.items() for d in ds]
    note_links = NoteLinks.from_pairs(pairs, gv.note_chunks())
    resolver = LinkResolver(list(rows))
    titles = TitleIndex.build({p: r.title for p, r in rows.items()}, store.note_aliases())
    vecs_of_notes = note_vectors(dense, gv.chunk_note, gv.note_lead)
    kinds = {p: k for p, text, _ in notes if (k := page_kind(p, text)) != NOTE}
    return IndexView(1, store, vectors, gv, dense, note_links, resolver, titles, vecs_of_notes,
                     kinds)  # fmt: skip


def with_second_space(
    view: IndexView,
    embedder: FakeEmbedder,
    languages: Mapping[int, str],
    *,
    missing: Sequence[int] = (),
    notes: bool = True,
) -> IndexView:
    """``view`` with a second vector space of ``embedder``'s vectors of every chunk but
    ``missing`` (a pass still filling it), and ``languages`` for the chunks not in English;
    with its note vectors (as ``views.py`` builds them) unless ``notes`` is False."""
    store = view.store
    assert isinstance(store, FakeStore)
    ids = sorted(i for i in store.embed_inputs if i not in set(missing))
    vecs = embedder.embed_documents([store.embed_inputs[i] for i in ids])
    vectors = FakeVectors(dict(zip(ids, vecs, strict=True)), embedder.dimension)
    gv = view.graph
    space_notes = space_note_vectors(vectors, gv.chunk_note, gv.note_lead)[0] if notes else None
    space = SecondSpace(vectors, embedder.fingerprint, dict(languages),
                        partial=len(ids) < len(store.embed_inputs), notes=space_notes)  # fmt: skip
    return dataclasses.replace(view, second=space)


# settings with the second vector space on, and the fake model that fills it (issue #40)
ROUTED = dataclasses.replace(
    Settings(), embeddings=dataclasses.replace(Settings().embeddings, second_space="multilingual")
)


def second_model() -> FakeEmbedder:
    return FakeEmbedder(dimension=48, tag="multilingual")
