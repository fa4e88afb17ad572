"""The /v1 handlers: parse and validate, call the engine off the event loop, answer JSON.

Bodies are validated by the same request types the CLI uses (``SearchRequest.from_dict`` ...),
so the API and the CLI accept exactly the same options. Every path a client sends is checked
with ``safe_vault_path`` and normalized before it reaches the engine or the worker: nothing
outside the vault can be named, and ``a/./b.md`` and ``a/b.md`` are the same note.
"""

from __future__ import annotations

import asyncio
import dataclasses
import posixpath
from typing import Any

from aiohttp import web

from vaultheat import index_status
from vaultheat.core.query.related_batch import RelatedBatchRequest, related_batch
from vaultheat.core.requests import RelatedRequest, SearchRequest, with_default_top
from vaultheat.documents import (
    explain_document,
    missing_document,
    note_status_document,
    related_batch_document,
    related_document,
    search_document,
)
from vaultheat.errors import InputError, VaultheatError
from vaultheat.paths import safe_vault_path
from vaultheat.server.events import CLOSE, KEEPALIVE_S, RESYNC, format_event
from vaultheat.server.middleware import read_json
from vaultheat.server.openapi import openapi_json
from vaultheat.server.state import STATE, ServerState

routes = web.RouteTableDef()

CHANGE_TYPES = frozenset({"create", "modify", "delete", "rename"})
MAX_CHANGE_EVENTS = 10_000
ACK = "vaultheat.ack.v1"
SHUTDOWN_AFTER_S = 0.05  # long enough for the answer to leave before the server stops


def _state(request: web.Request) -> ServerState:
    return request.app[STATE]


def vault_relative(state: ServerState, rel: Any, field: str = "path") -> str:
    """``rel`` checked against the vault (no escapes) and normalized to ``a/b.md`` form."""
    if not isinstance(rel, str):
        raise InputError(f"{field} must be a vault-relative path (a string)")
    safe_vault_path(state.engine.paths.vault, rel)
    return posixpath.normpath(rel.replace("\\", "/"))


def _object(body: Any, allowed: set[str], what: str) -> dict[str, Any]:
    if body is None:
        body = {}
    if not isinstance(body, dict):
        raise InputError(f"{what} must be a JSON object")
    unknown = sorted(set(body) - allowed)
    if unknown:
        raise InputError(f"unknown field(s): {', '.join(unknown)}")
    return body


# -- documents --------------------------------------------------------------------------------
@routes.get("/v1/health")
async def health(request: web.Request) -> web.Response:
    return web.json_response(_state(request).health_doc())


@routes.get("/v1/status")
async def status(request: web.Request) -> web.Response:
    state = _state(request)
    return web.json_response(await state.call(state.status_doc))


@routes.get("/v1/notes/status")
async def note_status(request: web.Request) -> web.Response:
    state = _state(request)
    if "path" not in request.query:
        raise InputError("query parameter `path` is required")
    path = vault_relative(state, request.query["path"])
    st = await state.call(index_status.note_status, state.engine, path)
    return web.json_response(note_status_document(st))


@routes.get("/v1/openapi.json")
async def openapi(request: web.Request) -> web.Response:
    return web.Response(body=openapi_json(), content_type="application/json")


# -- queries ----------------------------------------------------------------------------------
@routes.post("/v1/search")
async def search(request: web.Request) -> web.Response:
    state = _state(request)
    top = state.engine.settings.search.top
    req = SearchRequest.from_dict(with_default_top(await read_json(request), top))
    return web.json_response(search_document(await state.call(state.engine.search, req)))


@routes.post("/v1/related")
async def related(request: web.Request) -> web.Response:
    state = _state(request)
    top = state.engine.settings.related.top
    req = RelatedRequest.from_dict(with_default_top(await read_json(request), top))
    req = dataclasses.replace(req, path=vault_relative(state, req.path))
    return web.json_response(related_document(await state.call(state.engine.related, req)))


@routes.post("/v1/related/batch")
async def related_many(request: web.Request) -> web.Response:
    """``{paths: [...], top?}``: each saved note's related notes (the plugin's snapshot)."""
    state = _state(request)
    top = state.engine.settings.related.top
    req = RelatedBatchRequest.from_dict(with_default_top(await read_json(request), top))
    paths = tuple(dict.fromkeys(vault_relative(state, p) for p in req.paths))
    req = dataclasses.replace(req, paths=paths)
    batch = await state.call(related_batch, state.engine.related, req)
    return web.json_response(related_batch_document(batch))


