"""Unit tests for the chunker: exact byte ranges, cut order, merges, budget and header format."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import CORPUS
from vaultheat.core.models import ChunkDraft, Heading, ParsedNote, Tag
from vaultheat.core.vault.chunk_header import context_header
from vaultheat.core.vault.chunking import chunk_note
from vaultheat.core.vault.parsing import parse_note
from vaultheat.errors import ConfigError

REPO = Path(__file__).resolve().parents[2]
Count = Callable[[str], int]


def words(s: str) -> int:
    return len(s.split())


def chars(s: str) -> int:
    return len(s)


def note_of(raw: bytes | str, path: str = "Note.md") -> ParsedNote:
    return parse_note(path, raw.encode() if isinstance(raw, str) else raw)


def para(n: int, tag: str = "w", sep: str = " ") -> str:
    return sep.join(f"{tag}{i}" for i in range(n))


def is_blank(s: str) -> bool:
    return all(ch.isspace() or ch == "\ufeff" for ch in s)


def assert_valid(
    note: ParsedNote,
    chunks: list[ChunkDraft],
    max_tokens: int,
    count: Count = words,
    *,
    overlap: bool = False,
) -> None:
    """Every invariant of the chunker's contract, checked on the raw bytes."""
    raw = note.raw
    prev: ChunkDraft | None = None
    covered_to = note.body_byte_start
    nl_pos, nl_count = 0, 0  # newlines before nl_pos (counted incrementally: big notes stay fast)

    def line(pos: int) -> int:
        nonlocal nl_pos, nl_count
        if pos < nl_pos:
            return raw.count(b"\n", 0, pos) + 1
        nl_count += raw.count(b"\n", nl_pos, pos)
        nl_pos = pos
        return nl_count + 1

    for i, c in enumerate(chunks):
        assert c.ordinal == i
        assert note.body_byte_start <= c.byte_start < c.byte_end <= len(raw)
        assert raw[c.byte_start : c.byte_end].decode("utf-8", "surrogateescape") == c.text
        assert not is_blank(c.text[0]) and not is_blank(c.text[-1]), repr(c.text)
        assert c.line_start == line(c.byte_start)
        assert c.line_end == line(c.byte_end - 1)
        header = context_header(note, c.heading_path, max_tokens=max_tokens, count_tokens=count)
        clean = re.sub("[\udc80-\udcff]", "\ufffd", c.text)
        assert c.embed_input == header + "\n\n" + clean
        assert count(c.embed_input) <= max_tokens
        if prev is not None:
            assert c.byte_start > prev.byte_start and c.byte_end > prev.byte_end
            if not overlap:
                assert c.byte_start >= prev.byte_end
        gap = raw[covered_to : c.byte_start] if c.byte_start > covered_to else b""
        assert is_blank(gap.decode("utf-8", "surrogateescape")), gap[:80]
        covered_to = max(covered_to, c.byte_end)
        prev = c
    rest = raw[covered_to:].decode("utf-8", "surrogateescape") if covered_to < len(raw) else ""
    assert is_blank(rest), rest[:80]


def run(raw: bytes | str, max_tokens: int, count: Count = words, **kw: int) -> list[ChunkDraft]:
    note = note_of(raw)
    chunks = chunk_note(note, max_tokens=max_tokens, count_tokens=count, **kw)
    assert_valid(note, chunks, max_tokens, count, overlap=kw.get("overlap_chars", 0) > 0)
    return chunks


# --- structure ----------------------------------------------------------------------------------


def test_headings_start_new_chunks() -> None:
    raw = f"# Alpha\n\n{para(40)}\n\n## Beta\n\n{para(40)}\n\n# Gamma\n\n{para(40)}\n"
    chunks = run(raw, 60, target_tokens=45)
    assert [c.text.split("\n")[0] for c in chunks] == ["# Alpha", "## Beta", "# Gamma"]
    assert [c.heading_path for c in chunks] == [("Alpha",), ("Alpha", "Beta"), ("Gamma",)]
    assert [c.line_start for c in chunks] == [1, 5, 9]


