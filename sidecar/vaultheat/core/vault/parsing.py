"""Read one note the way Obsidian does: frontmatter, title, aliases, tags, headings, block ids.

Design: the note is decoded once with ``surrogateescape`` (bad bytes survive, offsets stay exact)
and every position is a *byte* offset into the raw file via ``ByteMap``. Code and comments are
masked once (see ``links.find_masked_regions``) and all body scanners run on the masked copy,
so "not inside code or comments" is decided in one place. Frontmatter is untrusted YAML: it is
size-bounded, loaded with the safe loader (libyaml when present: fast, and it refuses absurd
nesting), and converted to JSON-safe values under a node budget so an alias bomb ends as a
warning instead of an explosion. A frontmatter block that cannot be used is treated as body
text, with a warning, because that is what the user sees in the editor.
"""

from __future__ import annotations

import base64
import datetime as dt
import math
import re
import unicodedata
from typing import Any

import yaml

from vaultheat.core.models import ByteMap, Heading, ParsedNote, Tag, line_of, line_starts
from vaultheat.core.vault.links import extract_links, find_masked_regions, mask_text

MAX_FRONTMATTER_CHARS = 64 * 1024
MAX_FRONTMATTER_NODES = 50_000  # JSON-safe values produced from one frontmatter block
MAX_FRONTMATTER_DEPTH = 64

_YAML_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

_FM_OPEN = re.compile(r"---[ \t]*\r?\n")
_FM_CLOSE = re.compile(r"(?m)^(?:---|\.\.\.)[ \t]*\r?$")
_HEADING = re.compile(r"(?m)^ {0,3}(#{1,6})(?=[ \t])")
# Literal first, context in a lookbehind: lets the regex engine skip ahead to each "^" / "#".
_BLOCK_ID = re.compile(r"(?m)\^(?<![^ \t\n]\^)([A-Za-z0-9-]+)[ \t]*\r?$")
# Obsidian ends a tag at whitespace, ASCII punctuation other than - _ / and the Unicode
# punctuation blocks; NUL is the mask filler and \udc80-\udcff are undecodable bytes.
_TAG = re.compile(
    r"#(?<!\S#)([^\s!-,.:-@\[-^`{-~\u2000-\u206f\u2e00-\u2e7f\u3000-\u3003\x00\udc80-\udcff]+)"
)
_TAG_SPLIT = re.compile(r"[,\s]+")
_EXCLUDE_VALUES = frozenset({"exclude", "false", "no"})


class _TooComplexError(Exception):
    pass


def parse_note(path: str, raw: bytes, *, exclude_property: str = "vaultheat") -> ParsedNote:
    """Parse one note's bytes. Never raises for bad content: problems go to ``warnings``."""
    path = unicodedata.normalize("NFC", path.replace("\\", "/"))
    text = raw.decode("utf-8", "surrogateescape")
    bm = ByteMap(text)
    starts = line_starts(raw)
    warnings: list[str] = []

    fm, fm_span, body_char = split_frontmatter(text, warnings)
    # a BOM is not text: a fence, "#tag" or "# Title" right after it still counts
    scan = " " + text[1:] if body_char == 0 and text.startswith("\ufeff") else text
    masked = mask_text(scan, find_masked_regions(scan, body_char))
    links = extract_links(
        text,
        bm,
        starts,
        body_char_start=body_char,
        frontmatter=fm,
        frontmatter_span=fm_span,
        masked=masked,
    )
    name = path.rsplit("/", 1)[-1]
    if name.lower().endswith(".md"):
        name = name[:-3]
    title = fm.get("title")
    return ParsedNote(
        path=path,
        raw=raw,
        text=text,
        body_byte_start=bm.byte(body_char),
        frontmatter=fm,
        title=title.strip() if isinstance(title, str) and title.strip() else name,
        aliases=frontmatter_aliases(fm),
        tags=frontmatter_tags(fm) + find_inline_tags(text, masked, bm, starts, body_char),
        links=links,
        headings=find_headings(text, masked, bm, starts, body_char),
        block_ids=find_block_ids(text, masked, bm, body_char),
        warnings=warnings,
        excluded=is_excluded(fm, exclude_property),
    )


# --- frontmatter -------------------------------------------------------------------------------


def split_frontmatter(
    text: str, warnings: list[str]
) -> tuple[dict[str, Any], tuple[int, int] | None, int]:
    """(frontmatter, char span of the block, char offset where the body starts).

    No block, or an unusable one, gives ``({}, None, 0)``; unusable blocks add a warning.
    """
    start = 1 if text.startswith("\ufeff") else 0
    opened = _FM_OPEN.match(text, start)
    if opened is None:
        return {}, None, 0
    closed = _FM_CLOSE.search(text, opened.end())
    if closed is None:
        warnings.append("frontmatter ignored: no closing '---' line")
        return {}, None, 0
    data, problem = load_frontmatter_yaml(text[opened.end() : closed.start()])
    if data is None:
        warnings.append(f"frontmatter ignored: {problem}")
        return {}, None, 0
    end = closed.end()
    body = end + 1 if text.startswith("\n", end) else end
    return data, (0, end), body


