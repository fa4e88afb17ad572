"""Index runs in a child process, so indexing never competes with queries for the GIL.

The server's worker thread stays the scheduler (debounce, scan, pause); each run it starts is
carried out by a child process that loads its own embedder and writes through the same
``Indexer`` as ``vaultheat index``, under the same single-writer lock. The server keeps its
read-only view and its own model for queries; it refreshes the view whenever the child reports
a committed batch.

The child leaves one CPU core to the server: it runs on all cores but one (CPU affinity, which
its model and hnswlib threads inherit; the model's thread count follows unless configured), so
a full re-index cannot starve queries on a small machine; ``--low-priority`` also nices it.
``index.cpus`` / ``index.nice`` (``serve --index-cpus``) tighten that budget (cpu_budget.py).

The child is forked from a ``forkserver`` (``spawn`` where there is none) that has imported the
indexer once, so starting one costs milliseconds, not an interpreter start; it stays for
``LINGER_S`` after a run (a burst of edits reuses its loaded model) and then exits, so an idle
server does not hold a second model for long.

Messages (child → server): ``("progress", stage, done, total)`` after every committed batch,
``("done", IndexReport)``, ``("error", code, message)``. Server → child: ``("run", full, only)``,
``("stop",)`` (finish the batch in flight, save, report), ``("exit",)``. The child also stops
after its batch on SIGTERM/SIGINT and when the server's end of the pipe closes (the server
died). A child killed outright (kill -9, out of memory) loses only its uncommitted batch: the
server reports an error and the next run (the periodic scan at the latest) repairs the rest.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import pickle
import queue
import signal
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any

from vaultheat.config import Settings
from vaultheat.cpu_budget import apply_cpu_budget
from vaultheat.errors import IndexProcessError, VaultheatError
from vaultheat.indexing.report import IndexReport, ProgressFn
from vaultheat.indexing.run import Indexer
from vaultheat.paths import IndexPaths
from vaultheat.providers.base import Embedder

log = logging.getLogger("vaultheat.server.indexproc")

LINGER_S = 60.0  # a child with no run for this long exits (its model with it)
POLL_S = 0.1  # how often the server checks a running child for a stop request or its death
STOP_GRACE_S = 5.0  # on close: how long the child may take to finish its batch before a kill
LOW_PRIORITY_NICE = 10


@dataclass(frozen=True)
class ChildSpec:
    """What a child needs to index: picklable. ``embedder`` is sent to the child only when the
    server was handed one (tests, benchmarks); otherwise the child builds its own from
    ``settings.embeddings`` (never shipping a loaded model between processes)."""

    paths: IndexPaths
    settings: Settings
    embedder: Embedder | None = None
    low_priority: bool = False
    linger_s: float = LINGER_S
    cpus: int | None = None  # cores the child may run on (None: all)


def index_cpus() -> int | None:
    """All usable cores but one, for the index child (None on a one-core machine)."""
    try:
        usable = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        usable = os.cpu_count() or 1
    return usable - 1 if usable > 1 else None


def _limit_cpus(spec: ChildSpec) -> ChildSpec:
    """Nice the child (``--low-priority``, ``index.nice``), pin it to ``spec.cpus`` cores
    capped by ``index.cpus``, and size the model's threads to match."""
    nice = LOW_PRIORITY_NICE if spec.low_priority else 0
    settings = apply_cpu_budget(spec.settings, default_cpus=spec.cpus, min_nice=nice)
    return replace(spec, settings=settings)


def error_for(code: str, message: str) -> VaultheatError:
    """The project error with this code (the child's error, re-raised in the server)."""
    stack: list[type[VaultheatError]] = [VaultheatError]
    while stack:
        cls = stack.pop()
        if cls.code == code:
            return cls(message)
        stack.extend(cls.__subclasses__())
    err = VaultheatError(message)
    err.code = code
    return err


def picklable(obj: object) -> bool:
    try:
        pickle.dumps(obj)
    except Exception:
        return False
    return True


def _context() -> Any:  # ForkServerContext | SpawnContext
    methods = multiprocessing.get_all_start_methods()
    if "forkserver" in methods:
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload([__name__])
        return ctx
    return multiprocessing.get_context("spawn")


