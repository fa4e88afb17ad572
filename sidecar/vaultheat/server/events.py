"""Server-Sent Events: one broadcaster, one bounded queue per connected client.

Events are published from the index worker thread (``publish_threadsafe``) and fanned out on
the event loop. Each client has a bounded queue so a stalled client cannot grow the server's
memory: when its queue overflows, the queued events are dropped and replaced by a single
*resync* marker, after which the client receives a fresh ``state`` document. Progress events
are snapshots anyway, so a resync loses nothing a client needs.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from typing import Any, Final

log = logging.getLogger("vaultheat.server.events")

QUEUE_LIMIT = 256
KEEPALIVE_S = 15.0


class _Marker:
    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"<{self.name}>"


CLOSE: Final = _Marker("close")
RESYNC: Final = _Marker("resync")

Item = tuple[str, dict[str, Any]] | _Marker


def format_event(name: str, data: Any) -> bytes:
    """One SSE frame: ``event: NAME`` and a single-line JSON ``data`` field."""
    payload = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    return f"event: {name}\ndata: {payload}\n\n".encode()


class Subscriber:
    def __init__(self, limit: int = QUEUE_LIMIT) -> None:
        self.queue: asyncio.Queue[Item] = asyncio.Queue(limit)
        self.resyncs = 0

    def offer(self, item: Item) -> None:
        try:
            self.queue.put_nowait(item)
        except asyncio.QueueFull:
            while not self.queue.empty():
                self.queue.get_nowait()
            self.resyncs += 1
            self.queue.put_nowait(CLOSE if item is CLOSE else RESYNC)

    async def next(self, timeout: float) -> Item | None:
        """The next item, or None when nothing came within ``timeout`` seconds."""
        try:
            return await asyncio.wait_for(self.queue.get(), timeout)
        except TimeoutError:
            return None


class Broadcaster:
    """Fan-out of named events to every subscriber; bound to the loop it was started on."""

    def __init__(self) -> None:
        self._subscribers: set[Subscriber] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._closed = False
        self.published = 0

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop

    @property
    def subscriber_count(self) -> int:
        return len(self._subscribers)

    def subscribe(self) -> Subscriber:
        sub = Subscriber()
        if self._closed:
            sub.offer(CLOSE)
        self._subscribers.add(sub)
        return sub

    def unsubscribe(self, sub: Subscriber) -> None:
        self._subscribers.discard(sub)

    def publish(self, name: str, data: dict[str, Any]) -> None:
        """Publish from the event loop's thread."""
        if self._closed:
            return
        self.published += 1
        for sub in list(self._subscribers):
            sub.offer((name, data))

    def publish_threadsafe(self, name: str, data: dict[str, Any]) -> None:
        """Publish from any thread (the index worker); a no-op once the loop is gone."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        with contextlib.suppress(RuntimeError):  # loop closed between the check and the call
            loop.call_soon_threadsafe(self.publish, name, data)

    def close(self) -> None:
        """End every stream (server shutdown); later subscribers are closed at once."""
        self._closed = True
        for sub in list(self._subscribers):
            sub.offer(CLOSE)
