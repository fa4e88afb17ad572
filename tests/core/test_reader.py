"""The model reads what Obsidian shows (issue #22, item 1)."""

from __future__ import annotations

import pytest

from vaultheat.core.reader import has_prose, reader_text

BADGES = (
    "%% ----- Badges ----- %%\n"
    "[![PyPI](https://img.shields.io/pypi/v/x)](https://pypi.org/x) [![CI](https://b.svg)](https://c)\n"
    "\n"
    "Back up your vault with git."
)


@pytest.mark.parametrize(
    ("text", "seen"),
    [
        (BADGES, "Back up your vault with git."),
        ("Before <!-- hidden\nacross lines --> after.", "Before  after."),
        ("Keep %%inline note%% this.", "Keep  this."),
        # an unclosed comment hides the rest of the note, as in Obsidian
        ("Shown %% never closed\n\nhidden too", "Shown"),
        ("![[diagram.png|300]]\n![alt](pic.jpg)\n<img src='x.png'>\nText.", "Text."),
        # a note embed is shown (its target's text): it stays
        ("![[Other note]]", "![[Other note]]"),
        ("- ![](a.png)\n- real item", "- real item"),
        ("one\n\n\n\n%% x %%\n\n\ntwo", "one\n\ntwo"),
    ],
)
def test_reader_text_removes_what_obsidian_does_not_show(text: str, seen: str) -> None:
    assert reader_text(text) == seen


def test_code_is_code_not_a_comment() -> None:
    text = "Use `%%` to comment.\n\n```\n%% not a comment %%\n<!-- kept -->\n```\nend %% gone"
    assert reader_text(text) == (
        "Use `%%` to comment.\n\n```\n%% not a comment %%\n<!-- kept -->\n```\nend"
    )


def test_prose_is_untouched() -> None:
    text = "# Heading\n\nA paragraph with a [link](https://x.org) and an ![inline](i.png) image."
    assert reader_text(text) == text


def test_a_chunk_of_only_comments_and_badges_has_no_prose() -> None:
    assert not has_prose(reader_text("%% ----- Badges ----- %%\n[![a](b.svg)](c)\n---"))
    assert has_prose(reader_text(BADGES))


def test_a_heading_alone_is_not_prose() -> None:
    assert not has_prose(reader_text("## Template\n\n%% boilerplate %%"))
    assert has_prose("## Template\n\nOne line.")


def test_each_rule_switches_alone() -> None:
    text = "a %%c%% <!-- h --> b"
    assert reader_text(text, ("html_comments",)) == "a %%c%%  b"
    assert reader_text(text, ("obsidian_comments",)) == "a  <!-- h --> b"
    assert reader_text(text, ()) is text


def test_images_inside_prose_stay() -> None:
    text = "[![stars](https://img.shields.io/x.svg)](https://x.org/a)\n\nSee ![icon](i.png) here."
    assert reader_text(text) == "See ![icon](i.png) here."
