"""Property tests: the chunker's contract holds on generated markdown and random small budgets.

Invariants checked on every example: exact byte slices, ordered and non-overlapping ranges,
every non-blank body byte covered, trimmed ranges, line numbers, frontmatter excluded, the
token budget (header included), heading paths by level nesting, fenced code only cut when the
block alone exceeds the limit, and overlap only moving starts back to word boundaries.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from vaultheat.core.models import ChunkDraft, ParsedNote
from vaultheat.core.vault.chunk_header import context_header
from vaultheat.core.vault.chunking import chunk_note
from vaultheat.core.vault.links import find_masked_regions
from vaultheat.core.vault.parsing import parse_note

Count = Callable[[str], int]

TOKENS = [
    "alpha", "beta", "gamma", "δέλτα", "naïve", "x", "end.", "why?", "wow!", "2.5", "e\u0301",
    "東京都", "中文没有空格的句子。", "「引用」。", "🙂", "👍🏽", "👩\u200d💻", "#tag", "[[Link]]",
    "supercalifragilisticexpialidocious", "a\tb",
]  # fmt: skip
# No backticks in running text: parse_note lets an inline code span run across heading and fence
# lines (reported), so its headings would disagree with the block structure the chunker sees.


def words_model(s: str) -> int:
    """A word tokenizer with two special tokens, like the fake embedder."""
    return len(s.split()) + 2


def chars_model(s: str) -> int:
    """About three chars a token: forces character cuts in long words and CJK."""
    return (len(s) + 2) // 3 + 2


def is_blank(s: str) -> bool:
    return all(ch.isspace() or ch == "\ufeff" for ch in s)


@st.composite
def line_text(draw: st.DrawFn) -> str:
    toks = draw(st.lists(st.sampled_from(TOKENS), min_size=1, max_size=25))
    return draw(st.sampled_from([" ", "", " ", "  "])).join(toks)


@st.composite
def block(draw: st.DrawFn) -> str:
    kind = draw(
        st.sampled_from(["heading", "para", "para", "fence", "list", "long", "blank", "junk"])
    )
    if kind == "heading":
        return "#" * draw(st.integers(1, 6)) + " " + draw(line_text())[:40].strip() + "H"
    if kind == "para":
        return "\n".join(draw(st.lists(line_text(), min_size=1, max_size=4)))
    if kind == "fence":
        mark = draw(st.sampled_from(["```", "~~~", "````"]))
        body = draw(st.lists(st.one_of(line_text(), st.just("")), max_size=12))
        closed = draw(st.booleans()) or draw(st.booleans())
        return "\n".join([mark + "py", *body] + ([mark] if closed else []))
    if kind == "list":
        return "\n".join("- " + t for t in draw(st.lists(line_text(), min_size=1, max_size=5)))
    if kind == "long":
        unit = draw(st.sampled_from(["x", "字", "🙂", "ab", "e\u0301", "👩\u200d💻"]))
        return unit * draw(st.integers(20, 400))
    if kind == "junk":
        return "\udcff\udce4 bad \udcbd" * draw(st.integers(1, 5))
    return " " * draw(st.integers(0, 3))


@st.composite
def markdown(draw: st.DrawFn) -> bytes:
    blocks = draw(st.lists(block(), max_size=14))
    text = "".join(b + draw(st.sampled_from(["\n", "\n\n", "\n\n\n", "\n \n"])) for b in blocks)
    if draw(st.booleans()):
        fm = "---\ntitle: Generated\ntags: [one, two]\naliases: [Gen]\n---\n"
        text = draw(st.sampled_from([fm, "---\n---\n", "---\nbad: [yaml\n---\n"])) + text
    if draw(st.booleans()):
        text = text.replace("\n", "\r\n")
    if draw(st.booleans()):
        # parse_note does not see a fence right after a BOM (reported); keep them a line apart
        text = "\ufeff" + ("\n" if text.startswith(("```", "~~~")) else "") + text
    return text.encode("utf-8", "surrogateescape")


def reference_path(note: ParsedNote, byte: int) -> tuple[str, ...]:
    stack: list[tuple[int, str]] = []
    for h in note.headings:
        if h.byte_start > byte:
            break
        while stack and stack[-1][0] >= h.level:
            stack.pop()
        stack.append((h.level, h.text))
    return tuple(t for _, t in stack)


def check(note: ParsedNote, chunks: list[ChunkDraft], max_tokens: int, count: Count) -> None:
    raw = note.raw
    covered = note.body_byte_start
    prev_end = -1
    for i, c in enumerate(chunks):
        assert c.ordinal == i
        assert c.byte_start >= max(note.body_byte_start, prev_end), "ordered, no overlap"
        assert raw[c.byte_start : c.byte_end].decode("utf-8", "surrogateescape") == c.text
        assert c.text and not is_blank(c.text[0]) and not is_blank(c.text[-1])
        assert c.line_start == raw.count(b"\n", 0, c.byte_start) + 1
        assert c.line_end == raw.count(b"\n", 0, c.byte_end - 1) + 1
        header = context_header(note, c.heading_path, max_tokens=max_tokens, count_tokens=count)
        assert c.embed_input == header + "\n\n" + re.sub("[\udc80-\udcff]", "\ufffd", c.text)
        assert count(c.embed_input) <= max_tokens
        assert c.heading_path == reference_path(note, c.byte_start)
        assert is_blank(raw[covered : c.byte_start].decode("utf-8", "surrogateescape"))
        covered = prev_end = c.byte_end
    assert is_blank(raw[covered:].decode("utf-8", "surrogateescape"))


def check_fences(note: ParsedNote, chunks: list[ChunkDraft], max_tokens: int, count: Count) -> None:
    """A cut inside a fenced block only happens when the block alone is over the limit."""
    text = note.text
    body = len(note.raw[: note.body_byte_start].decode("utf-8", "surrogateescape"))
    cuts = []
    for c in chunks:
        start = len(note.raw[: c.byte_start].decode("utf-8", "surrogateescape"))
        cuts += [start, start + len(c.text)]
    for s, e in find_masked_regions(text, body):
        block = text[s:e].strip()
        if not re.match(r" {0,3}(```|~~~)", text[s:e]):
            continue  # inline code or a comment
        e = s + len(text[s:e].rstrip())
        if any(s < x < e for x in cuts):
            path = reference_path(note, len(text[:s].encode("utf-8", "surrogateescape")))
            header = context_header(note, path, max_tokens=max_tokens, count_tokens=count)
            assert count(header + "\n\n" + block) > max_tokens, block[:80]


BUDGETS = st.tuples(
    st.integers(24, 200),  # max_tokens
    st.one_of(st.just(0), st.floats(0.05, 1.0)),  # target as a share of max (0: default)
    st.integers(0, 200),  # min_chars
)


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(raw=markdown(), budget=BUDGETS, model=st.sampled_from([words_model, chars_model]))
@example(  # a tiny piece holding a whole fence must not be re-split with the next big unit
    raw=b"alpha\r\n```py\r\n```\r\n\r\nalpha\r\n \r\n# xH\r\n \r\nalpha alpha alpha alpha\r\n"
    b"alpha alpha alpha na\xc3\xafve alpha gamma #tag supercalifragilisticexpialidocious "
    b"supercalifragilisticexpialidocious\r\n\xf0\x9f\x99\x82\r\n\r\n \r\n~~~py\r\n\r\n\r\n"
    b"alpha alpha alpha \xce\xb4\xce\xad\xce\xbb\xcf\x84\xce\xb1 supercalifragilisticexpialidocious"
    b" a\tb\r\n~~~\r\n" + b"x" * 125 + b"\r\n \r\n\r\n \r\n\r\n \r\n" + b"x" * 36 + b"\r\nbeta\r\n",
    budget=(48, 0, 88),
    model=chars_model,
)
def test_chunks_are_exact_ordered_covering_and_within_budget(
    raw: bytes, budget: tuple[int, float, int], model: Count
) -> None:
    max_tokens, share, min_chars = budget
    note = parse_note("Folder/Note.md", raw)
    chunks = chunk_note(
        note,
        max_tokens=max_tokens,
        count_tokens=model,
        target_tokens=int(max_tokens * share),
        min_chars=min_chars,
    )
    check(note, chunks, max_tokens, model)
    check_fences(note, chunks, max_tokens, model)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    raw=markdown(),
    max_tokens=st.integers(24, 200),
    overlap=st.integers(1, 150),
    model=st.sampled_from([words_model, chars_model]),
)
def test_overlap_only_moves_starts_back_to_word_boundaries(
    raw: bytes, max_tokens: int, overlap: int, model: Count
) -> None:
    note = parse_note("Note.md", raw)
    plain = chunk_note(note, max_tokens=max_tokens, count_tokens=model)
    over = chunk_note(note, max_tokens=max_tokens, count_tokens=model, overlap_chars=overlap)
    assert [c.byte_end for c in over] == [c.byte_end for c in plain]
    assert [c.heading_path for c in over] == [c.heading_path for c in plain]
    text = note.raw.decode("utf-8", "surrogateescape")
    for i, (p, o) in enumerate(zip(plain, over, strict=True)):
        assert note.raw[o.byte_start : o.byte_end].decode("utf-8", "surrogateescape") == o.text
        assert o.text.endswith(p.text) and model(o.embed_input) <= max_tokens
        moved = len(o.text) - len(p.text)
        assert 0 <= moved <= (overlap if i else 0)
        if moved:
            assert o.byte_start > over[i - 1].byte_start
            start = len(note.raw[: o.byte_start].decode("utf-8", "surrogateescape"))
            assert is_blank(text[start - 1]) and not is_blank(text[start])