def test_heading_path_follows_level_nesting() -> None:
    sections = ["# A", "## B", "### C", "## D", "#### E", "## F", "# G"]
    raw = "".join(f"{h}\n\n{para(20, h[-1])}\n\n" for h in sections)
    chunks = run(raw, 40, target_tokens=20, min_chars=0)
    assert [c.heading_path for c in chunks] == [
        ("A",),
        ("A", "B"),
        ("A", "B", "C"),
        ("A", "D"),
        ("A", "D", "E"),
        ("A", "F"),
        ("G",),
    ]


def test_fenced_code_block_is_never_cut_when_it_fits() -> None:
    code = "\n".join(["```python"] + [f"x{i} = y{i} + z{i}" for i in range(5)])
    code += "\n\n" + "\n".join(f"a{i} = b{i} + c{i}" for i in range(5)) + "\n```"
    raw = f"# Code\n\n{para(20)}\n\n{code}\n\n{para(20, 'v')}\n"
    chunks = run(raw, 60, target_tokens=30)
    holders = [c for c in chunks if "```python" in c.text]
    assert len(holders) == 1 and code in holders[0].text
    assert len(chunks) == 3  # text, code (over the target, within the limit), text


@pytest.mark.parametrize("fence", ["```", "~~~~"], ids=["backticks", "tildes"])
def test_code_block_larger_than_the_limit_is_cut_at_lines(fence: str) -> None:
    lines = [f"call_{i}(alpha, beta, gamma)" for i in range(120)]
    raw = f"intro line\n\n{fence}js\n" + "\n".join(lines) + f"\n{fence}\n\nafter text\n"
    note = note_of(raw)
    chunks = run(raw, 40)
    inside = [c for c in chunks if "call_" in c.text]
    assert len(inside) > 3
    for c in inside:
        assert c.byte_start == 0 or note.raw[c.byte_start - 1 : c.byte_start] == b"\n"
        assert note.raw[c.byte_end : c.byte_end + 1] in (b"\n", b"")


def test_heading_line_stays_with_its_text_when_the_paragraph_is_split() -> None:
    sentences = " ".join(f"Sentence {i} has five words." for i in range(80))
    chunks = run(f"## Head\n\n{sentences}\n", 50)
    assert chunks[0].text.startswith("## Head\n\nSentence 0")
    assert all(c.text.endswith(".") for c in chunks)  # cut after sentences, not inside them


@pytest.mark.parametrize(
    ("target", "expected"),
    [(14, ["A", "B", "C"]), (10, ["A", "B"]), (6, ["A"])],
    ids=["all-three-fit", "two-fit", "none-merge"],
)
def test_small_sections_merge_up_to_the_target(target: int, expected: list[str]) -> None:
    raw = "## A\n\none two\n\n## B\n\nthree four\n\n## C\n\nfive six\n"
    chunks = run(raw, 100, target_tokens=target, min_chars=0)
    first = chunks[0]
    assert re.findall(r"(?m)^## (\w)", first.text) == expected
    assert first.heading_path == ("A",)


def test_tiny_tail_merges_into_previous_chunk_of_its_section() -> None:
    raw = f"# S1\n\n{para(26)}\n\nthe very end now.\n\n# S2\n\n{para(40, 'q')}\n"
    chunks = run(raw, 50, target_tokens=30, min_chars=40)
    assert chunks[0].text.endswith("the very end now.")
    assert chunks[0].text.startswith("# S1")
    assert len(chunks) == 2


def test_tiny_section_joins_its_subsection() -> None:
    raw = f"# Title\n\n## Intro\n\n{para(30)}\n"
    chunks = run(raw, 50, target_tokens=20)
    assert len(chunks) == 1
    assert chunks[0].text.startswith("# Title\n\n## Intro")
    assert chunks[0].heading_path == ("Title",)


def test_heading_only_section_joins_the_start_of_a_split_subsection() -> None:
    sentences = " ".join(f"Sentence {i} has five words." for i in range(60))
    chunks = run(f"# Title\n\n## Intro\n\n{sentences}\n", 50)
    assert chunks[0].text.startswith("# Title\n\n## Intro\n\nSentence 0")
    assert chunks[0].heading_path == ("Title",)
    assert chunks[1].heading_path == ("Title", "Intro")


def test_first_part_of_a_split_section_never_joins_a_sibling() -> None:
    sentences = " ".join(f"Sentence {i} has five words." for i in range(60))
    chunks = run(f"## A\n\nshort a.\n\n## B\n\n{sentences}\n", 50, target_tokens=40)
    assert chunks[0].text == "## A\n\nshort a."
    assert chunks[1].text.startswith("## B\n\nSentence 0")


