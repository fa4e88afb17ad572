"""Which vector space scores a chunk for a query (issue #40 slice 3): routing by language.

An index may hold a second vector space (``embeddings.second_space``): the multilingual
model's vectors of the chunks, filled by the second pass. When it does, a search query is
routed by its language (``core/language.py``): an English query scores English chunks in the
first (English) space and chunks in other languages in the second; a query in another language
scores every chunk in the second space. A chunk the second space has no vector for yet (the
pass is still filling it) stays in the first space.

The two models' cosines are on different scales (e5's off-topic best results sit near 0.79,
MiniLM's relevant ones near 0.45), so they are merged on their calibrated relevance curves
(``core/query/relevance.py``): a second-space cosine c is mapped onto the English scale as
``curve_en⁻¹(curve_second(c))``. The rest of the pipeline (fusion, score weights tuned on
English cosines, relevance labels) then reads one scale. Both curves have flat stretches
(P(relevant) 0 below a point, a plateau at the top), so each is made strictly increasing by a
small slope (``SLOPE`` × cosine) before the English one is inverted: the map is strictly
increasing, keeps the order within the second space, and is the identity when both curves
are the same.

Where one curve reads a relevance the other never does, the map goes on in a straight line,
at the ratio of the two curves' knot spans (``CosineMap.between``). e5's related curve starts
at P(relevant) 0.15, MiniLM's at 0.19: matching the lifted curves sent every e5 cosine below
0.95 to the end of the map's span (-2), so the chunks a Japanese note's neighbours are made of
tied and the vector part of related notes ranked nothing (help/ja strict nDCG@10 of the vector
part 0.205; docs/multilingual.md "The cosine map's straight lines"). The search curves both
start at 0 and MiniLM's reaches higher: nothing changes there.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from vaultheat.core.language import query_language
from vaultheat.core.ports import VectorIndexPort
from vaultheat.core.query.notevec import NoteVectors
from vaultheat.core.query.relevance import Curve

ENGLISH = "english"
MULTILINGUAL = "multilingual"
SLOPE = 1e-3  # P(relevant) per unit cosine added to both curves: strictly increasing maps
SPAN = (-2.0, 3.0)  # the cosine range the map is exact on (cosines lie in [-1, 1])
EPS = 1e-9  # a mapped knot this close to the English curve's first or last knot is on it
ENGLISH_CODES = ("en", "und")  # a text of these languages is read in the English space


@dataclass(frozen=True)
class SecondSpace:
    """The second vector space of one index generation, as a query reads it."""

    vectors: VectorIndexPort
    fingerprint: str  # its model's: a query embedder of another model must not search it
    languages: Mapping[int, str]  # chunk id -> language, for the chunks not in English
    partial: bool = False  # some chunks have no vector in it yet (the second pass runs)
    # chunks with a vector here and none in the English space: in other languages, they get no
    # English vector while a second space is configured (indexing/meaning.py)
    only: int = 0
    # the note vectors of this space (core/query/notevec.py): the ``note`` part of a chunk read
    # here; None: not built (the part then falls back to the chunk's own cosine here)
    notes: NoteVectors | None = None


def _lifted(curve: Curve, xs: np.ndarray) -> np.ndarray:
    return np.asarray(np.interp(xs, curve.xs, curve.ps), dtype=np.float64) + SLOPE * xs


@dataclass(frozen=True)
class CosineMap:
    """A second-space cosine -> the English cosine of the same relevance (piecewise linear,
    strictly increasing)."""

    knots: tuple[float, ...]  # second-space cosines, increasing
    values: tuple[float, ...]  # their English cosines, increasing

    @classmethod
    def between(cls, english: Curve, second: Curve) -> CosineMap:
        # both lifted curves are piecewise linear: their knots (and the span's ends) are
        # every point where the map can bend
        grid_en = np.unique(np.concatenate([np.asarray(english.xs, dtype=np.float64), SPAN]))
        grid_2 = np.unique(np.concatenate([np.asarray(second.xs, dtype=np.float64), SPAN]))
        lifted_en = _lifted(english, grid_en)
        # the second curve's knots, and the points where it reaches the English knots' levels
        levels = np.interp(lifted_en, _lifted(second, grid_2), grid_2)
        knots = np.unique(np.concatenate([grid_2, levels]))
        values = np.interp(_lifted(second, knots), lifted_en, grid_en)
        # where the second curve reads a relevance the English one never does (below the
        # English curve's lowest, above its highest), the matching above sent the cosines to
        # the span's end: there the map goes on in a straight line, at the knot spans' ratio
        first, last = float(english.xs[0]), float(english.xs[-1])
        lo, hi = float(second.xs[0]), float(second.xs[-1])
        ratio = (last - first) / max(hi - lo, EPS)
        below = min(second.ps) < min(english.ps) - EPS
        above = max(second.ps) > max(english.ps) + EPS
        keep = np.ones(len(knots), dtype=bool)
        if below:
            keep &= values >= first - EPS
        if above:
            keep &= values <= last + EPS
        knots, values = knots[keep], values[keep]
        if len(knots) < 2:  # the curves share no relevance: their knot spans, matched
            knots, values = np.array([lo, hi]), np.array([first, last])
        if below and knots[0] > SPAN[0]:
            knots = np.concatenate(([SPAN[0]], knots))
            values = np.concatenate(([values[0] - (knots[1] - SPAN[0]) * ratio], values))
        if above and knots[-1] < SPAN[1]:
            knots = np.concatenate((knots, [SPAN[1]]))
            values = np.concatenate((values, [values[-1] + (SPAN[1] - knots[-2]) * ratio]))
        return cls(tuple(float(k) for k in knots), tuple(float(v) for v in values))

    def __call__(self, cosines: np.ndarray) -> np.ndarray:
        mapped = np.interp(np.asarray(cosines, dtype=np.float64), self.knots, self.values)
        return np.asarray(mapped, dtype=np.float64)


@dataclass(frozen=True)
class Routing:
    """One query's routing: the space, the query's language, and the cosine map."""

    space: SecondSpace
    query_language: str
    everything: bool  # the query is not in English: every chunk goes to the second space
    to_english: CosineMap
    # the chunks not in English that have a vector in the second space (read there always)
    routed: frozenset[int] = frozenset()

    def second(self, cid: int) -> bool:
        """Whether chunk ``cid`` is scored in the second space."""
        return cid in self.routed or (self.everything and cid in self.space.vectors)

    def space_of(self, cid: int) -> str:
        return MULTILINGUAL if self.second(cid) else ENGLISH

    def chunk_language(self, cid: int) -> str:
        """The chunk's language as the index has it ("en" for one not recorded otherwise)."""
        return self.space.languages.get(cid, "en")

    def reason(self, cid: int) -> str:
        """Why ``cid`` was scored where it was, in a few words."""
        lang, q = self.chunk_language(cid), self.query_language
        if self.second(cid):
            if self.everything:
                return f"the query is in {q}: every chunk is read in the multilingual space"
            return f"the chunk is in {lang}: read in the multilingual space"
        if (self.everything or cid in self.space.languages) and cid not in self.space.vectors:
            return "the chunk has no multilingual vector yet (the second pass is filling it)"
        return f"the query ({q}) and the chunk ({lang}) are in English"


