"""core/vault/pagekind.py: digests, list pages and notes proper, by their shape and file name."""

from __future__ import annotations

import pytest

from vaultheat.core.vault.pagekind import DIGEST, LIST, NOTE, dated_name, note_page_kind, page_kind
from vaultheat.core.vault.parsing import parse_note

DIGEST_BODY = "# Computer Science\n\n### [LUKS](luks.md)\n\n* New: Change passphrase.\n"
ENTRIES = "".join(f"- [[Plugin {i}]] turns lists into boards\n" for i in range(6))


@pytest.mark.parametrize(
    ("path", "dated"),
    [
        ("newsletter/2021_10_09.md", True),
        ("newsletter/2021_w14.md", True),
        ("newsletter/2021_04.md", True),
        ("newsletter/2022.md", True),
        ("daily/2025-07-04-notes.md", True),
        ("20240131.md", True),
        ("1984 a novel.md", False),  # a year and more words: not a date
        ("notes/2021 plans.md", False),
        ("changelog.md", False),
        ("v2021_10.md", False),
    ],
)
def test_dated_names(path: str, dated: bool) -> None:
    assert dated_name(path) is dated


def test_a_dated_note_whose_heading_links_a_note_is_a_digest() -> None:
    assert page_kind("newsletter/2021_10_09.md", DIGEST_BODY) == DIGEST
    assert page_kind("2021_10_09.md", "### [pyTelegramBotAPI](pytelegrambotapi.md)\n") == DIGEST
    # the same text under a name without a date is not a digest
    assert page_kind("computer_science/luks.md", DIGEST_BODY) == NOTE


def test_a_dated_journal_whose_lines_say_things_of_their_own_is_a_note() -> None:
    prose = "Failed to set up [[gpg-setup]] on hyprland, brave still complains.\n"
    assert page_kind("daily/2025-07-04-notes.md", prose) == NOTE
    assert page_kind("daily/2025-07-04-notes.md", "# Notes\n\nNo links today.\n") == NOTE
    journal = (
        "## Log\n\n- 35 slugs on the evening round after the storm. [[Pests]]\n"
        "- First trusses on the San Marzano; one fruit has a dark patch at the bottom, "
        "probably the dry week followed by the storm. [[Tomatoes]]\n"
        "- Submitted the tax return via ELSTER; half of the refund goes to Japan, half to the "
        "savings plan. [[Budget]]\n"
    )  # one short entry among lines of its own
    assert page_kind("Daily/2024-06-02.md", journal) == NOTE


def test_a_dated_page_of_entries_is_a_digest() -> None:
    entries = "- [[Espresso]] dialed in\n- [[V60]] new recipe\n- Walked the dog.\n"
    assert page_kind("daily/2024-06-03.md", entries) == DIGEST
    assert page_kind("daily/2024-06-03.md", "- [[Espresso]] dialed in\n") == NOTE  # one


def test_a_page_of_link_entries_is_a_list() -> None:
    assert page_kind("Plugins.md", "# Plugins\n\n" + ENTRIES) == LIST
    markdown = "".join(f"* [App {i}](apps/app{i}.md)\n" for i in range(5))
    assert page_kind("apps.md", markdown) == LIST


def test_links_to_web_pages_are_not_entries() -> None:
    web = "".join(f"* [App {i}](https://f-droid.org/app{i})\n" for i in range(6))
    assert page_kind("apps.md", web) == NOTE  # points out of the vault, not at a note
    assert page_kind("2021_10_09.md", "### [F-Droid](https://f-droid.org)\n") == NOTE


def test_too_few_entries_or_too_much_prose_is_a_note() -> None:
    assert page_kind("p.md", ENTRIES.split("\n", 2)[-1]) == NOTE  # 4 entries
    essay = "".join(f"Paragraph {i} says a great deal about the topic at hand.\n\n" * 3
                    for i in range(20))  # fmt: skip
    assert page_kind("p.md", essay + ENTRIES * 3) == NOTE  # an article ending in its links
    sentences = "".join(
        f"When you open [[Settings]] you can change {i} of the things that matter to how "
        "the app looks and behaves.\n"
        for i in range(8)
    )  # every line links, but each is a sentence: not an entry
    assert page_kind("p.md", sentences) == NOTE


def test_links_in_code_blocks_and_rules_do_not_count() -> None:
    fenced = "```\n" + ENTRIES + "```\n"
    assert page_kind("p.md", fenced) == NOTE
    assert page_kind("2021_10_09.md", "---\n```\n- [[a]]\n```\n") == NOTE


def test_note_page_kind_reads_the_body_after_the_frontmatter() -> None:
    raw = ("---\ntitle: Week\nlinks: [[a]]\n---\n" + DIGEST_BODY).encode()
    assert note_page_kind(parse_note("newsletter/2021_w14.md", raw)) == DIGEST
    fm_only = ("---\n" + "".join(f"k{i}: '[[n{i}]]'\n" for i in range(8)) + "---\nProse.\n")
    assert note_page_kind(parse_note("p.md", fm_only.encode())) == NOTE
