"""The aiohttp application factory over an opened ``Engine``.

``create_app`` wires the guards, the routes and the long-lived parts whose life must follow
the server's: a cleanup context starts the query thread pool and the index worker when the
server starts, and on the way out stops the worker after its batch in flight (that batch is
one SQLite transaction: committed or rolled back, never half-written), saves, and closes the
engine. Index runs happen in a child process (``index_process``, the default) so they do not
slow queries down; the child builds its own embedder from the settings, or gets a copy of the
engine's when one was injected (tests, benchmarks; one that cannot be pickled keeps indexing
in the worker thread). ``on_shutdown`` ends event streams first so a graceful shutdown does
not wait on them.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Iterable
from concurrent.futures import ThreadPoolExecutor

from aiohttp import web

from vaultheat.config import ServerSettings
from vaultheat.engine import Engine
from vaultheat.server.events import Broadcaster
from vaultheat.server.indexproc import ChildSpec, IndexProcess, index_cpus, picklable
from vaultheat.server.middleware import make_error_middleware, make_guard_middleware
from vaultheat.server.routes import routes
from vaultheat.server.state import STATE, ServerState
from vaultheat.server.worker import IndexWorker

log = logging.getLogger("vaultheat.server")

WORKER_JOIN_S = 20.0
DEFAULT_QUERY_THREADS = 4


def create_app(
    engine: Engine,
    settings: ServerSettings,
    token: str,
    *,
    extra_hosts: Iterable[str] = (),
    remote: bool = False,
    low_priority: bool = False,
    query_threads: int = DEFAULT_QUERY_THREADS,
    warm_up: bool = True,
    index_process: bool = True,
) -> web.Application:
    """The application; its worker and thread pool start and stop with the server.

    ``extra_hosts``: non-loopback ``Host`` values accepted besides loopback (``--allow-host``).
    ``remote``: ``--allow-remote`` mode (token on every endpoint, mobile origins, rate limit).
    """
    if not token:
        raise ValueError("the server needs a token")
    broadcaster = Broadcaster()
    process = _index_process(engine, low_priority) if index_process else None
    worker = IndexWorker(
        engine,
        debounce_s=settings.debounce_ms / 1000.0,
        scan_interval_s=settings.scan_interval_s,
        emit=broadcaster.publish_threadsafe,
        low_priority=low_priority,
        warm_up=warm_up,
        process=process,
    )
    state = ServerState(
        engine=engine,
        settings=settings,
        worker=worker,
        broadcaster=broadcaster,
        query_threads=max(1, query_threads),
    )
    app = web.Application(
        middlewares=[
            make_error_middleware(),
            make_guard_middleware(token, settings.max_body_bytes, extra_hosts, remote=remote),
        ],
        client_max_size=settings.max_body_bytes,
    )
    app[STATE] = state
    app.add_routes(routes)
    app.cleanup_ctx.append(_lifecycle)
    app.on_shutdown.append(_on_shutdown)
    return app


def _index_process(engine: Engine, low_priority: bool) -> IndexProcess | None:
    embedder = engine.models.embedder if engine.models.embedder_injected else None
    if embedder is not None and not picklable(embedder):
        log.warning("the injected embedder cannot be sent to a child process; indexing in-process")
        return None
    spec = ChildSpec(engine.paths, engine.settings, embedder, low_priority, cpus=index_cpus())
    return IndexProcess(spec)


async def _lifecycle(app: web.Application) -> AsyncIterator[None]:
    state = app[STATE]
    state.broadcaster.bind(asyncio.get_running_loop())
    state.executor = ThreadPoolExecutor(state.query_threads, thread_name_prefix="vaultheat-query")
    state.worker.start()
    try:
        yield
    finally:
        state.worker.stop()
        loop = asyncio.get_running_loop()
        joined = await loop.run_in_executor(None, state.worker.join, WORKER_JOIN_S)
        if not joined:
            log.warning("index worker still busy after %.0f s; leaving it", WORKER_JOIN_S)
        state.executor.shutdown(wait=False, cancel_futures=True)
        if joined:
            state.engine.close()


async def _on_shutdown(app: web.Application) -> None:
    state = app[STATE]
    state.worker.stop()  # start winding down while the streams close
    state.broadcaster.close()
