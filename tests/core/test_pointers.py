"""core/query/pointers.py: which entry of a chunk holds the query's evidence, and the notes it
links."""

from __future__ import annotations

import pytest

from vaultheat.core.query.pointers import Pointer, entries, find_pointer, note_resolver
from vaultheat.core.vault.lexical import query_terms
from vaultheat.core.vault.resolve import LinkResolver

OWN = "Weekly/2021-03.md"
NOTES = [OWN, "Kanban.md", "Tasks.md", "Calendar.md", "Dataview.md", "Excalidraw.md"]
RESOLVER = LinkResolver(NOTES, ["board.png"])


def point(text: str, query: str, own: str = OWN) -> Pointer | None:
    return find_pointer(text, query_terms(query), note_resolver(RESOLVER, set(NOTES), own), own)


DIGEST = (
    "## Plugins\n"
    "- [[Tasks]] tracks due dates across the vault\n"
    "- [[Kanban]] turns a Markdown list into a board\n"
    "- [[Calendar]] shows daily notes by month"
)


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("- a\n- b", [(1, 1), (2, 2)]),
        ("- a\n  more of a\n\n  and more\n- b", [(1, 4), (5, 5)]),
        ("- a\n  - nested\n    under nested\n- b", [(1, 1), (2, 3), (4, 4)]),
        ("# Head\npara one\npara two", [(1, 1), (2, 2), (3, 3)]),
        ("1. first\n   goes on\n2) second", [(1, 2), (3, 3)]),
        ("- a\nnot indented", [(1, 1), (2, 2)]),
    ],
    ids=["bullets", "continuation", "nested", "plain lines", "numbered", "lazy line"],
)
def test_entries(text: str, want: list[tuple[int, int]]) -> None:
    assert entries(text) == want


def test_the_entry_that_holds_the_query_points_at_its_note() -> None:
    assert point(DIGEST, "markdown list board") == Pointer(("Kanban.md",), 3, 3)


def test_the_link_text_is_evidence_too() -> None:
    assert point(DIGEST, "kanban board") == Pointer(("Kanban.md",), 3, 3)


def test_indented_continuation_lines_belong_to_the_bullet() -> None:
    text = "- [[Kanban]] is a plugin\n  it turns a Markdown list\n  into a board\n- [[Tasks]] due"
    assert point(text, "markdown list board") == Pointer(("Kanban.md",), 1, 3)


def test_an_entry_with_more_than_three_notes_is_no_pointer() -> None:
    text = "- [[Kanban]], [[Tasks]], [[Calendar]] and [[Dataview]] make a board\n- other"
    assert point(text, "make a board") is None
    three = "- [[Kanban]], [[Tasks]] and [[Calendar]] make a board\n- other"
    assert point(three, "make a board") == Pointer(("Kanban.md", "Tasks.md", "Calendar.md"), 1, 1)


def test_evidence_spread_over_the_chunk_points_nowhere() -> None:
    # "tracks", "board" and "month" each sit in a different entry: 1 of 3 per entry
    assert point(DIGEST, "tracks board month") is None


def test_two_of_three_terms_in_one_entry_is_enough() -> None:
    assert point(DIGEST, "markdown board month") == Pointer(("Kanban.md",), 3, 3)


def test_no_match_no_pointer() -> None:
    assert point(DIGEST, "excalidraw drawing") is None


def test_a_link_to_the_own_note_does_not_count() -> None:
    text = "- [[2021-03]] a Markdown board, see [[#Plugins]]\n- other"
    assert point(text, "markdown board") is None
    both = "- [[2021-03]] and [[Kanban]]: a Markdown board\n- other"
    assert point(both, "markdown board") == Pointer(("Kanban.md",), 1, 1)


def test_unresolved_links_and_attachments_do_not_count() -> None:
    assert point("- [[Trello]] a Markdown board\n- other", "markdown board") is None
    assert point("- ![[board.png]] a Markdown board\n- other", "markdown board") is None
    text = "- [[Trello]], ![[board.png]], [[Kanban]]: a Markdown board\n- other"
    assert point(text, "markdown board") == Pointer(("Kanban.md",), 1, 1)


def test_markdown_links_count_and_links_in_code_do_not() -> None:
    assert point("- [kb](Kanban.md) a Markdown board\n- x", "markdown board") == Pointer(
        ("Kanban.md",), 1, 1
    )
    assert point("- `[[Kanban]]` a Markdown board\n- x", "markdown board") is None


def test_terms_match_as_the_index_folds_them() -> None:
    assert point("- [[Kanban]] a Café BOARD\n- x", "cafe board") == Pointer(("Kanban.md",), 1, 1)
