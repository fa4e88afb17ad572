"""Link extraction: every link form Obsidian knows, the places where a link is not a link, exact
byte offsets, and linear time on hostile input."""

from __future__ import annotations

import random
import re
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vaultheat.core.models import Link
from vaultheat.core.vault import links as links_mod
from vaultheat.core.vault.links import find_masked_regions, parse_markdown_dest, split_linktext
from vaultheat.core.vault.parsing import parse_note


def links_of(md: str | bytes) -> list[Link]:
    raw = md.encode("utf-8") if isinstance(md, str) else md
    return parse_note("note.md", raw).links


def shape(md: str) -> list[tuple[str, str, str | None, str | None]]:
    return [(lk.kind, lk.target, lk.subpath, lk.alias) for lk in links_of(md)]


def assert_offsets(raw: bytes, links: list[Link]) -> None:
    for lk in links:
        assert raw[lk.byte_start : lk.byte_end].decode("utf-8", "surrogateescape") == lk.raw
        assert lk.line == raw[: lk.byte_start].count(b"\n") + 1


LINK_FORMS = [
    ("plain", "[[Target]]", [("wikilink", "Target", None, None)]),
    ("alias", "[[Target|shown text]]", [("wikilink", "Target", None, "shown text")]),
    ("heading", "[[Target#Some Heading]]", [("wikilink", "Target", "Some Heading", None)]),
    ("heading-alias", "[[Target#H|a]]", [("wikilink", "Target", "H", "a")]),
    ("block", "[[Target#^abc-1]]", [("wikilink", "Target", "^abc-1", None)]),
    ("same-note-heading", "[[#Heading]]", [("wikilink", "", "Heading", None)]),
    ("same-note-block", "[[#^blk|x]]", [("wikilink", "", "^blk", "x")]),
    ("chained-subpath", "[[A#B#C]]", [("wikilink", "A", "B#C", None)]),
    ("folder", "[[Folder/Target]]", [("wikilink", "Folder/Target", None, None)]),
    ("md-extension", "[[Target.md]]", [("wikilink", "Target.md", None, None)]),
    (
        "dotted-name",
        "[[windows.h]] [[v1.4.5]]",
        [("wikilink", "windows.h", None, None), ("wikilink", "v1.4.5", None, None)],
    ),
    (
        "target-whitespace-stripped",
        "[[  Spaced Name  | al ]]",
        [("wikilink", "Spaced Name", None, "al")],
    ),
    ("alias-with-pipe", "[[A|b|c]]", [("wikilink", "A", None, "b|c")]),
    ("empty-alias", "[[A|]]", [("wikilink", "A", None, None)]),
    ("table-escaped-pipe", "| [[A\\|b]] | c |", [("wikilink", "A", None, "b")]),
    (
        "table-escaped-pipe-heading",
        "| [[Basic syntax#Task lists\\|task]] |",
        [("wikilink", "Basic syntax", "Task lists", "task")],
    ),
    ("single-bracket-inside", "[[Sq]uare]]", [("wikilink", "Sq]uare", None, None)]),
    ("nested-open", "[[a [[b]] c]]", [("wikilink", "b", None, None)]),
    (
        "two-on-a-line",
        "[[A]] and [[B]]",
        [("wikilink", "A", None, None), ("wikilink", "B", None, None)],
    ),
    ("in-heading", "# See [[X]]", [("wikilink", "X", None, None)]),
    ("backticks-inside-link", "Use [[#`move`|move]] to", [("wikilink", "", "`move`", "move")]),
    ("embed", "![[image.png]]", [("embed", "image.png", None, None)]),
    ("embed-size", "![[Engelbart.jpg|100x145]]", [("embed", "Engelbart.jpg", None, "100x145")]),
    ("embed-icon-subpath", "![[lucide-cog.svg#icon]]", [("embed", "lucide-cog.svg", "icon", None)]),
    ("embed-note-block", "![[Sync/Security#^geo]]", [("embed", "Sync/Security", "^geo", None)]),
    ("md-link", "[text](path.md)", [("markdown", "path.md", None, "text")]),
    (
        "md-percent",
        "[t](path%20with%20spaces.md)",
        [("markdown", "path with spaces.md", None, "t")],
    ),
    ("md-angle", "[t](<path with spaces.md>)", [("markdown", "path with spaces.md", None, "t")]),
    ("md-heading", "[t](path.md#heading)", [("markdown", "path.md", "heading", "t")]),
    (
        "md-heading-encoded",
        "[t](My%20Note.md#Some%20Heading)",
        [("markdown", "My Note.md", "Some Heading", "t")],
    ),
    (
        "md-no-extension",
        "[t](Three%20laws%20of%20motion)",
        [("markdown", "Three laws of motion", None, "t")],
    ),
    (
        "md-folder",
        "[t](Projects/Three%20laws.md)",
        [("markdown", "Projects/Three laws.md", None, "t")],
    ),
    ("md-title", '[t](a.md "The title")', [("markdown", "a.md", None, "t")]),
    ("md-parens", "[t](a_(b).md)", [("markdown", "a_(b).md", None, "t")]),
    ("md-same-note", "[t](#Heading)", [("markdown", "", "Heading", "t")]),
    ("md-image", "![alt](pics/cat.png)", [("embed", "pics/cat.png", None, "alt")]),
    ("md-text-with-code", "[`x` y](a.md)", [("markdown", "a.md", None, "`x` y")]),
    (
        "md-text-with-wikilink",
        "[see [[A]]](b.md)",
        [("markdown", "b.md", None, "see [[A]]"), ("wikilink", "A", None, None)],
    ),
    ("quote-ends-fence", "> ```\n> [[no]]\nplain [[yes]]", [("wikilink", "yes", None, None)]),
    ("after-callout-fence", "> ```\n> [[no]]\n> ```\n> [[yes]]", [("wikilink", "yes", None, None)]),
    ("link-after-closed-fence", "```\n[[no]]\n```\n[[yes]]", [("wikilink", "yes", None, None)]),
    ("unmatched-backtick-is-literal", "a ` b [[X]]", [("wikilink", "X", None, None)]),
    ("code-span-stops-at-blank-line", "`a\n\n[[X]] b`", [("wikilink", "X", None, None)]),
    ("fence-info-with-backtick-is-no-fence", "``` a`b\n[[X]]", [("wikilink", "X", None, None)]),
]


