"""core/query/coverage.py: how much of the open note a candidate speaks to, on hand-made unit
vectors (recall over the open note's chunks, precision over the candidate's best ones, their
harmonic mean). Floats compare at abs 1e-6 (float32 products)."""

from __future__ import annotations

import numpy as np
import pytest

from vaultheat.core.query.coverage import coverages

TOL = 1e-6


def unit(*xs: float) -> np.ndarray:
    v = np.array(xs, dtype=np.float32)
    return v / np.linalg.norm(v)


E1, E2, E3, E4 = (unit(*row) for row in np.eye(4))


def test_a_note_that_answers_every_section_covers_it_fully() -> None:
    q = np.stack([E1, E2])
    assert coverages(q, [np.stack([E2, E1])]) == pytest.approx([1.0], abs=TOL)


def test_one_section_answered_is_half_the_recall() -> None:
    # recall (1 + 0) / 2, precision 1 (its one chunk is answered): 2 * 0.5 * 1 / 1.5
    q = np.stack([E1, E2])
    assert coverages(q, [np.stack([E1])]) == pytest.approx([2 / 3], abs=TOL)


def test_a_long_note_is_not_marked_down_for_its_length() -> None:
    # its two best chunks answer the open note's two: precision reads only those
    q = np.stack([E1, E2])
    long = np.stack([E1, E2, E3, E4, E3, E4])
    assert coverages(q, [long]) == pytest.approx([1.0], abs=TOL)


def test_the_note_that_speaks_to_the_whole_note_covers_more_than_a_side_match() -> None:
    # the open note: two sections on one topic (E1, E2), one on a side topic (E3)
    q = np.stack([E1, E2, E3])
    side = np.stack([E3, E4, E4])  # matches the side section exactly, then talks of E4
    whole = np.stack([unit(1, 1, 0, 0), unit(1, 1, 0, 0)])  # halfway to both main sections
    got = coverages(q, [side, whole])
    assert got[1] > got[0]
    assert got == pytest.approx([2 * (1 / 3) * (1 / 3) / (2 / 3), 2 * (2**-0.5 * 2 / 3) * 2**-0.5
                                 / (2**-0.5 * 2 / 3 + 2**-0.5)], abs=TOL)  # fmt: skip


def test_no_chunks_and_opposite_notes_cover_nothing() -> None:
    q = np.stack([E1, E2])
    empty = np.zeros((0, 4), dtype=np.float32)
    assert coverages(q, [empty, np.stack([-E1, -E2]), np.stack([E1])]) == pytest.approx(
        [0.0, 0.0, 2 / 3], abs=TOL
    )
    assert coverages(q, []) == []
    assert coverages(q, [empty]) == [0.0]
