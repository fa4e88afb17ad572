"""Word spans of a text for a BERT WordPiece tokenizer (``core/vault/token_ranges.py`` uses them
to count ranges of a note exactly without a tokenizer call per range).

``tokenizer_spans``: one ``encode`` of the text, each word's tokens grouped by their word id.

``WordSplitter``: the same spans from a regular expression, about ten times faster than the
tokenizer on long texts, with each distinct word's token count asked of the tokenizer once and
kept. Each character's kind comes from the tokenizer itself (``classify_char``): the character
is put between two letters and normalized and pre-tokenized, which says whether the tokenizer
drops it, splits words at it (whitespace), makes it a word of its own (punctuation, CJK) or keeps
it inside a word. The 128 ASCII characters are asked up front, any other the first time a text
holds it. BERT's normalizer works character by character (clean-up, CJK spacing, lowercasing,
accents: NFD then dropping marks, where only combining characters, left to the tokenizer here,
could reorder) and its word splitter by character classes, so those answers decide the words of
every text made of such characters. A text holding a dropped or combining character, another
kind of answer, or a special token's text (``[SEP]``) gets None (the caller tokenizes it).
"""

from __future__ import annotations

import re
import threading
import unicodedata
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


def classify_char(tokenizer: Any, c: str) -> str:
    """The character's kind for this tokenizer: "drop", "space", "punct" (a word of its own),
    "word" (inside a word) or "other" (anything else, combining characters among it)."""
    if unicodedata.combining(c):
        return "other"
    norm = tokenizer.normalizer.normalize_str(f"a{c}b")
    words = [w for w, _ in tokenizer.pre_tokenizer.pre_tokenize_str(norm)]
    if norm == "ab":
        return "drop"
    if words == ["a", "b"]:
        return "space"
    if len(words) == 3 and words[0] == "a" and words[2] == "b":
        return "punct"
    if len(words) == 1 and len(norm) > 2 and norm == words[0]:
        return "word"
    return "other"


def classify_ascii(tokenizer: Any) -> dict[str, str]:
    """Each ASCII character's kind (``classify_char``)."""
    return {chr(code): classify_char(tokenizer, chr(code)) for code in range(128)}


def _char_class(chars: Iterable[str]) -> str:
    return "[" + "".join(re.escape(c) for c in chars) + "]"


STAND_IN = {"space": " ", "punct": "!", "word": "a"}  # ASCII of each kind, for translate


class WordSplitter:
    """Word spans by a regular expression over the text's characters mapped to ASCII of their
    kind (one char for one: the offsets stay); kinds from the tokenizer's answers."""

    def __init__(self, tokenizer: Any, special: Sequence[str]) -> None:
        self._tok = tokenizer
        self._kinds = classify_ascii(tokenizer)
        word = [c for c, k in self._kinds.items() if k == "word"]
        punct = [c for c, k in self._kinds.items() if k == "punct"]
        odd = [c for c, k in self._kinds.items() if k in ("drop", "other")]
        if "!" not in punct or "a" not in word or self._kinds[" "] != "space":
            raise ValueError("not a BERT-like word splitter")
        self._words = re.compile(f"{_char_class(word)}+|{_char_class(punct)}")
        self._odd = re.compile(_char_class(odd)) if odd else None
        self._table: dict[int, str] = {}  # non-ASCII char -> its kind's ASCII stand-in
        self._special = [s for s in special if s]
        self._counts: dict[str, int] = {}
        self._lock = threading.Lock()

    def _mapped(self, text: str) -> str | None:
        """The text with each non-ASCII char replaced by its kind's stand-in, or None."""
        if text.isascii():
            return text
        table = self._table
        for c in set(text):
            if c.isascii() or ord(c) in table:
                continue
            kind = self._kinds.get(c)
            if kind is None:
                kind = self._kinds[c] = classify_char(self._tok, c)
            if kind not in STAND_IN:
                return None
            table[ord(c)] = STAND_IN[kind]
        return text.translate(table)

    def spans(self, text: str, encode_batch: Any) -> Spans | None:
        """Spans of ``text``, or None (see the module docstring). ``encode_batch`` counts new
        words: the owner's tokenizer call, under its lock."""
        if self._odd is not None and self._odd.search(text):
            return None
        lower = text.lower()
        if any(s in text or s in lower for s in self._special):
            return None
        with self._lock:
            mapped = self._mapped(text)
            if mapped is None:
                return None
            spans = [m.span() for m in self._words.finditer(mapped)]
            if text.isascii():  # lowercased words share a count (the normalizer lowercases)
                words = self._words.findall(lower)
            else:
                words = [text[a:b] for a, b in spans]
                words = [w.lower() if w.isascii() else w for w in words]
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
        return [a for a, _ in spans], [b for _, b in spans], tokens
