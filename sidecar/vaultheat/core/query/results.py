"""What a query returns: typed results of search, related notes and explain.

Core builds these and nothing else; the ``vaultheat.search.v1`` / ``related.v1`` /
``explain.v1`` documents are made from them in one place at the edge (``vaultheat.documents``),
for the CLI, the HTTP API and the agent tools alike. So a field is named once here, and the
wire format (key order, rounding) is decided once there.

Scores are kept exact (documents round them); ``components`` are the raw score parts per stage
as the pipeline reports them (``traces.components_of``), ``None`` for a stage that did not
run. ``relevance`` / ``relevance_label`` stay ``None`` until ``with_relevance`` reads them off a
calibrated curve (``core/query/relevance.py``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TypeVar

from vaultheat.core.query.linkheat import LinkHeat
from vaultheat.core.query.relevance import Curve, rate
from vaultheat.core.query.votes import Vote

Components = Mapping[str, float | None]  # stage -> raw score part (None: the stage did not run)


@dataclass(frozen=True, slots=True)
class ChunkRef:
    """A result's best chunk: where it is (lines and bytes; a PDF's page range or a canvas's
    card for derived text, whose lines are 0 and bytes the whole file) and its snippet."""

    chunk_id: int
    heading_path: tuple[str, ...]
    line_start: int
    line_end: int
    byte_start: int
    byte_end: int
    text: str
    page: int | None = None
    page_end: int | None = None
    card_id: str | None = None
    open_page: int | None = None  # PDF: the page to open, the one holding the match


@dataclass(frozen=True, slots=True)
class SeedTrace:
    """Where a result's heat started: the seed chunk and the retriever that found it."""

    chunk_id: int
    path: str | None
    heading_path: tuple[str, ...]
    text: str
    stage: str  # "vector", "lexical", "note", "chunk:2", "graph", "votes" ...
    seed_score: float
    page: int | None = None  # derived text: the seed chunk's locator
    page_end: int | None = None
    card_id: str | None = None


@dataclass(frozen=True, slots=True)
class HopTrace:
    """One hop of heat along a typed edge: ``heat == previous · edge · decay · type · hub``."""

    hop: int
    from_chunk: int
    to_chunk: int
    edge: str | None  # set on every hop (None only on a seed, which is no hop)
    edge_weight: float
    type_weight: float
    hub_factor: float
    decay: float
    heat: float
    path: str | None
    heading_path: tuple[str, ...]
    text: str


@dataclass(frozen=True, slots=True)
class ScoreParts:
    """The score arithmetic: ``final == Σ weights[k] · normalized[k]``."""

    raw: Mapping[str, float | None]
    normalized: Mapping[str, float | None]
    weights: Mapping[str, float]
    final: float


@dataclass(frozen=True, slots=True)
class SpaceTrace:
    """The vector space that scored a chunk (an index with a second space, issue #40): its
    ``vector`` part is that space's cosine on the English scale (``core/query/routing.py``), and
    so is its ``note`` part (its note's vector in that space, ``core/query/notevec.py``)."""

    space: str  # "english" | "multilingual"
    query_language: str  # ISO 639-1 of the query ("und": not known)
    chunk_language: str  # the chunk's, as the index has it
    reason: str  # the routing rule that applied, in words
    partial: bool  # the second space is still being filled


@dataclass(frozen=True, slots=True)
class PointerTrace:
    """A chunk's pointer credit (``experimental.search_pointer_credit``,
    ``core/query/pointer_credit.py``): its ``pointer`` score part is ``received - gave``. A pointer
    chunk (a digest's or a list page's, whose entry at ``lines`` of its note links the notes
    ``to``) gave ``gave``, the share of its score before the credit; the best chunk of a note
    such an entry links received ``received`` from the entry at ``source_lines`` of
    ``source``. ``text`` says it in words."""

    text: str
    gave: float = 0.0
    to: tuple[str, ...] = ()
    path: str | None = None  # the pointer chunk's note
    lines: tuple[int, int] | None = None
    received: float = 0.0
    source: str | None = None
    source_lines: tuple[int, int] | None = None


@dataclass(frozen=True, slots=True)
class Trace:
    """Why a chunk scored what it did, from the run that scored it. A related-notes trace adds
    the note's ``content_score`` (its ``coverage`` part included), and its final ``score``
    (content + link votes + link heat)."""

    seed: SeedTrace
    hops: tuple[HopTrace, ...]
    components: ScoreParts
    content_score: float | None = None
    score: float | None = None
    pointer: PointerTrace | None = None  # search: the pointer credit it gave or received
    space: SpaceTrace | None = None  # search with a second vector space: which one scored it
    coverage: float | None = None  # related notes: the coverage part of content_score


