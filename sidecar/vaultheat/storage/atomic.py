"""Crash-safe file replacement: a reader sees the old file or the new one, never half of one.

The recipe is the classic one: write a temporary file in the *same directory* (``os.replace`` is
only atomic within one file system), flush and fsync it, rename it over the target, then fsync
the directory so the rename itself survives a power cut. The cost is two fsyncs per file, which
is fine for index files written once per indexing pass, not per keystroke.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


def temp_path_beside(path: Path) -> Path:
    """A fresh, unused file name in ``path``'s directory (the file is created empty)."""
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    return Path(name)


def fsync_file(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def fsync_dir(path: Path) -> None:
    """Persist a directory entry change (rename). A no-op where directories cannot be opened."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:  # Windows: directories cannot be opened; NTFS journals the rename
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_replace_from(tmp_path: Path, path: Path) -> None:
    """Fsync ``tmp_path`` (written by someone else), rename it onto ``path``, fsync the directory.

    ``tmp_path`` must live in the same directory as ``path``; on failure it is removed.
    """
    tmp_path, path = Path(tmp_path), Path(path)
    if tmp_path.parent.resolve() != path.parent.resolve():
        raise ValueError(f"{tmp_path} is not in the directory of {path}: rename is not atomic")
    try:
        fsync_file(tmp_path)
        os.replace(tmp_path, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp_path.unlink()
        raise
    fsync_dir(path.parent)


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically and durably."""
    path = Path(path)
    tmp = temp_path_beside(path)
    try:
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    atomic_replace_from(tmp, path)