@pytest.mark.parametrize(
    ("md", "expected"), [c[1:] for c in LINK_FORMS], ids=[c[0] for c in LINK_FORMS]
)
def test_link_forms(md: str, expected: list[tuple[str, str, str | None, str | None]]) -> None:
    assert shape(md) == expected
    assert_offsets(md.encode(), links_of(md))


NOT_LINKS = [
    ("fenced-backticks", "```\n[[x]]\n```"),
    ("fenced-tildes", "~~~md\n[[x]] [a](b.md)\n~~~"),
    ("fence-with-info", "```python\n# [[x]]\n```"),
    ("longer-fence-holds-shorter", "````\n```\n[[x]]\n```\n````"),
    ("indented-fence", "   ```\n[[x]]\n   ```"),
    ("fence-in-callout", "> [!note]\n> ```md\n> [[x]]\n> ```"),
    ("fence-in-nested-quote", "> > ~~~\n> > [[x]]\n> > ~~~"),
    ("tilde-fence-not-closed-by-backticks", "~~~\n[[x]]\n```\n[[y]]"),
    ("unclosed-fence-runs-to-end", "text\n```\n[[x]]\n\n[[y]]"),
    ("inline-code", "see `[[x]]` here"),
    ("double-backtick-code", "see `` a ` [[x]] `` here"),
    ("code-span-across-line", "`a\n[[x]]`"),
    ("percent-comment", "a %% [[x]] %% b"),
    ("percent-comment-multiline", "%%\n[[x]]\n\n[a](b.md)\n%%"),
    ("percent-comment-unclosed", "a %% hidden\n[[x]]"),
    ("html-comment", "a <!-- [[x]] --> b"),
    ("html-comment-multiline", "<!--\n[[x]]\n-->"),
    ("escaped-wikilink", "\\[[x]]"),
    ("empty-wikilink", "[[]] [[ ]] [[|a]]"),
    ("newline-inside", "[[a\nb]]"),
    ("external-http", "[site](http://example.com/a.md)"),
    ("external-https", "[site](https://example.com)"),
    ("external-mailto", "[mail](mailto:someone@example.com)"),
    ("external-obsidian", "[o](obsidian://open?vault=V&file=Note.md)"),
    ("protocol-relative", "[cdn](//cdn.example.com/x.js)"),
    ("empty-destination", "[t]()"),
    ("space-in-bare-destination", "[t](a b.md)"),
    ("url-fragment", "http://x.com/a#frag"),
]


