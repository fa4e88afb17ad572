"""OpenAI-compatible providers against a real HTTP server on 127.0.0.1 (no outside network)."""

from __future__ import annotations

import json
import math
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np
import pytest

from vaultheat.config import EmbeddingSettings, ExpansionSettings
from vaultheat.errors import ProviderError
from vaultheat.providers.base import Embedder, Generator
from vaultheat.providers.openai_compat import (
    DEFAULT_BASE_URL,
    PROBE_TEXT,
    OpenAIEmbedder,
    OpenAIGenerator,
    estimate_tokens,
    resolve_api_key,
    resolve_base_url,
)


def fake_vector(text: str) -> list[float]:
    """Deterministic, unnormalized, distinct per text."""
    return [float(len(text)), float(sum(map(ord, text)) % 97), 3.0, 4.0]


@dataclass
class FakeServer:
    url: str = ""
    requests: list[dict[str, Any]] = field(default_factory=list)
    fail_first: int = 0
    fail_status: int = 500
    error_status: int | None = None  # answer every request with this status
    delay_s: float = 0.0
    drop_one: bool = False  # return one embedding too few
    chat_reply: Any = "hello there"
    lock: threading.Lock = field(default_factory=threading.Lock)

    def handle(self, path: str, headers: dict[str, str], body: dict[str, Any]) -> tuple[int, Any]:
        with self.lock:
            self.requests.append({"path": path, "headers": headers, "body": body})
            n = len(self.requests)
        if self.delay_s:
            time.sleep(self.delay_s)
        if self.error_status is not None:
            return self.error_status, {"error": {"message": "model 'x' not found"}}
        if n <= self.fail_first:
            return self.fail_status, {"error": {"message": "temporarily overloaded"}}
        if path.endswith("/embeddings"):
            inputs = body["input"]
            data = [
                {"object": "embedding", "index": i, "embedding": fake_vector(t)}
                for i, t in enumerate(inputs)
            ]
            data.reverse()  # servers may answer out of order; "index" says where each belongs
            if self.drop_one:
                data.pop()
            return 200, {"object": "list", "data": data, "model": body["model"]}
        if path.endswith("/chat/completions"):
            return 200, {
                "choices": [
                    {"index": 0, "message": {"role": "assistant", "content": self.chat_reply}}
                ]
            }
        return 404, {"error": {"message": f"no route {path}"}}


