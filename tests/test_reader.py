"""core/reader.py: what the reading view shows of a chunk."""

from __future__ import annotations

from vaultheat.core.reader import has_prose, reader_text


def test_obsidian_and_html_comments_are_hidden_inline_and_across_lines() -> None:
    text = "Back up %%private%% the vault.\n%% ----- Badges ----- %%\n<!-- a\nb -->Done."
    assert reader_text(text) == "Back up  the vault.\n\nDone."


def test_badge_only_lines_go_but_images_inside_prose_stay() -> None:
    text = (
        "[![stars](https://img.shields.io/x.svg)](https://github.com/a/b) ![dl](https://x/y.svg)\n"
        "![[diagram.png]]\n"
        "See ![icon](i.png) for the button.\n"
    )
    assert reader_text(text) == "\n\nSee ![icon](i.png) for the button.\n"


def test_each_rule_switches_alone() -> None:
    text = "a %%c%% <!-- h --> b"
    assert reader_text(text, ("html_comments",)) == "a %%c%%  b"
    assert reader_text(text, ("obsidian_comments",)) == "a  <!-- h --> b"
    assert reader_text(text, ()) is text


def test_an_unclosed_comment_hides_the_rest_as_obsidian_does() -> None:
    assert reader_text("prose %% never closed\nmore") == "prose "


def test_a_chunk_of_only_comments_and_badges_has_no_prose() -> None:
    assert not has_prose(reader_text("%% ----- Badges ----- %%\n![b](https://x/b.svg)\n"))
    assert has_prose(reader_text("%% x %%\nOne real sentence."))
