"""Remote mode (``serve --allow-remote``): the address policy, TLS flags, the failed-token limit."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from vaultheat.server.middleware import FailedTokenLimiter, make_guard_middleware
from vaultheat.server.serve import RemoteRefused, remote_policy


def test_non_loopback_needs_allow_remote() -> None:
    with pytest.raises(RemoteRefused, match="--allow-remote"):
        remote_policy("0.0.0.0", False)
    with pytest.raises(RemoteRefused, match="--allow-remote"):
        remote_policy("192.168.1.5", False)
    assert remote_policy("127.0.0.2", False) == ((), None)


def test_allow_host_and_tls_need_allow_remote() -> None:
    with pytest.raises(RemoteRefused, match="need --allow-remote"):
        remote_policy("127.0.0.1", False, ("vh.lan",))
    with pytest.raises(RemoteRefused, match="need --allow-remote"):
        remote_policy("127.0.0.1", False, (), "c.pem", "k.pem")


def test_remote_hosts_are_the_address_and_the_names_given() -> None:
    assert remote_policy("192.168.1.5", True, ("vh.lan", " [fd00::1] "))[0] == (
        "192.168.1.5",
        "vh.lan",
        "fd00::1",
    )
    assert remote_policy("0.0.0.0", True)[0] == ()  # a wildcard is not a Host name
    assert remote_policy("127.0.0.2", True)[0] == ()


def test_tls_flags_go_together_and_must_load(tmp_path: Path) -> None:
    with pytest.raises(RemoteRefused, match="go together"):
        remote_policy("127.0.0.2", True, (), "c.pem", None)
    with pytest.raises(RemoteRefused, match="cannot load"):
        remote_policy("127.0.0.2", True, (), str(tmp_path / "c.pem"), str(tmp_path / "k.pem"))


def test_tls_context_from_a_self_signed_pair(tmp_path: Path) -> None:
    cert, key = tmp_path / "c.pem", tmp_path / "k.pem"
    made = subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-subj", "/CN=127.0.0.2", "-keyout", str(key), "-out", str(cert)],
        capture_output=True,
    )  # fmt: skip
    if made.returncode != 0:
        pytest.fail(f"openssl could not make a test certificate: {made.stderr!r}")
    _, ctx = remote_policy("127.0.0.2", True, (), str(cert), str(key))
    assert ctx is not None


def test_limiter_blocks_after_the_limit_and_forgets_after_the_window() -> None:
    now = [0.0]
    lim = FailedTokenLimiter(limit=3, window_s=10.0, clock=lambda: now[0])
    for _ in range(3):
        assert not lim.blocked("a")
        lim.fail("a")
    assert lim.blocked("a")
    assert not lim.blocked("b")
    now[0] = 10.5
    assert not lim.blocked("a")


def _app(remote: bool, limiter: FailedTokenLimiter | None = None) -> web.Application:
    async def ok(request: web.Request) -> web.Response:
        return web.json_response({"ok": True})

    app = web.Application(
        middlewares=[make_guard_middleware("sekrit", 1000, (), remote=remote, limiter=limiter)]
    )
    app.router.add_get("/v1/health", ok)
    app.router.add_get("/v1/status", ok)
    return app


def _run(
    remote: bool, limiter: FailedTokenLimiter | None, calls: list[dict[str, str]]
) -> list[int]:
    async def go() -> list[int]:
        async with TestClient(TestServer(_app(remote, limiter), host="127.0.0.2")) as c:
            codes = []
            for headers in calls:
                codes.append((await c.get("/v1/status", headers=headers)).status)
            return codes

    return asyncio.run(go())


def test_wrong_tokens_are_rate_limited_in_remote_mode_only() -> None:
    bad = {"Authorization": "Bearer nope"}
    good = {"Authorization": "Bearer sekrit"}
    lim = FailedTokenLimiter(limit=3, window_s=60.0)
    assert _run(True, lim, [bad, bad, bad, good, bad]) == [401, 401, 401, 429, 429]
    assert _run(False, None, [bad] * 12 + [good]) == [401] * 12 + [200]