def load_frontmatter_yaml(src: str) -> tuple[dict[str, Any] | None, str | None]:
    """(JSON-safe mapping, None) or (None, why it cannot be used)."""
    if len(src) > MAX_FRONTMATTER_CHARS:
        return None, f"larger than {MAX_FRONTMATTER_CHARS // 1024} KB"
    try:
        data = yaml.load(src, Loader=_YAML_LOADER)  # a safe loader (CSafeLoader/SafeLoader)
    except Exception as exc:  # untrusted input to a third-party parser: any failure is "bad"
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return None, f"malformed YAML ({first})"
    if data is None:
        return {}, None
    if not isinstance(data, dict):
        return None, f"YAML is a {type(data).__name__}, not a mapping"
    try:
        safe = to_json_safe(data, [MAX_FRONTMATTER_NODES], 0)
    except _TooComplexError:
        return None, "too many or too deeply nested values (YAML alias expansion?)"
    return safe, None


def to_json_safe(value: Any, budget: list[int], depth: int) -> Any:
    """A JSON-serialisable copy: dates as ISO strings, keys as strings, no NaN, bounded size."""
    budget[0] -= 1
    if budget[0] < 0 or depth > MAX_FRONTMATTER_DEPTH:
        raise _TooComplexError
    if value is None or isinstance(value, str | bool | int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, dt.date | dt.time):  # datetime is a date
        return value.isoformat()
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    if isinstance(value, dict):
        return {json_key(k): to_json_safe(v, budget, depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_json_safe(v, budget, depth + 1) for v in value]
    if isinstance(value, set | frozenset):
        return [to_json_safe(v, budget, depth + 1) for v in sorted(value, key=str)]
    return str(value)


def json_key(key: Any) -> str:
    if isinstance(key, str):
        return key
    if isinstance(key, bool):
        return "true" if key else "false"
    if key is None:
        return "null"
    if isinstance(key, dt.date | dt.time):
        return key.isoformat()
    return str(key)


def _scalar_items(value: Any) -> list[str]:
    items = value if isinstance(value, list) else [value]
    return [str(v) for v in items if isinstance(v, str | int | float) and not isinstance(v, bool)]


def frontmatter_aliases(fm: dict[str, Any]) -> list[str]:
    """``aliases`` (or legacy ``alias``): a list, or a comma-separated string."""
    value = fm.get("aliases") or fm.get("alias")
    parts = value.split(",") if isinstance(value, str) else _scalar_items(value)
    out: list[str] = []
    for p in parts:
        p = p.strip()
        if p and p not in out:
            out.append(p)
    return out


def frontmatter_tags(fm: dict[str, Any]) -> list[Tag]:
    """``tags`` (or legacy ``tag``): list or comma/space separated string; '#' optional."""
    value = fm.get("tags") or fm.get("tag")
    out: list[Tag] = []
    seen: set[str] = set()
    for item in _scalar_items(value):
        for part in _TAG_SPLIT.split(item):
            name = part.lstrip("#")
            if name and not name.isdigit() and name not in seen:
                seen.add(name)
                out.append(Tag(name, -1, 0))
    return out


def is_excluded(fm: dict[str, Any], prop: str) -> bool:
    """``<prop>: exclude|false|no`` or ``vaultheat_exclude: true`` opts a note out."""
    value = fm.get(prop)
    if value is False or (isinstance(value, str) and value.strip().lower() in _EXCLUDE_VALUES):
        return True
    flag = fm.get("vaultheat_exclude")
    return flag is True or (isinstance(flag, str) and flag.strip().lower() in ("true", "yes"))


# --- body scanners (all run on the masked text) ------------------------------------------------


def find_inline_tags(
    text: str, masked: str, bm: ByteMap, starts: list[int], body_char: int
) -> list[Tag]:
    out: list[Tag] = []
    for m in _TAG.finditer(masked, body_char):
        name = m.group(1)
        if name.isdigit():
            continue
        b = bm.byte(m.start())
        out.append(Tag(text[m.start(1) : m.end(1)], b, line_of(starts, b)))
    return out


def find_headings(
    text: str, masked: str, bm: ByteMap, starts: list[int], body_char: int
) -> list[Heading]:
    """ATX headings ``#``..``######`` + space, outside code and comments; closing #s dropped."""
    out: list[Heading] = []
    for m in _HEADING.finditer(masked, body_char):
        eol = text.find("\n", m.end())
        eol = len(text) if eol == -1 else eol
        line_end = eol - 1 if eol > m.end() and text[eol - 1] == "\r" else eol
        content = text[m.end() : line_end].strip(" \t")
        unclosed = content.rstrip("#")
        if not unclosed:
            content = ""
        elif unclosed != content and unclosed[-1] in " \t":
            content = unclosed.rstrip(" \t")
        if not content:
            continue
        b0 = bm.byte(m.start())
        out.append(Heading(len(m.group(1)), content, b0, bm.byte(line_end), line_of(starts, b0)))
    return out


def find_block_ids(text: str, masked: str, bm: ByteMap, body_char: int) -> dict[str, int]:
    """``^block-id`` at the end of a line -> byte offset of that line's start (first wins)."""
    out: dict[str, int] = {}
    for m in _BLOCK_ID.finditer(masked, body_char):
        block_id = m.group(1)
        if block_id not in out:
            out[block_id] = bm.byte(text.rfind("\n", 0, m.start()) + 1)
    return out