@dataclass(frozen=True, slots=True)
class ChunkHit:
    """A search result: one chunk."""

    rank: int
    chunk_id: int
    path: str
    title: str
    heading_path: tuple[str, ...]
    line_start: int
    line_end: int
    byte_start: int
    byte_end: int
    text: str
    text_truncated: bool
    score: float
    found_by: str
    components: Components
    explain: Trace | None = None
    relevance: float | None = None
    relevance_label: str | None = None
    page: int | None = None  # derived text (PDF, canvas): the chunk's locator
    page_end: int | None = None
    card_id: str | None = None
    open_page: int | None = None  # PDF: the page to open, the one holding the match
    duplicates: tuple[str, ...] = ()  # notes below quoting this one's text, folded in
    space: str | None = None  # with a second vector space: "english" | "multilingual"


@dataclass(frozen=True, slots=True)
class NoteHit:
    """A files-only search result: one note and its best chunk."""

    rank: int
    path: str
    title: str
    score: float
    best_chunk: ChunkRef
    components: Components
    relevance: float | None = None
    relevance_label: str | None = None
    duplicates: tuple[str, ...] = ()  # notes below quoting this one's text, folded in
    # with a second vector space: the one that scored the best chunk ("english" |
    # "multilingual", core/query/routing.py); None with one space
    space: str | None = None


@dataclass(frozen=True, slots=True)
class RelatedHit:
    """A related note: its best chunk, how it is linked to the query note, the notes folded
    into it as near-duplicates, the link votes and link heat it received (``voter_titles``
    names the voters and the notes link heat came through)."""

    rank: int
    path: str
    title: str
    folder: str
    score: float
    link_status: str  # "unlinked" | "linked" | "backlinked" | "both"
    best_chunk: ChunkRef
    duplicates: tuple[str, ...]
    components: Components
    votes: Vote | None
    voter_titles: Mapping[str, str]
    explain: Trace | None = None
    relevance: float | None = None
    relevance_label: str | None = None
    link_heat: LinkHeat | None = None  # related.link_heat: the bonus from the note's own links
    space: str | None = None  # with a second vector space: the one that scored the best chunk
    # experimental.related_score_coverage: the part its content score got for how much of the
    # open note it speaks to (core/query/coverage.py); None while off or not computed
    coverage: float | None = None


SearchHit = ChunkHit | NoteHit
Hit = TypeVar("Hit", bound=ChunkHit | NoteHit | RelatedHit)


@dataclass(frozen=True, slots=True)
class SearchResults:
    query: str
    took_ms: float
    files_only: bool
    results: tuple[SearchHit, ...]
    # "meaning": the usual weights; "words": no vector match was even "good" and the query's
    # words were found, so the exact matches led (search.score_lexical_weak)
    ranked_by: str = "meaning"
    # chunk results: at most this many chunks of one note came before every other note's
    # chunks (search.chunks_per_note, core/query/shape.py), so a rank can sit below a lower score;
    # 0: plain score order (always 0 for files-only results)
    per_note: int = 0
    # the query was read in a second vector space that is still being filled (issue #40): a
    # chunk without its vector there yet was scored in the English space
    partial_space: bool = False

    def with_relevance(self, curve: Curve) -> SearchResults:
        return dataclasses.replace(self, results=with_relevance(self.results, curve))


@dataclass(frozen=True, slots=True)
class RelatedResults:
    path: str
    took_ms: float
    results: tuple[RelatedHit, ...]
    # the note was read in a second vector space that is still being filled, as in search
    partial_space: bool = False

    def with_relevance(self, curve: Curve) -> RelatedResults:
        return dataclasses.replace(self, results=with_relevance(self.results, curve))


@dataclass(frozen=True, slots=True)
class Explanation:
    """One result explained: the result's identity and score, and its trace."""

    query: str
    chunk_id: int
    path: str
    score: float
    trace: Trace | None
    votes: Vote | None = None  # related notes only
    voter_titles: Mapping[str, str] = dataclasses.field(default_factory=dict)
    link_heat: LinkHeat | None = None  # related notes only


def relevance_of(hit: ChunkHit | NoteHit | RelatedHit, curve: Curve) -> tuple[float, str]:
    """The hit's absolute relevance and its label: the curve reads the raw cosine and, for a
    related note, its link-vote evidence (``share × hub_factor``, as ``vote_evidence`` reads
    it off the document clients get)."""
    votes = hit.votes if isinstance(hit, RelatedHit) else None
    share = votes.share * votes.hub_factor if votes is not None else 0.0
    return rate(hit.components.get("vector"), share, curve)


def with_relevance(hits: tuple[Hit, ...], curve: Curve) -> tuple[Hit, ...]:
    """The hits with ``relevance`` and ``relevance_label`` set."""
    out = []
    for hit in hits:
        rel, name = relevance_of(hit, curve)
        out.append(dataclasses.replace(hit, relevance=rel, relevance_label=name))
    return tuple(out)


def explanation(query: str, hit: ChunkHit | RelatedHit) -> Explanation:
    if isinstance(hit, ChunkHit):
        return Explanation(query, hit.chunk_id, hit.path, hit.score, hit.explain)
    return Explanation(query, hit.best_chunk.chunk_id, hit.path, hit.score, hit.explain,
                       hit.votes, hit.voter_titles, hit.link_heat)  # fmt: skip
