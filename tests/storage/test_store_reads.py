"""The reads core makes through ``StorePort`` (core/ports.py), against a real indexed store:
the search filters (folder, nested tags, frontmatter properties, LIKE wildcards in names), the
document frequencies related notes weigh words by, and the graph's bulk loads."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.conftest import open_fake_index
from vaultheat.storage.store import Store

NOTES = {
    "A_b/one.md": "---\ntags: [coffee/brewing]\ndraft: true\n---\nEspresso shots pulled at dawn.\n",
    "Axb/two.md": "---\ntags: [coffeehouse]\nstatus: active\n---\nA cafe that serves espresso.\n",
    "Coffee/Brew.md": "---\ntags: [coffee]\nstatus: active\ndraft: false\n---\nPour over.\n",
    "top.md": "# Top\n\nSee [[Brew]] and [[one]] for the kettle.\n",
    "secret.md": "---\nvaultheat: exclude\ntags: [coffee]\n---\nEspresso by the kettle.\n",
}


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    vault = tmp_path_factory.mktemp("reads") / "vault"
    for rel, text in NOTES.items():
        (vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (vault / rel).write_text(text, encoding="utf-8")
    engine = open_fake_index(vault)
    engine.close()
    s = Store(engine.paths.db, readonly=True)
    yield s
    s.close()


def paths_of(store: Store, ids: set[int]) -> set[str]:
    return {row.path for row in store.chunks(sorted(ids)).values()}


@pytest.mark.parametrize(
    ("folder", "tag", "properties", "expected"),
    [
        ("A_b", None, {}, {"A_b/one.md"}),  # "_" is not a wildcard: Axb stays out
        ("Coffee", None, {}, {"Coffee/Brew.md"}),
        (None, "coffee", {}, {"A_b/one.md", "Coffee/Brew.md"}),  # nested tag in, coffeehouse out
        (None, "coffee/brewing", {}, {"A_b/one.md"}),
        (None, None, {"status": "active"}, {"Axb/two.md", "Coffee/Brew.md"}),
        (None, None, {"draft": True}, {"A_b/one.md"}),
        (None, None, {"draft": False}, {"Coffee/Brew.md"}),
        (None, "coffee", {"status": "active"}, {"Coffee/Brew.md"}),
        ("Nope", None, {}, set()),
    ],
    ids=[
        "folder-underscore",
        "folder",
        "tag-nested",
        "tag-leaf",
        "property",
        "bool-true",
        "bool-false",
        "tag-and-property",
        "no-such-folder",
    ],
)
def test_filtered_chunk_ids(
    store: Store, folder: str | None, tag: str | None, properties: dict, expected: set[str]
) -> None:
    ids = store.filtered_chunk_ids(folder=folder, tag=tag, properties=properties)
    assert paths_of(store, ids) == expected


def test_term_doc_counts_batches_and_skips_unknown_terms(store: Store) -> None:
    filler = [f"zzfiller{i}" for i in range(450)]  # more than one batch of 200
    counts = store.term_doc_counts([*filler, "espresso", "kettle"])
    assert counts == {"espresso": 2, "kettle": 1}


def test_bulk_loads_agree_with_row_reads(store: Store) -> None:
    notes = store.notes()
    assert store.note_paths() == {row.id: path for path, row in notes.items()}
    positions = store.chunk_positions()
    assert {c: n for c, n, _ in positions} == store.chunk_notes()
    for path, row in notes.items():
        ordinals = [o for _, n, o in positions if n == row.id]
        assert sorted(ordinals) == [c.ordinal for c in store.note_chunks(row.id)], path
    tagged = {(key, notes[p].id) for p, key in [("A_b/one.md", "coffee/brewing"),
              ("Axb/two.md", "coffeehouse"), ("Coffee/Brew.md", "coffee")]}  # fmt: skip
    assert set(store.note_tag_keys()) == tagged


def test_notes_with_chunks_leaves_opted_out_notes_out(store: Store) -> None:
    assert store.note_by_path("secret.md") is not None  # stored, but opted out: no chunks
    assert [n.path for n in store.notes_with_chunks()] == [
        "A_b/one.md",
        "Axb/two.md",
        "Coffee/Brew.md",
        "top.md",
    ]


def test_edge_rows_can_leave_similarity_out(store: Store) -> None:
    every = store.edge_rows()
    links = store.edge_rows(similar=False)
    assert links and {kind for _, _, kind, _ in links} == {"link"}
    assert sorted(links) == sorted(e for e in every if e[2] != "similar")
    top = store.note_by_path("top.md")
    assert top is not None
    top_chunks = {c.id for c in store.note_chunks(top.id)}
    targets = {dst for src, dst, _, _ in links if src in top_chunks}
    assert {store.chunks([t])[t].path for t in targets} == {"Coffee/Brew.md", "A_b/one.md"}
