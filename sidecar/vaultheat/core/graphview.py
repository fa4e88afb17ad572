"""The chunk graph in memory, for queries: typed edges both ways, chunk→note, rare tags.

Heat propagation asks for the neighbours of hundreds of nodes per query; two SQL round trips
per node cost more than everything else in a query (profiled: ~85% of search time). So the
edges are loaded once per index generation into CSR arrays (forward and reverse), which is a
few MB even for 10,000 notes, and every query reads from memory. Only heat reads them
(``experimental.search_hops`` > 0), so they are loaded on the first ``edges`` call, not when
the view is built: with heat off (the default) a view of 10,000 notes is built ~0.7 s sooner
and holds no edge arrays. Tag neighbours are derived here too, from the tags table, so they
are never stale.

``similar`` lists given to ``from_store`` replace the stored similarity edges (link edges and
tags stay as stored): a parameter sweep derives kNN variants in memory instead of re-indexing.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from vaultheat.config import GraphSettings
from vaultheat.core.ports import StorePort

KINDS = ("similar", "link")
# compressed sparse rows: (offsets per node, neighbour, weight, kind index) arrays
CSR = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def _csr(src: np.ndarray, dst: np.ndarray, w: np.ndarray, k: np.ndarray, size: int) -> CSR:
    order = np.lexsort((dst, src))
    src, dst, w, k = src[order], dst[order], w[order], k[order]
    offsets = np.zeros(size + 1, dtype=np.int64)
    np.add.at(offsets, src + 1, 1)
    np.cumsum(offsets, out=offsets)
    return offsets, dst, w, k


def _stored_edges(
    store: StorePort, similar: Mapping[int, Sequence[tuple[int, float]]] | None, size: int
) -> tuple[CSR, CSR]:
    """The stored edges as (forward, reverse) CSR arrays; ``similar`` replaces the stored
    similarity edges when given (see ``GraphView.from_store``)."""
    if similar is None:
        edges = store.edge_rows()
    else:
        edges = store.edge_rows(similar=False)
        edges += [(u, v, "similar", w) for u, nbrs in similar.items() for v, w in nbrs]
    if edges:  # a column at a time: no second list of every edge, no float64 matrix
        n = len(edges)
        src = np.fromiter((e[0] for e in edges), dtype=np.int64, count=n)
        dst = np.fromiter((e[1] for e in edges), dtype=np.int64, count=n)
        kind = np.fromiter((KINDS.index(e[2]) for e in edges), dtype=np.int8, count=n)
        w = np.fromiter((e[3] for e in edges), dtype=np.float32, count=n)
        del edges
        keep = (src < size) & (dst < size)
        src, dst, kind, w = src[keep], dst[keep], kind[keep], w[keep]
    else:
        src = dst = np.zeros(0, dtype=np.int64)
        kind = np.zeros(0, dtype=np.int8)
        w = np.zeros(0, dtype=np.float32)
    return _csr(src, dst, w, kind, size), _csr(dst, src, w, kind, size)


@dataclass
class GraphView:
    size: int
    fwd: CSR | None  # None until ``load_edges`` has run (``edges`` calls it)
    rev: CSR | None
    chunk_note: np.ndarray  # chunk id -> note id (-1: no such chunk)
    note_path: dict[int, str]
    note_lead: dict[int, int]  # note id -> its first chunk
    tag_notes: dict[str, list[int]] = field(default_factory=dict)  # rare tag -> notes
    note_tags: dict[int, list[str]] = field(default_factory=dict)  # note -> its rare tags
    tag_weight: dict[str, float] = field(default_factory=dict)
    tag_edges: bool = True
    # (fwd, rev) from a store (None: the one the view was built from), read on first use
    load_edges: Callable[[StorePort | None], tuple[CSR, CSR]] | None = None

    @classmethod
    def from_store(
        cls,
        store: StorePort,
        graph: GraphSettings,
        similar: Mapping[int, Sequence[tuple[int, float]]] | None = None,
    ) -> GraphView:
        """The graph of ``store``; ``similar`` (chunk -> [(neighbour, cosine)], as the indexer
        stores them) replaces the stored ``similar`` edges when given."""
        rows = store.chunk_positions()
        size = (max((r[0] for r in rows), default=0)) + 1
        chunk_note = np.full(size, -1, dtype=np.int64)
        note_lead: dict[int, tuple[int, int]] = {}
        for cid, nid, ordinal in rows:
            chunk_note[cid] = nid
            if nid not in note_lead or ordinal < note_lead[nid][0]:
                note_lead[nid] = (ordinal, cid)
        view = cls(
            size=size,
            fwd=None,
            rev=None,
            chunk_note=chunk_note,
            note_path=store.note_paths(),
            note_lead={nid: cid for nid, (_, cid) in note_lead.items()},
            tag_edges=graph.tag_edges,
            load_edges=lambda at: _stored_edges(at or store, similar, size),
        )
        view._load_tags(store, graph)
        return view

    def _load_tags(self, store: StorePort, graph: GraphSettings) -> None:
        """Only rare tags make edges: a tag on more than ``tag_max_share`` of the notes (or
        more than ``tag_max_notes``) relates nothing (#daily, #todo). Weight 1/log2(1+n)."""
        if not self.tag_edges:
            return
        total = max(sum(1 for n in self.note_lead), 1)
        limit = min(graph.tag_max_notes, max(2, int(graph.tag_max_share * total)))
        by_tag: dict[str, list[int]] = {}
        for tag_key, nid in store.note_tag_keys():
            if nid in self.note_lead:
                by_tag.setdefault(tag_key, []).append(nid)
        for tag, notes in by_tag.items():
            if 2 <= len(notes) <= limit:
                self.tag_notes[tag] = sorted(notes)
                self.tag_weight[tag] = 1.0 / math.log2(1 + len(notes))
                for nid in notes:
                    self.note_tags.setdefault(nid, []).append(tag)

    # -- lookups ------------------------------------------------------------------------------
    def note_of(self, cid: int) -> int:
        return int(self.chunk_note[cid]) if 0 <= cid < self.size else -1

    def path_of(self, cid: int) -> str | None:
        return self.note_path.get(self.note_of(cid))

    def note_chunks(self) -> dict[str, np.ndarray]:
        """path -> the note's chunk ids (ascending)."""
        ids = np.flatnonzero(self.chunk_note >= 0)
        notes = self.chunk_note[ids]
        order = np.argsort(notes, kind="stable")
        ids, notes = ids[order], notes[order]
        cuts = np.flatnonzero(np.diff(notes)) + 1
        out: dict[str, np.ndarray] = {}
        for part in np.split(ids, cuts) if len(ids) else []:
            path = self.note_path.get(int(self.chunk_note[part[0]]))
            if path is not None:
                out[path] = part
        return out

    def csr(self, store: StorePort | None = None) -> tuple[CSR, CSR]:
        """The (forward, reverse) edge arrays, read on first use from ``store`` (a snapshot
        of the view's generation: a query passes its own) or else the store the view was
        built from."""
        if self.fwd is None or self.rev is None:
            if self.load_edges is None:
                raise ValueError("a graph view without edges or a way to load them")
            self.fwd, self.rev = self.load_edges(store)
            self.load_edges = None
        return self.fwd, self.rev

    def edges(self, u: int) -> list[tuple[int, float, str]]:
        """(neighbour, weight, type): stored edges both ways (a link read backwards is a
        ``backlink``) plus tag neighbours."""
        if not 0 <= u < self.size:
            return []
        fwd, rev = self.csr()
        out: list[tuple[int, float, str]] = []
        for (offsets, nbr, w, kind), back in ((fwd, False), (rev, True)):
            a, b = offsets[u], offsets[u + 1]
            for v, weight, k in zip(nbr[a:b].tolist(), w[a:b].tolist(), kind[a:b].tolist(),
                                    strict=True):  # fmt: skip
                t = "similar" if k == 0 else ("backlink" if back else "link")
                out.append((v, weight, t))
        if self.tag_edges:
            out.extend(self.tag_neighbors(u))
        return out

    def tag_neighbors(self, u: int) -> list[tuple[int, float, str]]:
        nid = self.note_of(u)
        best: dict[int, float] = {}
        for tag in self.note_tags.get(nid, ()):
            w = self.tag_weight[tag]
            for other in self.tag_notes[tag]:
                if other != nid:
                    lead = self.note_lead[other]
                    best[lead] = max(best.get(lead, 0.0), w)
        return [(v, w, "tag") for v, w in sorted(best.items())]
