"""Read transactions on the index: one query reads one committed state of the database.

Why a pool: the engine's store is one SQLite connection shared by the query threads, and each
SELECT on it autocommits, so a query running while the index child commits could read its
chunks from one generation and its rows from the next. A read transaction (WAL mode: a snapshot
taken at its first read, held until it ends) needs a connection of its own, so each query takes
one from this pool for its duration. Connections are opened on demand and at most ``keep``
idle ones are kept; one costs about a millisecond to open and a few hundred KB of page cache.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from vaultheat.storage.store import Store

KEEP = 8  # idle connections kept (the server's query threads, and a few more)


class Snapshots:
    def __init__(self, path: Path, *, keep: int = KEEP) -> None:
        self.path = path
        self.keep = keep
        self._idle: list[Store] = []
        self._lock = threading.Lock()
        self._closed = False

    @contextmanager
    def read(self) -> Iterator[Store]:
        """A read-only store inside a read transaction: every read sees the same commit."""
        with self._lock:
            store = self._idle.pop() if self._idle else None
        if store is None:
            store = Store(self.path, readonly=True)
        ok = False
        try:
            store.db.execute("BEGIN")
            yield store
            ok = True
        finally:
            self._release(store, ok)

    def _release(self, store: Store, ok: bool) -> None:
        try:
            if store.db.in_transaction:
                store.db.execute("COMMIT" if ok else "ROLLBACK")
        except sqlite3.Error:
            ok = False
        with self._lock:
            if ok and not self._closed and len(self._idle) < self.keep:
                self._idle.append(store)
                return
        store.close()

    def close(self) -> None:
        """Close the idle connections; one in use is closed when it is given back."""
        with self._lock:
            idle, self._idle = self._idle, []
            self._closed = True
        for store in idle:
            store.close()
