"""What a reader sees of a chunk (issue #22, item 1): the text Obsidian's reading view shows.

A pure function over a chunk's text; the chunk itself (its byte and line range) never changes,
only what could be handed to the embedding model. Rules, each separately switchable so each can
be measured (``bench/reader_rules.py``):

- ``obsidian_comments``: ``%% ... %%`` (inline or across lines) is not rendered;
- ``html_comments``: ``<!-- ... -->`` is not rendered;
- ``image_lines``: a line made only of images/badges (``![alt](url)``, ``[![alt](img)](link)``,
  ``![[file.png]]``) carries no prose.

Not wired into indexing yet: switching the model input changes every stored vector's cache key
(the input hash follows the text), so it waits for an embedding run that measures it.
"""

from __future__ import annotations

import re

RULES = ("obsidian_comments", "html_comments", "image_lines")

_OBSIDIAN = re.compile(r"%%.*?(?:%%|\Z)", re.DOTALL)
_HTML = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)
_IMAGE = r"!\[[^\]\n]*\]\([^)\n]*\)|!\[\[[^\]\n]*\]\]"
_IMAGE_LINE = re.compile(
    rf"^[ \t]*(?:(?:{_IMAGE}|\[(?:{_IMAGE})\]\([^)\n]*\))[ \t]*)+$", re.MULTILINE
)
_BLANKS = re.compile(r"\n[ \t]*\n(?:[ \t]*\n)+")


def reader_text(text: str, rules: tuple[str, ...] = RULES) -> str:
    """``text`` without what the reading view hides (per ``rules``); runs of blank lines that
    the removal leaves are squeezed to one blank line."""
    out = text
    if "obsidian_comments" in rules:
        out = _OBSIDIAN.sub("", out)
    if "html_comments" in rules:
        out = _HTML.sub("", out)
    if "image_lines" in rules:
        out = _IMAGE_LINE.sub("", out)
    if out is not text:
        out = _BLANKS.sub("\n\n", out)
    return out


def has_prose(text: str) -> bool:
    """Whether anything word-like is left (a chunk without it should get no vector)."""
    return re.search(r"\w", text) is not None