def test_tiny_section_does_not_join_siblings_beyond_the_target() -> None:
    raw = f"## A\n\n{para(30)}\n\n## B\n\ntiny.\n\n## C\n\n{para(30, 'c')}\n"
    chunks = run(raw, 50, target_tokens=20)
    assert [c.heading_path for c in chunks] == [("A",), ("B",), ("C",)]
    assert chunks[1].text == "## B\n\ntiny."


def test_overlap_is_a_range_of_the_file_and_keeps_the_budget() -> None:
    raw = "# Doc\n\n" + "\n\n".join(para(15, f"p{k}_") for k in range(12)) + "\n"
    plain = run(raw, 40)
    over = run(raw, 40, overlap_chars=60)
    assert len(plain) == len(over) > 3
    text = note_of(raw).text
    assert over[0].byte_start == plain[0].byte_start
    for p, o in zip(plain[1:], over[1:], strict=True):
        assert o.byte_end == p.byte_end and o.heading_path == p.heading_path
        assert p.byte_start - 60 <= o.byte_start <= p.byte_start  # ASCII: bytes == chars
        assert text[o.byte_start - 1].isspace()
    assert sum(o.byte_start < p.byte_start for p, o in zip(plain, over, strict=True)) >= 3


def test_overlap_never_reaches_back_across_a_heading() -> None:
    raw = f"# A\n\n{para(30)}\n\n# B\n\n{para(30, 'b')}\n"
    chunks = run(raw, 40, overlap_chars=500)
    starts = [c for c in chunks if c.heading_path == ("B",)]
    assert starts[0].text.startswith("# B")


# --- scripts, encodings, edge cases --------------------------------------------------------------


def test_cjk_without_spaces_is_cut_by_characters_within_the_budget() -> None:
    raw = "# 京都\n\n" + "京都の寺と庭と川と山" * 300 + "\n"
    chunks = run(raw, 100, chars)
    assert len(chunks) > 30
    assert all(chars(c.embed_input) <= 100 for c in chunks)


def test_cjk_sentences_are_preferred_cut_points() -> None:
    raw = "".join(f"これは{i:03d}番目の文です。" for i in range(200))
    chunks = run(raw, 120, chars)
    assert all(c.text.endswith("。") for c in chunks)


@pytest.mark.parametrize(
    "unit",
    ["e\u0301", "👩\u200d💻", "👍🏽", "\u2764\ufe0f"],
    ids=["combining", "zwj", "skin", "vs16"],
)
def test_character_cuts_keep_combining_sequences_together(unit: str) -> None:
    chunks = run(unit * 400, 30, chars)
    assert len(chunks) > 5
    for c in chunks:
        assert c.text.startswith(unit[0]) and c.text.endswith(unit[-1])


def test_frontmatter_is_excluded_and_feeds_the_header() -> None:
    raw = "---\ntitle: Fancy Title\naliases: [FT]\ntags: [alpha]\n---\nBody text here.\n"
    (chunk,) = run(raw, 50)
    assert chunk.text == "Body text here." and chunk.line_start == chunk.line_end == 6
    assert chunk.byte_start == raw.index("Body")
    assert chunk.embed_input == "Fancy Title (aliases: FT) #alpha\n\nBody text here."


@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b"   \n\n\t\n",
        b"---\ntitle: x\n---\n",
        b"---\ntags: [a]\n---\n\n  \r\n",
        b"\xef\xbb\xbf",
    ],
    ids=["empty", "blank", "frontmatter-only", "frontmatter-blank-body", "bom-only"],
)
def test_notes_without_body_text_have_no_chunks(raw: bytes) -> None:
    assert run(raw, 50) == []


def test_crlf_files_keep_exact_ranges() -> None:
    raw = f"# A\r\n\r\n{para(30)}\r\n\r\n## B\r\n\r\n{para(30, 'b')}\r\nlast line\r\n"
    chunks = run(raw, 40, target_tokens=35)
    assert [c.heading_path for c in chunks] == [("A",), ("A", "B")]
    assert not any(c.text.endswith("\r") for c in chunks)
    assert chunks[1].line_start == 5 and chunks[1].line_end == 8


