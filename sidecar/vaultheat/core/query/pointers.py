"""Pointer entries: the bullet of a digest or a list page that a query matched, and the notes
it points at.

A weekly newsletter holds "- [[Kanban]] turns a Markdown list into a board"; a query for a
board of Markdown lists matches that one line and ranks the newsletter, while the answer is the
note the line links. Search (``experimental.search_pointer_credit``,
``core/query/pointer_credit.py``) moves a share of such a chunk's score to the notes its matching
entry links. This module only reads a chunk's text: which entry holds the query's evidence,
and where it points.

The rules, each chosen to be plain to check:

* An *entry* is a list item (a ``-``, ``*``, ``+`` or ``1.`` bullet) with the lines indented
  under it (its continuation lines, blank lines between them included); a nested bullet is an
  entry of its own. Any other non-blank line (a heading, a paragraph line) is an entry alone.
* The query's terms are matched as the lexical index matches them (``core/vault/lexical.py``:
  folded, diacritics removed, CJK bigrams, no stemming). ``matched`` is the set of distinct query
  terms found anywhere in the chunk; the entry holding the most of them (the first on ties) holds
  the evidence when it holds at least ``EVIDENCE_SHARE`` (2/3) of them, rounded up. Evidence
  spread over several entries points nowhere.
* That entry is a pointer when its links (wikilinks, embeds, markdown links, parsed by
  ``core/vault/links.py``, so nothing inside code counts) resolve to 1 to ``MAX_TARGETS`` (3)
  distinct notes other than the chunk's own: ``resolve`` returns None for an unresolved link or an
  attachment (``note_resolver``). An entry that links more notes is a list in itself, not a
  pointer.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Container, Sequence
from dataclasses import dataclass

from vaultheat.core.models import ByteMap, Link, line_starts
from vaultheat.core.vault.lexical import fold, text_terms
from vaultheat.core.vault.links import extract_links
from vaultheat.core.vault.resolve import LinkResolver

EVIDENCE_SHARE = 2 / 3  # the entry holds at least this share of the chunk's matched terms
MAX_TARGETS = 3  # an entry linking more notes than this is not a pointer

_BULLET = re.compile(r"^([ \t]*)(?:[-*+]|\d+[.)])(?:[ \t]|$)")

Resolve = Callable[[Link], str | None]  # a link -> the indexed note it points at, or None


@dataclass(frozen=True, slots=True)
class Pointer:
    """A chunk's entry that holds the query's evidence and the notes it links.

    ``line_start`` / ``line_end``: the entry's lines in the chunk's text, 1-based, inclusive."""

    targets: tuple[str, ...]
    line_start: int
    line_end: int


def entries(text: str) -> list[tuple[int, int]]:
    """The entries of ``text`` as (first line, last line), 1-based and inclusive."""
    lines = text.split("\n")
    out: list[tuple[int, int]] = []
    open_indent: int | None = None  # the indent of the bullet whose entry is open
    for i, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        indent = _width(line[: len(line) - len(line.lstrip(" \t"))])
        bullet = _BULLET.match(line)
        if open_indent is not None and indent > open_indent and bullet is None:
            out[-1] = (out[-1][0], i)  # a continuation line of the open bullet
            continue
        out.append((i, i))
        open_indent = indent if bullet is not None else None
    return out


def _width(indent: str) -> int:
    return len(indent.replace("\t", "    "))


def find_pointer(text: str, terms: Sequence[str], resolve: Resolve, own: str) -> Pointer | None:
    """The pointer of a chunk of note ``own`` whose text is ``text`` for a query of ``terms``
    (``lexical.query_terms``), or None (the rules are in the module docstring)."""
    wanted = {fold(t) for t in terms}
    matched = wanted & text_terms(text)
    if not matched:
        return None
    lines = text.split("\n")
    best: tuple[int, int, int] | None = None  # (terms held, first line, last line)
    for first, last in entries(text):
        held = len(matched & text_terms("\n".join(lines[first - 1 : last])))
        if best is None or held > best[0]:
            best = (held, first, last)
    if best is None or best[0] < math.ceil(EVIDENCE_SHARE * len(matched) - 1e-9):
        return None
    _, first, last = best
    targets: list[str] = []
    for link in _links(text):
        if not first <= link.line <= last:
            continue
        path = resolve(link)
        if path is not None and path != own and path not in targets:
            targets.append(path)
    if not 0 < len(targets) <= MAX_TARGETS:
        return None
    return Pointer(tuple(targets), first, last)


def _links(text: str) -> list[Link]:
    """The links of a chunk's text, with 1-based lines in the chunk."""
    raw = text.encode("utf-8", "surrogateescape")
    return extract_links(text, ByteMap(text), line_starts(raw), body_char_start=0,
                         frontmatter={}, frontmatter_span=None)  # fmt: skip


def note_resolver(resolver: LinkResolver, notes: Container[str], source: str) -> Resolve:
    """``resolve`` for links written in ``source``: the path a link resolves to when it is one
    of ``notes`` (the indexed notes), else None (an attachment, an unresolved link)."""

    def resolve(link: Link) -> str | None:
        path = resolver.resolve_link(link, source)
        return path if path is not None and path in notes else None

    return resolve
