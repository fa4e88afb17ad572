"""Running the application: on the main loop (``serve``) or in a thread (tests, benchmarks).

``ServerThread`` gives synchronous code a real server on a real socket (port 0 picks a free
one) with its own event loop in a background thread, so tests and the benchmark talk plain
HTTP to exactly what ``vaultheat serve`` runs, without a subprocess.
"""

from __future__ import annotations

import asyncio
import ssl
import threading
from typing import Any

from aiohttp import web

from vaultheat.server.discovery import format_url

SHUTDOWN_TIMEOUT_S = 3.0


async def start_site(
    app: web.Application, host: str, port: int, ssl_context: ssl.SSLContext | None = None
) -> tuple[web.AppRunner, int]:
    """Set up ``app`` and listen on ``host:port``; returns the runner and the bound port."""
    runner = web.AppRunner(
        app, access_log=None, handle_signals=False, shutdown_timeout=SHUTDOWN_TIMEOUT_S
    )
    await runner.setup()
    site = web.TCPSite(runner, host, port, ssl_context=ssl_context)
    try:
        await site.start()
    except BaseException:
        await runner.cleanup()
        raise
    bound = runner.addresses[0][1] if runner.addresses else port
    return runner, int(bound)


class ServerThread:
    """``with ServerThread(app) as srv: httpx.get(srv.url + "/v1/health")``."""

    def __init__(self, app: web.Application, host: str = "127.0.0.1", port: int = 0) -> None:
        self.app = app
        self.host = host
        self.port = port
        self._loop: asyncio.AbstractEventLoop | None = None
        self._runner: web.AppRunner | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None

    @property
    def url(self) -> str:
        return format_url(self.host, self.port)

    def start(self) -> ServerThread:
        self._thread = threading.Thread(target=self._main, name="vaultheat-http", daemon=True)
        self._thread.start()
        self._ready.wait(30)
        if self._error is not None:
            raise self._error
        if not self._ready.is_set():
            raise TimeoutError("server did not start")
        return self

    def _main(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        try:
            self._runner, self.port = loop.run_until_complete(
                start_site(self.app, self.host, self.port)
            )
        except BaseException as exc:
            self._error = exc
            self._ready.set()
            loop.close()
            return
        self._ready.set()
        loop.run_forever()
        loop.run_until_complete(self._runner.cleanup())
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.close()

    def stop(self, timeout: float = 60.0) -> None:
        if self._loop is not None and self._thread is not None and self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout)

    def __enter__(self) -> ServerThread:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()
