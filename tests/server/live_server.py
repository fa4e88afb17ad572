"""Helpers of the server tests: a live server handle, an OpenAPI checker, an SSE reader.

A separate module (not conftest) so test files can import the types; the fixtures that build
these live in conftest.py.
"""

from __future__ import annotations

import json
import queue
import shutil
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from openapi_schema_validator import OAS31Validator

from vaultheat.engine import Engine
from vaultheat.server.runner import ServerThread
from vaultheat.server.state import ServerState

REPO = Path(__file__).resolve().parents[2]
EXAMPLE_VAULT = REPO / "examples" / "vault"
TOKEN = "test-token-" + "x" * 32
TEST_SETTINGS = {"server.debounce_ms": 50, "server.scan_interval_s": 0}

TINY_NOTES = {
    "Coffee/Index.md": "# Coffee\n\nRoasting coffee beans at home. See [[Brewing]].\n",
    "Coffee/Brewing.md": "# Brewing\n\nPour over coffee brewing with a V60 and filtered water.\n",
    "Garden/Tomatoes.md": "# Tomatoes\n\nGrowing tomatoes in raised beds with compost.\n",
    "Garden/Compost.md": "# Compost\n\nCompost feeds the raised beds and the tomatoes.\n",
}


def copy_example_vault(dest: Path) -> Path:
    """The example vault (or a tiny stand-in when it is absent) at ``dest``."""
    if EXAMPLE_VAULT.is_dir():
        shutil.copytree(EXAMPLE_VAULT, dest, ignore=shutil.ignore_patterns(".vaultheat"))
    else:
        for rel, text in TINY_NOTES.items():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            (dest / rel).write_text(text, encoding="utf-8")
    return dest


def write_notes(vault: Path, count: int, *, prefix: str = "Bulk", words: int = 120) -> list[str]:
    """``count`` generated notes (distinct, linked in a ring); their vault-relative paths."""
    topics = ["coffee", "garden", "travel", "finance", "reading", "music", "cooking", "sleep"]
    paths = []
    for i in range(count):
        topic = topics[i % len(topics)]
        rel = f"{prefix}/{topic}/{prefix} note {i:04d}.md"
        body = " ".join(f"{topic}{(i * 7 + k) % 97} word{k % 13}" for k in range(words))
        text = (
            f"# {prefix} {i}\n\nAbout {topic}. [[{prefix} note {(i + 1) % count:04d}]]\n\n{body}\n"
        )
        (vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (vault / rel).write_text(text, encoding="utf-8")
        paths.append(rel)
    return paths


class OpenApiChecker:
    def __init__(self, doc: dict[str, Any]) -> None:
        self.doc = doc

    def response_schema(self, method: str, route: str, status: int) -> dict[str, Any] | None:
        op = self.doc["paths"][route][method.lower()]
        resp = op["responses"].get(str(status)) or op["responses"].get("default")
        assert resp is not None, f"{method} {route} answered {status}, undocumented"
        content = resp.get("content", {})
        if "application/json" not in content:
            return None
        return dict(content["application/json"]["schema"])

    def validate(self, schema: dict[str, Any], body: Any) -> None:
        OAS31Validator({**schema, "components": self.doc["components"]}).validate(body)

    def validate_component(self, name: str, body: Any) -> None:
        self.validate({"$ref": f"#/components/schemas/{name}"}, body)

    def check(self, method: str, route: str, resp: httpx.Response) -> None:
        schema = self.response_schema(method, route, resp.status_code)
        if schema is None:
            return
        assert resp.headers["content-type"].startswith("application/json")
        self.validate(schema, resp.json())


@dataclass
class Live:
    url: str
    token: str
    vault: Path
    engine: Engine
    state: ServerState
    api: OpenApiChecker
    client: httpx.Client = field(repr=False)
    server: ServerThread = field(repr=False)

    def request(
        self, method: str, route: str, *, auth: bool = True, check: bool = True, **kw: Any
    ) -> httpx.Response:
        headers = dict(kw.pop("headers", {}) or {})
        if auth:
            headers.setdefault("Authorization", f"Bearer {self.token}")
        resp = self.client.request(method, self.url + route, headers=headers, **kw)
        if check and route in self.api.doc["paths"]:
            self.api.check(method, route, resp)
        return resp

    def get(self, route: str, **kw: Any) -> httpx.Response:
        return self.request("GET", route, **kw)

    def post(self, route: str, body: Any = None, **kw: Any) -> httpx.Response:
        if body is not None:
            kw["json"] = body
        return self.request("POST", route, **kw)

    def wait_idle(self, timeout: float = 20.0) -> None:
        """Until the worker has nothing running or due (debounced changes included)."""
        worker = self.state.worker
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if worker.idle:
                time.sleep(0.05)
                if worker.idle:
                    return
            time.sleep(0.02)
        raise AssertionError("the index worker did not become idle")

    def wait_for(self, cond: Callable[[], bool], timeout: float = 20.0, what: str = "") -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if cond():
                return
            time.sleep(0.05)
        raise AssertionError(f"timed out waiting for {what or cond}")


MakeLive = Callable[..., Live]


class SseClient:
    """Reads ``GET /v1/events`` in a thread; events land in a queue as (name, data)."""

    def __init__(self, url: str, token: str) -> None:
        self.events: queue.Queue[tuple[str, Any]] = queue.Queue()
        self.seen: list[tuple[str, Any]] = []
        self.ended = threading.Event()
        self._client = httpx.Client(timeout=httpx.Timeout(60, connect=10))
        self._url = url
        self._token = token
        self.status_code = 0
        self.headers: httpx.Headers | None = None
        self._connected = threading.Event()
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()
        if not self._connected.wait(10):
            raise AssertionError("SSE connection did not open")

    def _read(self) -> None:
        try:
            with self._client.stream(
                "GET", self._url + "/v1/events", headers={"Authorization": f"Bearer {self._token}"}
            ) as resp:
                self.status_code = resp.status_code
                self.headers = resp.headers
                self._connected.set()
                name, data = "message", []
                for line in resp.iter_lines():
                    if line.startswith(":"):
                        continue
                    if line.startswith("event:"):
                        name = line[6:].strip()
                    elif line.startswith("data:"):
                        data.append(line[5:].strip())
                    elif line == "" and data:
                        self.events.put((name, json.loads("\n".join(data))))
                        name, data = "message", []
        except (httpx.HTTPError, RuntimeError, ValueError):
            pass
        finally:
            self._connected.set()
            self.ended.set()

    def next(self, timeout: float = 15.0) -> tuple[str, Any]:
        item = self.events.get(timeout=timeout)
        self.seen.append(item)
        return item

    def until(
        self, name: str, pred: Callable[[Any], bool] = lambda d: True, timeout: float = 20.0
    ) -> Any:
        """Read events until one named ``name`` matches ``pred``; returns its data."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no {name} event; saw {[n for n, _ in self.seen]}")
            try:
                got, data = self.next(left)
            except queue.Empty:
                continue
            if got == name and pred(data):
                return data

    def close(self) -> None:
        self._client.close()
        self._thread.join(0.2)  # a stream still open ends when its server stops
