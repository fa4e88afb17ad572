"""What a reader sees: a chunk's text as the model should read it (issue #22, item 1).

Obsidian never shows ``%% comments %%``, ``<!-- HTML comments -->`` or the badge and image lines
that template-made notes are full of, yet a chunk cut from such a note holds them byte for byte.
``reader_text`` removes them from the *model's input* only: the chunk's bytes, its locator and
its lexical text stay exactly as they are. Code (fenced blocks and inline spans) is kept
verbatim: ``%%`` or ``<!--`` inside code is code, not a comment. Each rule can be switched
alone, so each can be measured (``bench/reader_rules.py``).
"""

from __future__ import annotations

import re

_FENCE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})[^\n]*\n.*?(?:^[ \t]{0,3}\1[ \t]*$|\Z)", re.M | re.S)
_INLINE_CODE = re.compile(r"(`+)(?!`).+?(?<!`)\1(?!`)", re.S)
# an unclosed comment runs to the end of the note, as Obsidian renders it
_OBSIDIAN_COMMENT = re.compile(r"%%.*?(?:%%|\Z)", re.S)
_HTML_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.S)
_IMAGE_EXT = r"(?:png|jpe?g|gif|svg|webp|bmp|avif|ico|tiff?)"
_IMAGE = (
    r"(?:\[!\[[^\]\n]*\]\([^)\n]*\)\]\([^)\n]*\)"  # a linked badge: [![alt](img)](link)
    r"|!\[[^\]\n]*\]\([^)\n]*\)"  # an image: ![alt](url)
    rf"|!\[\[[^\]\n|]+\.{_IMAGE_EXT}(?:\|[^\]\n]*)?\]\]"  # an embedded image: ![[a.png|200]]
    r"|<img\b[^>\n]*>)"  # an HTML image
)
_IMAGE_ONLY_LINE = re.compile(rf"^[ \t>*+-]*(?:{_IMAGE}[ \t]*)+$", re.M | re.I)
RULES = ("obsidian_comments", "html_comments", "image_lines")
_HOLD = "\ue000{}\ue001"
_HELD = re.compile("\ue000(\\d+)\ue001")
_BLANK_RUN = re.compile(r"\n[ \t]*(?:\n[ \t]*)+")


def reader_text(text: str, rules: tuple[str, ...] = RULES) -> str:
    """``text`` without what Obsidian does not show (per ``rules``): comments and image-only
    lines; the blank lines they leave are squeezed and the ends trimmed."""
    if not rules:
        return text
    held: list[str] = []

    def hold(m: re.Match[str]) -> str:
        held.append(m.group(0))
        return _HOLD.format(len(held) - 1)

    out = _FENCE.sub(hold, text)
    out = _INLINE_CODE.sub(hold, out)
    if "obsidian_comments" in rules:
        out = _OBSIDIAN_COMMENT.sub("", out)
    if "html_comments" in rules:
        out = _HTML_COMMENT.sub("", out)
    if "image_lines" in rules:
        out = _IMAGE_ONLY_LINE.sub("", out)
    out = _BLANK_RUN.sub("\n\n", out)
    out = "\n".join(line.rstrip() for line in out.split("\n")).strip()
    return _HELD.sub(lambda m: held[int(m.group(1))], out)


_HEADING_LINE = re.compile(r"^[ \t]{0,3}#{1,6}(?:[ \t][^\n]*)?$", re.M)


def has_prose(text: str) -> bool:
    """Whether anything a reader would read is left (a letter or a digit) besides headings,
    which the chunk's context header already carries."""
    return any(c.isalnum() for c in _HEADING_LINE.sub("", text))