@pytest.mark.parametrize(
    ("raw", "first_byte", "path"),
    [
        (b"\xef\xbb\xbf# Title\n\ntext", 3, ("Title",)),
        (b"\xef\xbb\xbf---\ntitle: T\n---\ntext after frontmatter", 20, ()),
        (b"\xef\xbb\xbfplain", 3, ()),
    ],
    ids=["bom-heading", "bom-frontmatter", "bom-text"],
)
def test_bom_before_the_body(raw: bytes, first_byte: int, path: tuple[str, ...]) -> None:
    (chunk,) = run(raw, 50)
    assert chunk.byte_start == first_byte and chunk.heading_path == path
    assert "\ufeff" not in chunk.embed_input


def test_invalid_utf8_keeps_offsets_and_embeds_replacement_chars() -> None:
    body = (
        b"# H\xff\n\nabc \xe4\xbd def \xff\xfe ghi \xc3\xa9t\xc3\xa9 " * 40
        + b"\n\n"
        + b"\xff" * 500
    )
    note = note_of(b"---\ntags: [x]\n---\n" + body)
    chunks = chunk_note(note, max_tokens=60, count_tokens=chars)
    assert_valid(note, chunks, 60, chars)
    assert len(chunks) > 10
    for c in chunks:
        c.embed_input.encode("utf-8")  # no lone surrogates reach a tokenizer
    assert any("\udcff" in c.text for c in chunks)


def test_hand_built_note_ignores_headings_inside_fences() -> None:
    """A parser that reports `# comment` inside an indented fence must not split the block."""
    text = "- step\n\n    ```bash\n    # comment\n    ls\n    ```\n\n# Real\n\nend\n"
    raw = text.encode()
    heads = [
        Heading(len(m.group(1)), m.group(2), m.start(), m.end(), raw.count(b"\n", 0, m.start()) + 1)
        for m in re.finditer(r"(?m)^\s*(#+) (.+)$", text)
    ]
    note = ParsedNote("n.md", raw, text, 0, {}, "n", [], [], [], heads)
    chunks = chunk_note(note, max_tokens=60, count_tokens=words, target_tokens=4, min_chars=0)
    assert_valid(note, chunks, 60)
    assert [c.heading_path for c in chunks] == [(), ("Real",)]
    assert "# comment" in chunks[0].text and chunks[0].text.endswith("```")


# --- header ---------------------------------------------------------------------------------


def hand_note(title: str, aliases: list[str], tags: list[str]) -> ParsedNote:
    return ParsedNote("x.md", b"", "", 0, {}, title, aliases, [Tag(t, -1, 0) for t in tags], [], [])


@pytest.mark.parametrize(
    ("title", "aliases", "tags", "path", "expected"),
    [
        ("Note", [], [], (), "Note"),
        (
            "Note",
            ["A1", "A 2", "A1"],
            ["t1", "T1", "t2"],
            ("H1", "H2"),
            "Note (aliases: A1, A 2) #t1 #t2\nH1 > H2",
        ),
        ("Multi\nline  title", [], [], ("Head",), "Multi line title\nHead"),
        ("N", [], [f"t{i}" for i in range(12)], (), "N " + " ".join(f"#t{i}" for i in range(8))),
    ],
    ids=["title-only", "full", "whitespace-squashed", "eight-tags-at-most"],
)
def test_context_header_format(
    title: str, aliases: list[str], tags: list[str], path: tuple[str, ...], expected: str
) -> None:
    assert context_header(hand_note(title, aliases, tags), path) == expected


@pytest.mark.parametrize(
    ("max_tokens", "expected"),
    [
        (40, "Note (aliases: x) #a #b\nH1 > H2 > H3"),
        (36, "Note #a #b\nH1 > H2 > H3"),
        (24, "Note\nH1 > H2 > H3"),
        (16, "Note\n… > H3"),
    ],
    ids=["fits", "drop-aliases", "drop-tags", "inner-heading-only"],
)
def test_context_header_is_cut_to_a_quarter_of_the_budget(max_tokens: int, expected: str) -> None:
    note = hand_note("Note", ["x"], ["a", "b"])
    got = context_header(note, ("H1", "H2", "H3"), max_tokens=max_tokens, count_tokens=words)
    assert got == expected


