"""What ``status`` reports: the index as a whole (``Status``) and one note (``NoteStatus``).

The engine fills these in; the ``vaultheat.status.v1`` and ``vaultheat.note_status.v1``
documents are made from them at the edge (``vaultheat.documents``), for the CLI, the HTTP API
and the agent tools alike. ``built`` says whether an index database exists yet: the counts of
a vault never indexed are all zero, and its document lists them in the order clients have
always seen (see ``tests/documents/test_status_golden.py``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from vaultheat.core.vault.discovery import DEFAULT_KINDS, DOCUMENT_KINDS
from vaultheat.core.vault.freshness import IndexFreshness


@dataclass(frozen=True)
class ModelInfo:
    provider: str
    name: str  # the model actually used: a preset ("multilingual") shows the model it names
    backend: str  # as configured, or what "auto" became when this index was built
    preset: str | None = None  # the configured preset name, when it is one
    dimension: int | None = None  # None until an index is built


@dataclass(frozen=True)
class Skipped:
    """A file the index holds no chunks for, and why (binary, too large, chunking failed)."""

    path: str
    reason: str


KINDS = DEFAULT_KINDS  # what ``index.kinds`` can read: every one is counted


@dataclass(frozen=True)
class KindCount:
    """One kind of file (Markdown notes, PDFs, canvases): how many are indexed, how many skipped."""

    indexed: int = 0
    skipped: int = 0


def kind_of(path: str) -> str | None:
    """The kind a vault path is read as (by its suffix), or None for any other file."""
    low = path.lower()
    if low.endswith(".md"):
        return "markdown"
    return next((k for k, ext in DOCUMENT_KINDS.items() if low.endswith(ext)), None)


def count_kinds(indexed: Mapping[str, int], skipped: tuple[Skipped, ...]) -> dict[str, KindCount]:
    """Per kind, the indexed count (the store's) and the skipped files of that kind."""
    off = {k: 0 for k in KINDS}
    for s in skipped:
        kind = kind_of(s.path)
        if kind is not None:
            off[kind] += 1
    return {k: KindCount(int(indexed.get(k, 0)), off[k]) for k in KINDS}


@dataclass(frozen=True)
class Phases:
    """The two phases of an index run (``indexer``): words (notes, chunks, the lexical index
    and the links, for the whole vault) then meaning (the chunk vectors, most recently
    modified notes first). Each is ``done``, ``running`` (a run is at it now), ``interrupted``
    (a run stopped in it: ``vaultheat index`` resumes) or ``pending`` (no index yet)."""

    words: str = "pending"
    meaning: str = "pending"
    vectors: int = 0  # chunks with their vector
    chunks: int = 0
    eta_s: float | None = None  # the meaning phase's time left, while it runs

    @property
    def percent(self) -> float:
        """Share of the chunks with a vector, in percent (an empty index: 100 once built)."""
        if not self.chunks:
            return 100.0 if self.meaning == "done" else 0.0
        return round(100.0 * self.vectors / self.chunks, 1)


def phases_of(
    *,
    built: bool,
    indexing: bool,
    words_done: bool,
    chunks: int,
    unembedded: int,
    meaning: dict[str, float] | None,
    now: float,
) -> Phases:
    """The phases from what the index records: ``words_done`` (the manifest's flag, set once
    the words phase of the last run committed), the chunks still awaiting a vector and the
    meaning phase's progress (``meaning``: total, done, started, updated, epoch seconds)."""
    if not built:
        return Phases()
    running = "running" if indexing else "interrupted"
    words = "done" if words_done else running
    if unembedded == 0 and words_done:
        return Phases(words, "done", chunks, chunks)
    state = running if words_done else "pending"  # meaning starts once the words are in
    eta = None
    if indexing and words_done and meaning:
        elapsed = float(meaning.get("updated", 0)) - float(meaning.get("started", 0))
        done = float(meaning.get("done", 0))
        if elapsed >= 2.0 and done > 0:
            eta = round(max(0.0, unembedded / (done / elapsed) - (now - meaning["updated"])), 1)
    return Phases(words, state, chunks - unembedded, chunks, eta)


@dataclass(frozen=True)
class Status:
    version: str
    vault: str
    index_dir: str
    model: ModelInfo
    exclude: tuple[str, ...]
    index: IndexFreshness
    built: bool = False  # an index database exists
    notes: int = 0  # indexed notes, the opted-out ones not counted
    excluded: int = 0  # notes opted out by their frontmatter
    chunks: int = 0
    links_resolved: int = 0
    links_unresolved: int = 0
    tags: int = 0
    # edges by kind: ``similar`` and ``link`` always, then any other kind the store holds
    edges: Mapping[str, int] = field(default_factory=lambda: {"similar": 0, "link": 0})
    skipped: tuple[Skipped, ...] = ()  # by path
    phases: Phases = field(default_factory=Phases)
    # Markdown notes, PDFs and canvases: indexed and skipped, each (``notes`` is their sum)
    kinds: Mapping[str, KindCount] = field(default_factory=lambda: {k: KindCount() for k in KINDS})
    # what the notes are (core/vault/pagekind.py): notes proper, digests, list pages; not classified
    # yet ("unclassified": an index from before page kinds, until its next run)
    pages: Mapping[str, int] = field(default_factory=dict)
    labels: LabelFit | None = None  # None: not fitted (yet, or related.fit_labels off)
    # chunks per language (core/language.py: ISO 639-1, "und" when nothing can be said), most
    # first, then "pending": chunks not looked at yet (the meaning phase detects them)
    languages: Mapping[str, int] = field(default_factory=dict)
    # the second vector space (issue #40: multilingual vectors of every chunk); None: no index
    multilingual: SpaceCount | None = None

    @property
    def vectors(self) -> int:
        """Chunks with their vector: all of them once the meaning phase is done."""
        return self.phases.vectors if self.built else self.chunks


@dataclass(frozen=True)
class SpaceCount:
    """A second vector space: ``empty`` (never filled: no model recorded for it), ``filling``
    (some chunks have their vector in it) or ``done`` (every chunk has)."""

    vectors: int = 0
    chunks: int = 0
    filled: bool = False  # a model's vectors are recorded for the space
    # chunks in other languages, without an English vector: read in this space only (issue #40)
    only: int = 0

    @property
    def state(self) -> str:
        if not self.filled:
            return "empty"
        return "done" if self.vectors >= self.chunks else "filling"


@dataclass(frozen=True)
class LabelFit:
    """Where related notes' labels come from (core/query/calibration.py): ``vault`` when the index
    fitted them on the vault's own links, ``model`` when it tried and found too few links; with
    the sidebars read for the fit and how many of their results were linked."""

    source: str  # "vault" | "model"
    sampled: int
    points: int
    linked: int


@dataclass(frozen=True)
class NoteStatus:
    path: str
    exists: bool  # a file of that name is in the vault
    indexed: bool  # the index holds the note (and it is not opted out)
    reason: str | None  # why it is not indexed, not fresh or has no chunks; None when all is well
    chunks: int = 0
    indexed_hash: str | None = None
    disk_hash: str | None = None

    @property
    def fresh(self) -> bool:
        """The indexed text is the text on disk."""
        return self.indexed_hash is not None and self.disk_hash == self.indexed_hash
