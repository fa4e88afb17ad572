"""What the handlers share: the engine, the index worker, the event broadcaster, a thread pool.

Everything that touches SQLite, hnswlib or the model runs in ``ServerState.call`` (a bounded
thread pool), never on the event loop, so health checks and event streams stay responsive
while a query embeds or the worker writes. Status documents are the engine's own plus what
only the server knows (progress, queue, pause, last error).
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import hashlib
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from aiohttp import web

from vaultheat import __version__
from vaultheat.config import ServerSettings
from vaultheat.documents import status_document
from vaultheat.engine import Engine
from vaultheat.server.events import Broadcaster
from vaultheat.server.worker import IndexWorker

T = TypeVar("T")


@dataclass
class ServerState:
    engine: Engine
    settings: ServerSettings
    worker: IndexWorker
    broadcaster: Broadcaster
    query_threads: int = 4
    executor: ThreadPoolExecutor | None = field(default=None, repr=False)
    # Set to end the server: by a signal, by `POST /v1/shutdown`, or when `--parent-pid` is gone.
    stop_requested: asyncio.Event = field(default_factory=asyncio.Event, repr=False)

    async def call(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run blocking ``fn`` in the query pool and await its result."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.executor, functools.partial(fn, *args, **kwargs))

    def health_doc(self) -> dict[str, Any]:
        state = "indexing" if self.worker.indexing else self.worker.state
        return {
            "schema": "vaultheat.health.v1",
            "status": "ok",
            "version": __version__,
            "state": state,
            "vault_id": vault_id(self.engine.paths.vault),
        }

    def status_doc(self) -> dict[str, Any]:
        """The engine's status completed with the server's own fields (blocking): while this
        server's worker runs, the state is ``indexing`` with its stage, whatever the index's."""
        status = self.engine.status()
        snap = self.worker.snapshot()
        if snap["indexing"]:
            progress = snap["progress"] or {}
            detail = (
                f"indexing: {progress['stage']} {progress['done']:,} of {progress['total']:,}"
                if progress.get("total")
                else "an index run is in progress"
            )
            index = dataclasses.replace(status.index, state="indexing", detail=detail)
            status = dataclasses.replace(status, index=index)
        server = {k: snap[k] for k in ("progress", "last_error", "paused", "queue")}
        return status_document(status, server)


def vault_id(vault: Path) -> str:
    """The first 16 hex digits of sha256 of the vault's resolved absolute path.

    Lets a client tell which vault a server serves (two vaults open side by side) without
    revealing the path to an unauthenticated caller of ``/v1/health``.
    """
    return hashlib.sha256(str(Path(vault).resolve()).encode("utf-8")).hexdigest()[:16]


STATE: web.AppKey[ServerState] = web.AppKey("vaultheat_state", ServerState)