def test_context_header_shortens_a_long_title_at_a_word() -> None:
    note = hand_note(" ".join(f"word{i}" for i in range(30)), [], [])
    got = context_header(note, ("Head",), max_tokens=16, count_tokens=words)
    assert got == "word0 word1 word2…\nHead"


# --- budget, errors, performance --------------------------------------------------------------


def test_budget_counts_the_header() -> None:
    raw = "---\naliases: [one two three]\ntags: [a, b, c]\n---\n# Some heading\n\n" + para(300)
    chunks = run(raw, 30, target_tokens=30)
    assert max(words(c.embed_input) for c in chunks) == 30  # packed right up to the limit...
    assert all(words(c.text) < 30 for c in chunks)  # ...which includes the header


@pytest.mark.parametrize("max_tokens", [0, -5, 1], ids=["zero", "negative", "no-room-for-text"])
def test_impossible_budgets_raise_config_error(max_tokens: int) -> None:
    with pytest.raises(ConfigError):
        chunk_note(note_of("some text"), max_tokens=max_tokens, count_tokens=words)


@pytest.mark.parametrize(
    "long_line",
    ["x" * 1_000_000, "中文字符测试" * 170_000, "lorem ipsum dolor sit amet " * 37_000],
    ids=["no-spaces", "cjk", "words"],
)
def test_two_megabyte_note_with_a_huge_line_is_fast_and_counts_sparingly(long_line: str) -> None:
    text = "# Big\n\n" + long_line + "\n\n" + "Lorem ipsum dolor sit amet. " * 36_000
    note = note_of(text)
    counted = [0, 0]

    def counting(s: str) -> int:
        counted[0] += 1
        counted[1] += len(s)
        return len(s) // 4 + 1

    t0 = time.process_time()
    chunks = chunk_note(note, max_tokens=256, count_tokens=counting)
    elapsed = time.process_time() - t0
    assert elapsed < 5.0
    assert counted[1] < 10 * len(text)  # no prefix-by-prefix counting
    assert counted[0] < 6 * len(chunks)
    assert_valid(note, chunks, 256, lambda s: len(s) // 4 + 1)


# --- the real tokenizer of the default model ---------------------------------------------------


def model_counter() -> Count:
    tokenizers = pytest.importorskip("tokenizers")
    from vaultheat.providers.minilm_onnx import TOKENIZER_DATA  # the default model's, shipped

    tok = tokenizers.Tokenizer.from_file(str(TOKENIZER_DATA))
    tok.no_truncation()  # the shipped tokenizer.json truncates at 128 and pads: count it all
    tok.no_padding()
    return lambda s: len(tok.encode(s, add_special_tokens=True).ids)


@pytest.mark.model
def test_real_tokenizer_never_sees_more_than_the_model_window() -> None:
    count = model_counter()
    generated = [
        "# Notes\n\n" + " ".join(f"Sentence {i} about embeddings." for i in range(2000)),
        "## 日本語\n\n" + "東京と京都と大阪の町を歩いた。" * 400,
        "```\n" + "\n".join(f"value_{i} = compute({i}, 'x' * {i})" for i in range(800)) + "\n```",
        "emoji " + "🙂👍🏽‍♀️" * 3000 + " supercalifragilistic" * 500,
    ]
    notes = [note_of(t, f"gen{i}.md") for i, t in enumerate(generated)]
    vault = REPO / "examples" / "vault"
    notes += [note_of(p.read_bytes(), p.relative_to(vault).as_posix()) for p in vault.rglob("*.md")]
    total = 0
    for note in notes:
        chunks = chunk_note(note, max_tokens=256, count_tokens=count)
        assert_valid(note, chunks, 256, count)
        total += len(chunks)
    assert total > 50


def corpus_dir() -> Path | None:
    path = CORPUS / "obsidian-help" / "en"
    return path if path.is_dir() else None


@pytest.mark.model
@pytest.mark.corpus
def test_obsidian_help_vault_chunks_within_the_window() -> None:
    root = corpus_dir()
    if root is None:
        pytest.skip("../shared/corpus/obsidian-help/en is absent (corpora are not in the repo)")
    count = model_counter()
    for p in sorted(root.rglob("*.md")):
        note = note_of(p.read_bytes(), p.relative_to(root).as_posix())
        assert_valid(note, chunk_note(note, max_tokens=256, count_tokens=count), 256, count)
