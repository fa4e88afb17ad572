"""Per-note diversity in chunk results (core/query/shape.py)."""

from __future__ import annotations

import pytest

from vaultheat.core.query.shape import diversify

NOTE = {1: 1, 2: 1, 3: 1, 4: 2, 5: 1, 6: 3}


@pytest.mark.parametrize(
    ("per_note", "expected"),
    [
        (0, [1, 2, 3, 4, 5, 6]),
        (1, [1, 4, 6, 2, 3, 5]),
        (2, [1, 2, 4, 6, 3, 5]),
        (9, [1, 2, 3, 4, 5, 6]),
    ],
    ids=["off", "one", "two", "above-any"],
)
def test_diversify(per_note: int, expected: list[int]) -> None:
    assert diversify([1, 2, 3, 4, 5, 6], NOTE.__getitem__, per_note) == expected
