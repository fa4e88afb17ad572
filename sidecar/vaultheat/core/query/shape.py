"""Page shape in chunk results: one note should not hold most of the top (issue #22, item 3).

A digest or a giant list page is cut into many short, topically dense chunks; in chunk mode
they can fill the first page of results on their own. ``diversify`` lets at most ``per_note``
chunks of one note into the order before every other note's chunks have had their turn: the
further chunks are not dropped, they move down behind the rest, in their own score order. The
scores are unchanged, so a result's rank can sit below a lower-scored one: the result document
says the rule ran (``SearchResults.per_note``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence


def diversify(order: Sequence[int], note_of: Callable[[int], int], per_note: int) -> list[int]:
    """``order`` (best first) with each note's chunks beyond the first ``per_note`` moved
    behind all the others (``per_note`` <= 0: unchanged)."""
    if per_note <= 0:
        return list(order)
    kept: list[int] = []
    later: list[int] = []
    seen: dict[int, int] = {}
    for cid in order:
        note = note_of(cid)
        n = seen.get(note, 0)
        (kept if n < per_note else later).append(cid)
        seen[note] = n + 1
    return kept + later
