"""The second space's note vectors (issue #40): a chunk read in the second vector space gets the
``note`` score part from its note's vector in that space (``core/query/notevec.py``
``space_note_vectors``), against the query's second-space vectors and mapped to the English
scale as its ``vector`` part is; a chunk read in the English space keeps the English note
vector, and an index without a second space scores exactly as before."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tests.core.fakes import ROUTED, FakeModels, fake_view, second_model, with_second_space
from vaultheat.config import Settings
from vaultheat.core.query import search as search_mod
from vaultheat.core.query.results import ChunkHit, SearchResults
from vaultheat.core.query.routing import CosineMap
from vaultheat.core.query.search import run_search
from vaultheat.core.query.view import IndexView
from vaultheat.core.requests import SearchRequest
from vaultheat.providers.fake import FakeEmbedder

# one chunk per paragraph: the German note has three, its lead first
NOTES = [
    ("Coffee/Espresso.md", "The espresso machine builds pressure with a pump and hot water.\n\n"
     "Descale the espresso machine every month so the pump keeps its pressure.", []),
    ("Coffee/Grinders.md", "Burr grinders give an even grind for the espresso machine.", []),
    ("Kaffee/Maschine.md", "Die Espresso Maschine baut den Druck mit einer Pumpe auf.\n\n"
     "Sie braucht heißes Wasser für guten Kaffee und eine feine Mahlung.\n\n"
     "Im Garten wachsen Tomaten, die Kalzium gegen Blütenendfäule brauchen.", []),
    ("Garden/Tomatoes.md", "Tomatoes need calcium against blossom end rot.", []),
]  # fmt: skip
ENGLISH_NOTE = (0, 1)  # Coffee/Espresso.md's chunks
GERMAN_NOTE = (3, 4, 5)  # Kaffee/Maschine.md's chunks, the lead first
GERMAN = {c: "de" for c in GERMAN_NOTE}
S = Settings()
EN_QUERY = "how does the espresso machine build pressure with the pump and hot water"
DE_QUERY = "Wie baut die Espresso Maschine den Druck mit der Pumpe und heißem Wasser auf"


def hits_of(res: SearchResults) -> dict[int, ChunkHit]:
    return {h.chunk_id: h for h in res.results if isinstance(h, ChunkHit)}


def unit(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v)


def by_hand(view: IndexView, models: FakeModels, query: str, chunks: tuple[int, ...]) -> float:
    """The note part of a chunk of the note made of ``chunks`` (the lead first), read in the
    second space: (lead + normalized mean of its chunks' second vectors) / 2 against the query's
    second-space vector, through the search cosine map."""
    embedder = second_model()
    inputs = view.store.embed_inputs  # type: ignore[attr-defined]
    vecs = np.asarray(embedder.embed_documents([inputs[c] for c in chunks]), dtype=np.float64)
    note = (vecs[0] + unit(vecs.sum(axis=0))) / 2
    q = np.asarray(embedder.embed_query(query), dtype=np.float64)
    found = search_mod.second_model(view, models, ROUTED, "search")
    assert found is not None
    _, english, second = found
    return float(CosineMap.between(english, second)(np.array([note @ q]))[0])


def english_note_part(view: IndexView, models: FakeModels, query: str, cid: int) -> float:
    """The note part read in the English space: the chunk's English note vector against the
    query's English vector."""
    assert view.notes is not None
    q = models.embedder.embed_query(query)
    return view.notes.sims([cid], np.atleast_2d(q).astype(np.float32))[cid]


def test_a_chunk_read_in_the_second_space_gets_its_notes_second_space_note_vector() -> None:
    models = FakeModels(second_model=second_model())
    view = with_second_space(fake_view(NOTES, models), second_model(), GERMAN)
    res = run_search(view, models, ROUTED, SearchRequest(EN_QUERY, top=20, explain=True))
    hits = hits_of(res)
    expected = by_hand(view, models, EN_QUERY, GERMAN_NOTE)
    seen = [c for c in GERMAN_NOTE if c in hits]
    assert len(seen) >= 2
    gaps = []
    for c in seen:
        trace = hits[c].explain
        assert trace is not None and trace.space is not None
        assert trace.space.space == "multilingual"
        note = hits[c].components["note"]
        # up to the float16 copy the note vectors are built from
        assert note == pytest.approx(expected, abs=2e-3)
        # not the English note vector
        assert abs(note - english_note_part(view, models, EN_QUERY, c)) > 0.05
        gaps.append(abs(note - hits[c].components["vector"]))
    # the note has three chunks: the part no longer repeats each chunk's own cosine
    assert max(gaps) > 0.05
    # the English note's chunks, read in the English space, keep the English note vector
    for c in ENGLISH_NOTE:
        if c in hits:
            assert hits[c].components["note"] == pytest.approx(
                english_note_part(view, models, EN_QUERY, c), abs=1e-6
            )


def test_a_query_in_another_language_reads_every_note_vector_in_the_second_space() -> None:
    models = FakeModels(second_model=second_model())
    view = with_second_space(fake_view(NOTES, models), second_model(), GERMAN)
    res = run_search(view, models, ROUTED, SearchRequest(DE_QUERY, top=20, explain=True))
    hits = hits_of(res)
    notes = {GERMAN_NOTE: by_hand(view, models, DE_QUERY, GERMAN_NOTE),
             ENGLISH_NOTE: by_hand(view, models, DE_QUERY, ENGLISH_NOTE)}  # fmt: skip
    checked = 0
    for chunks, expected in notes.items():
        for c in chunks:
            if c in hits:
                assert hits[c].components["note"] == pytest.approx(expected, abs=2e-3)
                checked += 1
    assert checked >= 2


def test_without_second_space_note_vectors_the_part_is_as_before() -> None:
    # a second space whose note vectors were not built: the English note vector, as before
    models = FakeModels(second_model=second_model())
    view = with_second_space(fake_view(NOTES, models), second_model(), GERMAN, notes=False)
    assert view.second is not None and view.second.notes is None
    res = run_search(view, models, ROUTED, SearchRequest(EN_QUERY, top=20, explain=True))
    hits = hits_of(res)
    assert any(c in hits for c in GERMAN_NOTE)
    for c, h in hits.items():
        assert h.components["note"] == pytest.approx(
            english_note_part(view, models, EN_QUERY, c), abs=1e-6
        )


def test_without_a_second_space_the_note_part_and_the_results_are_unchanged() -> None:
    plain = FakeModels()
    view = fake_view(NOTES, plain)
    req = SearchRequest(EN_QUERY, top=20, explain=True)
    before = run_search(view, plain, S, req)
    for c, h in hits_of(before).items():
        assert h.components["note"] == pytest.approx(
            english_note_part(view, plain, EN_QUERY, c), abs=1e-6
        )
    # the setting on and a second model at hand, but no second space in the index
    routed = run_search(view, FakeModels(second_model=second_model()), ROUTED, req)
    assert routed.results == before.results


def test_the_next_view_reads_only_the_vectors_the_copy_lacks() -> None:
    # chunk ids are never reused: a copy made for one view serves the next, which reads only
    # its new rows (views.py keeps it between views; ~40 us a vector read from hnswlib)
    from tests.core.fakes import FakeVectors
    from vaultheat.core.query.notevec import space_note_vectors

    embedder = FakeEmbedder(32)
    view = fake_view(NOTES, FakeModels())
    gv = view.graph
    ids = [c for c in range(len(gv.chunk_note)) if gv.chunk_note[c] >= 0]
    vecs = dict(zip(ids, embedder.embed_documents([f"chunk {c}" for c in ids]), strict=True))
    read: list[int] = []

    class Counting(FakeVectors):
        def get_vectors(self, wanted: Any) -> np.ndarray:
            read.extend(int(c) for c in wanted)
            return super().get_vectors(wanted)

    first = Counting({c: vecs[c] for c in ids[:-1]}, 32)
    notes1, dense = space_note_vectors(first, gv.chunk_note, gv.note_lead)
    assert sorted(read) == ids[:-1]
    read.clear()
    notes2, _ = space_note_vectors(Counting(vecs, 32), gv.chunk_note, gv.note_lead, dense)
    assert read == ids[-1:]  # only the chunk the first copy lacked
    fresh, _ = space_note_vectors(FakeVectors(vecs, 32), gv.chunk_note, gv.note_lead)
    assert np.array_equal(notes2.matrix, fresh.matrix)  # the same as a copy made from nothing
    assert not np.array_equal(notes1.matrix, fresh.matrix)  # the first lacked a chunk
