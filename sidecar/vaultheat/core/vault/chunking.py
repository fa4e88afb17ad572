"""Split a parsed note into chunks that are exact byte ranges of the file and fit the embedder.

Why ranges, not rewritten text: a chunk is ``raw[byte_start:byte_end]`` (trimmed of surrounding
whitespace), so results point at real lines, the editor can highlight them, and overlap is an
overlapping *range*, never synthesized text. Frontmatter is never part of a chunk.

Cutting order, coarse to fine: headings (sections), blank lines (paragraphs; a fenced code block
is one unit and is only cut, at lines, when it alone exceeds the limit), lines, sentences, spaces,
and finally characters (CJK has no spaces). Inside a section, units are packed greedily up to
``target_tokens``; one unit larger than the target but within ``max_tokens`` stays whole. A
heading line is never left alone when its section has text: it is glued to (the first part of)
the following unit. Headings inside fenced code are ignored. Then:

* adjacent chunks (small sections too) merge while the result fits ``target_tokens``;
* fragments shorter than ``min_chars`` merge into a neighbour within ``max_tokens``: the following
  chunk of the same section first, then the previous one of the same section, then across
  headings -- up to ``max_tokens`` when they are all deeper than the heading the merged chunk
  starts under (a subsection joins its parent), only up to the target for a sibling or higher
  heading.
* across a sibling or higher heading, only a whole section joins the previous chunk: the first
  part of a split section never goes under another section's header.

A chunk's ``heading_path`` is the headings enclosing its start, so the header names the section
the chunk starts in; deeper headings merged into it appear in its text.

Budget: ``count_tokens(embed_input) <= max_tokens`` for every chunk, where ``embed_input`` is
``header + "\\n\\n" + text``, so the embedder never truncates silently. ``count_tokens`` may be a
real tokenizer and expensive: nothing counts every prefix. A running chars-per-token ratio
guesses a cut, an interpolation/bisection search over the candidate cuts of the current level
verifies it (a few counts per chunk), and counts are cached per range. Given ``word_spans``
(a tokenizer that counts each word on its own, ``core/vault/token_ranges.py``), a range that cuts
no word is counted from one tokenization of the whole note: the same number, so the same chunks.
Undecodable bytes (surrogate escapes) are shown as U+FFFD in ``embed_input`` only -- tokenizers
reject lone surrogates -- which keeps it the same length as ``text``.

The context header embedded with every chunk: ``core/vault/chunk_header.py``.
"""

from __future__ import annotations

import bisect
import itertools
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from vaultheat.core.models import ChunkDraft, ParsedNote, line_of, line_starts
from vaultheat.core.vault.chunk_header import SURROGATE, CountTokens, context_header
from vaultheat.core.vault.token_ranges import RangeCounts, WordSpans
from vaultheat.errors import ConfigError

DEFAULT_TARGET_SHARE = 0.75
MAX_CHARS_PER_TOKEN = 10.0  # cap of the running estimate ([UNK] words can be any length)
HOPELESS_FACTOR = 8  # spans this many times the estimated fit are split without counting
MAX_SPANS_CHARS = 500_000  # longer notes are counted range by range (no word spans)

PARAGRAPH, LINE, SENTENCE, WORD, CHAR = range(5)  # cut levels, coarse to fine
SAME, DEEPER, WHOLE, PARTIAL = range(4)  # how a join crosses headings (see _crossing)

_FENCE = re.compile(r"[ \t\ufeff]*(?:>[ \t]*)*(`{3,}|~{3,})([^\n]*)")
_BLANK_LINE = re.compile(r"(?:[^\S\n]|\ufeff)*(?:\n|\Z)")
_WS_RUN = re.compile(r"(?:\s|\ufeff)+")
_SENTENCE_END = re.compile(r"[.!?]+[\"'”’)\]]*(?:\s|\ufeff)+|[。！？]+[」』”’）)]*(?:\s|\ufeff)*")
_JOINERS = "\u200d\ufe0e\ufe0f\U0001f3fb\U0001f3fc\U0001f3fd\U0001f3fe\U0001f3ff"  # ZWJ, VS, skin


