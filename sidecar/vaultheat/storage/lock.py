"""One writer per index: an exclusive, non-blocking OS lock on ``writer.lock``.

The OS drops the lock when the process dies (even by kill -9 or TerminateProcess), so a crash
never leaves a stale lock behind. Readers never take it. The holder writes its pid at the start
of the file and empties it on release, so a loser (and ``holder_pid``) can name it.

Per platform (``os_locker``): POSIX ``flock`` on the whole file; Windows ``msvcrt.locking`` on
one byte far past the pid (``WINDOWS_LOCK_OFFSET``), because Windows byte-range locks are
mandatory and a lock on the pid's bytes would keep the loser from reading them. Both refuse a
second handle in the same process, as the tests expect. (``filelock`` was considered: on Windows
it locks byte zero, which hides the pid, and it deletes the file on release.)
"""

from __future__ import annotations

import errno
import os
import sys
from pathlib import Path
from types import TracebackType
from typing import Any, Protocol, Self

from vaultheat.errors import IndexLockedError
from vaultheat.procs import pid_alive

WINDOWS_LOCK_OFFSET = 2**30  # past any pid; locking beyond the end of a file is allowed there


class Locker(Protocol):
    def try_lock(self, fd: int) -> bool:
        """Take the exclusive lock without waiting; False when another handle holds it."""
        ...

    def unlock(self, fd: int) -> None: ...


class FlockLocker:
    """POSIX: ``flock`` (per open file description; the kernel drops it on exit)."""

    def __init__(self, fcntl_module: Any = None) -> None:
        if fcntl_module is None:
            import fcntl as fcntl_module
        self.fcntl = fcntl_module

    def try_lock(self, fd: int) -> bool:
        try:
            self.fcntl.flock(fd, self.fcntl.LOCK_EX | self.fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

    def unlock(self, fd: int) -> None:
        self.fcntl.flock(fd, self.fcntl.LOCK_UN)


class MsvcrtLocker:
    """Windows: ``msvcrt.locking`` of one byte at ``WINDOWS_LOCK_OFFSET`` (per handle; Windows
    releases it when the handle closes or the process ends)."""

    def __init__(self, msvcrt_module: Any = None) -> None:
        if msvcrt_module is None:
            import msvcrt as msvcrt_module
        self.msvcrt = msvcrt_module

    def try_lock(self, fd: int) -> bool:
        os.lseek(fd, WINDOWS_LOCK_OFFSET, os.SEEK_SET)
        try:
            self.msvcrt.locking(fd, self.msvcrt.LK_NBLCK, 1)
        except OSError as exc:
            if exc.errno in (errno.EACCES, errno.EDEADLK):  # held by another handle
                return False
            raise
        finally:
            os.lseek(fd, 0, os.SEEK_SET)
        return True

    def unlock(self, fd: int) -> None:
        os.lseek(fd, WINDOWS_LOCK_OFFSET, os.SEEK_SET)
        try:
            self.msvcrt.locking(fd, self.msvcrt.LK_UNLCK, 1)
        finally:
            os.lseek(fd, 0, os.SEEK_SET)


def os_locker(platform: str = sys.platform) -> Locker:
    return MsvcrtLocker() if platform == "win32" else FlockLocker()


class FileLock:
    """An exclusive, non-blocking lock on a file that records the holder's pid."""

    def __init__(self, path: Path, locker: Locker | None = None) -> None:
        self.path = path
        self.locker = locker or os_locker()
        self._fd: int | None = None

    def busy(self, holder: str) -> Exception:
        """The error to raise when another process holds the lock."""
        return RuntimeError(f"{self.path} is locked by pid {holder or '?'}")

    def acquire(self) -> Self:
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | getattr(os, "O_BINARY", 0), 0o600)
        try:
            locked = self.locker.try_lock(fd)
        except BaseException:
            os.close(fd)
            raise
        if not locked:
            holder = os.read(fd, 64).decode(errors="replace").strip()
            os.close(fd)
            raise self.busy(holder)
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        self._fd = fd
        return self

    def release(self) -> None:
        if self._fd is not None:
            os.ftruncate(self._fd, 0)  # an empty file: nobody holds it (see ``holder_pid``)
            try:
                self.locker.unlock(self._fd)
            finally:
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
    the lock would make a writer starting at that instant fail. The holder writes its pid and
    empties the file on release; a crashed holder's pid names no live process."""
    try:
        text = Path(path).read_text(encoding="ascii", errors="replace").strip()
    except OSError:
        return None
    if not text.isdigit():
        return None
    pid = int(text)
    return pid if pid_alive(pid) else None


class WriterLock(FileLock):
    def busy(self, holder: str) -> Exception:
        return IndexLockedError(
            f"another vaultheat process (pid {holder or '?'}) is writing this index; "
            "wait for it to finish or stop it",
            lock=str(self.path),
        )