def route_query(
    space: SecondSpace | None,
    query: str,
    english: Curve,
    second: Curve,
    fingerprint: str | None,
) -> Routing | None:
    """The routing of ``query`` (``english``, ``second``: the two models' search curves):
    None without a second space, or when the query model's ``fingerprint`` is not the
    space's (the space was filled by another model)."""
    if space is None or fingerprint is None or fingerprint != space.fingerprint:
        return None
    if not len(space.vectors):
        return None
    return route_language(space, query_language(query).code, english, second, fingerprint)


def note_language(codes: Iterable[str]) -> str:
    """The language of a note from its chunks' (related notes: a note is read in its own
    language's space): the most frequent, English and "und" counted as English; a tie goes to
    English, then to the first in alphabetical order."""
    counts = Counter("en" if c in ENGLISH_CODES else c for c in codes)
    if not counts:
        return "en"
    top = max(counts.values())
    tied = sorted(c for c, n in counts.items() if n == top)
    return "en" if "en" in tied else tied[0]


def route_language(
    space: SecondSpace | None,
    code: str,
    english: Curve,
    second: Curve,
    fingerprint: str | None,
) -> Routing | None:
    """The routing of a query in language ``code`` (``route_query`` detects it from the
    query's text; related notes take the note's, ``note_language``); None as there."""
    if space is None or fingerprint is None or fingerprint != space.fingerprint:
        return None
    if not len(space.vectors):
        return None
    routed = frozenset(c for c in space.languages if c in space.vectors)
    return Routing(space, code, code not in ENGLISH_CODES, CosineMap.between(english, second),
                   routed)  # fmt: skip
