"""What ``status`` reports: the index as a whole (``Status``) and one note (``NoteStatus``).

The engine fills these in; the ``vaultheat.status.v1`` and ``vaultheat.note_status.v1``
documents are made from them at the edge (``vaultheat.documents``), for the CLI, the HTTP API
and the agent tools alike. ``built`` says whether an index database exists yet: the counts of
a vault never indexed are all zero, and its document lists them in the order clients have
always seen (see ``tests/test_status_golden.py``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from vaultheat.core.freshness import IndexFreshness


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

    @property
    def vectors(self) -> int:
        return self.chunks  # one vector per chunk: the index keeps them in step


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
