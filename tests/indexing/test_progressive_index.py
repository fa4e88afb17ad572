"""The progressive first index (#26): words first, then meaning, crash-safe in between.

The words phase stores every note with its lexical rows and links before any embedding; the
meaning phase embeds what still lacks a vector, newest notes first. These tests stop or crash a
run at the seam and in the middle of the meaning phase, and check what a reader sees then
(search by words, related from links and words, status with both phases) and that the next
run finishes the job without redoing committed work.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.conftest import search_doc, status_doc
from vaultheat.check import check_index
from vaultheat.config import Settings, save_settings
from vaultheat.core.requests import RelatedRequest, SearchRequest
from vaultheat.core.vault.status import phases_of
from vaultheat.engine import Engine
from vaultheat.indexing import limits
from vaultheat.indexing.report import IndexReport
from vaultheat.paths import index_paths
from vaultheat.providers.fake import FakeEmbedder

WORD = "popcorn"  # only in Coffee/Roasting/Roasting Basics.md (title, aliases and body)
NOTE = "Coffee/Roasting/Roasting Basics.md"


class RecordingEmbedder(FakeEmbedder):
    """The fake embedder, counting document inputs; ``fail_after`` calls, it raises (a crash
    in the middle of the meaning phase: the exception propagates out of the run)."""

    def __init__(self, fail_after: int | None = None) -> None:
        super().__init__()
        self.calls: list[list[str]] = []
        self.fail_after = fail_after

    def embed_documents(self, texts: Sequence[str]) -> Any:
        if self.fail_after is not None and len(self.calls) >= self.fail_after:
            raise RuntimeError("killed mid-phase")
        self.calls.append(list(texts))
        return super().embed_documents(texts)

    @property
    def embedded(self) -> int:
        return sum(len(c) for c in self.calls)


def _setup(vault: Path) -> None:
    paths = index_paths(vault)
    paths.root.mkdir()
    save_settings(paths.config, Settings().with_value("embeddings.provider", "fake"))


def stop_at_meaning() -> tuple[Callable[[str, int, int], None], Callable[[], bool]]:
    """progress + should_stop that stop a run as soon as its meaning phase begins."""
    seen: list[str] = []

    def progress(stage: str, done: int, total: int) -> None:
        seen.append(stage)

    return progress, lambda: "meaning" in seen


@pytest.fixture
def words_only(vault: Path) -> Engine:
    """An engine over the example vault whose first run stopped between the two phases."""
    _setup(vault)
    engine = Engine.open(vault, embedder=RecordingEmbedder())
    progress, should_stop = stop_at_meaning()
    engine.index(progress=progress, should_stop=should_stop)
    return engine


def test_words_phase_makes_every_note_findable_before_any_vector(words_only: Engine) -> None:
    embedder = words_only.models.embedder
    assert isinstance(embedder, RecordingEmbedder)
    assert embedder.embedded == 0  # the model never ran
    _view = words_only.index_view()
    store, vectors = _view.store, _view.vectors
    assert len(vectors) == 0 and store.chunk_count() > 0
    doc = search_doc(words_only, SearchRequest(WORD, files_only=True))
    assert doc["ranked_by"] == "words"
    assert doc["results"][0]["path"] == NOTE
    # honest labels: no vector, no "strong" (nor "good")
    assert {r["relevance_label"] for r in doc["results"]} == {"weak"}
    words_only.close()


def test_status_reports_both_phases(words_only: Engine) -> None:
    doc = status_doc(words_only)
    chunks = doc["chunks"]
    assert doc["phases"]["words"] == {"state": "done"}
    assert doc["phases"]["meaning"] == {
        "state": "interrupted", "done": 0, "total": chunks, "percent": 0.0, "eta_s": None,
    }  # fmt: skip
    assert doc["vectors"] == 0
    assert doc["state"] == "incomplete"
    words_only.close()
    words_only.index()
    doc = status_doc(words_only)
    assert doc["phases"]["meaning"]["state"] == "done"
    assert doc["phases"]["meaning"]["percent"] == 100.0
    assert doc["vectors"] == doc["chunks"] == chunks
    assert doc["state"] == "ready"
    words_only.close()


def test_related_answers_from_links_and_words_before_vectors(words_only: Engine) -> None:
    res = words_only.related(RelatedRequest(NOTE, top=5))
    assert res.results, "related notes come from the note's words and links"
    assert all(r.path != NOTE for r in res.results)
    words_only.close()


def test_a_run_stopped_between_phases_resumes_with_the_meaning_phase(
    words_only: Engine, vault: Path
) -> None:
    chunks = words_only.views.store().chunk_count()
    words_only.close()
    embedder = RecordingEmbedder()
    engine = Engine.open(vault, embedder=embedder)
    report = engine.index()
    assert report.notes["added"] == report.notes["modified"] == 0  # the words stay as stored
    assert report.chunks["embedded"] == embedder.embedded > 0
    _view = engine.index_view()
    store, vectors = _view.store, _view.vectors
    assert len(vectors) == store.chunk_count() == chunks
    assert check_index(engine)["state"] == "clean", check_index(engine)["problems"]
    doc = search_doc(engine, SearchRequest(WORD, files_only=True))
    assert doc["results"][0]["path"] == NOTE
    assert doc["ranked_by"] == "meaning"  # the usual weights again once every vector is in
    engine.close()


def test_a_crash_in_the_meaning_phase_keeps_committed_batches(
    vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _setup(vault)
    monkeypatch.setattr(limits, "EMBED_BATCH", 4)
    crashing = RecordingEmbedder(fail_after=2)
    engine = Engine.open(vault, embedder=crashing)
    with pytest.raises(RuntimeError, match="killed"):
        engine.index()
    engine.close()
    first = crashing.embedded
    assert first > 0

    engine = Engine.open(vault, embedder=RecordingEmbedder())
    doc = status_doc(engine)
    assert doc["phases"]["words"]["state"] == "done"
    assert doc["phases"]["meaning"]["state"] == "interrupted"
    assert 0 < doc["phases"]["meaning"]["done"] < doc["phases"]["meaning"]["total"]
    # nothing half-written: every chunk with a vector is whole, the rest are words only
    _view = engine.index_view()
    store, vectors = _view.store, _view.vectors
    assert len(vectors) == doc["phases"]["meaning"]["done"]
    # check calls this an interrupted run (pending work, no problems), not a broken index
    checked = check_index(engine)
    assert checked["state"] == "interrupted" and checked["ok"], checked["problems"]
    assert any("await their vector" in p for p in checked["pending"])
    assert any("await their neighbours" in p for p in checked["pending"])
    engine.close()

    resumed = RecordingEmbedder()
    engine = Engine.open(vault, embedder=resumed)
    engine.index()
    _view = engine.index_view()
    store, vectors = _view.store, _view.vectors
    assert len(vectors) == store.chunk_count()
    # the batches committed before the crash were not embedded again
    again = {t for call in resumed.calls for t in call}
    assert not again & {t for call in crashing.calls for t in call}
    assert check_index(engine)["state"] == "clean"
    engine.close()


def test_a_stop_request_ends_a_batch_between_model_calls(
    vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stop request (pause, shutdown, a note saved meanwhile) is honoured between the model
    calls of one batch: what was embedded is committed, nothing half-written, and the next run
    embeds only the rest."""
    _setup(vault)
    monkeypatch.setattr(limits, "EMBED_BATCH", 10_000)  # the whole vault in one batch
    monkeypatch.setattr(limits, "EMBED_STOP_EVERY", 3)
    first = RecordingEmbedder()
    engine = Engine.open(vault, embedder=first)
    engine.index(should_stop=lambda: first.embedded > 0)  # asked to stop in the first call
    assert [len(c) for c in first.calls] == [3]  # one model call, not the batch's
    doc = status_doc(engine)
    assert doc["phases"]["meaning"]["state"] == "interrupted"
    _view = engine.index_view()
    assert 3 <= len(_view.vectors) == doc["phases"]["meaning"]["done"]
    assert doc["phases"]["meaning"]["done"] < doc["phases"]["meaning"]["total"]
    engine.close()

    rest = RecordingEmbedder()
    engine = Engine.open(vault, embedder=rest)
    engine.index()
    _view = engine.index_view()
    assert len(_view.vectors) == _view.store.chunk_count()
    again = {t for call in rest.calls for t in call}
    assert not again & {t for call in first.calls for t in call}
    assert check_index(engine)["state"] == "clean"
    engine.close()


