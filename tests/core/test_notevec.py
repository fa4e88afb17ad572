"""The note score part (``core/query/notevec.py``): one vector per note from its chunk vectors, and
a search where a note about the query as a whole beats one lucky paragraph of a digest."""

from __future__ import annotations

import numpy as np
import pytest

from tests.core.fakes import FakeModels, fake_view
from vaultheat.config import Settings
from vaultheat.core.query.notevec import note_vectors
from vaultheat.core.query.related import run_related
from vaultheat.core.query.results import NoteHit
from vaultheat.core.query.search import run_search
from vaultheat.core.requests import RelatedRequest, SearchRequest


def _unit(rng: np.random.Generator, n: int, dim: int) -> np.ndarray:
    v = rng.normal(size=(n, dim)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def test_note_vectors_match_a_plain_loop() -> None:
    rng = np.random.default_rng(7)
    dense = _unit(rng, 12, 8)
    dense[5] = 0.0  # a chunk not embedded yet counts for nothing
    chunk_note = np.array([0, 0, 0, 1, 2, 2, 2, -1, 3, 3, 1, 0])
    lead = {0: 0, 1: 3, 2: 5, 3: 8}
    nv = note_vectors(dense, chunk_note, lead)
    for nid in range(4):
        rows = [c for c in range(12) if chunk_note[c] == nid and dense[c].any()]
        mean = dense[rows].sum(axis=0)
        want = (mean / np.linalg.norm(mean) + dense[lead[nid]]) / 2
        np.testing.assert_allclose(nv.matrix[nid], want, atol=1e-6)
    q = _unit(rng, 2, 8)
    sims = nv.sims([1, 7, 99, 4], q)
    assert sims[7] == 0.0 and sims[99] == 0.0  # no note, no such chunk: 0
    assert sims[1] == pytest.approx(float((nv.matrix[0] @ q.T).max()), abs=1e-6)
    assert sims[4] == pytest.approx(float((nv.matrix[2] @ q.T).max()), abs=1e-6)


def test_a_note_without_vectors_scores_zero() -> None:
    dense = np.zeros((3, 4), dtype=np.float32)
    nv = note_vectors(dense, np.array([0, 0, 1]), {0: 0, 1: 2})
    assert not nv.matrix.any()
    assert nv.sims([0, 2], np.ones((1, 4), dtype=np.float32)) == {0: 0.0, 2: 0.0}


TIL = "Til/Sourdough.md"
DIGEST = "Weekly/Links 12.md"
NOTES = [
    (TIL, "Keep a sourdough starter alive with flour and water.\n\n"
     "A starter fed daily doubles in a warm kitchen.\n\nFeed it before you bake.", []),
    (DIGEST, "Rust compiler errors explained with diagrams.\n\n"
     "Kubernetes in a homelab: three opinions on clusters.\n\n"
     "Vim macros for renaming variables in bulk.\n\n"
     "How often should I feed a sourdough starter: a link.", []),
    ("Garden/Tomatoes.md", "Tomatoes need calcium against blossom end rot.", []),
]  # fmt: skip
QUERY = "how often should I feed a sourdough starter"


@pytest.mark.parametrize(
    ("weight", "first"), [(0.0, DIGEST), (Settings().search.score_note, TIL)], ids=["off", "on"]
)
def test_the_note_about_the_query_beats_a_digest_paragraph(weight: float, first: str) -> None:
    models = FakeModels()
    view = fake_view(NOTES, models)
    s = Settings().with_value("search.score_note", weight)
    res = run_search(view, models, s, SearchRequest(QUERY, top=3, files_only=True))
    assert isinstance(res.results[0], NoteHit)
    assert res.results[0].path == first
    note = res.results[0].components["note"]
    assert (note is None) == (weight == 0.0)


def test_a_keyword_query_has_no_note_part() -> None:
    """A few words ask for the passage that has them (help-en rare-word keywords lost nDCG@10
    -0.037 with the part on)."""
    models = FakeModels()
    view = fake_view(NOTES, models)
    res = run_search(view, models, Settings(), SearchRequest("sourdough starter", top=3))
    assert res.results
    assert all(h.components["note"] is None for h in res.results)


def test_related_notes_have_no_note_part_by_default() -> None:
    models = FakeModels()
    view = fake_view(NOTES, models)
    res = run_related(view, models, Settings(), RelatedRequest(path=TIL, top=3))
    assert res.results
    assert all(h.components["note"] is None for h in res.results)


def test_related_notes_read_their_own_note_weight() -> None:
    models = FakeModels()
    view = fake_view(NOTES, models)
    s = Settings().with_value("experimental.related_score_note", 0.5)
    res = run_related(view, models, s, RelatedRequest(path=TIL, top=3))
    assert res.results
    assert all(h.components["note"] is not None for h in res.results)


def test_note_vectors_block_by_block_are_bitwise_the_one_pass_sums(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Bounded memory: the chunk rows are gathered a block of whole notes at a time; any block
    size gives the same bits (a note larger than a block is summed whole)."""
    import vaultheat.core.query.notevec as notevec

    rng = np.random.default_rng(3)
    dense = _unit(rng, 400, 16)
    dense[rng.random(400) < 0.1] = 0.0
    chunk_note = rng.integers(-1, 60, size=400)
    chunk_note[:90] = 7  # one note of 90 chunks, more than a small block
    lead = {int(n): int(c) for c, n in enumerate(chunk_note) if n >= 0 and c % 5 == 0}
    whole = note_vectors(dense, chunk_note, lead).matrix
    for block in (1, 7, 64):
        monkeypatch.setattr(notevec, "BLOCK", block)
        assert np.array_equal(note_vectors(dense, chunk_note, lead).matrix, whole)
