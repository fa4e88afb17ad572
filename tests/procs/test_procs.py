"""Process liveness per platform: POSIX for real, Windows' logic with kernel32 stood in."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from vaultheat import procs
from vaultheat.procs import (
    ERROR_ACCESS_DENIED,
    SYNCHRONIZE,
    WAIT_OBJECT_0,
    WAIT_TIMEOUT,
    pid_alive,
    posix_pid_alive,
    process_running,
    windows_pid_alive,
)


def test_posix_live_dead_and_zombie_processes() -> None:
    assert pid_alive(os.getpid()) and process_running(os.getpid())
    assert not pid_alive(0) and not pid_alive(-1)
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    try:
        os.waitid(os.P_PID, child.pid, os.WEXITED | os.WNOWAIT)  # exited, not reaped: a zombie
        assert pid_alive(child.pid)  # signal 0 still finds it
        if Path("/proc").is_dir():
            assert not process_running(child.pid)
    finally:
        child.wait()
    assert not pid_alive(child.pid) and not process_running(child.pid)


def test_posix_other_users_process_counts_as_alive() -> None:
    def kill(pid: int, sig: int) -> None:
        raise PermissionError(1, "Operation not permitted")

    assert posix_pid_alive(1234, kill)


class FakeKernel32:
    def __init__(self, *, opens: bool, wait: int = WAIT_TIMEOUT) -> None:
        self.opens, self.wait = opens, wait
        self.opened: list[tuple[int, bool, int]] = []
        self.closed: list[int] = []

    def OpenProcess(self, access: int, inherit: bool, pid: int) -> int:
        self.opened.append((access, inherit, pid))
        return 77 if self.opens else 0

    def WaitForSingleObject(self, handle: int, ms: int) -> int:
        assert (handle, ms) == (77, 0)
        return self.wait

    def CloseHandle(self, handle: int) -> bool:
        self.closed.append(handle)
        return True


@pytest.mark.parametrize(
    ("kernel32", "last_error", "alive"),
    [
        (FakeKernel32(opens=True, wait=WAIT_TIMEOUT), 0, True),  # running
        (FakeKernel32(opens=True, wait=WAIT_OBJECT_0), 0, False),  # exited, handle still held
        (FakeKernel32(opens=False), 87, False),  # ERROR_INVALID_PARAMETER: no such pid
        (FakeKernel32(opens=False), ERROR_ACCESS_DENIED, True),  # exists, may not be opened
    ],
)
def test_windows_pid_alive(kernel32: FakeKernel32, last_error: int, alive: bool) -> None:
    assert windows_pid_alive(4321, kernel32, lambda: last_error) is alive
    (access, inherit, pid) = kernel32.opened[0]
    assert access & SYNCHRONIZE and not inherit and pid == 4321
    assert kernel32.closed == ([77] if kernel32.opens else [])


def test_windows_never_signals_the_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """On Windows ``os.kill(pid, 0)`` would send CTRL_C_EVENT: the probe must not call it."""
    kernel32 = FakeKernel32(opens=True)

    def no_kill(pid: int, sig: int) -> None:
        raise AssertionError("os.kill called on Windows")

    monkeypatch.setattr(procs, "PLATFORM", "win32")
    monkeypatch.setattr(procs.os, "kill", no_kill)
    monkeypatch.setattr(procs, "_win32", lambda: (kernel32, lambda: 0))
    assert pid_alive(4321) and process_running(4321)
    kernel32.wait = WAIT_OBJECT_0
    assert not pid_alive(4321) and not process_running(4321)