@pytest.mark.parametrize("md", [c[1] for c in NOT_LINKS], ids=[c[0] for c in NOT_LINKS])
def test_not_links(md: str) -> None:
    assert links_of(md) == []


def test_comment_inside_code_does_not_open_comment() -> None:
    md = "`%%` [[A]] `<!--` [[B]]"
    assert [lk.target for lk in links_of(md)] == ["A", "B"]


def test_code_inside_comment_does_not_matter() -> None:
    md = "%% ``` %%\n[[A]]\n"
    assert [lk.target for lk in links_of(md)] == ["A"]


@pytest.mark.parametrize(
    "raw",
    [
        "é ü 日本 😀 [[Ä|ö]] then [md](ü.md) and ![[😀.png]]".encode(),
        b"\xff\xfe bad bytes [[X]] \xc3 [y](z.md)",
        "line1\r\nline2 [[A]]\r\n\r\n日本 [[B#h]]\r\n".encode(),
        "\ufeff[[AtStart]]".encode(),
        "---\nup: '[[P]]'\n---\nü [[Q]]".encode(),
    ],
    ids=["multibyte", "invalid-utf8", "crlf", "bom", "frontmatter-then-body"],
)
def test_byte_offsets_exact(raw: bytes) -> None:
    links = links_of(raw)
    assert links
    assert_offsets(raw, links)


def test_lines_are_one_based() -> None:
    links = links_of("a\nb\n[[X]]\n\n![[Y]]")
    assert [(lk.target, lk.line) for lk in links] == [("X", 3), ("Y", 5)]


def test_property_links_point_at_their_value() -> None:
    raw = (
        b"---\nup: '[[Parent]]'\nrelated:\n  - '[[A|a]]'\n  - plain\n  - '[[A|a]]'\n"
        b"nested:\n  k: 'see [[B#h]]'\n---\nbody [[C]]\n"
    )
    links = links_of(raw)
    assert [(lk.kind, lk.target, lk.subpath, lk.alias) for lk in links] == [
        ("property", "Parent", None, None),
        ("property", "A", None, "a"),
        ("property", "A", None, "a"),
        ("property", "B", "h", None),
        ("wikilink", "C", None, None),
    ]
    assert_offsets(raw, links)
    assert links[1].byte_start != links[2].byte_start  # repeated links get their own spans
    assert [lk.line for lk in links] == [2, 4, 6, 8, 10]


def test_property_link_not_written_verbatim_spans_the_block() -> None:
    raw = b'---\nup: "[[Caf\\u00e9]]"\n---\ntext'
    (link,) = links_of(raw)
    assert (link.kind, link.target) == ("property", "Café")
    assert (link.byte_start, link.byte_end, link.line) == (0, raw.index(b"\n---") + 4, 1)


def test_links_in_malformed_frontmatter_are_body_links() -> None:
    raw = b"---\nup: '[[Parent]]'\nno closing fence\n"
    assert [(lk.kind, lk.target) for lk in links_of(raw)] == [("wikilink", "Parent")]


@pytest.mark.parametrize(
    ("inner", "expected"),
    [
        ("A", ("A", None, None)),
        ("A#h|x", ("A", "h", "x")),
        ("A\\|x", ("A", None, "x")),
        (" A # h ", ("A", "h", None)),
        ("#h", ("", "h", None)),
    ],
)
def test_split_linktext(inner: str, expected: tuple[str, str | None, str | None]) -> None:
    assert split_linktext(inner) == expected


@pytest.mark.parametrize(
    ("dest", "expected"),
    [
        ("a.md", ("a.md", None)),
        ("a%20b.md#c%20d", ("a b.md", "c d")),
        ("https://x.org", None),
        ("file:///etc/passwd", None),
        ("C:/x.md", None),
        ("", None),
    ],
)
def test_parse_markdown_dest(dest: str, expected: tuple[str, str | None] | None) -> None:
    assert parse_markdown_dest(dest) == expected