@pytest.fixture
def server() -> Iterator[FakeServer]:
    state = FakeServer()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", 0))
            body = json.loads(self.rfile.read(length) or b"{}")
            status, reply = state.handle(self.path, dict(self.headers.items()), body)
            raw = json.dumps(reply).encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)
            except (BrokenPipeError, ConnectionResetError):  # the client timed out
                pass

        def log_message(self, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    state.url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    thread = threading.Thread(target=httpd.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    yield state
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "VH_TEST_KEY"):
        monkeypatch.delenv(var, raising=False)


def embedder(server: FakeServer, **kw: Any) -> OpenAIEmbedder:
    values: dict[str, Any] = {
        "provider": "openai",
        "model": "test-embed",
        "base_url": server.url,
        "batch_size": 2,
        "retries": 3,
        "timeout_s": 5.0,
    }
    values.update(kw)
    return OpenAIEmbedder(EmbeddingSettings(**values), backoff_s=0.01)


def normalized(vec: list[float]) -> np.ndarray:
    arr = np.asarray(vec, dtype=np.float64)
    return arr / np.linalg.norm(arr)


def test_protocols(server: FakeServer) -> None:
    assert isinstance(embedder(server), Embedder)  # dimension probes the server
    assert isinstance(OpenAIGenerator(ExpansionSettings(model="m", base_url=server.url)), Generator)


def test_batching_order_prefix_and_normalization(server: FakeServer) -> None:
    emb = embedder(server, document_prefix="passage: ")
    texts = ["a", "bb", "ccc", "dddd", "eeeee"]
    vecs = emb.embed_documents(texts)
    assert [len(r["body"]["input"]) for r in server.requests] == [2, 2, 1]
    assert all(r["path"] == "/v1/embeddings" for r in server.requests)
    assert server.requests[0]["body"] == {
        "model": "test-embed",
        "input": ["passage: a", "passage: bb"],
    }
    assert vecs.dtype == np.float32 and vecs.shape == (5, 4)
    for text, vec in zip(texts, vecs, strict=True):
        np.testing.assert_allclose(vec, normalized(fake_vector("passage: " + text)), atol=1e-6)


def test_query_prefix(server: FakeServer) -> None:
    vec = embedder(server, query_prefix="query: ").embed_query("cats")
    assert server.requests[0]["body"]["input"] == ["query: cats"]
    np.testing.assert_allclose(vec, normalized(fake_vector("query: cats")), atol=1e-6)


def test_dimension_probe_once_and_learned_from_responses(server: FakeServer) -> None:
    emb = embedder(server)
    assert emb.dimension == 4 and emb.dimension == 4
    assert [r["body"]["input"] for r in server.requests] == [[PROBE_TEXT]]
    emb2 = embedder(server)
    emb2.embed_query("x")
    assert emb2.dimension == 4
    assert len(server.requests) == 2  # no probe: learned from the first real response


def test_empty_input_makes_no_request(server: FakeServer) -> None:
    emb = embedder(server)
    assert emb.embed_documents([]).shape[0] == 0
    assert server.requests == []


@pytest.mark.parametrize("status", [500, 503, 429, 408], ids=["500", "503", "429", "408"])
def test_retries_then_succeeds(server: FakeServer, status: int) -> None:
    server.fail_first, server.fail_status = 2, status
    vec = embedder(server, retries=3).embed_query("x")
    assert len(server.requests) == 3
    assert vec.shape == (4,)


def test_retries_exhausted(server: FakeServer) -> None:
    server.fail_first = 99
    with pytest.raises(ProviderError, match=r"after 3 attempts.*HTTP 500.*overloaded"):
        embedder(server, retries=2).embed_query("x")
    assert len(server.requests) == 3


@pytest.mark.parametrize("status", [400, 401, 404, 422], ids=["400", "401", "404", "422"])
def test_client_error_fails_at_once_with_server_message(server: FakeServer, status: int) -> None:
    server.error_status = status
    with pytest.raises(ProviderError, match=f"HTTP {status}.*model 'x' not found") as info:
        embedder(server).embed_query("x")
    assert len(server.requests) == 1
    assert info.value.context["status"] == status


def test_timeout_is_retried_then_reported(server: FakeServer) -> None:
    server.delay_s = 1.0
    start = time.monotonic()
    with pytest.raises(ProviderError, match="timed out"):
        embedder(server, timeout_s=0.2, retries=1).embed_query("x")
    assert len(server.requests) == 2
    assert time.monotonic() - start < 2.0


def test_connection_refused() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed when the block ends: nothing listens there
    settings = EmbeddingSettings(
        provider="openai", model="m", base_url=f"http://127.0.0.1:{port}", retries=1
    )
    with pytest.raises(ProviderError, match="connection failed"):
        OpenAIEmbedder(settings, backoff_s=0.01).embed_query("x")


def test_wrong_item_count(server: FakeServer) -> None:
    server.drop_one = True
    with pytest.raises(ProviderError, match="1 items, expected 2"):
        embedder(server).embed_documents(["a", "b"])


def test_api_key_from_named_env_var_never_leaks(
    server: FakeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VH_TEST_KEY", "sk-secret-123")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-other")
    emb = embedder(server, api_key_env="VH_TEST_KEY")
    emb.embed_query("x")
    assert server.requests[0]["headers"]["Authorization"] == "Bearer sk-secret-123"
    server.error_status = 401
    with pytest.raises(ProviderError) as info:
        emb.embed_query("x")
    for text in (repr(emb), emb.fingerprint, str(info.value), json.dumps(info.value.to_dict())):
        assert "sk-secret" not in text


@pytest.mark.parametrize(
    ("api_key_env", "env", "header"),
    [
        ("", {"OPENAI_API_KEY": "sk-fallback"}, "Bearer sk-fallback"),
        ("VH_TEST_KEY", {"OPENAI_API_KEY": "sk-fallback"}, None),  # config wins, no fallback
        ("VH_TEST_KEY", {"VH_TEST_KEY": "sk-own"}, "Bearer sk-own"),
        ("", {}, None),
    ],
    ids=["fallback-when-unset", "no-fallback-when-named", "named", "no-key"],
)
def test_api_key_resolution(
    server: FakeServer,
    monkeypatch: pytest.MonkeyPatch,
    api_key_env: str,
    env: dict[str, str],
    header: str | None,
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    embedder(server, api_key_env=api_key_env).embed_query("x")
    assert server.requests[0]["headers"].get("Authorization") == header


def test_base_url_env_fallback_only_for_default(
    server: FakeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", server.url + "/")
    emb = embedder(server, base_url=DEFAULT_BASE_URL)
    assert emb.base_url == server.url
    emb.embed_query("x")
    assert len(server.requests) == 1
    assert resolve_base_url("http://example.invalid/v1") == "http://example.invalid/v1"
    monkeypatch.delenv("OPENAI_BASE_URL")
    assert resolve_base_url(DEFAULT_BASE_URL) == DEFAULT_BASE_URL


def test_resolve_api_key_named_but_empty(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fallback")
    assert resolve_api_key("VH_TEST_KEY") is None
    assert "VH_TEST_KEY" in caplog.text and "sk-fallback" not in caplog.text


def test_metadata_without_requests(server: FakeServer) -> None:
    emb = embedder(server, query_prefix="q: ", max_input_tokens=8192)
    assert emb.max_tokens == 8192
    assert embedder(server).max_tokens == 512
    assert emb.fingerprint == f"openai:{server.url}|test-embed|q='q: '|d=''|norm=l2"
    assert emb.fingerprint != embedder(server).fingerprint
    assert emb.count_tokens("x" * 35) == 10 and emb.count_tokens("x" * 36) == 11
    assert server.requests == []


@pytest.mark.parametrize("n", [0, 1, 3, 4, 7, 100], ids=lambda n: f"len{n}")
def test_estimate_tokens_rounds_up(n: int) -> None:
    assert estimate_tokens("a" * n) == math.ceil(n / 3.5)


def test_generator_payload_and_reply(server: FakeServer) -> None:
    gen = OpenAIGenerator(
        ExpansionSettings(model="chat-model", base_url=server.url), backoff_s=0.01
    )
    assert gen.generate("Expand: cats", max_tokens=77) == "hello there"
    request = server.requests[0]
    assert request["path"] == "/v1/chat/completions"
    assert request["body"]["model"] == "chat-model"
    assert request["body"]["max_tokens"] == 77
    assert request["body"]["messages"] == [{"role": "user", "content": "Expand: cats"}]


def test_generator_retries_and_malformed(server: FakeServer) -> None:
    gen = OpenAIGenerator(
        ExpansionSettings(model="m", base_url=server.url), retries=1, backoff_s=0.01
    )
    server.fail_first = 1
    assert gen.generate("p") == "hello there"
    server.chat_reply = None
    with pytest.raises(ProviderError, match="no text content"):
        gen.generate("p")


def test_empty_model_rejected() -> None:
    with pytest.raises(ProviderError):
        OpenAIEmbedder(EmbeddingSettings(provider="openai", model=""))
    with pytest.raises(ProviderError):
        OpenAIGenerator(ExpansionSettings(model=""))
