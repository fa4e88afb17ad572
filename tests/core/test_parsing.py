"""Note parsing: frontmatter (and its failure modes), title, aliases, tags, headings, block ids,
opt-out, exact byte offsets."""

from __future__ import annotations

import json
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vaultheat.core.models import ParsedNote
from vaultheat.core.vault.parsing import parse_note


def parse(md: str | bytes, path: str = "Folder/My Note.md", **kw: str) -> ParsedNote:
    raw = md.encode("utf-8") if isinstance(md, str) else md
    return parse_note(path, raw, **kw)


def inline_tags(md: str) -> list[str]:
    return [t.name for t in parse(md).tags if t.byte_start >= 0]


# --- tags --------------------------------------------------------------------------------------

TAG_CASES = [
    ("simple", "#tag", ["tag"]),
    ("mid-sentence", "text #tag more", ["tag"]),
    ("nested", "#nested/tag/deep", ["nested/tag/deep"]),
    ("dash-underscore", "#to-do_list", ["to-do_list"]),
    ("case-kept", "#CamelCase", ["CamelCase"]),
    ("digits-only-not-a-tag", "#123 and #2024", []),
    ("digits-and-letters", "#1984a #y2k", ["1984a", "y2k"]),
    ("digits-nested", "#2024/05", ["2024/05"]),
    ("heading-is-not-a-tag", "# Heading\n## Sub", []),
    ("tag-in-heading", "## Heading #tagged", ["tagged"]),
    ("no-space-at-line-start-is-tag", "#NotAHeading", ["NotAHeading"]),
    ("url-fragment", "see http://x.com/a#frag and x.com/#/route", []),
    ("c-sharp", "I like C# and F#", []),
    ("wikilink-heading", "[[Note#heading]] [[#Other]]", []),
    ("md-link-anchor", "[x](#anchor)", []),
    ("ends-at-punctuation", "#tag. #b, #c! (#d) #e:x", ["tag", "b", "c", "e"]),
    ("two-hashes-in-a-row", "#tag#other", ["tag"]),
    ("tab-before", "a\t#tabbed", ["tabbed"]),
    ("unicode-letters", "#café #日本語 #Россия #संस्कृत", ["café", "日本語", "Россия", "संस्कृत"]),
    ("emoji", "#🚀launch", ["🚀launch"]),
    ("inline-code", "`#code` and ``#more``", []),
    ("fenced-code", "```\n#code\n```\n~~~\n#tilde\n~~~", []),
    ("css-in-callout-code", "> [!tip]\n> ```css\n> a { color: #ff0000; }\n> ```\n#real", ["real"]),
    ("percent-comment", "%% #hidden %%", []),
    ("percent-comment-multiline", "%%\n#hidden\n%%\n#shown", ["shown"]),
    ("html-comment", "<!-- #hidden -->", []),
    ("after-code-span", "`x`#glued", []),
    ("after-comment", "%%c%% #tag", ["tag"]),
    ("lone-hash", "# ", []),
]


@pytest.mark.parametrize(
    ("md", "expected"), [c[1:] for c in TAG_CASES], ids=[c[0] for c in TAG_CASES]
)
def test_inline_tags(md: str, expected: list[str]) -> None:
    assert inline_tags(md) == expected


def test_inline_tag_offsets_and_lines() -> None:
    raw = "ü line\r\n\r\nsome #tägs here\n#last".encode()
    tags = parse(raw).tags
    assert [(t.name, t.line) for t in tags] == [("tägs", 3), ("last", 4)]
    for t in tags:
        assert raw[t.byte_start :].decode().startswith("#" + t.name)


FM_TAG_CASES = [
    ("list", "tags:\n  - a\n  - '#b'\n  - nested/c", ["a", "b", "nested/c"]),
    ("flow-list", "tags: [a, b]", ["a", "b"]),
    ("comma-string", "tags: a, b", ["a", "b"]),
    ("space-string", "tags: 'a b #c'", ["a", "b", "c"]),
    ("yaml-comment", "tags: a b #c", ["a", "b"]),
    ("singular-key", "tag: x", ["x"]),
    ("numbers-dropped", "tags: [2023, x1]", ["x1"]),
    ("duplicates-once", "tags: [a, a]", ["a"]),
    ("empty", "tags:", []),
    ("not-a-list-or-string", "tags: {a: 1}", []),
]


