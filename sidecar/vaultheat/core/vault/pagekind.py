"""What a note is, from its shape: a digest, a list page, or a note proper.

A digest (a daily, weekly or monthly newsletter that a generator or a habit writes: a dated
name, headings and bullets that link the notes they are about) and a list page (most of its
lines are links) match many queries with one line each, and that line usually points at the
note that answers: "* New: Change passphrase" under "### [LUKS](luks.md)". Search reads the
kind as evidence (the ``page`` score part, ``core/query/pipeline.py``): when a digest or a list page
and a note proper both match, the note wins.

The indexer classifies each note when it reads it (``Store`` keeps the kind), from its body
(frontmatter left out) and file name:

- **digest**: the file name starts with a date (``2021_10_09``, ``2021_w14``, ``2021-04``, a
  year alone, ``2025-07-04-notes``) and a heading links a note (``### [LUKS](luks.md)``, as
  newsletter generators write them), or at least two of its text lines, and at least
  ``LIST_SHARE`` of them, are entries (see below). A daily journal whose lines say things of
  their own, links or not, is a note.
- **list**: at least ``LIST_MIN_LINES`` of the body's text lines are entries (a line that
  carries a link and less than ``ENTRY_TEXT`` bytes of text besides its links), they are at
  least ``LIST_SHARE`` of its text lines, and the text outside links sums to less than
  ``LIST_MAX_PROSE`` bytes (a prose page whose sentences link, or an article that ends in a
  long list of links, is a note).
- **note**: everything else.

Only links to notes count (wikilinks, Markdown links to a file): a page of links to web pages
points out of the vault, not at a note that answers, and reads as a note. Known limits: a
digest without a date in its name reads as a list page or a note; headings count as neither
entries nor prose in the list rule.
"""

from __future__ import annotations

import re

from vaultheat.core.models import ParsedNote

NOTE, DIGEST, LIST = "note", "digest", "list"
KINDS = (NOTE, DIGEST, LIST)
LIST_MIN_LINES = 5
LIST_SHARE = 0.5
LIST_MAX_PROSE = 3000  # bytes of text outside links, over the whole body
ENTRY_TEXT = 80  # bytes of a line's text besides its links, below which it is an entry

_DATE = r"\d{4}[-_.](?:w\d{1,2}|q[1-4]|\d{2}(?:[-_.]\d{2})?)|\d{8}"
_DATED = re.compile(rf"^(?:(?:{_DATE})(?:$|[-_ .])|\d{{4}}$)", re.IGNORECASE)
# a link to a note: a wikilink or a Markdown link whose target is not a web or mail address
_LINK = re.compile(r"\[\[[^\]\n]+\]\]|\[[^\]\n]*\]\((?![a-z][a-z0-9+.-]*:)[^)\s]+[^)\n]*\)", re.I)
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s")
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s")
_FENCE = re.compile(r"^\s{0,3}(?:`{3,}|~{3,})")
_RULE = re.compile(r"^\s{0,3}(?:[-*_]\s*){3,}$")


def dated_name(path: str) -> bool:
    """Whether the file name (without its extension) starts with a date or is a year."""
    base = path.rsplit("/", 1)[-1]
    stem = base.rsplit(".", 1)[0] if "." in base else base
    return _DATED.match(stem) is not None


def page_kind(path: str, body: str) -> str:
    """The kind of the note at ``path`` whose body (after the frontmatter) is ``body``."""
    headings = entries = lines = prose = 0
    fenced = False
    for line in body.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
            continue
        stripped = line.strip()
        if not stripped or _RULE.match(stripped):
            continue
        linked = not fenced and _LINK.search(line) is not None
        if not fenced and _HEADING.match(line):
            headings += linked
            continue
        lines += 1
        text = _LINK.sub("", stripped) if linked else stripped
        size = len(text.encode("utf-8", "surrogateescape"))
        prose += size
        entries += linked and size < ENTRY_TEXT
    mostly_entries = entries >= LIST_SHARE * lines
    if dated_name(path) and (headings or (entries >= 2 and mostly_entries)):
        return DIGEST
    if entries >= LIST_MIN_LINES and mostly_entries and prose < LIST_MAX_PROSE:
        return LIST
    return NOTE


def note_page_kind(note: ParsedNote) -> str:
    """The kind of a parsed note; a PDF or a canvas is a plain note."""
    if note.kind != "markdown":
        return NOTE
    body = note.raw[note.body_byte_start :].decode("utf-8", "surrogateescape")
    return page_kind(note.path, body)
