"""How clients find a running server, and how a second ``serve`` finds out it is not alone.

The discovery file ``<index_dir>/server.json`` carries the address and the bearer token. It is
created with mode 0600 (and replaced atomically, so a reader never sees half a file): the token
is the only thing standing between a local web page and the user's notes, so no other user of
the machine may read it. On Windows mode bits mean nothing: the file inherits the index folder's
ACL, which nothing here checks. A file whose pid is gone (a crash, ``kill -9``) is *stale* and
ignored.

The single-instance rule rests on an OS lock (``storage/lock.py``) of ``server.lock`` held for
the whole life of the server, not on the discovery file: the OS drops the lock when the process
dies, so two servers starting at the same moment cannot both win and a crash never blocks the
next start. The discovery file then only tells the loser where the winner is.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from vaultheat.procs import pid_alive
from vaultheat.storage.lock import FileLock

DISCOVERY_MODE = 0o600


@dataclass(frozen=True)
class ServerInfo:
    url: str
    host: str
    port: int
    pid: int
    token: str
    vault: str
    started_at: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def __repr__(self) -> str:  # never print the token by accident
        return f"ServerInfo(url={self.url!r}, pid={self.pid}, vault={self.vault!r})"


def format_url(host: str, port: int) -> str:
    """``http://host:port`` with IPv6 literals bracketed."""
    shown = f"[{host}]" if ":" in host and not host.startswith("[") else host
    return f"http://{shown}:{port}"


def now_iso() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")


def write_discovery(path: Path, info: ServerInfo) -> None:
    """Write ``info`` to ``path`` atomically, readable and writable by the user only."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with contextlib.suppress(FileNotFoundError):
        tmp.unlink()
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, DISCOVERY_MODE)
    try:
        if hasattr(os, "fchmod"):  # POSIX, whatever the umask said (Windows: the folder's ACL)
            os.fchmod(fd, DISCOVERY_MODE)
        os.write(fd, json.dumps(info.to_dict(), indent=2).encode("utf-8"))
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)


def read_discovery(path: Path) -> ServerInfo | None:
    """The file's contents, or None when it is missing or not a discovery document."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return ServerInfo(
            url=str(data["url"]),
            host=str(data["host"]),
            port=int(data["port"]),
            pid=int(data["pid"]),
            token=str(data["token"]),
            vault=str(data["vault"]),
            started_at=str(data["started_at"]),
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None


def running_server(path: Path) -> ServerInfo | None:
    """The live server described by the discovery file; None when absent or stale."""
    info = read_discovery(path)
    if info is None or not pid_alive(info.pid):
        return None
    return info


def remove_discovery(path: Path, pid: int) -> bool:
    """Remove the file if it still describes process ``pid`` (never another server's file)."""
    info = read_discovery(path)
    if info is None or info.pid != pid:
        return False
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
    return True


class AlreadyServing(Exception):
    """Another server holds this index's server lock; ``info`` says where, when it can."""

    def __init__(self, info: ServerInfo | None) -> None:
        super().__init__("another vaultheat server is running for this vault")
        self.info = info


class ServerLock(FileLock):
    """An exclusive, non-blocking lock held while a server runs for one index."""

    def __init__(self, lock_path: Path, discovery_path: Path) -> None:
        super().__init__(lock_path)
        self.lock_path = lock_path
        self.discovery_path = discovery_path

    def busy(self, holder: str) -> Exception:
        return AlreadyServing(running_server(self.discovery_path))


def server_lock_path(discovery_path: Path) -> Path:
    return discovery_path.with_name("server.lock")