@pytest.mark.parametrize(
    ("yaml_src", "expected"), [c[1:] for c in FM_TAG_CASES], ids=[c[0] for c in FM_TAG_CASES]
)
def test_frontmatter_tags(yaml_src: str, expected: list[str]) -> None:
    note = parse(f"---\n{yaml_src}\n---\nbody #inline\n")
    fm_tags = [t for t in note.tags if t.byte_start == -1]
    assert [t.name for t in fm_tags] == expected
    assert all(t.line == 0 for t in fm_tags)
    assert note.tags[-1].name == "inline"  # frontmatter tags first, then the body's


def test_tags_in_frontmatter_text_are_not_inline_tags() -> None:
    note = parse("---\ntitle: 'x #notatag'\n---\n#real")
    assert [t.name for t in note.tags] == ["real"]


# --- frontmatter -------------------------------------------------------------------------------


def test_frontmatter_basic() -> None:
    raw = b"---\ntitle: The Title\naliases: [One, Two]\n---\n# H\n"
    note = parse(raw)
    assert note.frontmatter == {"title": "The Title", "aliases": ["One", "Two"]}
    assert note.title == "The Title"
    assert note.aliases == ["One", "Two"]
    assert note.body_byte_start == raw.index(b"# H")
    assert note.warnings == []


@pytest.mark.parametrize(
    ("md", "problem"),
    [
        ("---\na: [1, 2\n---\n[[L]]\n", "malformed YAML"),
        ("---\na: 1\n\n[[L]]\n", "no closing"),
        ("---\n- a\n- b\n---\n[[L]]\n", "not a mapping"),
        ("---\njust a string\n---\n[[L]]\n", "not a mapping"),
        ("---\nx: !!python/object/apply:os.system ['true']\n---\n[[L]]\n", "malformed YAML"),
        ('---\nkey: "bad \udcff"\n---\n[[L]]\n', "malformed YAML"),
        ("---\n" + "k: " + "v" * 70_000 + "\n---\n[[L]]\n", "larger than 64 KB"),
        ("---\na: " + "{" * 5000 + "}" * 5000 + "\n---\n[[L]]\n", "YAML"),
    ],
    ids=[
        "malformed",
        "no-closing-fence",
        "list",
        "scalar",
        "python-tag",
        "bad-bytes",
        "too-large",
        "deep-nesting",
    ],
)
def test_unusable_frontmatter_is_body_with_warning(md: str, problem: str) -> None:
    note = parse(md.encode("utf-8", "surrogateescape"))
    assert note.frontmatter == {}
    assert note.body_byte_start == 0
    assert len(note.warnings) == 1 and problem in note.warnings[0]
    assert [lk.target for lk in note.links] == ["L"]
    assert note.title == "My Note"


def test_yaml_bomb_returns_quickly_with_warning() -> None:
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for prev, name in zip("abcdefgh", "bcdefghi", strict=True):
        lines.append(f"{name}: &{name} [" + ",".join([f"*{prev}"] * 9) + "]")
    t0 = time.process_time()
    note = parse("---\n" + "\n".join(lines) + "\n---\nbody\n")
    assert time.process_time() - t0 < 2.0
    assert note.frontmatter == {}
    assert "alias" in note.warnings[0]


def test_harmless_aliases_are_fine() -> None:
    note = parse("---\nbase: &b {x: 1}\nother: *b\n---\n")
    assert note.frontmatter == {"base": {"x": 1}, "other": {"x": 1}}


def test_bom_before_frontmatter() -> None:
    raw = "\ufeff---\ntitle: T\n---\n# Heading\n".encode()
    note = parse(raw)
    assert note.text.startswith("\ufeff")
    assert note.frontmatter == {"title": "T"}
    assert note.body_byte_start == raw.index(b"# Heading")
    assert note.headings[0].byte_start == note.body_byte_start


def test_bom_without_frontmatter_keeps_heading_and_tag() -> None:
    note = parse("\ufeff# Title #t\n")
    assert [h.text for h in note.headings] == ["Title #t"]
    assert [t.name for t in note.tags] == ["t"]


def test_crlf_note() -> None:
    raw = b"---\r\ntitle: T\r\n---\r\n# Head one\r\ntext [[L]] #tag\r\n## Two ##\r\n"
    note = parse(raw)
    assert note.frontmatter == {"title": "T"}
    assert note.body_byte_start == raw.index(b"# Head")
    assert [(h.level, h.text, h.line) for h in note.headings] == [(1, "Head one", 4), (2, "Two", 6)]
    for h in note.headings:
        line = raw[h.byte_start : h.byte_end]
        assert line.startswith(b"#") and not line.endswith(b"\r")
    (link,) = note.links
    assert raw[link.byte_start : link.byte_end] == b"[[L]]"