@routes.post("/v1/explain")
async def explain(request: web.Request) -> web.Response:
    """``{query, chunk_id, ...search options}`` or ``{path, text?, cursor?, target, ...}``."""
    state = _state(request)
    body = await read_json(request)
    if not isinstance(body, dict):
        raise InputError("request body must be a JSON object")
    rest = dict(body)
    if "query" in rest:
        chunk_id = rest.pop("chunk_id", None)
        if not isinstance(chunk_id, int) or isinstance(chunk_id, bool):
            raise InputError("chunk_id (an integer) is required with query")
        sreq = SearchRequest.from_dict(rest)
        found = await state.call(state.engine.explain, sreq, chunk_id)
    elif "path" in rest:
        target = rest.pop("target", None)
        target = vault_relative(state, target, "target")
        rreq = RelatedRequest.from_dict(rest)
        rreq = dataclasses.replace(rreq, path=vault_relative(state, rreq.path))
        found = await state.call(state.engine.explain, rreq, target)
    else:
        raise InputError("give either {query, chunk_id} or {path, target}")
    return web.json_response(explain_document(found))


@routes.post("/v1/explain/missing")
async def explain_missing(request: web.Request) -> web.Response:
    """``{query, path, ...search options}``: where ``path`` landed for the query and why."""
    state = _state(request)
    body = await read_json(request)
    if not isinstance(body, dict):
        raise InputError("request body must be a JSON object")
    rest = dict(body)
    if "path" not in rest:
        raise InputError("path (the note expected among the results) is required")
    path = vault_relative(state, rest.pop("path"))
    req = SearchRequest.from_dict(with_default_top(rest, state.engine.settings.search.top))
    found = await state.call(state.engine.explain_missing, req, path)
    return web.json_response(missing_document(found))


# -- index control ----------------------------------------------------------------------------
@routes.post("/v1/notes/changed")
async def notes_changed(request: web.Request) -> web.Response:
    state = _state(request)
    body = _object(await read_json(request), {"events"}, "request body")
    events = body.get("events")
    if not isinstance(events, list):
        raise InputError("events must be a list of {type, path, old_path?}")
    if len(events) > MAX_CHANGE_EVENTS:
        raise InputError(f"at most {MAX_CHANGE_EVENTS} events per request")
    paths: list[str] = []
    for ev in events:
        ev = _object(ev, {"type", "path", "old_path"}, "each event")
        kind = ev.get("type")
        if not isinstance(kind, str) or kind not in CHANGE_TYPES:
            raise InputError(f"event type must be one of {', '.join(sorted(CHANGE_TYPES))}")
        paths.append(vault_relative(state, ev.get("path")))
        if kind == "rename":
            paths.append(vault_relative(state, ev.get("old_path"), "old_path"))
        elif "old_path" in ev:
            raise InputError("old_path is only valid for rename events")
    queued = state.worker.notify_changed(paths)
    return web.json_response({"schema": ACK, "queued": queued})


@routes.post("/v1/index")
async def index(request: web.Request) -> web.Response:
    state = _state(request)
    body = _object(await read_json(request), {"full"}, "request body")
    full = body.get("full", False)
    if not isinstance(full, bool):
        raise InputError("full must be true or false")
    state.worker.request(full=full)
    return web.json_response({"schema": ACK, "queued": 1, "full": full})


@routes.post("/v1/index/pause")
async def pause(request: web.Request) -> web.Response:
    state = _state(request)
    state.worker.pause()
    return web.json_response({"schema": ACK, "paused": True})


@routes.post("/v1/index/resume")
async def resume(request: web.Request) -> web.Response:
    state = _state(request)
    state.worker.resume()
    return web.json_response({"schema": ACK, "paused": False})


@routes.post("/v1/shutdown")
async def shutdown(request: web.Request) -> web.Response:
    """Stop this server cleanly, as SIGTERM does (a client that did not start it, such as an
    Obsidian that adopted a running sidecar, has no other way to). Token required, like all
    but health."""
    state = _state(request)
    _object(await read_json(request), set(), "request body")
    asyncio.get_running_loop().call_later(SHUTDOWN_AFTER_S, state.stop_requested.set)
    return web.json_response({"schema": ACK})


# -- events -----------------------------------------------------------------------------------
@routes.get("/v1/events")
async def events(request: web.Request) -> web.StreamResponse:
    state = _state(request)
    resp = web.StreamResponse(
        headers={
            "Content-Type": "text/event-stream; charset=utf-8",
            "Cache-Control": "no-cache",
            "X-Accel-Buffering": "no",
        }
    )
    await resp.prepare(request)
    sub = state.broadcaster.subscribe()  # before the snapshot: nothing falls in between
    try:
        await resp.write(await _state_event(state))
        while True:
            item = await sub.next(KEEPALIVE_S)
            if item is None:
                await resp.write(b": keep-alive\n\n")
            elif item is CLOSE:
                break
            elif item is RESYNC:
                await resp.write(await _state_event(state))
            elif isinstance(item, tuple):
                await resp.write(format_event(*item))
    except ConnectionError:
        pass  # the client went away
    finally:
        state.broadcaster.unsubscribe(sub)
    return resp


async def _state_event(state: ServerState) -> bytes:
    """The ``state`` frame; an ``error`` frame when the status cannot be read (the headers are
    sent already, so an error can no longer be an HTTP status)."""
    try:
        return format_event("state", await state.call(state.status_doc))
    except VaultheatError as exc:
        return format_event("error", {"code": exc.code, "message": exc.message})