def _is_ws(ch: str) -> bool:
    return ch.isspace() or ch == "\ufeff"


@dataclass
class _Piece:
    start: int  # char offsets into note.text, trimmed of whitespace
    end: int
    tokens: int  # count of the whole embed_input (header of the section at ``start``)


def chunk_note(
    note: ParsedNote,
    *,
    max_tokens: int,
    count_tokens: CountTokens,
    target_tokens: int = 0,
    min_chars: int = 120,
    overlap_chars: int = 0,
    word_spans: WordSpans | None = None,
) -> list[ChunkDraft]:
    """Chunks of the note body in file order (see the module docstring for the rules)."""
    if max_tokens <= 0:
        raise ConfigError(f"chunking needs max_tokens > 0 (got {max_tokens})", path=note.path)
    target = target_tokens if target_tokens > 0 else int(max_tokens * DEFAULT_TARGET_SHARE)
    target = max(1, min(target, max_tokens))
    chunker = _Chunker(note, max_tokens, count_tokens, target, min_chars, overlap_chars)
    chunker.word_spans = word_spans
    return chunker.run()


class _Chunker:
    def __init__(
        self,
        note: ParsedNote,
        max_tokens: int,
        count_tokens: CountTokens,
        target: int,
        min_chars: int,
        overlap_chars: int,
    ) -> None:
        self.note = note
        self.text = text = note.text
        self.clean = SURROGATE.sub("\ufffd", text) if not text.isascii() else text
        self.max = max_tokens
        self.target = target
        self.min_chars = min_chars
        self.overlap = overlap_chars
        self.count_fn = count_tokens
        self._cache: dict[tuple[int, int, int], int] = {}
        self.word_spans: WordSpans | None = None
        self._ranges: RangeCounts | None = None
        self._chars = 0  # running totals for the chars-per-token estimate
        self._tokens = 0
        self._hdr_ids: dict[tuple[str, ...], int] = {}
        self.headers: list[str] = []
        self.hdr_tokens: list[int] = []
        raw_len = len(note.raw)
        body_byte = min(max(note.body_byte_start, 0), raw_len)
        heads = [h for h in note.headings if body_byte <= h.byte_start < raw_len]
        heads.sort(key=lambda h: h.byte_start)
        offsets = [body_byte] + [h.byte_start for h in heads] + [h.byte_end for h in heads]
        chars = _chars_of(note.raw, offsets, text)
        self.body = chars[0]
        self.para_cuts, self.fences = _scan_blocks(text, self.body, len(text))
        self.fence_starts = [f[0] for f in self.fences]
        # sections: 0 is the preamble; heading_path by level nesting
        self.sec_starts = [self.body]
        self.sec_levels = [0]
        self.sec_head_end = [-1]  # end of the heading line (-1: the preamble has none)
        self.sec_header: list[int] = [self._header_id(())]
        self.paths: list[tuple[str, ...]] = [()]
        stack: list[tuple[int, str]] = []
        n = len(heads)
        for h, start, head_end in zip(heads, chars[1 : n + 1], chars[n + 1 :], strict=True):
            if self._in_fence(start) is not None or start < self.sec_starts[-1]:
                continue
            while stack and stack[-1][0] >= h.level:
                stack.pop()
            stack.append((h.level, h.text))
            path = tuple(t for _, t in stack)
            if start == self.sec_starts[-1]:  # a heading right at the body start
                self.sec_levels[-1], self.paths[-1] = h.level, path
                self.sec_header[-1] = self._header_id(path)
                self.sec_head_end[-1] = head_end
                continue
            self.sec_starts.append(start)
            self.sec_levels.append(h.level)
            self.sec_head_end.append(head_end)
            self.paths.append(path)
            self.sec_header.append(self._header_id(path))

    # -- headers and counting ------------------------------------------------------------------
    def _header_id(self, path: tuple[str, ...]) -> int:
        hid = self._hdr_ids.get(path)
        if hid is None:
            header = context_header(
                self.note, path, max_tokens=self.max, count_tokens=self.count_fn
            )
            hid = self._hdr_ids[path] = len(self.headers)
            self.headers.append(header)
            self.hdr_tokens.append(self.count_fn(header + "\n\n"))
        return hid

    def _count(self, h: int, s: int, e: int) -> int:
        key = (h, s, e)
        n = self._cache.get(key)
        if n is None:
            inside = self._inside(s, e)
            if inside is None:
                n = self.count_fn(self.headers[h] + "\n\n" + self.clean[s:e])
            else:  # "\n\n" ends a word: the header's tokens and the words' add up
                n = self.hdr_tokens[h] + inside
            self._cache[key] = n
            self._chars += e - s
            self._tokens += max(n - self.hdr_tokens[h], 1)
        return n

    def _inside(self, s: int, e: int) -> int | None:
        """Tokens of clean[s:e] from the note's word spans (None: count it for real)."""
        if self.word_spans is None or s >= e:
            return None
        if self._ranges is None:
            spans = self.word_spans(self.clean) if len(self.clean) <= MAX_SPANS_CHARS else None
            if spans is None:  # none offered for this text (or a huge one: lists per word)
                self.word_spans = None
                return None
            self._ranges = RangeCounts(spans)
        return self._ranges.inside(s, e)

    def _est_chars(self, tokens: int) -> int:
        ratio = self._chars / self._tokens if self._tokens else 3.0
        return int(tokens * min(ratio, MAX_CHARS_PER_TOKEN))

    def _hopeless(self, h: int, s: int, e: int, limit: int) -> bool:
        """Far too long to fit: judged without counting (a real tokenizer is slow on megabytes).

        Only ever errs towards cutting finer, which never breaks the budget.
        """
        return e - s > HOPELESS_FACTOR * max(self._est_chars(limit - self.hdr_tokens[h]), 64)

    def _section(self, pos: int) -> int:
        return bisect.bisect_right(self.sec_starts, pos) - 1

    def _overlaps_fence(self, s: int, e: int) -> bool:
        i = bisect.bisect_left(self.fence_starts, e) - 1
        return i >= 0 and self.fences[i][1] > s

    def _in_fence(self, pos: int) -> int | None:
        i = bisect.bisect_right(self.fence_starts, pos) - 1
        return i if i >= 0 and pos < self.fences[i][1] else None

    # -- whitespace ----------------------------------------------------------------------------
    def _skip(self, p: int, b: int) -> int:
        m = _WS_RUN.match(self.text, p, b)
        return m.end() if m else p

    def _trim(self, s: int, c: int) -> int:
        text = self.text
        while c > s and _is_ws(text[c - 1]):
            c -= 1
        return c

    def _fits(self, h: int, s: int, c: int, limit: int) -> bool:
        e = self._trim(s, c)
        return not self._hopeless(h, s, e, limit) and self._count(h, s, e) <= limit

    # -- pass 1: split sections ----------------------------------------------------------------
    def run(self) -> list[ChunkDraft]:
        pieces: list[_Piece] = []
        bounds = [*self.sec_starts[1:], len(self.text)]
        for i, (a, b) in enumerate(zip(self.sec_starts, bounds, strict=True)):
            s = self._skip(a, b)
            if s >= b:
                continue
            h = self.sec_header[i]
            if self._fits(h, s, b, self.max):
                spans = [(s, self._trim(s, b))]
            else:
                spans = self._pack(s, b, PARAGRAPH, h)
            pieces.extend(_Piece(x, y, self._count(h, x, y)) for x, y in spans)
        pieces = self._merge_to_target(pieces)
        pieces = self._merge_fragments(pieces)
        starts = [p.start for p in pieces]
        if self.overlap > 0 and pieces:
            starts = self._overlap_starts(pieces)
        return self._drafts(pieces, starts)

    def _cuts(self, a: int, b: int, level: int) -> Sequence[int]:
        """Candidate cut positions in (a, b], always ending with b."""
        text = self.text
        if level == PARAGRAPH:
            lo = bisect.bisect_right(self.para_cuts, a)
            hi = bisect.bisect_left(self.para_cuts, b)
            return [*self.para_cuts[lo:hi], b]
        if level == CHAR:
            return range(a + 1, b + 1)
        out: list[int] = []
        if level == LINE:
            i = text.find("\n", a, b - 1)
            while i != -1:
                out.append(i + 1)
                i = text.find("\n", i + 1, b - 1)
        else:
            pattern = _SENTENCE_END if level == SENTENCE else _WS_RUN
            out = [m.end() for m in pattern.finditer(text, a, b) if a < m.end() < b]
        out.append(b)
        return out

    def _pack(self, a: int, b: int, level: int, h: int) -> list[tuple[int, int]]:
        """Greedy split of text[a:b] at this level's cuts; units too big recurse one level finer."""
        cuts = self._cuts(a, b, level)
        out: list[tuple[int, int]] = []
        s = self._skip(a, b)
        while s < b:
            i0 = bisect.bisect_right(cuts, s)
            j = self._largest_fit(cuts, i0, s, h, self.target)
            if j is None:
                c = cuts[i0]
                if self._fits(h, s, c, self.max):  # one unit over the target: kept whole
                    out.append((s, self._trim(s, c)))
                    s = self._skip(c, b)
                    continue
                split_end = c
            else:
                c = cuts[j]
                if level == CHAR:
                    c = self._grapheme_cut(s, c, h)
                e = self._trim(s, c)
                glue = e <= self.sec_head_end[self._section(s)]  # a heading line alone
                if (e - s >= self.min_chars and not glue) or j + 1 == len(cuts) or level == CHAR:
                    out.append((s, e))
                    s = self._skip(c, b)
                    continue
                # a tiny piece: take the next unit along if it fits, or split the two together
                nxt = cuts[j + 1]
                if self._fits(h, s, nxt, self.max):
                    out.append((s, self._trim(s, nxt)))
                    s = self._skip(nxt, b)
                    continue
                u = self._skip(c, b)
                if self._overlaps_fence(s, e) or (
                    self._fits(h, u, nxt, self.max) and not (glue and self._in_fence(u) is None)
                ):
                    out.append((s, e))
                    s = self._skip(c, b)
                    continue
                split_end = nxt
            if level == CHAR:
                raise ConfigError(
                    f"max_tokens={self.max} leaves no room for even one character of text",
                    path=self.note.path,
                )
            parts = self._pack(s, split_end, level + 1, h)
            out.extend(parts[:-1])
            if parts[-1][0] > s:
                s = parts[-1][0]  # the tail keeps packing with the following units
            else:  # the estimate moved and the whole span fitted after all
                out.append(parts[-1])
                s = self._skip(split_end, b)
        return out

    def _largest_fit(self, cuts: Sequence[int], i0: int, s: int, h: int, limit: int) -> int | None:
        """Index of the last cut in cuts[i0:] whose chunk from ``s`` fits ``limit`` (or None).

        Interpolation on the measured chars-per-token ratio for the first probes, then
        bisection; stops early once a fitting probe is within 2% of the budget, or at half the
        longest span worth counting (text of few, huge tokens such as [UNK] words).
        """
        budget = limit - self.hdr_tokens[h]
        slack = max(1, budget // 50)
        est = max(self._est_chars(budget), 64)
        longest = s + HOPELESS_FACTOR * est
        # cuts[lo] fits (i0 - 1: none known yet); cuts[hi] does not or is not worth counting
        lo, hi = i0 - 1, max(bisect.bisect_right(cuts, longest, i0), i0 + 1)
        guess: int | None = s + max(1, int(est * 0.97))
        probes = 0
        while hi - lo > 1:
            if guess is not None and probes < 4:
                g = bisect.bisect_right(cuts, guess, lo + 1, hi) - 1
                g = min(max(g, lo + 1), hi - 1)
            else:
                g = (lo + hi) // 2
            probes += 1
            e = self._trim(s, cuts[g])
            total = self._count(h, s, e)
            if total <= limit:
                lo = g
                if total >= limit - slack or e - s >= HOPELESS_FACTOR * est // 2:
                    break
            else:
                hi = g
            text_tokens = total - self.hdr_tokens[h]
            guess = s + int((e - s) * budget / text_tokens * 0.98) if text_tokens > 0 else None
        return lo if lo >= i0 else None

    def _grapheme_cut(self, s: int, c: int, h: int) -> int:
        """Move a character-level cut back off combining marks, joiners and selectors."""
        text = self.text
        p = c
        while (
            p > s + 1
            and p < len(text)
            and (unicodedata.combining(text[p]) or text[p] in _JOINERS or text[p - 1] == "\u200d")
        ):
            p -= 1
        return p if p != c and self._fits(h, s, p, self.target) else c

    # -- pass 2 and 3: merges ------------------------------------------------------------------
    def _joined(self, a: _Piece, b: _Piece, limit: int) -> _Piece | None:
        """``a`` and ``b`` as one chunk (under the header of ``a``) when it fits ``limit``."""
        hb = self.sec_header[self._section(b.start)]
        estimate = a.tokens + b.tokens - self.hdr_tokens[hb]
        if estimate > limit + max(4, limit // 20):
            return None  # clearly too big: no need to count
        n = self._count(self.sec_header[self._section(a.start)], a.start, b.end)
        return _Piece(a.start, b.end, n) if n <= limit else None

    def _crossing(self, a: _Piece, b: _Piece) -> int:
        """How joining ``a`` and ``b`` crosses headings: SAME, DEEPER, WHOLE or PARTIAL.

        DEEPER: only headings below the one ``a`` starts under (subsections join their parent).
        Otherwise ``b`` must hold the rest of its section (WHOLE): a section's first part never
        joins a sibling's chunk while the rest of it stays behind (PARTIAL).
        """
        lo, hi = (
            bisect.bisect_left(self.sec_starts, a.end),
            bisect.bisect_left(self.sec_starts, b.end),
        )
        if lo == hi:
            return SAME
        anchor = self.sec_levels[self._section(a.start)]
        if all(self.sec_levels[i] > anchor for i in range(lo, hi)):
            return DEEPER
        sec_b = self._section(b.start)
        end = self.sec_starts[sec_b + 1] if sec_b + 1 < len(self.sec_starts) else len(self.text)
        return WHOLE if b.end >= self._trim(self.sec_starts[sec_b], end) else PARTIAL

    def _merge_to_target(self, pieces: list[_Piece]) -> list[_Piece]:
        out: list[_Piece] = []
        for p in pieces:
            j = None
            if out and self._crossing(out[-1], p) != PARTIAL:
                j = self._joined(out[-1], p, self.target)
            if j is not None:
                out[-1] = j
            else:
                out.append(p)
        return out

    def _join_fragment(self, a: _Piece, b: _Piece, same_section_only: bool) -> _Piece | None:
        crossing = self._crossing(a, b)
        if crossing == SAME or (crossing == DEEPER and not same_section_only):
            return self._joined(a, b, self.max)
        if crossing == WHOLE and not same_section_only:
            return self._joined(a, b, self.target)
        return None

    def _merge_fragments(self, pieces: list[_Piece]) -> list[_Piece]:
        """Fragments under ``min_chars`` join a neighbour: same section first, next before prev."""
        i = 0
        while i < len(pieces):
            p = pieces[i]
            if p.end - p.start >= self.min_chars or len(pieces) == 1:
                i += 1
                continue
            nxt = pieces[i + 1] if i + 1 < len(pieces) else None
            prev = pieces[i - 1] if i > 0 else None
            for same in (True, False):
                if nxt is not None and (j := self._join_fragment(p, nxt, same)) is not None:
                    pieces[i : i + 2] = [j]
                    break
                if prev is not None and (j := self._join_fragment(prev, p, same)) is not None:
                    pieces[i - 1 : i + 1] = [j]
                    i -= 1
                    break
            else:
                i += 1
        return pieces

    # -- overlap and output --------------------------------------------------------------------
    def _overlap_starts(self, pieces: list[_Piece]) -> list[int]:
        """Each chunk may start up to ``overlap`` chars earlier, at a word start in its section."""
        starts = [pieces[0].start]
        text = self.text
        for prev, p in itertools.pairwise(pieces):
            sec = self._section(p.start)
            lo = max(p.start - self.overlap, prev.start + 1, self.sec_starts[sec])
            fence = self._in_fence(p.start)
            cands = [
                m.end()
                for m in _WS_RUN.finditer(text, max(lo - 1, 0), p.start)
                if lo <= m.end() < p.start and self._in_fence(m.end()) in (None, fence)
            ]
            h = self.sec_header[sec]
            # the earliest start that still fits; len(cands) stands for p.start (no overlap)
            lo_i, hi_i = -1, len(cands)
            probe = 0
            while hi_i - lo_i > 1:
                if self._count(h, cands[probe], p.end) <= self.max:
                    hi_i = probe
                else:
                    lo_i = probe
                probe = (lo_i + hi_i) // 2
            starts.append(cands[hi_i] if hi_i < len(cands) else p.start)
        return starts

    def _drafts(self, pieces: list[_Piece], starts: list[int]) -> list[ChunkDraft]:
        raw, text = self.note.raw, self.text
        points = sorted({*starts, *(p.end for p in pieces)})
        byte_at = dict(zip(points, _bytes_of(text, points), strict=True))
        lines = line_starts(raw)
        out: list[ChunkDraft] = []
        for i, (p, s) in enumerate(zip(pieces, starts, strict=True)):
            sec = self._section(s)
            bs, be = byte_at[s], byte_at[p.end]
            out.append(
                ChunkDraft(
                    ordinal=i,
                    byte_start=bs,
                    byte_end=be,
                    line_start=line_of(lines, bs),
                    line_end=line_of(lines, be - 1),
                    text=text[s : p.end],
                    heading_path=self.paths[sec],
                    embed_input=self.headers[self.sec_header[sec]] + "\n\n" + self.clean[s : p.end],
                )
            )
        return out


def _scan_blocks(text: str, a: int, b: int) -> tuple[list[int], list[tuple[int, int]]]:
    """Paragraph-level cut candidates in (a, b] and the char ranges of fenced code blocks.

    A cut lies at the start of a line that follows a blank line, at a fence's opening line and
    right after its closing line; an unclosed fence runs to the end (as Obsidian renders it).
    """
    cuts: list[int] = []
    fences: list[tuple[int, int]] = []
    fence: tuple[str, int, int] | None = None  # (char, run length, start)
    after_gap = False
    pos = a
    while pos < b:
        nl = text.find("\n", pos, b)
        end = b if nl == -1 else nl + 1
        m = _FENCE.match(text, pos, end)
        blank = _BLANK_LINE.match(text, pos, end) is not None
        if fence is not None:
            run = m.group(1) if m else ""
            if m and run[0] == fence[0] and len(run) >= fence[1] and not m.group(2).strip(" \t\r"):
                fences.append((fence[2], end))
                fence = None
                cuts.append(end)
        elif blank:
            after_gap = True
        elif m and (m.group(1)[0] == "~" or "`" not in m.group(2)):
            fence = (m.group(1)[0], len(m.group(1)), pos)
            cuts.append(pos)
            after_gap = False
        else:
            if after_gap:
                cuts.append(pos)
            after_gap = False
        pos = end
    if fence is not None:
        fences.append((fence[2], b))
    return sorted({c for c in cuts if a < c < b}), fences


def _chars_of(raw: bytes, byte_offsets: list[int], text: str) -> list[int]:
    """Char offsets of byte offsets that lie on char boundaries (input order kept)."""
    if text.isascii():
        return list(byte_offsets)
    order = sorted(range(len(byte_offsets)), key=byte_offsets.__getitem__)
    out = [0] * len(byte_offsets)
    pb = pc = 0
    for i in order:
        b = byte_offsets[i]
        pc += len(raw[pb:b].decode("utf-8", "surrogateescape"))
        pb = b
        out[i] = pc
    return out


def _bytes_of(text: str, char_offsets: list[int]) -> list[int]:
    """Byte offsets of sorted char offsets (one encode per gap: linear in the text)."""
    if text.isascii():
        return list(char_offsets)
    out: list[int] = []
    pc = pb = 0
    for c in char_offsets:
        pb += len(text[pc:c].encode("utf-8", "surrogateescape"))
        pc = c
        out.append(pb)
    return out
