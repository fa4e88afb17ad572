"""Plain data types shared by the vault model, chunker, indexer, storage and retrieval.

``NoteRow`` and ``ChunkRow`` are what the index returns: storage builds them, core reads them
(through ``core/ports.py``), so both sides import them from here and core never imports storage.

Offsets: every ``byte_*`` is an offset into the note file's raw bytes; ``line_*`` are 1-based and
inclusive. ``ParsedNote.text`` is ``raw.decode("utf-8", "surrogateescape")`` (BOM kept) so
invalid bytes survive a round trip and offsets stay exact; ``ByteMap`` converts between the two.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from typing import Any

import numpy as np

LINK_KINDS = ("wikilink", "embed", "markdown", "property")


@dataclass(frozen=True)
class Link:
    raw: str  # the whole link as written, e.g. "[[Note#Head|alias]]"
    target: str  # the path/name part, "" for a same-note link like [[#Heading]]
    subpath: str | None  # "Heading", "Heading#Sub", "^blockid", or None
    alias: str | None
    kind: str  # one of LINK_KINDS
    byte_start: int  # span of `raw` in the file (property links: the value's span)
    byte_end: int
    line: int


@dataclass(frozen=True)
class Heading:
    level: int
    text: str
    byte_start: int  # start of the heading line
    byte_end: int  # end of the heading line (without newline)
    line: int


@dataclass(frozen=True)
class Tag:
    name: str  # without '#', as written (case kept); nested tags keep their slashes
    byte_start: int  # -1 for frontmatter tags
    line: int  # 0 for frontmatter tags


@dataclass
class ParsedNote:
    path: str  # vault-relative, POSIX separators, NFC
    raw: bytes
    text: str  # raw decoded with surrogateescape
    body_byte_start: int  # first byte after the frontmatter block (0 when there is none)
    frontmatter: dict[str, Any]  # JSON-safe (dates as ISO strings)
    title: str  # frontmatter `title` or the file name without .md
    aliases: list[str]
    tags: list[Tag]
    links: list[Link]
    headings: list[Heading]
    block_ids: dict[str, int] = field(default_factory=dict)  # "^id" (without ^) -> byte offset
    warnings: list[str] = field(default_factory=list)  # e.g. malformed frontmatter
    excluded: bool = False  # opted out via frontmatter
    kind: str = "markdown"  # "markdown", "pdf" or "canvas"
    # derived text (PDF, canvas): its chunks, made when the file is read (raw/text are then the
    # extracted text, not the file's bytes); None for a note, which the chunker cuts
    drafts: list[ChunkDraft] | None = None

    @property
    def name(self) -> str:
        base = self.path.rsplit("/", 1)[-1]
        return base[:-3] if base.lower().endswith(".md") else base

    @property
    def folder(self) -> str:
        return self.path.rsplit("/", 1)[0] if "/" in self.path else ""


@dataclass(frozen=True)
class ChunkDraft:
    ordinal: int  # 0-based position in the note
    byte_start: int
    byte_end: int
    line_start: int
    line_end: int
    text: str  # == raw[byte_start:byte_end].decode("utf-8", "surrogateescape")
    heading_path: tuple[str, ...]  # headings enclosing the chunk start, outermost first
    embed_input: str  # context header + "\n\n" + text: what is embedded and indexed lexically
    # derived text (PDF, canvas): where it comes from. Its bytes span the whole file and its
    # lines are 0, since extracted text is no byte slice of the file (see core/vault/derived.py)
    page: int | None = None  # 1-based first page (PDF)
    page_end: int | None = None  # last page (== page for a one-page chunk)
    card_id: str | None = None  # the canvas card (JSON Canvas node id)
    # a chunk of joined PDF pages: (char offset in ``text``, page) where each page starts
    page_starts: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True)
class NoteRow:
    """A stored note, as the index returns it."""

    id: int
    path: str
    content_hash: str
    mtime_ns: int
    size: int
    title: str
    excluded: bool


@dataclass(frozen=True)
class ChunkRow:
    """A stored chunk with its note's path and title, as the index returns it."""

    id: int
    note_id: int
    path: str
    title: str
    ordinal: int
    byte_start: int
    byte_end: int
    line_start: int
    line_end: int
    heading_path: tuple[str, ...]
    text: str
    embed_hash: str
    page: int | None = None  # derived text only (see ChunkDraft)
    page_end: int | None = None
    card_id: str | None = None
    page_starts: tuple[tuple[int, int], ...] = ()  # a chunk of joined pages (see ChunkDraft)


class ByteMap:
    """Char offset <-> byte offset over a surrogateescape-decoded string."""

    def __init__(self, text: str) -> None:
        self._ascii = text.isascii()
        self._cum: list[int] = []
        if self._ascii:
            return
        # vectorized: UTF-8 length per code point; lone surrogates are escaped raw bytes (1)
        cps = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
        lens = np.where(
            cps < 0x80,
            1,
            np.where(cps < 0x800, 2, np.where(cps < 0x10000, 3, 4)),
        )
        lens[(cps >= 0xDC80) & (cps <= 0xDCFF)] = 1
        cum = np.zeros(len(cps) + 1, dtype=np.int64)
        np.cumsum(lens, out=cum[1:])
        self._cum = cum.tolist()

    def byte(self, char_offset: int) -> int:
        return char_offset if self._ascii else self._cum[char_offset]

    def char(self, byte_offset: int) -> int:
        """Char index of the char that starts at or contains ``byte_offset``."""
        if self._ascii:
            return byte_offset
        i = bisect.bisect_right(self._cum, byte_offset) - 1
        return max(i, 0)


def line_starts(raw: bytes) -> list[int]:
    """Byte offsets at which each line starts (line N starts at result[N-1])."""
    out = [0]
    find = raw.find
    i = find(b"\n")
    while i != -1:
        out.append(i + 1)
        i = find(b"\n", i + 1)
    return out


def line_of(starts: list[int], byte_offset: int) -> int:
    """1-based line number containing ``byte_offset``."""
    return bisect.bisect_right(starts, byte_offset)


def display_text(text: str) -> str:
    """A chunk's text for people and JSON: escaped bytes become U+FFFD, BOM dropped."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace").lstrip("\ufeff")
