"""Is process ``pid`` alive? Per platform, because ``os.kill(pid, 0)`` is no probe on Windows.

POSIX: signal 0 checks that the pid exists without sending anything, and ``/proc`` (Linux) tells
an exited but unreaped process (a zombie) from a live one. Windows: ``os.kill(pid, 0)`` sends
CTRL_C_EVENT (0) to a console process group, and any other signal number terminates the process,
so the probe opens the process and asks whether its handle is signalled (``WaitForSingleObject``
with a zero timeout): an exited process whose handle someone still holds counts as gone.

Each platform's logic takes its system calls as arguments, so both are tested on Linux.
"""

from __future__ import annotations

import ctypes
import functools
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

# Windows constants (winnt.h, winbase.h, winerror.h)
SYNCHRONIZE = 0x00100000
PROCESS_QUERY_LIMITED_INFORMATION = 0x1000
WAIT_OBJECT_0 = 0x0
WAIT_TIMEOUT = 0x102
ERROR_ACCESS_DENIED = 5
BELOW_NORMAL_PRIORITY_CLASS = 0x4000

PLATFORM = sys.platform  # a seam for tests


def pid_alive(pid: int) -> bool:
    """Whether a process with this pid exists (on Windows: exists and has not exited)."""
    if pid <= 0:
        return False
    if PLATFORM == "win32":
        return windows_pid_alive(pid, *_win32())
    return posix_pid_alive(pid, os.kill)


def process_running(pid: int) -> bool:
    """Whether ``pid`` is a live process: one that has exited but was not reaped yet (a zombie,
    state ``Z`` in ``/proc``) counts as gone."""
    if not pid_alive(pid):
        return False
    if PLATFORM == "win32":
        return True  # pid_alive already tells an exited process from a running one
    return not _zombie(Path(f"/proc/{pid}/stat"))


def posix_pid_alive(pid: int, kill: Callable[[int, int], None]) -> bool:
    """Signal 0 checks without sending anything."""
    try:
        kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, owned by someone else
        return True
    return True


def windows_pid_alive(pid: int, kernel32: Any, get_last_error: Callable[[], int]) -> bool:
    """``OpenProcess`` + ``WaitForSingleObject(handle, 0)``: a timeout means still running. A
    process that exists but may not be opened (another user's, a protected one) counts as alive,
    as POSIX's EPERM does; any other failure to open means no such process."""
    handle = kernel32.OpenProcess(SYNCHRONIZE | PROCESS_QUERY_LIMITED_INFORMATION, False, pid)
    if not handle:
        return bool(get_last_error() == ERROR_ACCESS_DENIED)
    try:
        return bool(kernel32.WaitForSingleObject(handle, 0) == WAIT_TIMEOUT)
    finally:
        kernel32.CloseHandle(handle)


def windows_below_normal_priority(kernel32: Any) -> bool:
    """Put this process in the below-normal priority class (threads it starts later follow)."""
    return bool(
        kernel32.SetPriorityClass(kernel32.GetCurrentProcess(), BELOW_NORMAL_PRIORITY_CLASS)
    )


def win32_kernel32() -> Any:  # pragma: no cover - Windows only
    return _win32()[0]


def _zombie(stat_path: Path) -> bool:
    try:
        stat = stat_path.read_text(encoding="ascii", errors="replace")
    except OSError:
        return False  # no /proc (macOS): signal 0 is all there is
    return stat.rsplit(")", 1)[-1].split()[:1] == ["Z"]


@functools.cache
def _win32() -> tuple[Any, Callable[[], int]]:  # pragma: no cover - Windows only
    """kernel32 with the functions used here typed, and ctypes' per-thread last error."""
    from ctypes import wintypes

    k32 = ctypes.WinDLL("kernel32", use_last_error=True)  # type: ignore[attr-defined]
    k32.OpenProcess.argtypes = [wintypes.DWORD, wintypes.BOOL, wintypes.DWORD]
    k32.OpenProcess.restype = wintypes.HANDLE
    k32.WaitForSingleObject.argtypes = [wintypes.HANDLE, wintypes.DWORD]
    k32.WaitForSingleObject.restype = wintypes.DWORD
    k32.CloseHandle.argtypes = [wintypes.HANDLE]
    k32.CloseHandle.restype = wintypes.BOOL
    k32.GetCurrentProcess.argtypes = []
    k32.GetCurrentProcess.restype = wintypes.HANDLE
    k32.SetPriorityClass.argtypes = [wintypes.HANDLE, wintypes.DWORD]
    k32.SetPriorityClass.restype = wintypes.BOOL
    return k32, ctypes.get_last_error  # type: ignore[attr-defined]