class IndexProcess:
    """The server's handle on its index child (used from the worker thread only, except
    ``close``, which may come from the shutdown path once the worker thread is done)."""

    def __init__(self, spec: ChildSpec) -> None:
        self.spec = spec
        self._proc: BaseProcess | None = None
        self._conn: Connection | None = None
        self._send_lock = threading.Lock()
        self.started = 0  # children started so far

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None and self._proc.is_alive() else None

    def run(
        self,
        *,
        full: bool,
        only: Sequence[str] | None,
        progress: ProgressFn,
        should_stop: Callable[[], bool],
        on_commit: Callable[[], None],
        must_end: Callable[[], bool] = lambda: False,
    ) -> IndexReport:
        """One index run in the child; blocks until it reports (or dies).

        ``should_stop`` (pause or shutdown) asks the child to stop after its batch in flight;
        ``must_end`` (shutdown) also kills it when that takes longer than ``STOP_GRACE_S``: the
        uncommitted batch is all that is lost, and shutdown stays fast whatever the model.
        """
        job = ("run", full, list(only) if only is not None else None)
        conn = self._ensure()
        if not self._send(job):  # it exited on its own (linger) just now: start a fresh one
            self._reap()
            conn = self._ensure()
            self._send(job)
        stop_sent: float | None = None
        while True:
            if stop_sent is None and should_stop():
                stop_sent = time.monotonic() if self._send(("stop",)) else None
            if (
                stop_sent is not None
                and must_end()
                and time.monotonic() - stop_sent > STOP_GRACE_S
                and self._proc is not None
            ):
                log.warning("index process did not stop within %.0f s; killing it", STOP_GRACE_S)
                self._proc.kill()
                raise self._died(killed=True)
            try:
                ready = conn.poll(POLL_S)
                msg = conn.recv() if ready else None
            except (EOFError, OSError):
                msg = None
                ready = True
            if msg is None:
                if ready or not self._alive():
                    raise self._died()
                continue
            kind = msg[0]
            if kind == "progress":
                on_commit()
                progress(msg[1], msg[2], msg[3])
            elif kind == "done":
                on_commit()
                report: IndexReport = msg[1]
                return report
            elif kind == "error":
                on_commit()
                raise error_for(msg[1], msg[2])

    def close(self, grace_s: float = STOP_GRACE_S) -> None:
        """End the child: ask, then wait ``grace_s`` for its batch in flight, then kill."""
        proc = self._proc
        if proc is None:
            return
        self._send(("stop",))
        self._send(("exit",))
        proc.join(grace_s)
        if proc.is_alive():
            log.warning("index process %s still busy after %.0f s; killing it", proc.pid, grace_s)
            proc.kill()
            proc.join(5)
        self._reap()

    # -- internals ----------------------------------------------------------------------------
    def _ensure(self) -> Connection:
        if self._conn is not None and self._alive():
            return self._conn
        self._reap()
        ctx = _context()
        parent, child = ctx.Pipe(duplex=True)
        proc = ctx.Process(
            target=child_main, args=(self.spec, child), name="vaultheat-index", daemon=True
        )
        proc.start()
        child.close()
        self._proc, self._conn = proc, parent
        self.started += 1
        return parent

    def _alive(self) -> bool:
        return self._proc is not None and self._proc.is_alive()

    def _send(self, msg: tuple[Any, ...]) -> bool:
        if self._conn is None:
            return False
        try:
            with self._send_lock:
                self._conn.send(msg)
        except (OSError, ValueError):
            return False
        return True

    def _died(self, *, killed: bool = False) -> VaultheatError:
        proc = self._proc
        if proc is not None:
            proc.join(5)
        code = proc.exitcode if proc is not None else None
        self._reap()
        if killed:
            return IndexProcessError("index run stopped at shutdown; its last batch was dropped")
        how = f"killed by signal {-code}" if code is not None and code < 0 else f"exit {code}"
        return IndexProcessError(
            f"the index process died ({how}); committed batches are kept, the rest is "
            "indexed on the next run"
        )

    def _reap(self) -> None:
        if self._conn is not None:
            self._conn.close()
        if self._proc is not None and not self._proc.is_alive():
            self._proc.join(0)
            self._proc.close()
        self._proc = self._conn = None


# -- the child ----------------------------------------------------------------------------------
class _Inbox:
    """The child's reader thread: messages into a queue, stop requests into a flag (so the
    indexer's ``should_stop`` sees them between batches), end of pipe = the server is gone."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self.stop = threading.Event()
        self.gone = threading.Event()
        self.messages: queue.Queue[tuple[Any, ...]] = queue.Queue()
        threading.Thread(target=self._read, name="vaultheat-index-inbox", daemon=True).start()

    def _read(self) -> None:
        while True:
            try:
                msg = self.conn.recv()
            except (EOFError, OSError):
                self.gone.set()
                self.stop.set()
                self.messages.put(("exit",))
                return
            if msg[0] in ("stop", "exit"):
                self.stop.set()
            self.messages.put(msg)


def child_main(spec: ChildSpec, conn: Connection) -> None:
    """Entry point of the index process: serve runs until told to exit, orphaned or idle."""
    spec = _limit_cpus(spec)  # first: Linux nice is per thread, later threads inherit it
    inbox = _Inbox(conn)

    def on_signal(signum: int, frame: Any) -> None:
        inbox.stop.set()
        inbox.messages.put(("exit",))

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    embedder = spec.embedder
    if embedder is None:
        from vaultheat.providers.registry import make_embedder

        embedder = make_embedder(spec.settings.embeddings)
    last = time.monotonic()
    while True:
        try:
            msg = inbox.messages.get(timeout=max(0.0, last + spec.linger_s - time.monotonic()))
        except queue.Empty:
            return  # idle for linger_s: free the model
        if msg[0] == "exit" or inbox.gone.is_set():
            return
        if msg[0] != "run":
            continue  # a stop with no run in flight
        inbox.stop.clear()
        _child_run(spec, embedder, conn, inbox, full=bool(msg[1]), only=msg[2])
        last = time.monotonic()


def _child_run(
    spec: ChildSpec,
    embedder: Embedder,
    conn: Connection,
    inbox: _Inbox,
    *,
    full: bool,
    only: list[str] | None,
) -> None:
    def progress(stage: str, done: int, total: int) -> None:
        _reply(conn, ("progress", stage, done, total))

    indexer = Indexer(
        spec.paths, spec.settings, embedder, progress=progress, should_stop=inbox.stop.is_set
    )
    try:
        report = indexer.run(full=full, only=only)
    except VaultheatError as exc:
        _reply(conn, ("error", exc.code, exc.message))
    except Exception as exc:  # reported, and the child stays usable for the next run
        log.exception("index run failed")
        _reply(conn, ("error", "internal", f"index run failed: {exc}"))
    else:
        _reply(conn, ("done", report))


def _reply(conn: Connection, msg: tuple[Any, ...]) -> None:
    with contextlib.suppress(OSError, ValueError):  # the server is gone: the inbox saw it too
        conn.send(msg)
