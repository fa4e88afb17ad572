"""What a hostile web page (or a confused client) can and cannot do to the local server.

Token on every endpoint but health, Host pinned to loopback (DNS rebinding), foreign Origins
refused, no CORS, bounded bodies, no path outside the vault, no writes into the vault.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
from pathlib import Path
from typing import Any

import httpx
import pytest
from live_server import Live, MakeLive

from vaultheat.server.middleware import host_allowed, is_loopback_host, split_host, token_matches

PROTECTED: list[tuple[str, str, Any]] = [
    ("GET", "/v1/status", None),
    ("GET", "/v1/notes/status?path=Home.md", None),
    ("GET", "/v1/openapi.json", None),
    ("GET", "/v1/events", None),
    ("POST", "/v1/search", {"query": "coffee"}),
    ("POST", "/v1/related", {"path": "Home.md"}),
    ("POST", "/v1/related/batch", {"paths": ["Home.md"]}),
    ("POST", "/v1/explain", {"query": "coffee", "chunk_id": 1}),
    ("POST", "/v1/notes/changed", {"events": []}),
    ("POST", "/v1/index", {}),
    ("POST", "/v1/index/pause", None),
    ("POST", "/v1/index/resume", None),
    ("GET", "/v1/no-such-route", None),
]
PROTECTED_IDS = [f"{m} {p.split('?')[0]}" for m, p, _ in PROTECTED]


def raw(live: Live, method: str, path: str, body: Any = None, **headers: str) -> httpx.Response:
    """A request with exactly these headers (plus what httpx always sends)."""
    kw: dict[str, Any] = {"headers": headers}
    if body is not None:
        kw["json"] = body
    return live.client.request(method, live.url + path, **kw)


# -- the token --------------------------------------------------------------------------------
@pytest.mark.parametrize(("method", "path", "body"), PROTECTED, ids=PROTECTED_IDS)
def test_every_endpoint_but_health_needs_the_token(
    live: Live, method: str, path: str, body: Any
) -> None:
    resp = raw(live, method, path, body)
    assert resp.status_code == 401
    assert resp.json()["error"]["code"] == "unauthorized"
    assert resp.headers["WWW-Authenticate"].startswith("Bearer")
    route = path.split("?")[0]
    if route in live.api.doc["paths"]:
        live.api.check(method, route, resp)


@pytest.mark.parametrize(
    "header",
    [
        "Bearer wrong",
        "Bearer",
        "Basic {token}",
        "{token}",
        "Bearer {token}x",
        "Bearer {token_prefix}",
        "Bearer ✓{token}",
    ],
    ids=["wrong", "no-value", "basic", "no-scheme", "suffix", "prefix", "non-ascii"],
)
def test_wrong_tokens_are_refused(live: Live, header: str) -> None:
    value = header.format(token=live.token, token_prefix=live.token[:-1])
    resp = live.client.get(
        live.url + "/v1/status", headers={b"Authorization": value.encode("utf-8")}
    )
    assert resp.status_code == 401


@pytest.mark.parametrize("scheme", ["Bearer", "bearer"])
def test_the_right_token_opens_the_door(live: Live, scheme: str) -> None:
    resp = raw(live, "GET", "/v1/status", Authorization=f"{scheme} {live.token}")
    assert resp.status_code == 200


def test_token_check_is_exact() -> None:
    assert token_matches("Bearer abc", "abc")
    assert not token_matches("Bearer abcd", "abc")
    assert not token_matches(None, "abc")
    assert not token_matches("Bearer \udcff", "abc")


def test_the_token_never_reaches_the_log(live: Live, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    live.get("/v1/status")
    live.post("/v1/search", {"query": "coffee"})
    live.post("/v1/search", {"query": ""})
    raw(live, "GET", "/v1/status", Authorization="Bearer " + live.token[::-1])
    live.get("/v1/notes/status", params={"path": "../x"})
    assert live.token not in caplog.text
    assert live.token[::-1] not in caplog.text


# -- Host and Origin --------------------------------------------------------------------------
@pytest.mark.parametrize(
    "host",
    ["evil.example", "evil.example:51764", "127.0.0.1.nip.io", "localhost.evil.example",
     "10.0.0.5", "[2001:db8::1]:80", "0.0.0.0", ""],
    ids=["name", "name-port", "rebind-name", "localhost-suffix", "lan-ip", "ipv6", "any", "empty"],
)  # fmt: skip
@pytest.mark.parametrize("route", ["/v1/health", "/v1/status"])
def test_foreign_host_header_is_refused(live: Live, host: str, route: str) -> None:
    resp = live.request("GET", route, headers={"Host": host}, check=False)
    assert resp.status_code == 403
    assert resp.json()["error"]["code"] == "forbidden"


@pytest.mark.parametrize(
    "host",
    ["127.0.0.1", "127.0.0.1:51764", "localhost", "LOCALHOST:9", "[::1]:51764", "127.8.9.10"],
    ids=["v4", "v4-port", "name", "name-case", "v6", "v4-range"],
)
def test_loopback_host_headers_are_accepted(live: Live, host: str) -> None:
    assert live.get("/v1/status", headers={"Host": host}).status_code == 200


@pytest.mark.parametrize(
    ("header", "extra", "ok"),
    [
        ("127.0.0.1:80", (), True),
        ("[::1]", (), True),
        ("::1", (), True),
        ("192.168.1.4:51764", (), False),
        ("192.168.1.4:51764", ("192.168.1.4",), True),
        ("my-box:51764", ("my-box",), True),
        ("other-box", ("my-box",), False),
        (None, (), False),
    ],
)
def test_host_rules(header: str | None, extra: tuple[str, ...], ok: bool) -> None:
    assert host_allowed(header, extra) is ok


def test_split_host_and_loopback_names() -> None:
    assert split_host("[::1]:80") == "::1"
    assert split_host("example:80") == "example"
    assert is_loopback_host("::1") and is_loopback_host("127.0.0.53")
    assert not is_loopback_host("localhost.example") and not is_loopback_host("0.0.0.0")


@pytest.mark.parametrize(
    "origin",
    ["https://evil.example", "http://localhost:3000", "null", "app://obsidian.md.evil",
     "APP://OBSIDIAN.MD", "file://"],
    ids=["site", "localhost-site", "null", "suffix", "case", "file"],
)  # fmt: skip
def test_foreign_origin_is_refused(live: Live, origin: str) -> None:
    resp = live.post("/v1/search", {"query": "coffee"}, headers={"Origin": origin}, check=False)
    assert resp.status_code == 403
    assert "access-control-allow-origin" not in resp.headers


def test_obsidian_origin_and_no_origin_are_accepted(live: Live) -> None:
    for headers in ({"Origin": "app://obsidian.md"}, {}):
        resp = live.post("/v1/search", {"query": "coffee"}, headers=headers)
        assert resp.status_code == 200


def test_no_cors_anywhere(live: Live) -> None:
    preflight = raw(
        live,
        "OPTIONS",
        "/v1/search",
        Origin="https://evil.example",
        **{"Access-Control-Request-Method": "POST"},
    )
    assert preflight.status_code == 403
    answers = [
        preflight,
        live.get("/v1/status", headers={"Origin": "app://obsidian.md"}),
        live.get("/v1/health", auth=False),
    ]
    for resp in answers:
        assert not any(h.lower().startswith("access-control-") for h in resp.headers)


# -- paths ------------------------------------------------------------------------------------
ESCAPES = [
    "../outside.md",
    "Coffee/../../outside.md",
    "/etc/passwd",
    "\\..\\outside.md",
    "C:/Windows/win.ini",
    "..",
    ".",
    "",
    "a\x00b.md",
    "Leak.md",  # a symlink to a file outside the vault
    "LeakDir/secret.md",  # a symlinked folder outside the vault
]
ESCAPE_IDS = ["dotdot", "nested-dotdot", "absolute", "backslash", "drive", "parent", "self",
              "empty", "nul", "symlink-file", "symlink-dir"]  # fmt: skip


@pytest.fixture
def leaky(live: Live, tmp_path: Path) -> Live:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("# Secret\n\nThe password is hunter2.\n")
    os.symlink(outside / "secret.md", live.vault / "Leak.md")
    os.symlink(outside, live.vault / "LeakDir")
    return live


@pytest.mark.parametrize("path", ESCAPES, ids=ESCAPE_IDS)
def test_paths_that_escape_the_vault_are_refused(leaky: Live, path: str) -> None:
    live = leaky
    answers = [
        live.get("/v1/notes/status", params={"path": path}),
        live.post("/v1/related", {"path": path, "text": "hello"}),
        live.post("/v1/explain", {"path": "Home.md", "target": path}),
        live.post("/v1/notes/changed", {"events": [{"type": "modify", "path": path}]}),
        live.post(
            "/v1/notes/changed",
            {"events": [{"type": "rename", "path": "Home.md", "old_path": path}]},
        ),
    ]
    for resp in answers:
        assert resp.status_code == 400, resp.text
        assert resp.json()["error"]["code"] == "bad_request"
        assert "hunter2" not in resp.text
    assert live.state.worker.queued == 0


# -- bodies -----------------------------------------------------------------------------------
LIMIT = 4096


@pytest.fixture
def small(make_live: MakeLive) -> Live:
    return make_live(overrides={"server.max_body_bytes": LIMIT})


def test_body_at_the_limit_is_read(small: Live) -> None:
    head, tail = b'{"query": "coffee"', b"}"
    body = head + b" " * (LIMIT - len(head) - len(tail)) + tail
    assert len(body) == LIMIT
    resp = small.post("/v1/search", content=body)
    assert resp.status_code == 200, resp.text


@pytest.mark.parametrize("chunked", [False, True], ids=["content-length", "chunked"])
def test_oversized_body_is_refused(small: Live, chunked: bool) -> None:
    body = b'{"query": "' + b"x" * (LIMIT * 4) + b'"}'

    def stream() -> Any:
        for i in range(0, len(body), 1000):
            yield body[i : i + 1000]

    resp = small.post("/v1/search", content=stream() if chunked else body)
    assert resp.status_code == 413
    assert resp.json()["error"]["code"] == "too_large"


# -- the vault is read-only to the server -----------------------------------------------------
def tree_digest(root: Path) -> dict[str, str]:
    out = {}
    for p in sorted(root.rglob("*")):
        rel = str(p.relative_to(root))
        if p.is_symlink():
            out[rel] = "link:" + os.readlink(p)
        elif p.is_file():
            out[rel] = hashlib.sha256(p.read_bytes()).hexdigest() + f":{p.stat().st_mtime_ns}"
        else:
            out[rel] = "dir"
    return out


def test_server_never_writes_into_the_vault(
    make_live: MakeLive, vault: Path, tmp_path: Path
) -> None:
    shutil.rmtree(vault / ".vaultheat")
    index_dir = tmp_path / "index"
    before = tree_digest(vault)
    live = make_live(index_dir=index_dir)
    live.post("/v1/index", {"full": True})
    live.wait_idle()
    live.post("/v1/search", {"query": "coffee", "explain": True})
    live.post("/v1/related", {"path": "Coffee/Index.md", "text": "unsaved draft", "cursor": 3})
    live.post("/v1/notes/changed", {"events": [{"type": "modify", "path": "Home.md"}]})
    live.post("/v1/index/pause")
    live.post("/v1/index/resume")
    live.wait_idle()
    assert (index_dir / "index.sqlite").exists()
    assert tree_digest(vault) == before