@pytest.mark.parametrize(
    ("raw", "body_start", "fm"),
    [
        (b"", 0, {}),
        (b"---\na: 1\n---", 12, {"a": 1}),
        (b"---\na: 1\n---\n", 13, {"a": 1}),
        (b"---\n---\nbody", 8, {}),
        (b"---\na: 1\n...\nbody", 13, {"a": 1}),
        (b"---  \na: 1\n---\t\nbody", 16, {"a": 1}),
    ],
    ids=[
        "empty-file",
        "frontmatter-only",
        "frontmatter-only-newline",
        "empty-frontmatter",
        "dots-close",
        "trailing-space-fences",
    ],
)
def test_frontmatter_boundaries(raw: bytes, body_start: int, fm: dict[str, int]) -> None:
    note = parse(raw)
    assert note.body_byte_start == body_start
    assert note.frontmatter == fm
    assert note.warnings == []
    assert note.links == [] and note.headings == []


@pytest.mark.parametrize(
    "md",
    ["\n---\na: 1\n---\n", "----\na: 1\n----\n", "text\n---\na: 1\n---\n", " ---\na: 1\n---\n"],
    ids=["blank-line-first", "four-dashes", "not-at-start", "indented"],
)
def test_not_frontmatter(md: str) -> None:
    note = parse(md)
    assert note.frontmatter == {} and note.body_byte_start == 0 and note.warnings == []


def test_frontmatter_values_are_json_safe() -> None:
    note = parse(
        "---\n2: int key\ntrue: bool key\nnull: none key\n2024-01-01: date key\n"
        "date: 2024-01-05\nwhen: 2024-01-05 10:30:00\nnan: .nan\ninf: -.inf\n"
        "nested: {d: 2023-12-31, l: [2020-02-02]}\nset: !!set {b, a}\nbin: !!binary aGk=\n---\n"
    )
    fm = note.frontmatter
    assert fm == {
        "2": "int key",
        "true": "bool key",
        "null": "none key",
        "2024-01-01": "date key",
        "date": "2024-01-05",
        "when": "2024-01-05T10:30:00",
        "nan": "nan",
        "inf": "-inf",
        "nested": {"d": "2023-12-31", "l": ["2020-02-02"]},
        "set": ["a", "b"],
        "bin": "aGk=",
    }
    json.dumps(fm, allow_nan=False)


# --- title, aliases, exclusion -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("fm", "path", "title"),
    [
        ("", "a/b/Note Name.md", "Note Name"),
        ("title: '  Real Title '", "x.md", "Real Title"),
        ("title: ''", "x.md", "x"),
        ("title: 42", "x.md", "x"),
        ("other: 1", "Dotted v1.2.MD", "Dotted v1.2"),
    ],
    ids=["file-name", "frontmatter", "empty-title", "non-string-title", "upper-case-ext"],
)
def test_title(fm: str, path: str, title: str) -> None:
    md = f"---\n{fm}\n---\n" if fm else "body"
    assert parse(md, path=path).title == title


@pytest.mark.parametrize(
    ("fm", "aliases"),
    [
        ("aliases: [A, B]", ["A", "B"]),
        ("aliases:\n  - A\n  - B", ["A", "B"]),
        ("aliases: A, B ,C", ["A", "B", "C"]),
        ("alias: Solo", ["Solo"]),
        ("aliases: [A, '', A, 3]", ["A", "3"]),
        ("aliases:", []),
    ],
    ids=["flow-list", "block-list", "comma-string", "legacy-alias", "cleaned", "empty"],
)
def test_aliases(fm: str, aliases: list[str]) -> None:
    assert parse(f"---\n{fm}\n---\n").aliases == aliases


@pytest.mark.parametrize(
    ("fm", "excluded"),
    [
        ("vaultheat: exclude", True),
        ("vaultheat: EXCLUDE", True),
        ("vaultheat: false", True),
        ("vaultheat: 'false'", True),
        ("vaultheat: 'No'", True),
        ("vaultheat_exclude: true", True),
        ("vaultheat: include", False),
        ("vaultheat: true", False),
        ("vaultheat_exclude: false", False),
        ("other: exclude", False),
    ],
)
def test_excluded(fm: str, excluded: bool) -> None:
    assert parse(f"---\n{fm}\n---\n").excluded is excluded


