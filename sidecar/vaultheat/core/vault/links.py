"""Link extraction, and the code/comment mask that decides what is *not* markdown to look at.

Why a mask instead of a markdown parser: Obsidian does not treat anything inside fenced code,
inline code, ``%% comments %%`` or ``<!-- comments -->`` as a link, tag, heading or block id, and
those four constructs are all we need to know about the block structure. One left-to-right scan
finds them (whichever starts first wins, like CommonMark), and every later regex runs on a copy
of the text where those regions are overwritten with NUL (newlines kept) so char offsets stay
identical to the original. All patterns are written so that each start position fails or
succeeds after a bounded look-ahead (no nested quantifiers, "[[" cannot occur inside a wikilink),
which keeps extraction linear on million-character lines.

Byte offsets come from ``ByteMap`` so they stay exact after multibyte chars and invalid bytes.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import unquote

from vaultheat.core.models import ByteMap, Link, line_of

MASK_CHAR = "\x00"

# A token that may open a masked region. The fence alternative is anchored at a line start.
_OPENERS = re.compile(
    r"(?m)(?=[ `~%<\[>])"  # cheap first-char filter: ~3x faster on ordinary prose
    r"(?:(?P<fence>^(?P<quote>(?: {0,3}> ?)*) {0,3}(?P<run>`{3,}|~{3,}))"
    r"|(?P<tick>`+)|(?P<pct>%%)|(?P<html><!--)|(?P<wiki>\[\[))"
)
_QUOTE_MARK = re.compile(r" {0,3}> ?")
_TICKS = re.compile(r"`+")
_BLANK_LINE = re.compile(r"\n[ \t\r]*(?=\n)")
_NOT_NEWLINE = re.compile(r"[^\n]+")

# [[target#sub|alias]]: the content may hold a single "[" or "]" but never "[[", "]]" or a newline.
# Alternatives are disjoint, so possessive quantifiers (Python 3.11+) change no match, only speed.
# Both link patterns open with a first-char filter, (?=[!\[]): every match starts with "!" or
# "[" anyway, and testing that before the lookbehind halves the scan of ordinary prose.
_WIKILINK = re.compile(r"(?=[!\[])(?<!\\)(!?)\[\[((?:[^\[\]\n\x00]++|\[(?!\[)|\](?!\]))++)\]\]")
# [text](dest "title"): text allows one level of nested brackets; dest is <...> or a bare run
# with balanced single-level parentheses.
_MDLINK = re.compile(
    r"(?=[!\[])(?<!\\)(!?)\[((?:[^\[\]\n]++|\[[^\[\]\n]*+\])*+)\]\("
    r"[ \t]*(?:<([^<>\n\x00]*+)>|([^\s()<>\x00]*+(?:\([^\s()\x00]*+\)[^\s()<>\x00]*+)*+))"
    r"(?:[ \t]+(?:\"[^\"\n]*\"|'[^'\n]*'))?[ \t]*\)"
)
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")


def find_masked_regions(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """Char ranges of fenced code, inline code, %% and <!-- --> comments in ``text[start:end]``.

    A wikilink that starts before any of them is skipped whole (Obsidian links
    ``[[#`move`|move]]``). Unclosed fences and comments run to ``end`` (as Obsidian renders
    them); an unmatched backtick run is literal text. A code span closes on the next run of the
    same length in the same paragraph (no blank line in between).
    """
    stop = len(text) if end is None else end
    runs: dict[int, list[int]] = {}
    for m in _TICKS.finditer(text, start, stop):
        runs.setdefault(m.end() - m.start(), []).append(m.start())
    blanks = [m.start() for m in _BLANK_LINE.finditer(text, start, stop)]
    regions: list[tuple[int, int]] = []
    pos = start
    for m in _OPENERS.finditer(text, start, stop):
        s = m.start()
        if s < pos:
            continue
        kind = m.lastgroup
        if kind == "wiki":  # a wikilink that starts first hides its content: [[#`move`|move]]
            w = _WIKILINK.match(text, s, stop)
            pos = w.end() if w is not None else m.end()
            continue
        if kind == "fence":
            close = _close_fence(text, m, stop)
            if close is not None:
                regions.append((s, close))
                pos = close
                continue
            kind = "tick"  # a ``` run whose info string holds a backtick: an inline code run
            s = m.start("run")
        if kind == "tick":
            n = m.end() - s
            starts = runs.get(n, [])
            i = bisect.bisect_right(starts, s)
            if i < len(starts):
                closer = starts[i]
                j = bisect.bisect_right(blanks, s)
                para_end = blanks[j] if j < len(blanks) else stop
                if closer < para_end:
                    regions.append((s, closer + n))
                    pos = closer + n
                    continue
            pos = m.end()
        elif kind == "pct":
            e = text.find("%%", s + 2, stop)
            pos = stop if e == -1 else e + 2
            regions.append((s, pos))
        else:
            e = text.find("-->", s + 4, stop)
            pos = stop if e == -1 else e + 3
            regions.append((s, pos))
    return regions


def _close_fence(text: str, m: re.Match[str], stop: int) -> int | None:
    """End (char offset) of the fenced block opened by ``m``, or None when it is not a fence.

    A fence inside a blockquote/callout (``> ```css``) also ends where the quote ends.
    """
    run = m.group("run")
    ch, n = run[0], len(run)
    eol = text.find("\n", m.end(), stop)
    info_end = stop if eol == -1 else eol
    if ch == "`" and "`" in text[m.end() : info_end]:
        return None
    if eol == -1:
        return stop
    depth = m.group("quote").count(">")
    if depth == 0:
        c = _fence_closer(ch, n).search(text, eol + 1, stop)
        return stop if c is None else c.end()
    line_start = eol + 1
    while line_start < stop:
        pos = line_start
        for _ in range(depth):
            q = _QUOTE_MARK.match(text, pos, stop)
            if q is None:
                return line_start - 1  # the quote ended: so did the code block
            pos = q.end()
        c = _fence_closer_at(ch, n).match(text, pos, stop)
        if c is not None:
            return c.end()
        nl = text.find("\n", line_start, stop)
        if nl == -1:
            break
        line_start = nl + 1
    return stop


@functools.lru_cache(maxsize=64)
def _fence_closer(ch: str, n: int) -> re.Pattern[str]:
    return re.compile(r"(?m)^ {0,3}" + re.escape(ch) + "{" + str(n) + r",}[ \t]*\r?$")


@functools.lru_cache(maxsize=64)
def _fence_closer_at(ch: str, n: int) -> re.Pattern[str]:
    return re.compile(r" {0,3}" + re.escape(ch) + "{" + str(n) + r",}[ \t]*\r?$", re.M)


def mask_text(text: str, regions: list[tuple[int, int]]) -> str:
    """``text`` with every region overwritten by NUL chars (newlines kept: offsets unchanged)."""
    if not regions:
        return text
    parts: list[str] = []
    pos = 0
    for s, e in regions:
        parts.append(text[pos:s])
        seg = text[s:e]
        if "\n" in seg:
            parts.append(_NOT_NEWLINE.sub(lambda mm: MASK_CHAR * len(mm.group()), seg))
        else:
            parts.append(MASK_CHAR * (e - s))
        pos = e
    parts.append(text[pos:])
    return "".join(parts)


def split_linktext(inner: str) -> tuple[str, str | None, str | None]:
    """``"Target#Sub|alias"`` -> (target, subpath, alias); ``\\|`` (table escape) splits too."""
    alias: str | None = None
    bar = inner.find("|")
    if bar != -1:
        alias = inner[bar + 1 :].strip() or None
        inner = inner[:bar]
        if inner.endswith("\\"):
            inner = inner[:-1]
    hash_ = inner.find("#")
    subpath: str | None = None
    if hash_ != -1:
        subpath = inner[hash_ + 1 :].lstrip("#").strip()  # "[[Note##H]]" is heading H too
        inner = inner[:hash_]
    return inner.strip(), subpath, alias


def iter_wikilinks(text: str, start: int = 0, end: int | None = None) -> Iterator[re.Match[str]]:
    """Wikilink/embed matches in ``text[start:end]`` (group 1: "!" or "", group 2: inner text)."""
    return _WIKILINK.finditer(text, start, len(text) if end is None else end)


def extract_links(
    text: str,
    bytemap: ByteMap,
    line_starts: list[int],
    *,
    body_char_start: int,
    frontmatter: dict[str, Any],
    frontmatter_span: tuple[int, int] | None,
    masked: str | None = None,
) -> list[Link]:
    """Every link of a note, in document order (property links first, then the body).

    ``masked`` is the body already passed through ``mask_text`` (computed here when omitted);
    ``frontmatter_span`` is the char range of the frontmatter block, used to place property links.
    """
    if masked is None:
        masked = mask_text(text, find_masked_regions(text, body_char_start))
    out = extract_property_links(text, bytemap, line_starts, frontmatter, frontmatter_span)
    body: list[tuple[int, Link]] = []

    def make(kind: str, s: int, e: int, target: str, sub: str | None, alias: str | None) -> Link:
        b0, b1 = bytemap.byte(s), bytemap.byte(e)
        return Link(text[s:e], target, sub, alias, kind, b0, b1, line_of(line_starts, b0))

    wiki_spans: list[tuple[int, int]] = []
    for m in _WIKILINK.finditer(masked, body_char_start):
        s, e = m.span()
        inner = text[m.start(2) : m.end(2)]
        target, sub, alias = split_linktext(inner)
        if not target and sub is None:
            continue  # [[|x]] or [[ ]]: nothing to point at
        kind = "embed" if m.group(1) else "wikilink"
        body.append((s, make(kind, s, e, target, sub, alias)))
        wiki_spans.append((s, e))
    md_source = mask_text(masked, wiki_spans) if wiki_spans else masked
    for m in _MDLINK.finditer(md_source, body_char_start):
        parsed = parse_markdown_dest(
            text[m.start(3) : m.end(3)] if m.group(3) is not None else text[m.start(4) : m.end(4)]
        )
        if parsed is None:
            continue
        target, sub = parsed
        s, e = m.span()
        label = text[m.start(2) : m.end(2)].strip() or None
        kind = "embed" if m.group(1) else "markdown"
        body.append((s, make(kind, s, e, target, sub, label)))
    body.sort(key=lambda p: p[0])
    out.extend(link for _, link in body)
    return out


def parse_markdown_dest(dest: str) -> tuple[str, str | None] | None:
    """(target, subpath) of a markdown link destination, or None for external/empty ones."""
    dest = dest.strip()
    if not dest or _SCHEME.match(dest) or dest.startswith("//"):
        return None
    hash_ = dest.find("#")
    sub: str | None = None
    if hash_ != -1:
        sub = unquote(dest[hash_ + 1 :]).lstrip("#").strip()
        dest = dest[:hash_]
    return unquote(dest).strip(), sub


def extract_property_links(
    text: str,
    bytemap: ByteMap,
    line_starts: list[int],
    frontmatter: dict[str, Any],
    frontmatter_span: tuple[int, int] | None,
) -> list[Link]:
    """Wikilinks inside frontmatter string values (kind "property").

    The span is the link's own text inside the frontmatter block when it is written there
    verbatim (searched in order, so repeated links get successive occurrences), else the span
    of the whole block.
    """
    if not frontmatter or frontmatter_span is None:
        return []
    fs, fe = frontmatter_span
    cursors: dict[str, int] = {}
    out: list[Link] = []
    for value in _iter_strings(frontmatter):
        if "[[" not in value:
            continue
        for m in _WIKILINK.finditer(value):
            target, sub, alias = split_linktext(m.group(2))
            if not target and sub is None:
                continue
            raw = m.group()
            at = text.find(raw, cursors.get(raw, fs), fe)
            if at == -1:
                s, e = fs, fe
            else:
                s, e = at, at + len(raw)
                cursors[raw] = e
            b0, b1 = bytemap.byte(s), bytemap.byte(e)
            out.append(Link(raw, target, sub, alias, "property", b0, b1, line_of(line_starts, b0)))
    return out


def _iter_strings(value: Any) -> Iterator[str]:
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            yield v
        elif isinstance(v, dict):
            stack.extend(reversed(list(v.values())))
        elif isinstance(v, list):
            stack.extend(reversed(v))