def test_masked_regions_are_left_to_right() -> None:
    text = "a `x %% y` %% [[z]] %% ```"
    regions = find_masked_regions(text)
    assert [text[s:e] for s, e in regions] == ["`x %% y`", "%% [[z]] %%"]


# --- robustness and speed ----------------------------------------------------------------------

HOSTILE = [
    ("open-brackets", "[[" * 500_000),
    ("open-brackets-text", "[[a" * 333_333),
    ("single-brackets", "[a" * 500_000),
    ("md-link-starts", "[a](" * 250_000),
    ("backtick-runs", "".join("`" * k + " " for k in range(1, 1400))),
    ("many-code-spans", "` a" * 333_333),
    ("hashes", "#" * 1_000_000),
    ("hash-words", ("word " * 6 + "#tag ") * 28_000),
    ("carets", " ^a" * 333_333),
    ("percents", "% " * 500_000),
    ("closers", "]]" * 500_000),
    ("pipes-in-link", "[[" + "|" * 999_990 + "]]"),
    ("multibyte-line", ("日本語のテキスト、ここにリンク。" * 6 + "[[x]] ") * 10_000),
]


@pytest.mark.parametrize("line", [c[1] for c in HOSTILE], ids=[c[0] for c in HOSTILE])
def test_million_char_line_is_linear(line: str) -> None:
    raw = ("# Title\n" + line + "\n").encode()
    t0 = time.process_time()
    note = parse_note("big.md", raw)
    assert time.process_time() - t0 < 3.0  # CPU time: load on the box does not count
    assert note.headings[0].text == "Title"


def test_ten_thousand_links() -> None:
    raw = "\n".join(f"- [[Note {i}#H|a{i}]] and [m](n{i}.md)" for i in range(10_000)).encode()
    t0 = time.process_time()
    links = links_of(raw)
    assert time.process_time() - t0 < 2.0
    assert len(links) == 20_000
    assert links[-2].target == "Note 9999" and links[-1].target == "n9999.md"
    assert_offsets(raw, links[-4:])


_PIECES = st.sampled_from(
    [
        "[[",
        "]]",
        "[",
        "]",
        "(",
        ")",
        "|",
        "#",
        "^",
        "`",
        "```",
        "~~~",
        "%%",
        "<!--",
        "-->",
        "!",
        "\\",
        "\n",
        "\r\n",
        " ",
        "a",
        "é",
        "日",
        "😀",
        "---",
        ".md",
        "http://",
        "\udcff",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_PIECES, max_size=60))
def test_offsets_hold_for_any_text(pieces: list[str]) -> None:
    raw = "".join(pieces).encode("utf-8", "surrogateescape")
    note = parse_note("n.md", raw)
    assert_offsets(raw, note.links)
    for lk in note.links:
        assert lk.kind in ("wikilink", "embed", "markdown", "property")
        assert lk.subpath is None or not lk.subpath.startswith("#")


def test_repeated_hashes_before_a_subpath_are_one() -> None:
    # found by test_offsets_hold_for_any_text: "[[##]]" gave the subpath "#"
    links = parse_note("n.md", b"[[##]] [[Note##Heading]] [x](Other.md##Part)").links
    assert [(lk.target, lk.subpath) for lk in links] == [
        ("", ""), ("Note", "Heading"), ("Other.md", "Part"),
    ]


def test_first_char_filter_changes_no_match() -> None:
    """The link patterns' (?=[!\\[]) filter is only for speed: same matches without it."""
    rng = random.Random(41)
    alphabet = [*"[]!\\()<>#| \na", "é", "[[", "]]", "](", "[a](b)", "](<c>)"]
    for pattern in (links_mod._WIKILINK, links_mod._MDLINK):
        plain = re.compile(pattern.pattern.removeprefix("(?=[!\\[])"))
        assert plain.pattern != pattern.pattern
        for _ in range(3000):
            text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(40)))
            got = [(m.span(), m.groups()) for m in pattern.finditer(text)]
            assert got == [(m.span(), m.groups()) for m in plain.finditer(text)], text
