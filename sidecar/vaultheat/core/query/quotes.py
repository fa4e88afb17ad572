"""Quotes fold into what they quote: one passage, shown once.

A digest repeats a note's paragraph word for word, a weekly newsletter quotes the daily one, a
list page copies a note's first line. Each copy matches the query as well as the note does, so
without this a search for that passage shows the note and then three or four copies of it
(bluebook: 15 of the 64 top-10 slots its labelled set calls junk are digests quoting a note
ranked above them). A result whose best chunk is mostly text of a note ranked above it (at least
``share`` of its word 4-grams are found in that note) is folded into that note: it leaves the
list, and the note it quotes names it among its ``duplicates``, as related notes fold
near-duplicates. The note ranked above keeps its place, unless it is a digest or a list page
and the one below a note proper: then the note proper takes the place (the source outranks its
quotes) and the digest folds into it. Otherwise the order is the retrieval's.

Texts are compared as sets of lower-cased word 4-grams, so a copy with other line
breaks, list markers or Markdown around the same words still counts; a best chunk of fewer than
``MIN_GRAMS`` 4-grams (one short line) is too short to call a quote and always stays.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

GRAM = 4  # words per shingle
MIN_GRAMS = 3  # a best chunk with fewer shingles is no quote of anything
_WORD = re.compile(r"\w+")


def shingles(text: str) -> frozenset[tuple[str, ...]]:
    """The lower-cased word ``GRAM``-grams of ``text``."""
    words = _WORD.findall(text.lower())
    return frozenset(zip(*(words[i:] for i in range(GRAM)), strict=False))


def quoted_share(part: frozenset[tuple[str, ...]], whole: frozenset[tuple[str, ...]]) -> float:
    """The share of ``part``'s shingles found in ``whole`` (0 for a part too short to tell)."""
    if len(part) < MIN_GRAMS:
        return 0.0
    return len(part & whole) / len(part)


@dataclass
class Kept:
    """A result that stays: its index in the ranking, and the notes folded into it."""

    index: int
    path: str
    duplicates: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Fold:
    """Why a result left the list: the kept note holding its text, its rank among the kept,
    and how much of the result's best chunk it holds."""

    path: str
    into: str
    into_rank: int
    share: float


@dataclass
class Folding:
    """The walk's outcome: the kept results in order, the folded ones by their index in the
    ranking, and how many entries the walk looked at (those below were never compared)."""

    kept: list[Kept]
    folded: dict[int, Fold]
    examined: int


def fold_quotes(
    ranking: Sequence[tuple[str, int]],
    chunk_text: Callable[[int], str],
    note_text: Callable[[str], str],
    top: int,
    share: float,
    proper: Callable[[int], bool] | None = None,
) -> Folding:
    """Walk ``ranking`` ((note path, best chunk id), best first) until ``top`` results are kept,
    folding each whose best chunk is at least ``share`` text of a kept note from another path.
    ``share`` <= 0 keeps everything. Entries of one path (chunk results: several chunks of a
    note) never fold into their own note. ``proper(chunk id)``: whether the chunk's note is a
    note proper, not a digest or a list page (``core/vault/pagekind.py``); a note proper that folds
    into a digest or a list page takes its place instead, and the digest folds into it (the
    source outranks its quotes)."""
    kept: list[Kept] = []
    folded: dict[int, Fold] = {}
    texts: dict[str, frozenset[tuple[str, ...]]] = {}
    examined = 0
    for i, (path, cid) in enumerate(ranking):
        if len(kept) >= top:
            break
        examined = i + 1
        if share > 0 and kept:
            mine = shingles(chunk_text(cid))
            best: tuple[float, int] | None = None
            for n, k in enumerate(kept):
                if k.path == path:
                    continue
                if k.path not in texts:
                    texts[k.path] = shingles(note_text(k.path))
                q = quoted_share(mine, texts[k.path])
                if q >= share and (best is None or q > best[0]):
                    best = (q, n)
            if best is not None:
                q, n = best
                k = kept[n]
                src = ranking[k.index][1]
                if proper is not None and proper(cid) and not proper(src):
                    kept[n] = Kept(i, path, [k.path, *(d for d in k.duplicates if d != path)])
                    folded[k.index] = Fold(k.path, path, n + 1, round(q, 3))
                    for j, f in folded.items():
                        if f.into == k.path:
                            folded[j] = Fold(f.path, path, n + 1, f.share)
                    continue
                if path not in k.duplicates:
                    k.duplicates.append(path)
                folded[i] = Fold(path, k.path, n + 1, round(q, 3))
                continue
        kept.append(Kept(i, path))
    return Folding(kept, folded, examined)
