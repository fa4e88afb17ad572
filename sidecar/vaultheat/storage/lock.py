"""One writer per index: an advisory ``flock`` on ``writer.lock``.

The kernel drops the lock when the process dies (even by kill -9), so a crash never leaves a
stale lock behind. Readers never take it.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from types import TracebackType
from typing import Self

from vaultheat.errors import IndexLockedError


class FileLock:
    """An exclusive, non-blocking ``flock`` on a file that records the holder's pid."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None

    def busy(self, holder: str) -> Exception:
        """The error to raise when another process holds the lock."""
        return RuntimeError(f"{self.path} is locked by pid {holder or '?'}")

    def acquire(self) -> Self:
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as exc:
            holder = os.read(fd, 64).decode(errors="replace").strip()
            os.close(fd)
            raise self.busy(holder) from exc
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        self._fd = fd
        return self

    def release(self) -> None:
        if self._fd is not None:
            os.ftruncate(self._fd, 0)  # an empty file: nobody holds it (see ``holder_pid``)
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> Self:
        return self.acquire()

    def __exit__(
        self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release()


def holder_pid(path: Path) -> int | None:
    """The pid of the live process holding the lock file, else None. Read-only: probing with
    ``flock`` would make a writer starting at that instant fail. The holder writes its pid and
    empties the file on release; a crashed holder's pid names no live process."""
    try:
        text = Path(path).read_text(encoding="ascii", errors="replace").strip()
    except OSError:
        return None
    if not text.isdigit():
        return None
    pid = int(text)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:  # alive, owned by another user
        return pid
    return pid


class WriterLock(FileLock):
    def busy(self, holder: str) -> Exception:
        return IndexLockedError(
            f"another vaultheat process (pid {holder or '?'}) is writing this index; "
            "wait for it to finish or stop it",
            lock=str(self.path),
        )
