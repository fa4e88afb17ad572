"""A PDF result opens at the page that holds the match (issue #37 item 7).

A short PDF's pages are joined into one chunk spanning "pp. 1-2"; each result says where to
open it (``open_page``): the page whose text holds the most of the query's words, the first
page for related notes and for a chunk of one page. An index from before page starts (schema
3) keeps answering (opening at the first page) and the next index run gives its PDFs their page
starts without embedding anything again.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import open_fake_index, related_doc, search_doc
from tests.pdf_fixtures import build_pdf, text_page, write
from tests.storage.old_schema import before_contentless_fts, before_languages, old_cache_layout
from vaultheat.core.requests import RelatedRequest, SearchRequest

SHORT1 = ["Pruning roses in late winter keeps them tidy."]
SHORT2 = ["Dahlia tubers are lifted after the first frost."]
FILLER = "Keep a notebook of sowing dates, weather and what came up where, season by season."
LONG = ["Chapter three: the quince hedge.", "Quince hedges want a sheltered corner.", FILLER,
        FILLER]  # fmt: skip


def make_vault(root: Path) -> Path:
    notes = {
        "Notes/Bread.md": "# Bread\n\nA loaf of bread wants a long cold proof and a hot oven.\n",
        "Notes/Garden.md": "# Garden\n\nThe vegetable beds get mulch in autumn. [[Short.pdf]]\n",
        "Notes/Tea.md": "# Tea\n\nGreen tea steeps at eighty degrees.\n",
    }
    for rel, text in notes.items():
        write(root / rel, text.encode())
    write(root / "Docs/Short.pdf", build_pdf([text_page(SHORT1), text_page(SHORT2)]))
    write(root / "Docs/Long.pdf", build_pdf([text_page(LONG)]))
    return root


@pytest.fixture
def engine(tmp_path: Path) -> Any:
    eng = open_fake_index(make_vault(tmp_path / "vault"))
    yield eng
    eng.close()


def first_pdf(doc: dict[str, Any], path: str = "Docs/Short.pdf") -> dict[str, Any]:
    hit = doc["results"][0]
    assert hit["path"] == path
    return dict(hit.get("best_chunk") or hit)


def test_a_phrase_on_page_two_opens_page_two(engine: Any) -> None:
    hit = first_pdf(search_doc(engine, SearchRequest(query="dahlia tubers lifted")))
    assert (hit["page"], hit["page_end"], hit["open_page"]) == (1, 2, 2)  # the span is kept
    files = search_doc(engine, SearchRequest(query="dahlia tubers lifted", files_only=True))
    assert first_pdf(files)["open_page"] == 2


def test_a_phrase_on_page_one_opens_page_one(engine: Any) -> None:
    hit = first_pdf(search_doc(engine, SearchRequest(query="pruning roses late winter")))
    assert (hit["page"], hit["page_end"], hit["open_page"]) == (1, 2, 1)


def test_a_chunk_of_one_page_opens_its_page(engine: Any) -> None:
    hit = first_pdf(search_doc(engine, SearchRequest(query="quince hedges")), "Docs/Long.pdf")
    assert (hit["page"], hit["page_end"], hit["open_page"]) == (1, 1, 1)


def test_markdown_results_have_no_page_to_open(engine: Any) -> None:
    hit = search_doc(engine, SearchRequest(query="green tea steeps"))["results"][0]
    assert hit["path"] == "Notes/Tea.md" and "open_page" not in hit


def test_related_notes_open_a_pdf_at_its_first_page(engine: Any) -> None:
    doc = related_doc(engine, RelatedRequest(path="Notes/Garden.md", top=10))
    pdf = [r for r in doc["results"] if r["path"] == "Docs/Short.pdf"]
    assert pdf and pdf[0]["best_chunk"]["open_page"] == pdf[0]["best_chunk"]["page"] == 1


def test_the_cli_says_which_page_holds_the_match(
    engine: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    from vaultheat.cli import main

    assert main(["search", "dahlia tubers lifted", "--vault", str(engine.paths.vault)]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert "Docs/Short.pdf pp. 1-2 (match on p. 2)  [" in first


def test_an_index_from_before_page_starts_answers_and_gains_them_on_the_next_run(
    engine: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import vaultheat.core.vault.derived_notes as dn
    from vaultheat.engine import Engine
    from vaultheat.providers.fake import FakeEmbedder
    from vaultheat.storage import db as dbmod
    from vaultheat.storage.store import Store

    vault = engine.paths.vault
    db_path = engine.paths.db
    engine.close()
    con = sqlite3.connect(db_path)  # as an index written before m004
    con.execute("ALTER TABLE chunks DROP COLUMN page_starts")
    old_cache_layout(con)  # and before m005
    before_languages(con)  # and m006
    before_contentless_fts(con)  # and m008
    con.execute("PRAGMA user_version = 3")
    con.close()
    reader = Store(db_path, readonly=True)  # a reader cannot migrate: it reads what is there
    pdf = reader.note_by_path("Docs/Short.pdf")
    assert pdf is not None
    (row,) = reader.note_chunks(pdf.id)
    assert (row.page, row.page_end, row.page_starts) == (1, 2, ())
    reader.close()
    old = Engine.open(vault, embedder=FakeEmbedder())
    try:  # the search answers, opening at the first page of the span
        assert (
            first_pdf(search_doc(old, SearchRequest(query="dahlia tubers lifted")))["open_page"]
            == 1
        )
        read: list[str] = []
        real = dn.extract_pdf

        def counted(path: Path, rel: str, **kw: Any) -> Any:
            read.append(rel)
            return real(path, rel, **kw)

        monkeypatch.setattr(dn, "extract_pdf", counted)
        report = old.index()  # upgrades in place; reads the joined-pages PDF again, only it
        # (then every document once more: the chunks of an index from before m006 get their
        # language from their embedding inputs, derived again from the files)
        assert read[0] == "Docs/Short.pdf" and sorted(read[1:]) == sorted(set(read))
        assert report.notes["added"] == 0 and report.notes["deleted"] == 0
        assert report.chunks.get("embedded", 0) == 0  # same embedding input: nothing to embed
        store = old.views.store()
        (again,) = store.note_chunks(pdf.id)
        assert again.id == row.id and again.page_starts == ((0, 1), (len(SHORT1[0]) + 2, 2))
        hit = first_pdf(search_doc(old, SearchRequest(query="dahlia tubers lifted")))
        assert hit["open_page"] == 2
        read.clear()
        old.index()  # and only once
        assert read == []
    finally:
        old.close()
    con = sqlite3.connect(db_path)
    assert con.execute("PRAGMA user_version").fetchone()[0] == dbmod.SCHEMA_VERSION
    con.close()
