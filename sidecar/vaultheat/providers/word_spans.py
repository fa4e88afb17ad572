"""Word spans of a text for a BERT WordPiece tokenizer (``core/vault/token_ranges.py`` uses them
to count ranges of a note exactly without a tokenizer call per range).

``tokenizer_spans``: one ``encode`` of the text, each word's tokens grouped by their word id.

``AsciiWords``: for ASCII text (most notes), the same spans from a regular expression, about
ten times faster than the tokenizer on long texts, with each distinct word's token count asked
of the tokenizer once and kept. The expression is made from the tokenizer itself: each of the
128 ASCII characters is put between two letters and normalized and pre-tokenized, which says
whether the tokenizer drops it, splits words at it (whitespace), makes it a word of its own
(punctuation) or keeps it inside a word. BERT's normalizer (lowercasing here) and word splitter
work character by character, so those 128 answers decide every ASCII text. A text holding a
dropped character or a special token's text (``[SEP]``), or any non-ASCII character, gets None.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable, Sequence
from typing import Any

Spans = tuple[list[int], list[int], list[int]]
CACHE_WORDS = 100_000  # distinct words kept (the cache starts over beyond it)


def tokenizer_spans(encoding: Any) -> Spans:
    """``(starts, ends, tokens)`` per word of an encoding (special tokens left out); a token
    without a word id (a special token's text in the note) is a word of its own."""
    starts: list[int] = []
    ends: list[int] = []
    tokens: list[int] = []
    last: int | None = None
    for (a, b), w in zip(encoding.offsets, encoding.word_ids, strict=True):
        if w is not None and w == last and tokens:
            starts[-1], ends[-1] = min(starts[-1], a), max(ends[-1], b)
            tokens[-1] += 1
        else:
            starts.append(a)
            ends.append(b)
            tokens.append(1)
        last = w
    return starts, ends, tokens


def classify_ascii(tokenizer: Any) -> dict[str, str]:
    """Each ASCII character's kind for this tokenizer: "drop", "space", "punct", "word" (or
    "other": anything else, treated like "drop")."""
    out: dict[str, str] = {}
    for code in range(128):
        c = chr(code)
        norm = tokenizer.normalizer.normalize_str(f"a{c}b")
        words = [w for w, _ in tokenizer.pre_tokenizer.pre_tokenize_str(norm)]
        if norm == "ab":
            out[c] = "drop"
        elif words == ["a", "b"]:
            out[c] = "space"
        elif words == ["a", c.lower(), "b"]:
            out[c] = "punct"
        elif words == [f"a{c.lower()}b"]:
            out[c] = "word"
        else:
            out[c] = "other"
    return out


def _char_class(chars: Iterable[str]) -> str:
    return "[" + "".join(re.escape(c) for c in chars) + "]"


class AsciiWords:
    """Word spans of ASCII texts by a regular expression made from the tokenizer's answers."""

    def __init__(self, tokenizer: Any, special: Sequence[str]) -> None:
        self._tok = tokenizer
        kinds = classify_ascii(tokenizer)
        word = [c for c, k in kinds.items() if k == "word"]
        punct = [c for c, k in kinds.items() if k == "punct"]
        odd = [c for c, k in kinds.items() if k in ("drop", "other")]
        self._words = re.compile(f"{_char_class(word)}+|{_char_class(punct)}")
        self._odd = re.compile(_char_class(odd)) if odd else None
        self._special = [s for s in special if s]
        self._counts: dict[str, int] = {}
        self._lock = threading.Lock()

    def spans(self, text: str, encode_batch: Any) -> Spans | None:
        """Spans of ``text``, or None when it is not plain ASCII (see the module docstring).
        ``encode_batch`` counts new words: the owner's tokenizer call, under its lock."""
        if not text.isascii() or (self._odd is not None and self._odd.search(text)):
            return None
        lower = text.lower()
        if any(s in text or s in lower for s in self._special):
            return None
        matches = list(self._words.finditer(lower))
        words = [m.group() for m in matches]
        with self._lock:
            counts = self._counts
            new = {w for w in words if w not in counts}
            if len(counts) + len(new) > CACHE_WORDS:
                counts.clear()
                new = set(words)
            if new:
                todo = sorted(new)
                for w, enc in zip(todo, encode_batch(todo), strict=True):
                    counts[w] = len(enc.ids)
            tokens = [counts[w] for w in words]
        return [m.start() for m in matches], [m.end() for m in matches], tokens
