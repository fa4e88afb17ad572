"""``Store.insert_chunks`` gives the ids AUTOINCREMENT would: in order, past every id the
table ever held (a deleted chunk's id is never reused, as it is an hnswlib label), and writes
each chunk's FTS row under its id."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import open_fake_index
from vaultheat.core.models import ChunkDraft
from vaultheat.paths import index_paths
from vaultheat.storage.store import Store


def _draft(ordinal: int, text: str, page: int | None = None) -> ChunkDraft:
    return ChunkDraft(
        ordinal=ordinal, byte_start=0, byte_end=len(text), line_start=0, line_end=1, text=text,
        heading_path=("Top", "Inner"), embed_input=text, page=page, page_end=page and page + 1,
        page_starts=((0, page),) if page else (),
    )  # fmt: skip


def test_ids_follow_autoincrement_and_rows_are_whole(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "a.md").write_text("# A\n\nAlpha words.\n", encoding="utf-8")
    (vault / "b.md").write_text("# B\n\nBeta words.\n", encoding="utf-8")
    open_fake_index(vault).close()
    store = Store(index_paths(vault).db)
    try:
        note = store.note_by_path("a.md")
        assert note is not None
        top = max(store.chunk_notes())
        with store.transaction():
            store.delete_chunks([top])  # the largest id goes; it must not come back
            assert store.insert_chunks([]) == []
            ids = store.insert_chunks(
                [
                    (note.id, _draft(5, "zebra quagga"), "h1", "A header"),
                    (note.id, _draft(6, "okapi", page=2), "h2", "A"),
                ]
            )  # fmt: skip
            more = store.insert_chunks([(note.id, _draft(7, "tapir"), "h3", "A")])
        assert ids == [top + 1, top + 2]
        assert more == [top + 3]
        rows = store.chunks(ids)
        assert [rows[i].text for i in ids] == ["zebra quagga", "okapi"]
        assert rows[ids[0]].heading_path == ("Top", "Inner")
        assert rows[ids[1]].page_starts == ((0, 2),)
        assert (rows[ids[1]].page, rows[ids[1]].page_end, rows[ids[1]].embed_hash) == (2, 3, "h2")
        assert [c for c, _ in store.lexical_search("quagga", 5)] == [ids[0]]
        assert [c for c, _ in store.lexical_search("tapir", 5)] == more
    finally:
        store.close()
