"""The indexer: incremental work proportional to the edit, moves, renames, safety."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import search_doc, status_doc
from tests.reliability.reliability_helpers import fingerprint
from vaultheat.check import check_index
from vaultheat.config import Settings, save_settings
from vaultheat.engine import Engine
from vaultheat.errors import IndexLockedError, IndexMismatchError
from vaultheat.paths import index_paths
from vaultheat.providers.fake import FakeEmbedder
from vaultheat.storage.lock import WriterLock


def _engine(vault: Path, embedder: FakeEmbedder | None = None) -> Engine:
    return Engine.open(vault, embedder=embedder or FakeEmbedder())


def test_first_index_is_complete_and_consistent(fake_engine: Engine) -> None:
    status = status_doc(fake_engine)
    assert status["state"] == "ready"
    assert status["notes"] >= 30
    assert status["chunks"] >= status["notes"]
    assert status["links"]["resolved"] > 50
    assert status["edges"].get("link", 0) > 0
    assert status["edges"].get("similar", 0) == 0  # graph.knn_k = 0 by default (test_knn_default)
    reasons = {s["path"]: s["reason"] for s in status["skipped"]}
    assert any(p.startswith("Archive/") for p in reasons)
    doc = check_index(fake_engine)
    assert doc["ok"], doc["problems"]


def test_noop_reindex_embeds_nothing_and_reads_no_file(fake_engine: Engine) -> None:
    embedder = FakeEmbedder()
    engine = _engine(fake_engine.paths.vault, embedder)
    report = engine.index()
    assert report.notes["unchanged"] == status_doc(fake_engine)["notes"] + 1  # + the opted-out note
    assert report.notes["added"] == report.notes["modified"] == report.notes["deleted"] == 0
    assert report.chunks == {"embedded": 0, "reused": 0, "deleted": 0}
    assert embedder.embedded_count == 0
    assert not report.model_loaded


def test_one_edit_reembeds_only_the_changed_chunk(fake_engine: Engine) -> None:
    vault = fake_engine.paths.vault
    note = vault / "Garden" / "Composting.md"
    before = len(
        fake_engine.views.store().note_chunks(
            fake_engine.views.store().note_by_path("Garden/Composting.md").id
        )
    )  # type: ignore[union-attr]
    assert before >= 2
    note.write_text(
        note.read_text(encoding="utf-8") + "\n\nA brand new closing paragraph about "
        "worm bins and bokashi buckets on a small balcony.\n",
        encoding="utf-8",
    )
    embedder = FakeEmbedder()
    engine = _engine(vault, embedder)
    report = engine.index()
    assert report.notes["modified"] == 1
    assert 1 <= report.chunks["embedded"] <= 2
    assert report.chunks["reused"] >= before - 2
    assert embedder.embedded_count == report.chunks["embedded"]
    assert check_index(engine)["ok"]


def test_move_reembeds_nothing_and_rename_reresolves_links(fake_engine: Engine) -> None:
    vault = fake_engine.paths.vault
    (vault / "Archive2").mkdir()
    shutil.move(vault / "Garden" / "Raised Beds.md", vault / "Archive2" / "Raised Beds.md")
    embedder = FakeEmbedder()
    engine = _engine(vault, embedder)
    report = engine.index()
    assert report.notes["renamed"] == 1
    assert report.chunks["embedded"] == 0
    store = engine.views.store()
    rows = store.db.execute(
        "SELECT count(*) FROM links WHERE resolved_path = 'Archive2/Raised Beds.md'"
    ).fetchone()[0]
    assert rows > 0, "links by name follow the moved note"
    assert check_index(engine)["ok"]


def test_deleted_note_disappears_with_its_edges(fake_engine: Engine) -> None:
    vault = fake_engine.paths.vault
    (vault / "Garden" / "Composting.md").unlink()
    engine = _engine(vault)
    report = engine.index()
    assert report.notes["deleted"] == 1
    store = engine.views.store()
    assert store.note_by_path("Garden/Composting.md") is None
    unresolved = store.db.execute(
        "SELECT count(*) FROM links WHERE target_key = 'composting' AND resolved_path IS NULL"
    ).fetchone()[0]
    assert unresolved > 0
    assert check_index(engine)["ok"]


def test_model_change_is_detected_until_full_rebuild(fake_engine: Engine) -> None:
    vault = fake_engine.paths.vault
    other = FakeEmbedder(dimension=32)
    engine = _engine(vault, other)
    with pytest.raises(IndexMismatchError):
        engine.index()
    with pytest.raises(IndexMismatchError):
        engine.index_view()
    report = engine.index(full=True)
    assert report.chunks["embedded"] > 0
    assert engine.index_view().vectors.dim == 32


def test_second_writer_is_refused(fake_engine: Engine) -> None:
    with WriterLock(fake_engine.paths.lock), pytest.raises(IndexLockedError):
        _engine(fake_engine.paths.vault).index()


def test_index_outside_the_vault(vault: Path, tmp_path: Path) -> None:
    index_dir = tmp_path / "elsewhere"
    paths = index_paths(vault, index_dir)
    paths.root.mkdir()
    save_settings(paths.config, Settings().with_value("embeddings.provider", "fake"))
    engine = Engine.open(vault, index_dir, embedder=FakeEmbedder())
    engine.index()
    assert not (vault / ".vaultheat").exists()
    assert status_doc(engine)["chunks"] > 0


KILL_SCRIPT = """
import sys, time
from pathlib import Path
from vaultheat.engine import Engine
from vaultheat.providers.fake import FakeEmbedder

