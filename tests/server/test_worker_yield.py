"""The index worker yields a long meaning phase to the notes the user saves meanwhile.

A run past its words phase ("meaning", "languages", the second space's pass) stops between
batches when queued note changes are due; a request run follows, which indexes them by their
words and carries the meaning phase on. The words phase and its graph never yield, and pause
keeps working as before. No model and no index: a scripted fake stands in for the index process
(or for ``engine.index``), synchronised with events, never with sleeps.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any, cast

import pytest

from vaultheat.engine import Engine
from vaultheat.indexing.report import IndexReport
from vaultheat.server.indexproc import IndexProcess
from vaultheat.server.worker import IndexWorker
from vaultheat.storage.vectorsync import MULTILINGUAL

WAIT_S = 30.0  # a failure guard only: every wait below ends on an event

Progress = Callable[[str, int, int], None]
ShouldStop = Callable[[], bool]


@dataclass
class Script:
    """One run of the fake: the stages it reports, and the one it waits in (if any)."""

    stages: tuple[str, ...]
    hold: str | None = None  # in this stage: tell the test, wait for it, then ask should_stop


@dataclass
class Call:
    only: list[str] | None
    stopped_in: str | None = None  # the stage the run stopped in (None: it ran to the end)


@dataclass
class FakeIndexer:
    """The index process's ``run`` (and ``engine.index``), played from a list of scripts."""

    scripts: list[Script]
    calls: list[Call] = field(default_factory=list)
    held: threading.Event = field(default_factory=threading.Event)  # a run waits in `hold`
    go: threading.Event = field(default_factory=threading.Event)  # the test let it go on
    cond: threading.Condition = field(default_factory=threading.Condition)

    def run(
        self,
        *,
        full: bool,
        only: list[str] | None,
        progress: Progress,
        should_stop: ShouldStop,
        must_end: ShouldStop = lambda: False,
        on_commit: Callable[[], None] = lambda: None,
    ) -> IndexReport:
        return self.index(full=full, only=only, progress=progress, should_stop=should_stop)

    def index(
        self, *, full: bool, only: list[str] | None, progress: Progress, should_stop: ShouldStop
    ) -> IndexReport:
        script = self.scripts[len(self.calls)] if len(self.calls) < len(self.scripts) else None
        call = Call(only)
        for stage in script.stages if script else ("index",):
            progress(stage, 0, 2)
            if script is not None and stage == script.hold:
                self.held.set()
                assert self.go.wait(WAIT_S), "the test never let the run go on"
            if should_stop():  # between batches, as the indexer checks
                call.stopped_in = stage
                break
            progress(stage, 2, 2)
        with self.cond:
            self.calls.append(call)
            self.cond.notify_all()
        return IndexReport(written=[] if call.stopped_in else ["A.md"])

    def close(self) -> None:
        pass

    def wait_calls(self, n: int) -> list[Call]:
        with self.cond:
            assert self.cond.wait_for(lambda: len(self.calls) >= n, WAIT_S), self.calls
            return list(self.calls)


def fake_engine(indexer: FakeIndexer) -> Engine:
    # what the worker touches: views.refresh (after each commit), views.store() (counts) and
    # index_status.freshness (whose failure `_refresh_state` logs and ignores)
    views = SimpleNamespace(refresh=lambda: None, store=lambda: SimpleNamespace(
        note_count=lambda: 1, chunk_count=lambda: 2))  # fmt: skip
    return cast(Engine, SimpleNamespace(views=views, index=indexer.index))


@dataclass
class Harness:
    indexer: FakeIndexer
    worker: IndexWorker
    events: list[tuple[str, dict[str, Any]]]

    def ready_count(self) -> int:
        return sum(1 for name, _ in self.events if name == "ready")

    def finish(self, runs: int) -> list[Call]:
        """Wait for ``runs`` runs, then stop the worker; nothing may be left waiting."""
        calls = self.indexer.wait_calls(runs)
        self.worker.stop()
        assert self.worker.join(WAIT_S)
        assert self.worker.idle, "work was left waiting"
        return calls


@pytest.fixture(params=["process", "thread"])
def make(request: pytest.FixtureRequest) -> Iterator[Callable[..., Harness]]:
    """A started worker on a fake, through the index process or in its own thread."""
    started: list[IndexWorker] = []

    def build(scripts: list[Script]) -> Harness:
        indexer = FakeIndexer(scripts)
        events: list[tuple[str, dict[str, Any]]] = []
        worker = IndexWorker(
            fake_engine(indexer),
            debounce_s=0.0,
            scan_interval_s=0,
            emit=lambda name, data: events.append((name, data)),
            warm_up=False,
            process=cast(IndexProcess, indexer) if request.param == "process" else None,
        )
        worker.start()  # its first job: the request run every server starts with
        started.append(worker)
        return Harness(indexer, worker, events)

    yield build
    for worker in started:
        worker.stop()
        worker.resume()
        assert worker.join(WAIT_S)


FIRST_INDEX = ("index", "graph", "meaning", "languages", MULTILINGUAL)


@pytest.mark.parametrize("stage", ["meaning", "languages", MULTILINGUAL])
def test_a_run_past_its_words_yields_to_a_due_change(
    make: Callable[..., Harness], stage: str
) -> None:
    h = make([Script(FIRST_INDEX, hold=stage), Script(FIRST_INDEX)])
    assert h.indexer.held.wait(WAIT_S)
    assert h.worker.notify_changed(["New.md"]) == 1  # debounce 0: due at once
    h.indexer.go.set()
    first, second = h.finish(2)
    assert first.stopped_in == stage  # it stopped between batches, the batch in flight kept
    # the request run that follows indexes the change by its words, then ends the meaning phase
    assert [job.kind for job in h.worker.runs] == ["request", "request"]
    assert second.only is None and second.stopped_in is None
    assert h.worker.yielded == 1
    assert h.ready_count() == 2  # the yielded run's counts are real: it still says "ready"


@pytest.mark.parametrize("stage", ["index", "graph"])
def test_the_words_phase_and_its_graph_do_not_yield(
    make: Callable[..., Harness], stage: str
) -> None:
    # a run that has nothing to embed: a change queued during its words is indexed after it
    h = make([Script(("index", "graph"), hold=stage), Script(("index",))])
    assert h.indexer.held.wait(WAIT_S)
    h.worker.notify_changed(["New.md"])
    h.indexer.go.set()
    first, second = h.finish(2)
    assert first.stopped_in is None
    assert [job.kind for job in h.worker.runs] == ["request", "changes"]
    assert second.only == ["New.md"]
    assert h.worker.yielded == 0
    assert h.ready_count() == 2


def test_pause_in_the_meaning_phase_still_waits_for_resume(make: Callable[..., Harness]) -> None:
    h = make([Script(FIRST_INDEX, hold="meaning"), Script(FIRST_INDEX)])
    assert h.indexer.held.wait(WAIT_S)
    h.worker.notify_changed(["New.md"])  # due, but the pause is why this run stops
    h.worker.pause()
    h.indexer.go.set()
    (first,) = h.indexer.wait_calls(1)
    assert first.stopped_in == "meaning"
    assert h.worker.paused and not h.worker.idle  # the rest waits for resume
    h.worker.resume()
    _, second = h.finish(2)
    assert [job.kind for job in h.worker.runs] == ["request", "request"]
    assert second.stopped_in is None
    assert h.worker.yielded == 0
    assert h.ready_count() == 1  # a paused run says nothing; the resumed one says "ready"
