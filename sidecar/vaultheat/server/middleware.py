"""The server's guards, outermost first: errors → JSON, Host, Origin, body size, bearer token.

A localhost port is reachable from every web page the user opens, so each request must prove
three things before it touches the index: it was addressed to a loopback name (a DNS-rebinding
page sends its own domain as ``Host``), it does not come from a foreign browser origin (pages
send ``Origin``; Obsidian's own is ``app://obsidian.md``, its ``requestUrl`` and CLI tools send
none), and it carries the token from the 0600 discovery file. No CORS headers are ever sent,
so a browser never lets a page read an answer either.

Every failure, expected or not, leaves as ``{"error": {"code", "message"}}``: expected ones
(``VaultheatError``) with their own code and status, anything else as a logged 500. Every
answer carries ``Server-Timing: app;dur=MS`` (time spent in the server, guards included), which
the benchmark uses to tell the server's own cost from the client's and the kernel's.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import logging
import time
from collections.abc import Callable, Iterable

from aiohttp import web
from aiohttp.typedefs import Handler, Middleware

from vaultheat.errors import VaultheatError

log = logging.getLogger("vaultheat.server")

OBSIDIAN_ORIGIN = "app://obsidian.md"
LOOPBACK_NAMES = frozenset({"localhost"})
PUBLIC_PATHS = frozenset({"/v1/health"})
# Obsidian mobile's web views (iOS: capacitor, Android: http://localhost); accepted in remote mode.
MOBILE_ORIGINS = frozenset({"capacitor://localhost", "http://localhost", "https://localhost"})
FAILED_TOKEN_LIMIT = 10  # wrong tokens per peer address ...
FAILED_TOKEN_WINDOW_S = 60.0  # ... within this many seconds, then 429 until the window passes

_STATUS_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "bad_request",
    411: "bad_request",
    413: "too_large",
    415: "bad_request",
    429: "rate_limited",
}


def error_response(
    status: int, code: str, message: str, *, headers: dict[str, str] | None = None
) -> web.Response:
    return web.json_response(
        {"error": {"code": code, "message": message}}, status=status, headers=headers
    )


def split_host(header: str) -> str:
    """The host part of a ``Host`` header (``[::1]:80`` → ``::1``, ``a:1`` → ``a``)."""
    value = header.strip()
    if value.startswith("["):
        end = value.find("]")
        return value[1:end] if end > 0 else value
    if value.count(":") == 1:
        return value.split(":", 1)[0]
    return value  # a bare IPv6 address or a name without a port


def is_loopback_host(host: str) -> bool:
    """Whether ``host`` (no port) names this machine's loopback interface."""
    name = host.strip().lower()
    if name in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def host_allowed(header: str | None, extra_hosts: Iterable[str] = ()) -> bool:
    if not header:
        return False
    host = split_host(header).lower()
    return is_loopback_host(host) or host in {h.lower().strip("[]") for h in extra_hosts}


def origin_allowed(origin: str | None, extra_origins: Iterable[str] = ()) -> bool:
    return origin is None or origin == OBSIDIAN_ORIGIN or origin in extra_origins