def test_the_meaning_phase_embeds_the_newest_notes_first(
    vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _setup(vault)
    newest = vault / "Garden" / "Newest.md"
    newest.write_text("# Newest\n\nThe quince tree flowered early this year.\n", encoding="utf-8")
    future = 4_000_000_000  # 2096: later than every other note's mtime
    os.utime(newest, (future, future))
    monkeypatch.setattr(limits, "EMBED_BATCH", 1)
    embedder = RecordingEmbedder()
    engine = Engine.open(vault, embedder=embedder)
    engine.index()
    assert "quince" in embedder.calls[0][0]
    engine.close()


def test_an_edit_after_a_full_index_is_embedded_in_the_same_run(fake_engine: Any) -> None:
    engine: Engine = fake_engine
    path = engine.paths.vault / NOTE
    path.write_text(path.read_text(encoding="utf-8") + "\n\nA note on kumquat chaff.\n")
    engine.index()
    _view = engine.index_view()
    store, vectors = _view.store, _view.vectors
    assert len(vectors) == store.chunk_count()
    doc = status_doc(engine)
    assert doc["phases"]["meaning"]["state"] == "done"
    hits = search_doc(engine, SearchRequest("kumquat", files_only=True))["results"]
    assert hits[0]["path"] == NOTE


@pytest.mark.parametrize(
    ("kw", "want"),
    [
        pytest.param(dict(built=False), ("pending", "pending", 0.0, None), id="no-index"),
        pytest.param(dict(unembedded=0), ("done", "done", 100.0, None), id="done"),
        pytest.param(
            dict(words_done=False, indexing=True),
            ("running", "pending", 0.0, None),
            id="words-running",
        ),
        pytest.param(
            dict(unembedded=60, indexing=True),
            ("done", "running", 40.0, 30.0),
            id="meaning-running-eta",
        ),  # 40 done in 20 s: 60 left at 2/s
        pytest.param(
            dict(unembedded=60), ("done", "interrupted", 40.0, None), id="meaning-interrupted"
        ),
    ],
)
def test_phases_of(kw: dict[str, Any], want: tuple[str, str, float, float | None]) -> None:
    args: dict[str, Any] = dict(
        built=True, indexing=False, words_done=True, chunks=100, unembedded=100,
        meaning={"total": 100, "done": 40, "started": 1000.0, "updated": 1020.0}, now=1020.0,
    )  # fmt: skip
    p = phases_of(**{**args, **kw})
    assert (p.words, p.meaning, p.percent, p.eta_s) == want


def test_vectors_of_a_partial_index_are_unit_and_match_the_cache(words_only: Engine) -> None:
    words_only.close()
    words_only.index()
    _view = words_only.index_view()
    _store, vectors = _view.store, _view.vectors
    ids = sorted(vectors.labels())
    mat = vectors.get_vectors(ids)
    assert np.allclose(np.linalg.norm(mat, axis=1), 1.0, atol=1e-4)
    words_only.close()


def test_check_says_chunks_await_their_vector(words_only: Engine) -> None:
    doc = check_index(words_only)
    n = words_only.views.store().chunk_count()
    assert doc["state"] == "interrupted" and doc["ok"] and doc["problems"] == []
    assert f"{n} chunks await their vector" in doc["pending"]
    assert not any("no vector in the vector file" in p for p in doc["pending"])
    words_only.close()


def test_inputs_come_from_disk_when_the_words_phase_kept_none(
    vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _setup(vault)
    monkeypatch.setattr(limits, "HOLD_BYTES", 0)
    embedder = RecordingEmbedder()
    engine = Engine.open(vault, embedder=embedder)
    engine.index()
    _view = engine.index_view()
    store, vectors = _view.store, _view.vectors
    assert len(vectors) == store.chunk_count() > 0
    assert check_index(engine)["state"] == "clean"
    engine.close()


def test_a_note_edited_between_the_phases_waits_for_the_next_run(words_only: Engine) -> None:
    words_only.close()
    path = words_only.paths.vault / NOTE
    path.write_text(path.read_text(encoding="utf-8") + "\n\nEdited after the words phase.\n")
    fp = words_only.models.embedder.fingerprint
    # the meaning phase alone (as a resumed run does): the edited note's stored chunks no longer
    # match the file, so they are not embedded from it
    from vaultheat.indexing.run import Indexer
    from vaultheat.storage.store import Store

    ix = Indexer(words_only.paths, words_only.settings, words_only.models.embedder)
    store = Store(words_only.paths.db)
    vectors = ix._open_vectors(store, store.manifest())
    total = store.unembedded_count(fp)
    notes = store.unembedded_notes(fp)
    ix._embed_pending(store, vectors, notes, total, IndexReport())
    note_id = store.note_by_path(NOTE).id
    assert store.unembedded_hashes(fp, [note_id])  # still waiting
    # every other note got its vectors
    assert store.unembedded_count(fp) == len(store.note_chunks(note_id))
    store.close()
    words_only.index()  # the next run re-indexes the note and embeds it
    assert words_only.views.store().unembedded_count(fp) == 0
    words_only.close()


def test_a_canvas_gets_its_vectors_from_disk_too(
    vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _setup(vault)
    card = {"id": "a", "type": "text", "text": "Quince jelly needs a long slow boil.",
            "x": 0, "y": 0, "width": 200, "height": 100}  # fmt: skip
    (vault / "Garden" / "Plan.canvas").write_text(
        json.dumps({"nodes": [card], "edges": []}), encoding="utf-8"
    )
    monkeypatch.setattr(limits, "HOLD_BYTES", 0)  # every input derived again from disk
    engine = Engine.open(vault, embedder=RecordingEmbedder())
    engine.index()
    _view = engine.index_view()
    store, vectors = _view.store, _view.vectors
    row = store.note_by_path("Garden/Plan.canvas")
    assert row is not None and store.note_chunks(row.id)
    assert len(vectors) == store.chunk_count()
    engine.close()