class SlowFake(FakeEmbedder):
    def embed_documents(self, texts):
        time.sleep(0.002 * len(texts))
        return super().embed_documents(texts)

import vaultheat.indexing.limits as ix
ix.NOTE_BATCH = 4
Engine.open(Path(sys.argv[1]), embedder=SlowFake()).index()
"""


@pytest.mark.parametrize("delay", [0.3, 0.6, 0.9, 1.2])
def test_kill_9_during_indexing_leaves_a_consistent_index(tmp_path: Path, delay: float) -> None:
    from tests.conftest import copy_vault

    vault = copy_vault(tmp_path / "vault")
    for i in range(60):  # enough notes that the kill lands mid-run
        (vault / f"bulk-{i:03d}.md").write_text(
            f"# Bulk {i}\n\n" + " ".join(f"word{(i * 7 + j) % 97}" for j in range(300)) + "\n",
            encoding="utf-8",
        )
    paths = index_paths(vault)
    paths.root.mkdir()
    save_settings(paths.config, Settings().with_value("embeddings.provider", "fake"))
    proc = subprocess.Popen([sys.executable, "-c", KILL_SCRIPT, str(vault)])
    time.sleep(delay)
    if proc.poll() is None:
        os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    engine = _engine(vault)
    report = engine.index()  # finishes the job
    assert check_index(engine)["ok"], check_index(engine)["problems"]
    assert report.chunks["embedded"] + report.chunks["reused"] >= 0
    clean_vault = copy_vault(tmp_path / "clean")
    for p in vault.glob("bulk-*.md"):
        shutil.copy(p, clean_vault / p.name)
    cpaths = index_paths(clean_vault)
    cpaths.root.mkdir()
    save_settings(cpaths.config, Settings().with_value("embeddings.provider", "fake"))
    clean = _engine(clean_vault)
    clean.index()
    assert fingerprint(engine) == fingerprint(clean)


def test_full_rebuild_with_same_model_reuses_vectors_and_keeps_answering(
    fake_engine: Engine,
) -> None:
    from vaultheat.core.requests import SearchRequest

    before = search_doc(fake_engine, SearchRequest(query="compost", top=3))["results"]
    answers: list[int] = []
    engine = _engine(fake_engine.paths.vault)

    def progress(stage: str, done: int, total: int) -> None:  # queries while it rebuilds
        answers.append(len(fake_engine.search(SearchRequest(query="compost", top=3)).results))

    report = Engine.index(engine, full=True, progress=progress)
    assert report.chunks["embedded"] == 0, "same model: every vector comes from the cache"
    assert report.notes["modified"] == status_doc(fake_engine)["notes"] + 1
    assert answers and min(answers) == len(before)
    assert check_index(engine)["ok"], check_index(engine)["problems"]
    after = search_doc(fake_engine, SearchRequest(query="compost", top=3))["results"]
    assert [r["path"] for r in after] == [r["path"] for r in before]


def test_aliases_and_tags_are_indexed_lexically_not_embedded(fake_engine: Engine) -> None:
    from vaultheat.core.vault.parsing import parse_note
    from vaultheat.core.vault.sizing import chunk_for

    store = fake_engine.views.store()
    row = store.note_by_path("Coffee/Brewing/Espresso Extraction.md")
    assert row is not None
    aliases = store.note_meta(row.id)["aliases"]
    assert aliases
    chunk = store.note_chunks(row.id)[0]
    header = store.db.execute("SELECT header FROM chunks WHERE id = ?", (chunk.id,)).fetchone()[0]
    word = aliases[0].split()[0].lower()
    assert word in header.lower()
    hits = store.db.execute(  # and the FTS row's header column holds it (contentless table)
        "SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ?", (f'header:"{word}"',)
    )
    assert chunk.id in {r[0] for r in hits}
    raw = (fake_engine.paths.vault / row.path).read_bytes()
    drafts = chunk_for(parse_note(row.path, raw), fake_engine.settings, fake_engine.models.embedder)
    assert "aliases:" not in drafts[0].embed_input
    loud = fake_engine.settings.with_value("chunking.header_aliases_tags", True)
    assert (
        "aliases:"
        in chunk_for(parse_note(row.path, raw), loud, fake_engine.models.embedder)[0].embed_input
    )


def test_note_batches_cut_by_count_and_by_bytes() -> None:
    from types import SimpleNamespace

    from vaultheat.indexing.limits import note_batches

    def notes(*sizes: int) -> list[tuple[int, SimpleNamespace]]:
        return [(i, SimpleNamespace(raw=b"x" * n)) for i, n in enumerate(sizes)]

    def shape(batches: object) -> list[list[int]]:
        return [[i for i, _ in b] for b in batches]

    assert shape(note_batches(notes(1, 1, 1, 1, 1), 2, 1000)) == [[0, 1], [2, 3], [4]]
    # a batch ends once its text reaches max_bytes; a huge note still gets a batch of its own
    assert shape(note_batches(notes(400, 700, 50, 5000, 10), 10, 1000)) == [[0, 1], [2, 3], [4]]
    assert shape(note_batches([], 4, 1000)) == []
