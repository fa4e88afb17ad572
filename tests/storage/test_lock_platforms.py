"""The writer lock on each platform: POSIX ``flock`` for real, Windows' ``msvcrt.locking`` path
with a stand-in ``msvcrt`` that enforces byte-range locks per handle as Windows does."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from pathlib import Path

import pytest

from vaultheat.errors import IndexLockedError
from vaultheat.storage.lock import (
    WINDOWS_LOCK_OFFSET,
    FileLock,
    FlockLocker,
    MsvcrtLocker,
    WriterLock,
    holder_pid,
    os_locker,
)

SIDECAR = Path(__file__).resolve().parents[2] / "sidecar"


class FakeMsvcrt:
    """``msvcrt.locking`` as Windows behaves: the range starts at the file position; a range
    held through another handle (even in this process) fails LK_NBLCK with EACCES."""

    LK_NBLCK = 2
    LK_UNLCK = 0

    def __init__(self) -> None:
        self.held: dict[tuple[int, int, int], int] = {}  # (dev, inode, offset) -> fd
        self.calls: list[tuple[int, int]] = []  # (mode, offset)

    def locking(self, fd: int, mode: int, nbytes: int) -> None:
        st = os.fstat(fd)
        offset = os.lseek(fd, 0, os.SEEK_CUR)
        self.calls.append((mode, offset))
        key = (st.st_dev, st.st_ino, offset)
        owner = self.held.get(key)
        if mode == self.LK_NBLCK:
            if owner is not None:
                raise OSError(errno.EACCES, "Permission denied")
            self.held[key] = fd
        elif mode == self.LK_UNLCK:
            if owner != fd:
                raise OSError(errno.EACCES, "Permission denied")
            del self.held[key]


def test_os_locker_picks_per_platform() -> None:
    assert isinstance(os_locker("linux"), FlockLocker)
    assert isinstance(os_locker("darwin"), FlockLocker)
    assert isinstance(FileLock(Path("x")).locker, FlockLocker)  # this machine is POSIX


@pytest.mark.parametrize("kind", ["posix", "windows"])
def test_lock_is_exclusive_names_the_holder_and_is_released(tmp_path: Path, kind: str) -> None:
    fake = FakeMsvcrt()

    def locker() -> FlockLocker | MsvcrtLocker:
        return FlockLocker() if kind == "posix" else MsvcrtLocker(fake)

    path = tmp_path / "writer.lock"
    with WriterLock(path, locker()):
        assert path.read_text() == str(os.getpid())  # the loser can read the pid
        assert holder_pid(path) == os.getpid()
        with pytest.raises(IndexLockedError) as info:
            WriterLock(path, locker()).acquire()
        assert info.value.message == (
            f"another vaultheat process (pid {os.getpid()}) is writing this index; "
            "wait for it to finish or stop it"
        )
        assert path.read_text() == str(os.getpid())  # the loser left it alone
    assert path.read_text() == ""
    assert holder_pid(path) is None
    with WriterLock(path, locker()):  # free again
        pass
    if kind == "windows":
        assert fake.held == {}
        assert {offset for _, offset in fake.calls} == {WINDOWS_LOCK_OFFSET}


def test_windows_lock_errors_other_than_a_held_range_propagate(tmp_path: Path) -> None:
    class Broken(FakeMsvcrt):
        def locking(self, fd: int, mode: int, nbytes: int) -> None:
            raise OSError(errno.EBADF, "Bad file descriptor")

    with pytest.raises(OSError) as info:
        FileLock(tmp_path / "writer.lock", MsvcrtLocker(Broken())).acquire()
    assert info.value.errno == errno.EBADF


HOLD = """
import sys
from pathlib import Path
from vaultheat.storage.lock import WriterLock
with WriterLock(Path(sys.argv[1])):
    print("held", flush=True)
    sys.stdin.read()
"""


def test_flock_is_dropped_when_the_holder_is_killed(tmp_path: Path) -> None:
    path = tmp_path / "writer.lock"
    env = {**os.environ, "PYTHONPATH": str(SIDECAR)}
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=env,
        text=True,
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline() == "held\n"
        assert holder_pid(path) == proc.pid
        with pytest.raises(IndexLockedError, match=f"pid {proc.pid}"):
            WriterLock(path).acquire()
    finally:
        proc.kill()
        proc.wait(30)
        for stream in (proc.stdin, proc.stdout):
            if stream is not None:
                stream.close()
    assert holder_pid(path) is None  # its pid is still written, but names no live process
    with WriterLock(path):
        pass