class FailedTokenLimiter:
    """Counts wrong tokens per peer address in a sliding window (remote mode only)."""

    def __init__(
        self,
        limit: int = FAILED_TOKEN_LIMIT,
        window_s: float = FAILED_TOKEN_WINDOW_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.limit, self.window_s, self.clock = limit, window_s, clock
        self._failures: dict[str, list[float]] = {}

    def _recent(self, peer: str) -> list[float]:
        cutoff = self.clock() - self.window_s
        kept = [t for t in self._failures.get(peer, ()) if t > cutoff]
        if kept:
            self._failures[peer] = kept
        else:
            self._failures.pop(peer, None)
        return kept

    def blocked(self, peer: str) -> bool:
        return len(self._recent(peer)) >= self.limit

    def fail(self, peer: str) -> None:
        self._recent(peer)
        self._failures.setdefault(peer, []).append(self.clock())


def token_matches(header: str | None, token: str) -> bool:
    """Constant-time check of an ``Authorization: Bearer <token>`` header."""
    if not header:
        return False
    scheme, _, given = header.strip().partition(" ")
    if scheme.lower() != "bearer":
        return False
    given_b = given.strip().encode("utf-8", "surrogateescape")
    return hmac.compare_digest(given_b, token.encode("utf-8"))


def make_error_middleware() -> Middleware:
    @web.middleware
    async def errors(request: web.Request, handler: Handler) -> web.StreamResponse:
        t0 = time.perf_counter()
        resp = await _answer(request, handler)
        if not resp.prepared:  # streams (SSE) have sent their headers already
            resp.headers["Server-Timing"] = f"app;dur={(time.perf_counter() - t0) * 1000:.3f}"
        return resp

    async def _answer(request: web.Request, handler: Handler) -> web.StreamResponse:
        try:
            return await handler(request)
        except VaultheatError as exc:
            return error_response(exc.http_status, exc.code, exc.message)
        except web.HTTPException as exc:
            if exc.status < 400:
                raise
            code = _STATUS_CODES.get(exc.status, "bad_request" if exc.status < 500 else "internal")
            message = exc.text if exc.text and not exc.text.startswith("{") else exc.reason
            if exc.status == 413:
                message = "request body too large"
            return error_response(exc.status, code, message or exc.reason)
        except (ConnectionResetError, TimeoutError):
            raise
        except Exception:
            log.exception("unexpected error in %s %s", request.method, request.path)
            return error_response(500, "internal", "internal server error; see the server log")

    return errors


def make_guard_middleware(
    token: str,
    max_body_bytes: int,
    extra_hosts: Iterable[str],
    *,
    remote: bool = False,
    limiter: FailedTokenLimiter | None = None,
) -> Middleware:
    """``remote`` (``serve --allow-remote``): the token is required on every endpoint, health
    included; Obsidian mobile's origins are accepted; wrong tokens are rate limited per peer."""
    hosts = frozenset(extra_hosts)
    origins = MOBILE_ORIGINS if remote else frozenset()
    public = frozenset() if remote else PUBLIC_PATHS
    failures = (limiter or FailedTokenLimiter()) if remote else None

    @web.middleware
    async def guard(request: web.Request, handler: Handler) -> web.StreamResponse:
        if not host_allowed(request.headers.get("Host"), hosts):
            return error_response(
                403, "forbidden", "the Host header must name a loopback address or an --allow-host"
            )
        peer = request.remote or "?"
        if failures is not None and failures.blocked(peer):
            return error_response(
                429,
                "rate_limited",
                f"too many wrong tokens from {peer}; wait {int(FAILED_TOKEN_WINDOW_S)} s",
                headers={"Retry-After": str(int(FAILED_TOKEN_WINDOW_S))},
            )
        if not origin_allowed(request.headers.get("Origin"), origins):
            return error_response(403, "forbidden", "requests from this origin are not allowed")
        if request.content_length is not None and request.content_length > max_body_bytes:
            return error_response(
                413, "too_large", f"request body larger than {max_body_bytes} bytes"
            )
        if request.path not in public and not token_matches(
            request.headers.get("Authorization"), token
        ):
            if failures is not None:
                failures.fail(peer)
            return error_response(
                401,
                "unauthorized",
                "missing or wrong bearer token (see server.json in the index folder)",
                headers={"WWW-Authenticate": 'Bearer realm="vaultheat"'},
            )
        return await handler(request)

    return guard


async def read_json(request: web.Request, *, empty: object = None) -> object:
    """The request body as JSON; ``empty`` when there is no body."""
    from vaultheat.errors import InputError

    raw = await request.read()
    if not raw.strip():
        return empty
    try:
        return json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise InputError(f"request body is not valid JSON: {exc}") from exc
    except RecursionError as exc:
        raise InputError("request body is nested too deeply") from exc