def test_custom_exclude_property() -> None:
    assert parse("---\nsearch: exclude\n---\n", exclude_property="search").excluded
    assert not parse("---\nvaultheat: exclude\n---\n", exclude_property="search").excluded


def test_path_is_nfc_and_posix() -> None:
    note = parse("x", path="Fo\\Cafe\u0301.md")
    assert note.path == "Fo/Caf\u00e9.md"
    assert note.name == "Caf\u00e9"


# --- headings ----------------------------------------------------------------------------------

HEADING_CASES = [
    ("levels", "# A\n## B\n###### F\n####### G", [(1, "A"), (2, "B"), (6, "F")]),
    ("needs-space", "#NoSpace\n#\tTab", [(1, "Tab")]),
    ("indent-up-to-3", "   # Three\n    # Four", [(1, "Three")]),
    ("closing-hashes", "# Title ##\n## C#\n### ###", [(1, "Title"), (2, "C#")]),
    ("trailing-space", "# Spaced   ", [(1, "Spaced")]),
    ("inline-code-kept", "## Use `x` here", [(2, "Use `x` here")]),
    ("backtick-fence", "```\n# not\n```\n# yes", [(1, "yes")]),
    ("tilde-fence", "~~~\n# not\n~~~", []),
    ("longer-fence", "`````\n```\n# not\n```\n`````", []),
    ("indented-fence", "  ```\n# not\n  ```", []),
    ("percent-comment", "%%\n# not\n%%", []),
    ("html-comment", "<!--\n# not\n-->", []),
    ("yaml-comment-in-frontmatter", "---\n# yaml comment\na: 1\n---\n# Body", [(1, "Body")]),
]


@pytest.mark.parametrize(
    ("md", "expected"), [c[1:] for c in HEADING_CASES], ids=[c[0] for c in HEADING_CASES]
)
def test_headings(md: str, expected: list[tuple[int, str]]) -> None:
    assert [(h.level, h.text) for h in parse(md).headings] == expected


def test_heading_offsets_after_multibyte() -> None:
    raw = "日本\n\n## Über\nx\n# 😀 Emoji".encode()
    hs = parse(raw).headings
    assert [(h.text, h.line) for h in hs] == [("Über", 3), ("😀 Emoji", 5)]
    assert [raw[h.byte_start : h.byte_end].decode() for h in hs] == ["## Über", "# 😀 Emoji"]


# --- block ids ---------------------------------------------------------------------------------


def test_block_ids() -> None:
    raw = (
        b"Para one ^p1\nline\n- item ^item-2\n\n| t |\n\n^tbl\n`code ^no`\n```\nx ^infence\n```\n"
        b"word^glued\nlast ^end  \r\n"
    )
    ids = parse(raw).block_ids
    assert set(ids) == {"p1", "item-2", "tbl", "end"}
    for name, off in ids.items():
        assert off == 0 or raw[off - 1 : off] == b"\n"
        assert f"^{name}".encode() in raw[off : raw.index(b"\n", off)]


# --- invariants --------------------------------------------------------------------------------

_PIECES = st.sampled_from(
    [
        "---",
        "\n",
        "\r\n",
        "# ",
        "## ",
        "#t",
        "`",
        "```",
        "%%",
        "<!--",
        "-->",
        "^id",
        " ",
        "a",
        "é",
        "日",
        "title: x",
        ": ",
        "[[",
        "]]",
        "\ufeff",
        "\udcff",
        "\t",
        "~~~",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_PIECES, max_size=50))
def test_parse_never_raises_and_offsets_hold(pieces: list[str]) -> None:
    raw = "".join(pieces).encode("utf-8", "surrogateescape")
    note = parse_note("n.md", raw)
    assert note.text.encode("utf-8", "surrogateescape") == raw
    assert 0 <= note.body_byte_start <= len(raw)
    for h in note.headings:
        line = raw[h.byte_start : h.byte_end].decode("utf-8", "surrogateescape")
        assert line.lstrip(" \ufeff").startswith("#" * h.level) and "\n" not in line
    for t in note.tags:
        if t.byte_start >= 0:
            assert raw[t.byte_start :].decode("utf-8", "surrogateescape").startswith("#" + t.name)
    json.dumps(note.frontmatter, allow_nan=False)


def test_a_fence_right_after_a_bom_is_still_a_fence() -> None:
    note = parse_note("a.md", b"\xef\xbb\xbf```py\n# inside code\n```\n# After\n")
    assert [h.text for h in note.headings] == ["After"]
