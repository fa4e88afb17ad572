"""The background index worker: the one thread that decides when the server's index runs.

Three things make it run ``engine.index``: note events from the plugin (debounced: a burst of
saves of one note becomes one run), explicit requests (``POST /v1/index``) and a periodic scan
that catches edits made outside Obsidian (sync, git). Every run is incremental and stat-first,
so the scan costs a directory walk when nothing changed and the worker sleeps on a condition
variable in between: an idle server uses no CPU.

Each run is carried out by a child process (``server.indexproc``) when one is given, else in
this thread (an embedder that cannot be sent to a child). Stopping and pausing use the
indexer's ``should_stop`` hook, checked between batches: the batch in flight is committed
(each batch is one transaction), the rest is left for the next run, and the vector file is
saved. A run cut short by a pause is resumed after ``resume``. A run past its words phase
(embedding, language detection) also yields to note changes that are due: it stops the same way
and a request run follows, which indexes the changed notes by their words first and then carries
the meaning phase on, so a note saved during a long first index is found in seconds, not minutes.
Which notes a run wrote comes from its report (``note_indexed`` events), not from reading the
index around the run.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from vaultheat import index_status
from vaultheat.engine import Engine
from vaultheat.errors import IndexMissingError, VaultheatError
from vaultheat.indexing.report import IndexReport
from vaultheat.server.indexproc import IndexProcess
from vaultheat.storage.vectorsync import MULTILINGUAL

log = logging.getLogger("vaultheat.server.worker")

Emit = Callable[[str, dict[str, Any]], None]

LOW_PRIORITY_NICE = 10
PROGRESS_EVERY_S = 0.1
MAX_DELAY_FACTOR = 10  # a steady stream of events still indexes after 10 debounce periods
MIN_MAX_DELAY_S = 2.0
# the stages past the words phase (and its graph): a run in one of them yields to due changes
YIELDING_STAGES = frozenset({"meaning", "languages", MULTILINGUAL})


@dataclass(frozen=True)
class Job:
    kind: str  # "full" | "request" (explicit or at start) | "changes" | "scan" (periodic)
    full: bool = False
    only: tuple[str, ...] | None = None


def lower_thread_priority(increment: int = LOW_PRIORITY_NICE) -> bool:
    """Lower the calling thread's scheduling priority (Linux: per thread), if the OS lets us.

    Threads the model starts from this thread (e.g. torch's pool) inherit it.
    """
    try:
        tid = threading.get_native_id()
        current = os.getpriority(os.PRIO_PROCESS, tid)
        os.setpriority(os.PRIO_PROCESS, tid, min(19, current + increment))
    except (OSError, AttributeError):
        return False
    return True


def progress_doc(stage: str, done: int, total: int, started: float, now: float) -> dict[str, Any]:
    """``{stage, done, total, rate, eta_s}``: rate in items/s since the stage began."""
    elapsed = now - started
    # like the CLI's bar: no rate before 2 s of work (the first tick would claim millions/s)
    rate = done / elapsed if elapsed >= 2.0 and done > 0 else None
    eta = (total - done) / rate if rate else None
    return {
        "stage": stage,
        "done": done,
        "total": total,
        "rate": round(rate, 2) if rate is not None else None,
        "eta_s": round(eta, 2) if eta is not None else None,
    }


class IndexWorker:
    def __init__(
        self,
        engine: Engine,
        *,
        debounce_s: float,
        scan_interval_s: float,
        emit: Emit,
        low_priority: bool = False,
        warm_up: bool = True,
        process: IndexProcess | None = None,
    ) -> None:
        self.engine = engine
        self.process = process
        self.debounce_s = max(0.0, debounce_s)
        self.scan_interval_s = scan_interval_s
        self.max_delay_s = max(MIN_MAX_DELAY_S, MAX_DELAY_FACTOR * self.debounce_s)
        self.emit = emit
        self.low_priority = low_priority
        self.warm_up = warm_up
        self._cond = threading.Condition()
        self._changed: dict[str, float] = {}
        self._first_change = 0.0
        self._last_change = 0.0
        self._full = False
        self._requested = True  # catch up with edits made while no server ran
        self._next_scan = float("inf")
        self._paused = False
        self._stopping = False
        self._thread: threading.Thread | None = None
        # observed by the HTTP handlers (plain attribute reads, written by the worker thread)
        self.busy = False
        self._announced = False  # this run shows as "indexing" (periodic scans: once they work)
        self.progress: dict[str, Any] | None = None
        self.last_error: str | None = None
        self.last_report: dict[str, Any] | None = None
        self.runs: list[Job] = []
        self.yielded = 0  # runs that stopped early for queued note changes
        self._yielding = False  # this run was asked to stop for queued note changes
        self.state = "incomplete"
        self._stage = ""
        self._stage_started = 0.0
        self._last_progress_emit = 0.0

    # -- control (any thread) -----------------------------------------------------------------
    def start(self) -> None:
        self._thread = threading.Thread(target=self._main, name="vaultheat-index", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Ask the worker to end after the batch in flight (non-blocking)."""
        with self._cond:
            self._stopping = True
            self._cond.notify_all()

    def join(self, timeout: float | None = None) -> bool:
        """Wait for the thread to end; True when it did."""
        if self._thread is None:
            return True
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def notify_changed(self, paths: Sequence[str]) -> int:
        """Queue vault-relative paths reported changed; returns how many are queued now."""
        now = time.monotonic()
        with self._cond:
            if paths and not self._changed:
                self._first_change = now
            for p in paths:
                self._changed[p] = now
            if paths:
                self._last_change = now
            self._cond.notify_all()
            return len(self._changed)

    def request(self, *, full: bool = False) -> None:
        with self._cond:
            if full:
                self._full = True
            else:
                self._requested = True
            self._cond.notify_all()

    def pause(self) -> None:
        with self._cond:
            self._paused = True
            self._cond.notify_all()

    def resume(self) -> None:
        with self._cond:
            self._paused = False
            self._cond.notify_all()

    @property
    def paused(self) -> bool:
        return self._paused

    @property
    def indexing(self) -> bool:
        """Whether a run that does (or was asked to do) work is in progress."""
        return self.busy and (self._announced or self.progress is not None)

    @property
    def idle(self) -> bool:
        """Nothing running and nothing waiting (paused work counts as waiting)."""
        with self._cond:
            return not (self.busy or self._full or self._requested or self._changed)

    @property
    def queued(self) -> int:
        with self._cond:
            return len(self._changed)

    def snapshot(self) -> dict[str, Any]:
        """What status documents add to the engine's view."""
        with self._cond:
            return {
                "indexing": self.indexing,
                "progress": dict(self.progress) if self.progress else None,
                "last_error": self.last_error,
                "paused": self._paused,
                "queue": len(self._changed) + (1 if self._full or self._requested else 0),
            }

    # -- the thread ---------------------------------------------------------------------------
    def _main(self) -> None:
        # with a child process, the child lowers its own priority and this thread (which loads
        # the query model at warm-up) keeps the server's
        if self.low_priority and self.process is None and not lower_thread_priority():
            log.warning("could not lower the index worker's priority")
        self._refresh_state()
        if self.warm_up:
            self._warm_up()
        try:
            while True:
                job = self._next_job()
                if job is None:
                    return
                self._run(job)
        finally:
            if self.process is not None:
                self.process.close()

    def _next_job(self) -> Job | None:
        with self._cond:
            while True:
                if self._stopping:
                    return None
                now = time.monotonic()
                if not self._paused:
                    job = self._take_due(now)
                    if job is not None:
                        self.busy = True  # in the same critical section: never seen idle
                        self._announced = job.kind != "scan"
                        self.progress = None
                        return job
                self._cond.wait(None if self._paused else self._wait_time(now))

    def _take_due(self, now: float) -> Job | None:
        """The job due now, if any (called with the condition held)."""
        if self._full:
            self._full = self._requested = False
            self._changed.clear()
            return Job("full", full=True)
        if self._requested:
            self._requested = False
            self._changed.clear()
            return Job("request")
        if self._changes_due(now):
            only = tuple(sorted(self._changed))
            self._changed.clear()
            return Job("changes", only=only)
        if now >= self._next_scan:
            return Job("scan")
        return None

    def _changes_due(self, now: float) -> bool:
        """Whether queued changes are past their debounce (called with the condition held)."""
        return bool(self._changed) and (
            now - self._last_change >= self.debounce_s
            or now - self._first_change >= self.max_delay_s
        )

    def _wait_time(self, now: float) -> float | None:
        deadlines = [self._next_scan]
        if self._changed:
            deadlines.append(
                min(self._last_change + self.debounce_s, self._first_change + self.max_delay_s)
            )
        soonest = min(deadlines)
        if soonest == float("inf"):
            return None
        return max(0.0, soonest - now)

    def _should_stop(self) -> bool:
        if self._stopping or self._paused:
            return True
        with self._cond:
            if not self._yielding and self._stage in YIELDING_STAGES:
                # past the words phase: due changes go first (their words in seconds), the rest
                # of the meaning phase is resumed by the request run that follows
                self._yielding = self._changes_due(time.monotonic())
            return self._yielding

    def _must_end(self) -> bool:
        return self._stopping

    def _index(self, job: Job) -> IndexReport:
        only = list(job.only) if job.only is not None else None
        if self.process is None:
            return self.engine.index(
                full=job.full, only=only, progress=self._on_progress, should_stop=self._should_stop
            )
        return self.process.run(
            full=job.full,
            only=only,
            progress=self._on_progress,
            should_stop=self._should_stop,
            must_end=self._must_end,
            on_commit=self.engine.views.refresh,
        )

    def _warm_up(self) -> None:
        """Load the model and the vectors once, before the first query needs them."""
        try:
            self.engine.models.embedder.embed_query("vaultheat warm-up")
            self.engine.index_view()
        except IndexMissingError:
            pass
        except VaultheatError as exc:
            self._fail(exc.code, exc.message)
        except Exception as exc:  # a broken model must not kill the worker
            log.exception("warm-up failed")
            self._fail("internal", f"warm-up failed: {exc}")

    def _run(self, job: Job) -> None:
        self.runs.append(job)
        self._stage = ""
        self._yielding = False
        try:
            report = self._index(job)
        except VaultheatError as exc:
            # a periodic scan repeating the error already reported stays quiet (no event spam
            # every scan while, say, the index waits for `index --full`)
            if job.kind != "scan" or exc.message != self.last_error:
                log.warning("index run failed: %s", exc.message)
                self._fail(exc.code, exc.message)
        except Exception as exc:
            log.exception("index run failed")
            self._fail("internal", f"index run failed: {exc}")
        else:
            self.last_report = report.to_dict()
            self.last_error = None
            with self._cond:
                interrupted = self._paused and not self._stopping
                if interrupted:
                    self._requested = True  # finish the rest after resume
                elif self._yielding and not self._stopping:
                    self.yielded += 1
                    self._requested = True  # the changes' words first, then the rest
            written = sorted(set(report.written))
            for path in written:
                self.emit("note_indexed", {"path": path})
            if not interrupted and (job.kind != "scan" or written or report.removed):
                self.emit("ready", self._counts())
        finally:
            self._refresh_state()
            with self._cond:
                self.busy = False
                self.progress = None
                if self.scan_interval_s > 0:
                    self._next_scan = time.monotonic() + self.scan_interval_s

    def _on_progress(self, stage: str, done: int, total: int) -> None:
        now = time.monotonic()
        if stage != self._stage:
            self._stage, self._stage_started = stage, now
        doc = progress_doc(stage, done, total, self._stage_started, now)
        with self._cond:
            self.progress = doc
        if done >= total or now - self._last_progress_emit >= PROGRESS_EVERY_S:
            self._last_progress_emit = now
            self.emit("progress", doc)

    def _fail(self, code: str, message: str) -> None:
        self.last_error = message
        self.emit("error", {"code": code, "message": message})

    def _counts(self) -> dict[str, Any]:
        try:
            store = self.engine.views.store()
            return {"notes": store.note_count(), "chunks": store.chunk_count()}
        except Exception:
            return {"notes": 0, "chunks": 0}

    def _refresh_state(self) -> None:
        try:
            self.state = index_status.freshness(self.engine).state
        except VaultheatError as exc:
            self.state = "stale" if exc.code == "index_mismatch" else "incomplete"
        except Exception:
            log.debug("status failed", exc_info=True)
