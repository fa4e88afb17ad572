"""Note-level meaning: one vector per note, for the ``note`` score part of search.

Why: a note is ranked by its best chunk, and a chunk is a passage. A note that is about the
query as a whole (a TIL whose opening says what it does, a post whose every section is on the
topic) then loses to one lucky paragraph of a note about something else: a digest's two-bullet
section, a list page's entry, a tutorial's "calling the slow function" step (issue #22, the
conceptual queries on waylonwalker). Passage retrieval has long scored a document by its best
passage *and* by its first passage and the whole document; this is that evidence, from the
chunk vectors the index already has, so nothing is re-embedded.

The note vector is the mean of two unit vectors: the note's lead chunk (title, aliases and the
opening: what the note says it is about) and the normalized mean of all its chunks (what it is
about throughout). Its dot product with a query vector is the mean of the two cosines. A digest
or a list page has a diffuse mean and a lead about nothing in particular, so it gains little.
A note without vectors (not embedded yet) has a zero row and scores 0.

With a second vector space (issue #40, ``core/query/routing.py``) the notes get a second set
of note vectors, made the same way from that space's chunk vectors (``space_note_vectors``):
a chunk read in the second space is scored against its note's vector there. A note in another
language has no English vectors at all, so without them its note part had no evidence.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from vaultheat.core.ports import VectorIndexPort

BLOCK = 4096  # chunk rows gathered at a time


@dataclass(frozen=True)
class NoteVectors:
    """``matrix[note_of[c]]`` is chunk ``c``'s note vector (``note_of`` -1: no note)."""

    note_of: np.ndarray  # chunk id -> note id (-1: no such chunk)
    matrix: np.ndarray  # note id -> note vector (zero row: no vectors)

    def has_vector(self, cid: int) -> bool:
        """Whether chunk ``cid``'s note has a note vector (a zero row: none of its chunks has a
        vector in this space)."""
        if not 0 <= cid < len(self.note_of):
            return False
        nid = int(self.note_of[cid])
        return 0 <= nid < len(self.matrix) and bool(self.matrix[nid].any())

    def sims(self, ids: Sequence[int], queries: np.ndarray) -> dict[int, float]:
        """chunk id -> the best dot product of its note vector with a query row."""
        if not len(ids):
            return {}
        arr = np.asarray(ids, dtype=np.int64)
        inside = (arr >= 0) & (arr < len(self.note_of))
        notes = np.full(len(arr), -1, dtype=np.int64)
        notes[inside] = self.note_of[arr[inside]]
        known = (notes >= 0) & (notes < len(self.matrix))
        out = np.zeros(len(arr), dtype=np.float64)
        if known.any():
            out[known] = (self.matrix[notes[known]] @ queries.T).max(axis=1)
        return {int(c): float(s) for c, s in zip(arr, out, strict=True)}


def note_vectors(
    dense: np.ndarray, chunk_note: np.ndarray, note_lead: Mapping[int, int]
) -> NoteVectors:
    """Each note's vector: (its lead chunk's vector + its chunks' normalized mean) / 2, from
    ``dense`` (chunk id -> unit vector, zero rows for chunks without one)."""
    dim = dense.shape[1] if dense.ndim == 2 else 0
    size = int(chunk_note.max()) + 1 if len(chunk_note) else 0
    matrix = np.zeros((size, dim), dtype=np.float32)
    if not size or not dim:
        return NoteVectors(chunk_note, matrix)
    ids = np.flatnonzero(chunk_note[: len(dense)] >= 0)
    # block by block: gathering every row at once would copy the whole of ``dense`` (twice)
    blocks = np.split(ids, range(BLOCK, len(ids), BLOCK))
    ids = np.concatenate([ids[:0]] + [b[dense[b].any(axis=1)] for b in blocks])
    if len(ids):
        notes = chunk_note[ids]
        order = np.argsort(notes, kind="stable")
        ids, notes = ids[order], notes[order]
        starts = np.concatenate(([0], np.flatnonzero(np.diff(notes)) + 1))
        # whole notes per block: each note's sum is the same reduction as over all rows
        ends = np.append(starts[1:], len(ids))
        first = 0
        while first < len(starts):
            last = first + 1
            while last < len(starts) and ends[last] - starts[first] <= BLOCK:
                last += 1
            lo, hi = int(starts[first]), int(ends[last - 1])
            sums = np.add.reduceat(dense[ids[lo:hi]].astype(np.float32, copy=False),
                                   starts[first:last] - lo, axis=0)  # fmt: skip
            norms = np.linalg.norm(sums, axis=1, keepdims=True)
            matrix[notes[starts[first:last]]] = sums / np.where(norms > 0, norms, 1.0)
            first = last
    for nid, cid in note_lead.items():
        if 0 <= nid < size and 0 <= cid < len(dense):
            matrix[nid] += dense[cid].astype(np.float32)
    matrix *= 0.5
    return NoteVectors(chunk_note, matrix)


def space_note_vectors(
    vectors: VectorIndexPort,
    chunk_note: np.ndarray,
    note_lead: Mapping[int, int],
    dense: np.ndarray | None = None,
) -> tuple[NoteVectors, np.ndarray]:
    """``note_vectors`` of the chunk vectors ``vectors`` holds (a second vector space: issue
    #40), from a float16 copy by chunk id (as the English dense copy: ``views.fill_dense``),
    zero rows for the chunks it has no vector for. ``dense`` is the copy an earlier view made:
    chunk ids are never reused, so only the rows still zero are read from ``vectors`` (about
    40 us a vector), a block at a time. Returns the note vectors and the copy, to pass next
    time; a copy of another dimension starts again."""
    dim = vectors.dim
    if dense is None or dense.shape[1:] != (dim,) or dense.dtype != np.float16:
        dense = np.zeros((0, dim), dtype=np.float16)
    if len(dense) < len(chunk_note):
        grown = np.zeros((len(chunk_note), dim), dtype=np.float16)
        grown[: len(dense)] = dense
        dense = grown
    ids = np.array([c for c in np.flatnonzero(chunk_note >= 0).tolist() if c in vectors],
                   dtype=np.int64)  # fmt: skip
    for start in range(0, len(ids), BLOCK):
        part = ids[start : start + BLOCK]
        empty = part[~dense[part].any(axis=1)]
        if len(empty):
            dense[empty] = vectors.get_vectors(empty.tolist())
    return note_vectors(dense, chunk_note, note_lead), dense
