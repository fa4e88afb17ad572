"""Page kinds in the index: the indexer stores each note's kind (core/vault/pagekind.py), the view
reads the digests and list pages, an index from before page kinds is classified by the next
index run without re-embedding, and an edit that makes a note a list page is seen."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from tests.conftest import open_fake_index
from vaultheat.index_inspect import inspect_doc, render_inspect
from vaultheat.status_lines import pages_line
from vaultheat.storage.store import Store

DIGEST = "# Computer Science\n\n### [Coffee](Coffee.md)\n\n* New: grind finer.\n"
LIST = "# Index\n\n" + "".join(f"- [[Note {i}]] about brewing\n" for i in range(6))


def _vault(tmp_path: Path) -> Path:
    vault = tmp_path / "vault"
    (vault / "newsletter").mkdir(parents=True)
    (vault / "newsletter" / "2021_04_10.md").write_text(DIGEST)
    (vault / "Coffee.md").write_text("# Coffee\n\nGrind finer for espresso, coarser for filter.\n")
    (vault / "Index.md").write_text(LIST)
    for i in range(6):
        (vault / f"Note {i}.md").write_text(f"# Note {i}\n\nBrewing method number {i}.\n")
    return vault


def _kinds(vault: Path) -> dict[str, str]:
    con = sqlite3.connect(vault / ".vaultheat" / "index.sqlite")
    try:
        return dict(con.execute("SELECT path, page_kind FROM notes").fetchall())
    finally:
        con.close()


def test_the_index_stores_kinds_and_the_view_reads_the_pointing_ones(tmp_path: Path) -> None:
    vault = _vault(tmp_path)
    engine = open_fake_index(vault)
    try:
        kinds = _kinds(vault)
        assert kinds["newsletter/2021_04_10.md"] == "digest"
        assert kinds["Index.md"] == "list"
        assert kinds["Coffee.md"] == "note" and kinds["Note 0.md"] == "note"
        assert engine.index_view().page_kinds == {
            "newsletter/2021_04_10.md": "digest", "Index.md": "list"
        }
        assert engine.status().pages == {"digest": 1, "list": 1, "note": 7}
        doc = inspect_doc(engine, "note", "newsletter/2021_04_10.md")
        assert doc["page_kind"] == "digest"
        assert "kind: digest" in render_inspect(doc).splitlines()[0]
        assert pages_line(engine.status().pages) == "pages: 7 notes, 1 digest, 1 list page"
        store = Store(vault / ".vaultheat" / "index.sqlite", readonly=True)
        try:
            assert store.page_kind_counts() == {"digest": 1, "list": 1, "note": 7}
        finally:
            store.close()
    finally:
        engine.close()


def test_an_index_from_before_page_kinds_is_classified_by_the_next_run(tmp_path: Path) -> None:
    vault = _vault(tmp_path)
    engine = open_fake_index(vault)
    db = vault / ".vaultheat" / "index.sqlite"
    try:
        gen = engine.index_view().generation
        con = sqlite3.connect(db)
        con.execute("UPDATE notes SET page_kind = ''")  # as m003 leaves an older index
        con.commit()
        con.close()
        assert engine.status().pages == {"unclassified": 9}
        assert inspect_doc(engine, "note", "Index.md")["page_kind"] == "unclassified"
        report = engine.index()
        assert report.notes["unchanged"] == 9 and not report.written  # nothing re-chunked
        assert _kinds(vault)["newsletter/2021_04_10.md"] == "digest"
        assert "" not in _kinds(vault).values()
        assert "unclassified" not in engine.status().pages
        view = engine.index_view()
        assert view.generation > gen  # a view built before reads the kinds now
        assert view.page_kinds["Index.md"] == "list"
    finally:
        engine.close()


def test_an_edit_changes_the_kind(tmp_path: Path) -> None:
    vault = _vault(tmp_path)
    engine = open_fake_index(vault)
    try:
        (vault / "Coffee.md").write_text(LIST.replace("Index", "Coffee"))
        engine.index()
        assert engine.index_view().page_kinds.get("Coffee.md") == "list"
        (vault / "Index.md").write_text("# Index\n\nNow a page of prose about brewing.\n")
        engine.index()
        assert "Index.md" not in engine.index_view().page_kinds
    finally:
        engine.close()
