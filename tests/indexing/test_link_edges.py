"""Link-graph repair per batch (issue #41): the edges equal those of the per-note code it
replaced.

The reference below is the per-note ``_link_edges`` of before (several queries per note: its
chunks, its links, each target's note and chunks), kept here only to check against. A vault
with heading, nested-heading and block links, PDF page links, property links, a canvas, self
links, unresolved links, links to an attachment and to an opted-out note is indexed with the
fake embedder; the stored link edges equal the reference's, after a first index, an edited note
and a renamed target.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import copy_vault, open_fake_index
from tests.pdf_fixtures import build_pdf, text_page, write
from vaultheat.core.vault.derived_notes import document_kind
from vaultheat.indexing.graph import _chunk_at, _pick_targets
from vaultheat.storage.store import Store

FILL = (
    "Seedlings want steady light, a cool night and water at the roots rather than on the "
    "leaves; the notebook keeps the dates, the weather and what came up where. "
)


def section(title: str, body: str, n: int = 4) -> str:
    return f"## {title}\n\n{body}\n\n" + (FILL * n) + "\n\n"


TARGET = (
    "# Target\n\n"
    + section("Section One", "The first part.")
    + section("Section Two", "The second part.")
    + "### Sub Part\n\nA nested part. " + FILL * 3 + "\n\n"
    + section("Blocks", "A paragraph to point at. ^blk1")
)  # fmt: skip

HUB = (
    "---\nrelated: \"[[Target]]\"\nsee: [\"[[Other]]\", \"[[Nowhere]]\"]\n---\n"
    "# Hub\n\n"
    + section("Headings", "See [[Target#Section Two]] and [[Target#Target#Sub Part]] "
              "and [[Target#No Such Heading]].")
    + section("Blocks", "Quoted: [[Target#^blk1]] and ![[Target#^nope]].")
    + section("Documents", "Read [[Docs/Manual.pdf#page=2]], [[Manual.pdf#page=9]] and "
              "[[Boards/Plan.canvas]]; the picture ![[pic.png]].")
    + section("Odd", "Myself [[Hub]], [[#Headings]], [[Hub#Blocks]]; gone [[Nowhere]]; "
              "hidden [[Secret]]; plain [md](Other.md).")
)  # fmt: skip

OTHER = "# Other\n\nShort note that links [[Target]] and [[Later]] and [[Hub#Odd]].\n"
SECRET = "---\nvaultheat: exclude\n---\nPrivate words about [[Target]].\n"

CANVAS = {
    "nodes": [
        {"id": "t1", "type": "text", "x": 0, "y": 0, "width": 200, "height": 100,
         "text": "Plan the beds, see [[Target#Section One]] and [[Other]]"},
        {"id": "f1", "type": "file", "x": 300, "y": 0, "width": 200, "height": 100,
         "file": "Links/Hub.md"},
        {"id": "f2", "type": "file", "x": 600, "y": 0, "width": 200, "height": 100,
         "file": "Docs/Manual.pdf"},
    ],
    "edges": [],
}  # fmt: skip


def make_vault(root: Path) -> Path:
    copy_vault(root)  # the example vault: its many ordinary links come along
    notes = {"Links/Target.md": TARGET, "Links/Hub.md": HUB, "Links/Other.md": OTHER,
             "Links/Secret.md": SECRET}  # fmt: skip
    for rel, text in notes.items():
        write(root / rel, text.encode())
    pages = [text_page([f"Page {i} of the manual.", FILL[:80], FILL[80:]]) for i in (1, 2, 3)]
    write(root / "Docs/Manual.pdf", build_pdf(pages))
    write(root / "Boards/Plan.canvas", json.dumps(CANVAS).encode())
    write(root / "Links/pic.png", b"\x89PNG\r\n\x1a\n")
    return root


def reference_edges(store: Store) -> set[tuple[int, int]]:
    """The per-note code of before, for every note with chunks, without the write."""
    out: set[tuple[int, int]] = set()
    for row in store.notes().values():
        chunks = store.note_chunks(row.id)
        if not chunks:
            continue
        target_chunks: dict[str, list[Any]] = {}
        self_path = chunks[0].path
        derived = document_kind(self_path) is not None
        for _raw, _t, subpath, kind, b0, _b1, _line, resolved in store.outgoing_links(row.id):
            if resolved is None or resolved == self_path:
                continue
            if not resolved.lower().endswith(".md") and document_kind(resolved) is None:
                continue
            if resolved not in target_chunks:
                t_row = store.note_by_path(resolved)
                target_chunks[resolved] = store.note_chunks(t_row.id) if t_row else []
            targets = _pick_targets(target_chunks[resolved], subpath)
            src = chunks[0] if kind == "property" or derived else _chunk_at(chunks, b0)
            out.update((src.id, t.id) for t in targets)
    return out


def stored_edges(store: Store) -> set[tuple[int, int]]:
    rows = store.edge_rows(similar=False)
    assert all(kind == "link" and w == 1.0 for _, _, kind, w in rows)
    return {(s, d) for s, d, _, _ in rows}


def note_edges(store: Store, src: str, dst: str) -> set[tuple[int, int]]:
    """The stored edges from note ``src`` to note ``dst``, as (src ordinal, dst ordinal)."""
    a, b = store.note_by_path(src), store.note_by_path(dst)
    assert a is not None and b is not None
    sa = {c.id: c.ordinal for c in store.note_chunks(a.id)}
    sb = {c.id: c.ordinal for c in store.note_chunks(b.id)}
    return {(sa[s], sb[d]) for s, d in stored_edges(store) if s in sa and d in sb}


@pytest.fixture
def engine(tmp_path: Path) -> Any:
    eng = open_fake_index(make_vault(tmp_path / "vault"))
    yield eng
    eng.close()


def test_first_index_edges_equal_the_per_note_code(engine: Any) -> None:
    store = engine.views.store()
    ids = {p: r.id for p, r in store.notes().items()}
    assert len(store.note_chunks(ids["Links/Hub.md"])) >= 3
    assert len(store.note_chunks(ids["Links/Target.md"])) >= 3
    assert not store.note_chunks(ids["Links/Secret.md"])  # opted out: a target without chunks
    assert not store.pending_links()
    want = reference_edges(store)
    assert stored_edges(store) == want
    assert len(want) > 50
    # the cases the vault was built for are there
    hub_target = note_edges(store, "Links/Hub.md", "Links/Target.md")
    assert len({d for _, d in hub_target}) == len(store.note_chunks(ids["Links/Target.md"]))
    assert note_edges(store, "Links/Hub.md", "Docs/Manual.pdf")
    assert note_edges(store, "Links/Hub.md", "Boards/Plan.canvas")
    assert note_edges(store, "Boards/Plan.canvas", "Links/Target.md")
    assert {s for s, _ in note_edges(store, "Boards/Plan.canvas", "Links/Hub.md")} == {0}
    assert not note_edges(store, "Links/Hub.md", "Links/Hub.md")  # self links make no edge


def test_edited_note_and_renamed_target_keep_edges_equal(engine: Any) -> None:
    vault = engine.paths.vault
    hub = vault / "Links/Hub.md"
    hub.write_text(
        hub.read_text().replace("the picture", "now [[Other#Other]] and the picture"), "utf-8"
    )
    engine.index()
    store = engine.views.store()
    assert stored_edges(store) == reference_edges(store)
    assert note_edges(store, "Links/Hub.md", "Links/Other.md")

    (vault / "Links/Target.md").rename(vault / "Links/Later.md")  # [[Later]] now resolves
    engine.index()
    store = engine.views.store()
    assert not store.pending_links()
    assert stored_edges(store) == reference_edges(store)
    assert note_edges(store, "Links/Other.md", "Links/Later.md")
    assert store.note_by_path("Links/Target.md") is None

    (vault / "Links/Later.md").rename(vault / "Links/Target.md")  # and back
    engine.index()
    store = engine.views.store()
    assert stored_edges(store) == reference_edges(store)
    assert note_edges(store, "Links/Hub.md", "Links/Target.md")


def test_batch_reads_equal_the_per_note_reads_across_in_list_batches(engine: Any) -> None:
    store = engine.views.store()
    notes = store.notes()
    ids = sorted(r.id for r in notes.values())
    asked = list(range(-600, 0)) + ids  # more than one 500-id batch, most of them no note
    by_id = store.chunks_of_notes(asked)
    assert by_id == {i: cs for i in ids if (cs := store.note_chunks(i))}
    paths = [f"missing/{i}.md" for i in range(600)] + sorted(notes)
    by_path = store.chunks_of_paths(paths)
    assert by_path == {p: cs for p, r in notes.items() if (cs := store.note_chunks(r.id))}
    links = store.resolved_links_of_notes(asked)
    for i in ids:
        want = [(r[2], r[3], r[4], r[7]) for r in store.outgoing_links(i) if r[7] is not None]
        assert sorted(links.get(i, []), key=repr) == sorted(want, key=repr)
