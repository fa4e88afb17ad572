"""The context header (``context_header``) embedded with every chunk, two lines at most
(``core/vault/chunking.py`` cuts the chunks)::

    <title> (aliases: a, b) #tag1 #tag2
    Heading > Subheading

The alias part appears only when there are aliases (up to 8), tags are unique
(case-insensitively, up to 8, frontmatter first), the second line only when the heading path is
not empty; whitespace runs become one space. Given a budget it is cut to at most a quarter of
``max_tokens``: aliases go first, then tags, then outer headings (``… > Innermost``), then the
title is shortened at a word with ``…``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from vaultheat.core.models import ParsedNote

CountTokens = Callable[[str], int]

HEADER_MAX_TAGS = 8
HEADER_MAX_ALIASES = 8
HEADER_SHARE = 4  # the header gets at most 1/HEADER_SHARE of max_tokens
ELLIPSIS = "…"

SURROGATE = re.compile("[\udc80-\udcff]")  # undecodable bytes (surrogate escapes)


def _squash(s: str) -> str:
    return SURROGATE.sub("\ufffd", " ".join(s.split()))


def context_header(
    note: ParsedNote,
    heading_path: Sequence[str],
    *,
    max_tokens: int = 0,
    count_tokens: CountTokens | None = None,
) -> str:
    """The chunk's context line(s); cut to ``max_tokens // 4`` tokens when a counter is given."""
    title = _squash(note.title)
    aliases: list[str] = []
    for a in (_squash(a) for a in note.aliases):
        if a and a not in aliases and len(aliases) < HEADER_MAX_ALIASES:
            aliases.append(a)
    tags: list[str] = []
    seen: set[str] = set()
    for t in note.tags:
        name = _squash(t.name).replace(" ", "")
        if name and name.casefold() not in seen and len(tags) < HEADER_MAX_TAGS:
            seen.add(name.casefold())
            tags.append("#" + name)
    path = [_squash(h) for h in heading_path]
    alias_part = f" (aliases: {', '.join(aliases)})" if aliases else ""
    tag_part = " " + " ".join(tags) if tags else ""
    path_line = " > ".join(path)
    short_path = f"{ELLIPSIS} > {path[-1]}" if len(path) > 1 else path_line

    def join(first: str, second: str) -> str:
        return f"{first}\n{second}" if second else first

    full = join(title + alias_part + tag_part, path_line)
    if count_tokens is None or max_tokens <= 0:
        return full
    cap = max(max_tokens // HEADER_SHARE, 1)
    variants = [
        full,
        join(title + tag_part, path_line),
        join(title, path_line),
        join(title, short_path),
    ]
    for v in variants:
        if count_tokens(v) <= cap:
            return v
    shortened = _shorten(title, lambda t: join(t, short_path), count_tokens, cap)
    if shortened is None:
        shortened = _shorten(short_path, lambda p: p, count_tokens, cap)
    return shortened if shortened is not None else ""


def _shorten(s: str, build: Callable[[str], str], count: CountTokens, cap: int) -> str | None:
    """Longest ``build(prefix + "…")`` within ``cap`` tokens (cut at a space when one is near)."""
    if count(build(ELLIPSIS)) > cap:
        return None
    lo, hi = 0, len(s)  # prefix length lo fits, hi does not (the whole string did not)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if count(build(s[:mid].rstrip() + ELLIPSIS)) <= cap:
            lo = mid
        else:
            hi = mid
    space = s.rfind(" ", 0, lo + 1)
    if space >= lo * 0.6 and count(build(s[:space].rstrip() + ELLIPSIS)) <= cap:
        lo = space
    return build(s[:lo].rstrip() + ELLIPSIS)
