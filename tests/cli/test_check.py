"""``vaultheat check`` raises no false alarm: a no-op index leaves a consistent index."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from vaultheat.check import check_index
from vaultheat.paths import index_paths
from vaultheat.storage.vectorsync import vector_file_generation


def test_no_op_index_keeps_check_green(fake_engine: Any, vault: Path) -> None:
    assert check_index(fake_engine)["problems"] == []
    for _ in range(2):
        report = fake_engine.index()  # nothing changed on disk
        assert report.chunks["embedded"] == 0
        fake_engine.close()
        doc = check_index(fake_engine)
        assert doc["ok"], doc["problems"]
    store = fake_engine.views.store()
    assert vector_file_generation(index_paths(vault).vectors) == store.generation()


def test_attachment_only_change_keeps_check_green(fake_engine: Any, vault: Path) -> None:
    (vault / "diagram.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    fake_engine.index()
    fake_engine.close()
    assert check_index(fake_engine)["problems"] == []


def test_check_finds_a_vector_file_behind(fake_engine: Any, vault: Path) -> None:
    from vaultheat.storage.store import Store

    store = Store(index_paths(vault).db)
    with store.transaction():
        store.bump_generation()
    store.close()
    fake_engine.close()
    doc = check_index(fake_engine)
    assert doc["state"] == "interrupted" and doc["problems"] == []
    assert any("behind the database" in p for p in doc["pending"])


# --- the three answers: clean, interrupted (exit 0), inconsistent (exit 2) -----------------


def _cli_check(vault: Path, capsys: Any) -> tuple[int, dict[str, Any], str]:
    import json

    from vaultheat.cli import main

    rc_json = main(["check", "--vault", str(vault), "--json"])
    doc = json.loads(capsys.readouterr().out)
    rc_text = main(["check", "--vault", str(vault)])
    text = capsys.readouterr().out
    assert rc_json == rc_text
    return rc_json, doc, text


def test_clean_index_is_clean_exit_0(fake_engine: Any, vault: Path, capsys: Any) -> None:
    fake_engine.close()
    rc, doc, text = _cli_check(vault, capsys)
    assert (rc, doc["state"], doc["ok"], doc["pending"], doc["problems"]) == (
        0, "clean", True, [], [])  # fmt: skip
    assert "consistent" in text and "{" not in text


def _interrupted(vault: Path) -> Any:
    from vaultheat.config import Settings, save_settings
    from vaultheat.engine import Engine
    from vaultheat.providers.fake import FakeEmbedder

    paths = index_paths(vault)
    paths.root.mkdir()
    save_settings(paths.config, Settings().with_value("embeddings.provider", "fake"))
    engine = Engine.open(vault, embedder=FakeEmbedder())
    seen: list[str] = []
    engine.index(progress=lambda stage, d, t: seen.append(stage),
                 should_stop=lambda: "meaning" in seen)  # fmt: skip
    engine.close()
    return engine


def test_interrupted_run_reads_interrupted_exit_0_and_index_finishes_it(
    vault: Path, capsys: Any
) -> None:
    engine = _interrupted(vault)
    rc, doc, text = _cli_check(vault, capsys)
    assert rc == 0 and doc["state"] == "interrupted" and doc["ok"]
    assert doc["problems"] == []
    assert any("await their vector" in p for p in doc["pending"])
    assert text.startswith("The last index run stopped part-way:")
    assert "`vaultheat index` finishes it." in text and "{" not in text
    engine.index()
    engine.close()
    after = check_index(engine)
    assert (after["state"], after["pending"], after["problems"]) == ("clean", [], [])


@pytest.mark.usefixtures("hnsw_files")
def test_truncated_vector_file_is_inconsistent_exit_2(
    fake_engine: Any, vault: Path, capsys: Any
) -> None:
    fake_engine.close()
    path = index_paths(vault).vectors
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    rc, doc, text = _cli_check(vault, capsys)
    assert rc == 2 and doc["state"] == "inconsistent" and not doc["ok"]
    assert doc["problems"]
    assert text.startswith("The index is inconsistent")


def test_deleted_chunk_row_is_inconsistent_exit_2(
    fake_engine: Any, vault: Path, capsys: Any
) -> None:
    import sqlite3

    fake_engine.close()
    con = sqlite3.connect(index_paths(vault).db)
    (victim,) = con.execute("SELECT id FROM chunks LIMIT 1").fetchone()
    con.execute("DELETE FROM chunks WHERE id = ?", (victim,))
    con.commit()
    con.close()
    rc, doc, _text = _cli_check(vault, capsys)
    assert rc == 2 and doc["state"] == "inconsistent" and not doc["ok"]
    assert any("belong to no chunk" in p or "rows for" in p for p in doc["problems"])


def test_a_lexical_row_under_another_id_is_inconsistent_exit_2(
    fake_engine: Any, vault: Path, capsys: Any
) -> None:
    import sqlite3

    from vaultheat.storage import fts

    fake_engine.close()
    con = sqlite3.connect(index_paths(vault).db)
    (victim,) = con.execute("SELECT id FROM chunks LIMIT 1").fetchone()
    (row,) = fts.stored_rows(con, [victim])
    fts.delete_rows(con, [row])  # the same number of rows, one under an id of no chunk
    fts.insert_rows(con, [(10**9, row[1], row[2])])
    con.commit()
    con.close()
    rc, doc, _text = _cli_check(vault, capsys)
    assert rc == 2 and doc["state"] == "inconsistent" and not doc["ok"]
    assert "2 chunks and lexical rows do not match by id" in doc["problems"]


def test_vector_file_ahead_of_the_database_is_inconsistent(fake_engine: Any, vault: Path) -> None:
    from vaultheat.storage.store import Store

    fake_engine.index()  # nothing new; the generations agree
    fake_engine.close()
    store = Store(index_paths(vault).db)
    with store.transaction():
        store.set_manifest(generation=store.generation() - 1)
    store.close()
    doc = check_index(fake_engine)
    assert doc["state"] == "inconsistent" and not doc["ok"]
    assert any("ahead of the database" in p for p in doc["problems"])


@pytest.mark.usefixtures("hnsw_files")
def test_a_first_run_stopped_before_its_vector_file_was_saved_is_interrupted(
    vault: Path, capsys: Any
) -> None:
    """The meaning phase commits each batch to the database and saves the vector file only
    every few seconds: a kill before the first save leaves no file, and that is not damage."""
    engine = _interrupted(vault)
    index_paths(vault).vectors.unlink(missing_ok=True)
    rc, doc, _text = _cli_check(vault, capsys)
    assert (rc, doc["state"], doc["problems"]) == (0, "interrupted", [])
    assert "the vector file is not written yet" in doc["pending"]
    engine.index()
    engine.close()
    assert check_index(engine)["state"] == "clean"


@pytest.mark.usefixtures("hnsw_files")
def test_a_finished_index_without_its_vector_file_is_inconsistent(
    fake_engine: Any, vault: Path, capsys: Any
) -> None:
    fake_engine.close()
    index_paths(vault).vectors.unlink()
    rc, doc, _text = _cli_check(vault, capsys)
    assert (rc, doc["state"]) == (2, "inconsistent")
    assert "the vector file is missing" in doc["problems"]


def test_a_run_marked_unfinished_reads_interrupted_until_the_next_run(
    fake_engine: Any, vault: Path
) -> None:
    from vaultheat.storage.store import Store

    fake_engine.close()
    store = Store(index_paths(vault).db)
    with store.transaction():
        store.set_manifest(run_complete=False)  # what a run writes first, before any note
    store.close()
    doc = check_index(fake_engine)
    assert (doc["state"], doc["pending"]) == ("interrupted", ["the last run did not reach its end"])
    fake_engine.index()
    fake_engine.close()
    assert check_index(fake_engine)["state"] == "clean"


# --- a run stopped in its words phase: notes of the vault it never stored -----------------


def _add_notes(vault: Path, count: int) -> None:
    for i in range(count):
        (vault / f"new note {i}.md").write_text(f"# New {i}\n\nA note the index has not seen.\n")


def test_a_run_stopped_in_its_words_phase_names_the_notes_not_indexed_yet(
    fake_engine: Any, vault: Path, capsys: Any
) -> None:
    _add_notes(vault, 3)
    fake_engine.index(should_stop=lambda: True)  # stopped before its first batch of notes
    fake_engine.close()
    rc, doc, text = _cli_check(vault, capsys)
    assert (rc, doc["state"], doc["ok"], doc["problems"]) == (0, "interrupted", True, [])
    assert doc["pending"][0] == "3 notes of the vault are not indexed yet"
    assert "the last run did not reach its end" not in doc["pending"]  # the specific one says it
    assert text.startswith(
        "The last index run stopped part-way: 3 notes of the vault are not indexed yet"
    )
    assert text.rstrip().endswith("`vaultheat index` finishes it.") and "{" not in text
    fake_engine.index()
    fake_engine.close()
    after = check_index(fake_engine)
    assert (after["state"], after["pending"], after["problems"]) == ("clean", [], [])


def test_new_notes_are_pending_only_when_the_last_run_did_not_complete(
    fake_engine: Any, vault: Path
) -> None:
    """A note added after a finished run is freshness (``status`` says "stale"), not work an
    interrupted run left: check stays clean. The same note after a run that did not reach its
    end (``run_complete`` false, what a run writes first) is named as pending."""
    from vaultheat.storage.store import Store

    _add_notes(vault, 1)
    fake_engine.close()
    assert check_index(fake_engine)["state"] == "clean"
    store = Store(index_paths(vault).db)
    with store.transaction():
        store.set_manifest(run_complete=False)
    store.close()
    doc = check_index(fake_engine)
    assert (doc["state"], doc["pending"]) == (
        "interrupted", ["1 note of the vault is not indexed yet"])  # fmt: skip
    store = Store(index_paths(vault).db)
    with store.transaction():
        store.set_manifest(run_complete=True)  # the run finished; the note came after it
    store.close()
    doc = check_index(fake_engine)
    assert (doc["state"], doc["pending"], doc["problems"]) == ("clean", [], [])
