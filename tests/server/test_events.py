"""GET /v1/events: state first, then progress / note_indexed / ready / error as they happen."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np
import pytest
from live_server import Live, MakeLive, SseClient, write_notes

from vaultheat.errors import IndexLockedError
from vaultheat.providers.fake import FakeEmbedder
from vaultheat.server.events import CLOSE, RESYNC, Broadcaster, Subscriber, format_event
from vaultheat.storage.lock import WriterLock

Connect = Callable[[Live], SseClient]


class SlowEmbedder(FakeEmbedder):
    """The fake embedder, ``delay`` seconds slower per batch: makes an index run observable."""

    def __init__(self, delay: float) -> None:
        super().__init__()
        self.delay = delay

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        time.sleep(self.delay)
        return super().embed_documents(texts)


def test_state_comes_first(live: Live, sse: Connect) -> None:
    stream = sse(live)
    assert stream.status_code == 200
    assert stream.headers is not None
    assert stream.headers["content-type"].startswith("text/event-stream")
    assert not any(h.lower().startswith("access-control-") for h in stream.headers)
    name, data = stream.next()
    assert name == "state"
    live.api.validate_component("StatusDoc", data)
    assert data["state"] == "ready" and data["notes"] > 0


def test_full_index_streams_progress_notes_and_ready(live: Live, sse: Connect) -> None:
    stream = sse(live)
    assert stream.next()[0] == "state"
    live.post("/v1/index", {"full": True})
    ready = stream.until("ready")
    names = [n for n, _ in stream.seen]
    progress = [d for n, d in stream.seen if n == "progress"]
    indexed = {d["path"] for n, d in stream.seen if n == "note_indexed"}
    assert progress and names.index("progress") < names.index("note_indexed")
    assert names[-1] == "ready"
    for p in progress:
        live.api.validate_component("Progress", p)
        assert 0 <= p["done"] <= p["total"]
    assert any(p["stage"] == "index" and p["done"] == p["total"] for p in progress)
    status = live.get("/v1/status").json()
    assert {"Coffee/Index.md", "Home.md"} <= indexed
    assert len(indexed) >= status["notes"]
    live.api.validate_component("ReadyEvent", ready)
    assert ready == {"notes": status["notes"], "chunks": status["chunks"]}


def test_changed_note_emits_note_indexed(live: Live, sse: Connect) -> None:
    stream = sse(live)
    stream.next()
    (live.vault / "Home.md").write_text("# Home\n\nRewritten: a note about bread baking.\n")
    live.post("/v1/notes/changed", {"events": [{"type": "modify", "path": "Home.md"}]})
    data = stream.until("note_indexed")
    live.api.validate_component("NoteIndexedEvent", data)
    assert data == {"path": "Home.md"}
    stream.until("ready")
    assert [d for n, d in stream.seen if n == "note_indexed"] == [{"path": "Home.md"}]


def test_idle_periodic_scans_stay_silent(make_live: MakeLive, sse: Connect) -> None:
    live = make_live(overrides={"server.scan_interval_s": 0.1})
    stream = sse(live)
    assert stream.next()[0] == "state"
    live.wait_for(
        lambda: sum(r.kind == "scan" for r in live.state.worker.runs) >= 4, what="four scans"
    )
    time.sleep(0.2)  # let any event the last scan might have sent arrive
    assert stream.events.empty()


def test_failed_run_sends_an_error_event(live: Live, sse: Connect) -> None:
    stream = sse(live)
    stream.next()
    with _held(WriterLock(live.engine.paths.lock)):  # another writer (`vaultheat index`) is busy
        live.post("/v1/index", {})
        err = stream.until("error")
        live.wait_idle()
    live.api.validate_component("ErrorEvent", err)
    assert err["code"] == "index_locked"
    assert live.get("/v1/status").json()["last_error"] == err["message"]
    live.post("/v1/index", {})
    stream.until("ready")
    live.wait_idle()
    assert live.get("/v1/status").json()["last_error"] is None


def test_client_connecting_mid_index_gets_the_current_state(
    make_live: MakeLive, vault: object, sse: Connect
) -> None:
    live = make_live(embedder=SlowEmbedder(delay=0.3))
    write_notes(live.vault, 300, words=20)
    early = sse(live)
    early.next()
    live.post("/v1/index", {})
    early.until("progress", lambda d: d["stage"] == "index" and d["done"] < d["total"])
    late = sse(live)
    name, state = late.next()
    assert name == "state"
    live.api.validate_component("StatusDoc", state)
    assert state["state"] == "indexing"
    assert state["progress"] is not None and state["progress"]["total"] >= 300
    assert late.until("ready")["notes"] >= 300
    assert early.until("ready")["notes"] >= 300


def test_shutdown_ends_open_streams(make_live: MakeLive, sse: Connect) -> None:
    live = make_live()
    stream = sse(live)
    stream.next()
    t0 = time.monotonic()
    live.server.stop()
    assert stream.ended.wait(10)
    assert time.monotonic() - t0 < 10


# -- the broadcaster alone --------------------------------------------------------------------
def test_slow_subscriber_is_resynced_not_buffered_forever() -> None:
    async def scenario() -> tuple[list[Any], int]:
        b = Broadcaster()
        b.bind(asyncio.get_running_loop())
        sub = b.subscribe()
        for i in range(sub.queue.maxsize + 5):
            b.publish("progress", {"done": i})
        items = []
        while not sub.queue.empty():
            items.append(sub.queue.get_nowait())
        return items, sub.resyncs

    items, resyncs = asyncio.run(scenario())
    assert resyncs == 1
    assert items[0] is RESYNC
    assert len(items) == 5  # the marker (standing for the overflowing one), then 4 more


def test_closed_broadcaster_closes_every_stream() -> None:
    async def scenario() -> tuple[object, object]:
        b = Broadcaster()
        early = b.subscribe()
        b.close()
        late = b.subscribe()
        b.publish("ready", {})  # dropped: closed
        return await early.next(1), await late.next(1)

    assert asyncio.run(scenario()) == (CLOSE, CLOSE)


def test_publish_from_a_thread_without_a_loop_is_a_no_op() -> None:
    Broadcaster().publish_threadsafe("ready", {"notes": 1, "chunks": 1})


NEWLINE_FRAME = b'event: note_indexed\ndata: {"path":"a\\nb.md"}\n\n'
UNICODE_FRAME = 'event: note_indexed\ndata: {"path":"Café.md"}\n\n'.encode()


@pytest.mark.parametrize(
    ("name", "data", "frame"),
    [
        ("ready", {"notes": 1}, b'event: ready\ndata: {"notes":1}\n\n'),
        ("note_indexed", {"path": "a\nb.md"}, NEWLINE_FRAME),
        ("note_indexed", {"path": "Café.md"}, UNICODE_FRAME),
    ],
    ids=["plain", "newline-escaped", "unicode"],
)
def test_frames_are_single_line_json(name: str, data: dict[str, object], frame: bytes) -> None:
    assert format_event(name, data) == frame


def test_subscriber_timeout_returns_none() -> None:
    async def scenario() -> object:
        return await Subscriber().next(0.01)

    assert asyncio.run(scenario()) is None


def test_a_repeating_scan_error_is_reported_once(make_live: MakeLive, sse: Connect) -> None:
    live = make_live(overrides={"server.scan_interval_s": 0.1})
    stream = sse(live)
    stream.next()
    with _held(WriterLock(live.engine.paths.lock)):
        assert stream.until("error")["code"] == "index_locked"
        runs = len(live.state.worker.runs)
        live.wait_for(lambda: len(live.state.worker.runs) >= runs + 3, what="more scans")
        assert stream.events.empty()  # the same failure again: no new event
        live.post("/v1/index", {})  # an explicit request always answers
        assert stream.until("error")["code"] == "index_locked"


@contextlib.contextmanager
def _held(lock: WriterLock) -> Iterator[None]:
    """Take the writer lock, waiting out a scan that holds it right now (scans run every 0.1 s
    in these tests, so the first try can race one)."""
    deadline = time.monotonic() + 10
    while True:
        try:
            lock.acquire()
            break
        except IndexLockedError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.01)
    try:
        yield
    finally:
        lock.release()
