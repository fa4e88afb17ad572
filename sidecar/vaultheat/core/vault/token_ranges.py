"""Exact token counts of ranges of one text, from one tokenization of the whole text.

A tokenizer whose normalizer works char by char and whose pre-tokenizer splits words at
whitespace and punctuation (BERT's WordPiece: ``BertNormalizer`` + ``BertPreTokenizer``) turns
each word into tokens on its own. So a range of the text that cuts no word has exactly the
tokens of the words inside it: ``WordSpans`` gives them once per note, as the lists ``(starts,
ends, tokens)`` of its words in text order (char offsets into the text), and ``RangeCounts.inside``
answers in two bisections what a tokenizer call on the range would. A range whose start or end
falls inside a word gets ``None`` (the caller then counts it for real), and so does every range
when the spans are not sorted and disjoint.

Only a provider that checked its tokenizer is of that kind offers spans (``word_token_spans``,
see ``providers/onnx_embedder.py``); bench/chunk_identity.py and the tests compare the chunks and
counts with the tokenizer's own.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Callable, Sequence

Spans = tuple[Sequence[int], Sequence[int], Sequence[int]]  # starts, ends, tokens per word
WordSpans = Callable[[str], Spans | None]


class RangeCounts:
    """Tokens of the words of ``text[s:e]``, for ranges that cut no word."""

    def __init__(self, spans: Spans) -> None:
        self.starts, self.ends, tokens = spans
        self.cum = [0, *itertools.accumulate(tokens)]
        # overlapping or unsorted spans: never answer
        self.ok = len(self.starts) == len(self.ends) == len(tokens) and all(
            s <= e for s, e in zip(self.starts, self.ends, strict=True)
        )
        self.ok = self.ok and all(
            e <= s for e, s in zip(self.ends, itertools.islice(self.starts, 1, None), strict=False)
        )

    def inside(self, s: int, e: int) -> int | None:
        """Tokens of the words in [s, e), or None when a word crosses s or e."""
        if not self.ok or e < s:
            return None
        i = bisect.bisect_left(self.starts, s)  # first word starting at or after s
        if i > 0 and self.ends[i - 1] > s:
            return None  # a word starts before s and ends after it
        j = bisect.bisect_left(self.starts, e, i)  # first word starting at or after e
        if j > i and self.ends[j - 1] > e:
            return None  # the last word starting in the range ends after e
        return self.cum[j] - self.cum[i]
