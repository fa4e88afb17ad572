"""PDFs and canvases searched and related like notes (issue #27, "Done when").

A vault with a two-page PDF, a canvas (text cards, a file card, a group label), a broken PDF
and a few notes, indexed with the fake embedder through the real indexer: a phrase printed on
page 2 finds the PDF first with page 2; a card's text finds the canvas with its card id; the
related notes of a note the canvas holds as a file card include the canvas; the broken PDF is
listed as skipped with its reason; an unchanged PDF is not read again.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import open_fake_index, related_doc, search_doc, status_doc
from tests.pdf_fixtures import build_pdf, text_page, write
from vaultheat.core.requests import RelatedRequest, SearchRequest

FILLER = "Keep a notebook of sowing dates, weather and what came up where, season by season."
PAGE1 = ["Field manual for the allotment.", "Compost heaps need turning every fortnight.", FILLER,
         FILLER]  # fmt: skip
PAGE2 = ["Chapter two: the zinnia seedlings.", "Harden zinnia seedlings outdoors for ten days.",
         FILLER, FILLER]  # fmt: skip

CANVAS = {
    "nodes": [
        {"id": "g1", "type": "group", "x": 0, "y": 0, "width": 1000, "height": 1000,
         "label": "Kitchen plans"},
        {"id": "c-sourdough", "type": "text", "x": 10, "y": 10, "width": 200, "height": 100,
         "text": "Feed the sourdough starter rye flour twice daily"},
        {"id": "c-other", "type": "text", "x": 10, "y": 300, "width": 200, "height": 100,
         "text": "Buy a cast iron skillet"},
        {"id": "f1", "type": "file", "x": 400, "y": 10, "width": 200, "height": 100,
         "file": "Notes/Bread.md"},
    ],
    "edges": [{"id": "e1", "fromNode": "c-sourdough", "toNode": "f1"}],
}  # fmt: skip


def make_vault(root: Path) -> Path:
    notes = {
        "Notes/Bread.md": "# Bread\n\nA loaf of bread wants a long cold proof and a hot oven.\n",
        "Notes/Garden.md": "# Garden\n\nThe vegetable beds get mulch in autumn.\n",
        "Notes/Coffee.md": "# Coffee\n\nGrind coffee beans just before brewing.\n",
        "Notes/Tea.md": "# Tea\n\nGreen tea steeps at eighty degrees.\n",
    }
    for rel, text in notes.items():
        write(root / rel, text.encode())
    write(root / "Docs/Manual.pdf", build_pdf([text_page(PAGE1), text_page(PAGE2)]))
    write(root / "Docs/Broken.pdf", b"%PDF-1.7\nthis is not a PDF at all\n%%EOF\n")
    write(root / "Boards/Kitchen.canvas", json.dumps(CANVAS).encode())
    return root


@pytest.fixture
def engine(tmp_path: Path) -> Any:
    eng = open_fake_index(make_vault(tmp_path / "vault"))
    yield eng
    eng.close()


def test_a_phrase_on_page_two_finds_the_pdf_first_at_page_two(engine: Any) -> None:
    doc = search_doc(engine, SearchRequest(query="harden zinnia seedlings outdoors"))
    first = doc["results"][0]
    assert first["path"] == "Docs/Manual.pdf"
    assert (first["page"], first["page_end"]) == (2, 2)
    assert "zinnia" in first["text"]
    assert "card_id" not in first
    files = search_doc(engine, SearchRequest(query="harden zinnia seedlings", files_only=True))
    assert files["results"][0]["path"] == "Docs/Manual.pdf"
    assert files["results"][0]["best_chunk"]["page"] == 2


def test_a_canvas_card_finds_the_canvas_with_its_card(engine: Any) -> None:
    doc = search_doc(engine, SearchRequest(query="feed the sourdough starter rye flour"))
    first = doc["results"][0]
    assert first["path"] == "Boards/Kitchen.canvas"
    assert first["card_id"] == "c-sourdough"
    assert "page" not in first
    assert "Kitchen plans" in first["text"]  # the group label is context


def test_markdown_results_carry_no_locator(engine: Any) -> None:
    doc = search_doc(engine, SearchRequest(query="grind coffee beans"))
    first = doc["results"][0]
    assert first["path"] == "Notes/Coffee.md"
    assert not {"page", "page_end", "card_id"} & set(first)


def test_related_notes_of_a_note_on_the_canvas_include_the_canvas(engine: Any) -> None:
    doc = related_doc(engine, RelatedRequest(path="Notes/Bread.md"))
    paths = [r["path"] for r in doc["results"]]
    assert "Boards/Kitchen.canvas" in paths
    hit = doc["results"][paths.index("Boards/Kitchen.canvas")]
    assert hit["link_status"] == "backlinked"  # the canvas holds the note as a file card
    assert hit["best_chunk"]["card_id"] in {"c-sourdough", "c-other"}


def test_the_broken_pdf_is_skipped_with_its_reason(engine: Any) -> None:
    status = status_doc(engine)
    skipped = {s["path"]: s["reason"] for s in status["skipped"]}
    assert skipped["Docs/Broken.pdf"].startswith("broken PDF")
    assert status["state"] == "ready"  # the PDF and canvas count as indexed files
    assert "Docs/Manual.pdf" not in skipped and "Boards/Kitchen.canvas" not in skipped


def test_an_unchanged_pdf_is_not_read_again(engine: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    import vaultheat.core.vault.derived_notes as dn

    calls: list[str] = []
    real = dn.extract_pdf

    def counted(path: Path, rel: str, **kw: Any) -> Any:
        calls.append(rel)
        return real(path, rel, **kw)

    monkeypatch.setattr(dn, "extract_pdf", counted)
    report = engine.index()
    assert calls == []  # neither the indexed PDF nor the broken one (its skip is remembered)
    assert report.notes["unchanged"] == 6 and report.notes["added"] == 0
    skipped = {s["path"] for s in status_doc(engine)["skipped"]}
    assert "Docs/Broken.pdf" in skipped  # still listed
    # a changed PDF is read again, and only that one
    pdf = engine.paths.vault / "Docs/Manual.pdf"
    page2 = text_page(["A new second page about tulips.", FILLER, FILLER])
    write(pdf, build_pdf([text_page(PAGE1), page2]))
    report = engine.index()
    assert calls == ["Docs/Manual.pdf"]
    assert report.notes["modified"] == 1
    doc = search_doc(engine, SearchRequest(query="second page about tulips"))
    assert (doc["results"][0]["path"], doc["results"][0]["page"]) == ("Docs/Manual.pdf", 2)


def test_the_cli_prints_the_page_and_the_card(
    engine: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    from vaultheat.cli import main

    vault = str(engine.paths.vault)
    assert main(["search", "harden zinnia seedlings outdoors", "--vault", vault]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert "Docs/Manual.pdf p. 2  [" in first
    assert main(["search", "sourdough starter rye", "--vault", vault, "--files-only"]) == 0
    assert "Boards/Kitchen.canvas card c-sourdough" in capsys.readouterr().out.splitlines()[0]
    assert main(["inspect", "note", "Docs/Manual.pdf", "--vault", vault]) == 0
    out = capsys.readouterr().out
    assert "p. 1" in out and "p. 2" in out and "lines" not in out.split("\n", 1)[1]


def test_agents_open_a_pdf_result_at_its_page(engine: Any) -> None:
    from vaultheat.agents.notes import OpenRequest, open_note, render_open

    hit = search_doc(engine, SearchRequest(query="harden zinnia seedlings outdoors"))["results"][0]
    doc = open_note(engine.paths, engine.settings, engine.views.store(),
                    OpenRequest(chunk_id=hit["chunk_id"]))  # fmt: skip
    assert (doc["path"], doc["page"], doc["page_end"]) == ("Docs/Manual.pdf", 2, 2)
    assert "zinnia" in doc["text"] and doc["fresh"] is True
    assert render_open(doc).startswith("Docs/Manual.pdf p. 2\n")
    whole = open_note(engine.paths, engine.settings, engine.views.store(),
                      OpenRequest(path="Boards/Kitchen.canvas"))  # fmt: skip
    assert set(whole["card_ids"]) == {"c-sourdough", "c-other"} and not whole["truncated"]


def test_index_kinds_choose_what_is_read(engine: Any) -> None:
    import dataclasses

    from vaultheat.config import Settings
    from vaultheat.errors import ConfigError

    with pytest.raises(ConfigError, match="markdown, pdf, canvas"):
        Settings().with_value("index.kinds", "markdown,docx")
    engine = engine.with_settings(
        dataclasses.replace(
            engine.settings, index=dataclasses.replace(engine.settings.index, kinds=("markdown",))
        )
    )
    report = engine.index()
    assert report.notes["deleted"] == 2  # the PDF and the canvas leave the index
    paths = [
        r["path"] for r in search_doc(engine, SearchRequest(query="zinnia seedlings"))["results"]
    ]
    assert "Docs/Manual.pdf" not in paths
    assert status_doc(engine)["state"] == "ready"


def test_a_fixed_pdf_named_by_a_file_event_is_indexed_and_no_longer_skipped(engine: Any) -> None:
    pdf = engine.paths.vault / "Docs/Broken.pdf"
    write(pdf, build_pdf([text_page(["Mended at last: a page about lighthouse keepers.", FILLER]
                                    + [FILLER] * 3)]))  # fmt: skip
    report = engine.index(only=["Docs/Broken.pdf"])  # as the server's file events run it
    assert report.notes["added"] == 1
    assert "Docs/Broken.pdf" not in {s["path"] for s in status_doc(engine)["skipped"]}
    doc = search_doc(engine, SearchRequest(query="lighthouse keepers mended"))
    assert (doc["results"][0]["path"], doc["results"][0]["page"]) == ("Docs/Broken.pdf", 1)
    pdf.unlink()
    report = engine.index(only=["Docs/Broken.pdf"])
    assert report.notes["deleted"] == 1
    assert status_doc(engine)["state"] == "ready"


@pytest.mark.parametrize(
    ("doc", "want"),
    [
        ({"page": 2, "page_end": 2}, "p. 2"),
        ({"page": 2, "page_end": 4}, "pp. 2-4"),
        ({"page": 3}, "p. 3"),
        ({"card_id": "c1"}, "card c1"),
        ({"line_start": 3, "heading_path": ["A"]}, ""),
    ],
    ids=["one page", "page range", "no page_end", "card", "note"],
)
def test_locator_text(doc: dict[str, Any], want: str) -> None:
    from vaultheat.render import locator_text

    assert locator_text(doc) == want


def test_explain_names_the_seed_page(engine: Any) -> None:
    from vaultheat.documents import explain_document
    from vaultheat.render import render_explain

    req = SearchRequest(query="harden zinnia seedlings outdoors")
    first = engine.search(req).results[0]
    doc = explain_document(engine.explain(req, first.chunk_id))
    assert doc["seed"]["page"] == 2
    assert "seed: Docs/Manual.pdf [p. 2]" in render_explain(doc)


def test_a_link_to_a_pdf_page_points_at_that_page(engine: Any) -> None:
    write(
        engine.paths.vault / "Notes/Reading.md", b"# Reading\n\nSee [[Docs/Manual.pdf#page=2]].\n"
    )
    engine.index()
    store = engine.views.store()
    note = store.note_by_path("Notes/Reading.md")
    pdf = store.note_by_path("Docs/Manual.pdf")
    assert note is not None and pdf is not None
    pages = {c.id: c.page for c in store.note_chunks(pdf.id)}
    targets = {
        dst for c in store.note_chunks(note.id) for dst, kind, _ in store.edges_from(c.id)
        if kind == "link"
    }  # fmt: skip
    assert targets and {pages[t] for t in targets} == {2}


FILE_ONLY_CANVAS = {
    "nodes": [
        {"id": "g-meals", "type": "group", "x": 0, "y": 0, "width": 900, "height": 400,
         "label": "Weekend baking"},
        {"id": "f-bread", "type": "file", "x": 10, "y": 10, "width": 200, "height": 100,
         "file": "Notes/Bread.md"},
        {"id": "f-tea", "type": "file", "x": 300, "y": 10, "width": 200, "height": 100,
         "file": "Notes/Tea.md"},
    ],
    "edges": [{"id": "e1", "fromNode": "f-bread", "toNode": "f-tea"}],
}  # fmt: skip


def test_a_canvas_of_file_cards_only_takes_part_in_related_notes(tmp_path: Path) -> None:
    """#27: a board that only holds notes (no text card) still votes for and is voted for by
    the notes it holds: it gets one chunk naming what it holds (locator: its first file card)."""
    root = make_vault(tmp_path / "vault")
    write(root / "Boards/Baking.canvas", json.dumps(FILE_ONLY_CANVAS).encode())
    eng = open_fake_index(root)
    try:
        assert "Boards/Baking.canvas" not in {s["path"] for s in status_doc(eng)["skipped"]}
        doc = related_doc(eng, RelatedRequest(path="Notes/Bread.md"))
        paths = [r["path"] for r in doc["results"]]
        assert "Boards/Baking.canvas" in paths  # voted for by the note it holds
        hit = doc["results"][paths.index("Boards/Baking.canvas")]
        assert hit["link_status"] == "backlinked"
        assert hit["best_chunk"]["card_id"] == "f-bread"
        own = related_doc(eng, RelatedRequest(path="Boards/Baking.canvas"))
        held = {r["path"]: r["link_status"] for r in own["results"]}
        assert held.get("Notes/Bread.md") == "linked" and held.get("Notes/Tea.md") == "linked"
    finally:
        eng.close()


def test_status_counts_each_kind_indexed_and_skipped(
    engine: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    from vaultheat.cli import main

    kinds = status_doc(engine)["kinds"]
    assert kinds == {
        "markdown": {"indexed": 4, "skipped": 0},
        "pdf": {"indexed": 1, "skipped": 1},  # Docs/Broken.pdf
        "canvas": {"indexed": 1, "skipped": 0},
    }
    assert main(["status", "--vault", str(engine.paths.vault)]) == 0
    out = capsys.readouterr().out
    assert "by kind: 4 notes, 1 PDF, 1 canvas indexed; skipped: 1 PDF\n" in out
