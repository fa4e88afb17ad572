"""A note without a body (an empty file, a book note of properties only) still gets related
notes: its name, aliases, tags and text properties stand in for the body it lacks
(``core/query/query_note.py`` ``stand_in_text``)."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import open_fake_index
from vaultheat.core.query.query_note import stand_in_text
from vaultheat.core.requests import RelatedRequest
from vaultheat.core.vault.parsing import parse_note

BOOK = b"""---
title: Project Hail Mary
author: Andy Weir
status: to-read
tags: [reading, fiction, sci-fi]
added: 2024-05-18
pages: 476
---
"""


def test_the_stand_in_says_what_the_properties_say_and_leaves_dates_out() -> None:
    text = stand_in_text(parse_note("Reading/Books/Project Hail Mary.md", BOOK))
    assert text.startswith("# Project Hail Mary\n")
    for part in ("tags: reading, fiction, sci-fi", "author: Andy Weir", "status: to-read"):
        assert part in text
    assert "2024" not in text and "476" not in text


def test_an_empty_note_stands_in_by_its_name() -> None:
    assert stand_in_text(parse_note("Garden/Seed Swap.md", b"")).strip() == "# Seed Swap"


def test_notes_without_a_body_get_a_sidebar(vault: Path) -> None:
    (vault / "Reading" / "Books" / "Project Hail Mary.md").write_bytes(BOOK)
    (vault / "Garden" / "Seed Swap.md").write_bytes(b"")
    engine = open_fake_index(vault)
    try:
        for path in ("Reading/Books/Project Hail Mary.md", "Garden/Seed Swap.md"):
            assert not engine.index_view().store.note_chunks(
                engine.index_view().store.note_by_path(path).id  # type: ignore[union-attr]
            )
            results = engine.related(RelatedRequest(path=path, top=5)).results
            assert results, path
            assert path not in [r.path for r in results]
    finally:
        engine.close()
