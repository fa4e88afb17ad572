"""The OpenAPI 3.1 document of /v1: the routes, written here as data, over the wire schema.

The components are ``schemas.component_schemas()``, the one wire schema the agent tools and
docs/api.md's tables are also made from; their names are the plugin's wire types
(``obsidian-plugin/src/api/types.ts``) so its contract check can compare field lists one to
one. The tests validate every answer the server
gives in them against this document, so it cannot drift from the real behaviour. 3.1 rather
than 3.0 because its schemas are JSON Schema: ``null`` is a type, so "number or null" fields
validate exactly as the server sends them.
"""

from __future__ import annotations

import copy
import functools
import json
from typing import Any

from vaultheat import __version__
from vaultheat.server.schemas import EVENT_NAMES, STR, component_schemas, ref


def _json(name: str, description: str = "OK") -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": ref(name)}}}


def _errors(*statuses: int) -> dict[str, Any]:
    texts = {
        400: "Malformed request, bad option or a path outside the vault",
        401: "Missing or wrong bearer token",
        403: "Host not loopback, or a foreign browser Origin",
        404: "Unknown note, chunk or route",
        409: "No index yet, index built with another model, or index locked",
        413: "Request body too large",
        500: "Internal error (damaged index, model not installed)",
        502: "An embedding/rerank/generation provider failed",
    }
    return {str(s): _json("ErrorBody", texts[s]) for s in statuses}


GUARDS = (401, 403, 413, 500)
QUERY_ERRORS = (400, *GUARDS, 409, 502)


def _body(name: str, *, required: bool = True) -> dict[str, Any]:
    return {"required": required, "content": {"application/json": {"schema": ref(name)}}}


def _paths() -> dict[str, Any]:
    events_doc = "\n".join(f"- `{name}`: `{schema}`" for name, schema in EVENT_NAMES.items())
    return {
        "/v1/health": {
            "get": {
                "operationId": "health",
                "summary": "Liveness and index state (no token needed)",
                "security": [],
                "responses": {"200": _json("HealthDoc"), **_errors(403, 500)},
            }
        },
        "/v1/status": {
            "get": {
                "operationId": "status",
                "summary": "Counts, model, progress, queue, last error, skipped files",
                "responses": {"200": _json("StatusDoc"), **_errors(*GUARDS)},
            }
        },
        "/v1/notes/status": {
            "get": {
                "operationId": "noteStatus",
                "summary": "Why a note is (not) indexed, and whether the index is fresh",
                "parameters": [
                    {
                        "name": "path",
                        "in": "query",
                        "required": True,
                        "schema": STR,
                        "description": "vault-relative note path",
                    }
                ],
                "responses": {"200": _json("NoteStatusDoc"), **_errors(400, *GUARDS)},
            }
        },
        "/v1/search": {
            "post": {
                "operationId": "search",
                "requestBody": _body("SearchRequest"),
                "responses": {"200": _json("SearchDoc"), **_errors(*QUERY_ERRORS)},
            }
        },
        "/v1/related": {
            "post": {
                "operationId": "related",
                "summary": "Notes related to a note, or to unsaved text around a cursor",
                "requestBody": _body("RelatedRequest"),
                "responses": {"200": _json("RelatedDoc"), **_errors(*QUERY_ERRORS, 404)},
            }
        },
        "/v1/related/batch": {
            "post": {
                "operationId": "relatedBatch",
                "summary": "Related notes of many saved notes at once (the plugin's snapshot)",
                "requestBody": _body("RelatedBatchRequest"),
                "responses": {"200": _json("RelatedBatchDoc"), **_errors(*QUERY_ERRORS)},
            }
        },
        "/v1/explain": {
            "post": {
                "operationId": "explain",
                "summary": "Why a search result or a related note scored as it did",
                "requestBody": _body("ExplainRequest"),
                "responses": {"200": _json("ExplainDoc"), **_errors(*QUERY_ERRORS, 404)},
            }
        },
        "/v1/explain/missing": {
            "post": {
                "operationId": "explainMissing",
                "summary": "Where a note expected among a search's results landed, and why",
                "requestBody": _body("MissingRequest"),
                "responses": {"200": _json("MissingDoc"), **_errors(*QUERY_ERRORS, 404)},
            }
        },
        "/v1/notes/changed": {
            "post": {
                "operationId": "notesChanged",
                "summary": "Report note events; the server debounces and re-indexes those notes",
                "requestBody": _body("ChangesRequest"),
                "responses": {"200": _json("AckDoc"), **_errors(400, *GUARDS)},
            }
        },
        "/v1/index": {
            "post": {
                "operationId": "index",
                "summary": "Queue an incremental (or full) index run",
                "requestBody": _body("IndexRequest", required=False),
                "responses": {"200": _json("AckDoc"), **_errors(400, *GUARDS)},
            }
        },
        "/v1/index/pause": {
            "post": {
                "operationId": "pauseIndexing",
                "summary": "Pause background indexing after the batch in flight",
                "responses": {"200": _json("AckDoc"), **_errors(*GUARDS)},
            }
        },
        "/v1/index/resume": {
            "post": {
                "operationId": "resumeIndexing",
                "responses": {"200": _json("AckDoc"), **_errors(*GUARDS)},
            }
        },
        "/v1/shutdown": {
            "post": {
                "operationId": "shutdown",
                "summary": "Stop the server cleanly (as SIGTERM): it answers, then exits 0",
                "responses": {"200": _json("AckDoc"), **_errors(400, *GUARDS)},
            }
        },
        "/v1/events": {
            "get": {
                "operationId": "events",
                "summary": "Server-Sent Events; `state` comes first on every connection",
                "description": "Frames are `event: NAME` + `data: JSON`. Events:\n" + events_doc,
                "responses": {
                    "200": {
                        "description": "An endless event stream",
                        "content": {"text/event-stream": {"schema": STR}},
                    },
                    **_errors(*GUARDS),
                },
                "x-events": {name: ref(schema) for name, schema in EVENT_NAMES.items()},
            }
        },
        "/v1/openapi.json": {
            "get": {
                "operationId": "openapi",
                "summary": "This document",
                "responses": {
                    "200": {
                        "description": "OpenAPI 3.1 document",
                        "content": {"application/json": {"schema": {"type": "object"}}},
                    },
                    **_errors(*GUARDS),
                },
            }
        },
    }


@functools.cache
def _document() -> dict[str, Any]:
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "vaultheat sidecar API",
            "version": __version__,
            "description": "Local semantic search and related notes for one Obsidian vault. "
            "Listens on loopback only; every endpoint but /v1/health needs the bearer token "
            "from `<index_dir>/server.json`. In remote mode (`serve --allow-remote`) "
            "/v1/health needs it too, and wrong tokens are answered 429 after 10 per minute "
            "from one address.",
        },
        "servers": [{"url": "http://127.0.0.1:51764"}],
        "security": [{"bearer": []}],
        "paths": _paths(),
        "components": {
            "schemas": component_schemas(),
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
    }


@functools.cache
def openapi_json() -> bytes:
    """The document serialized once (it never changes while a server runs)."""
    return json.dumps(_document()).encode("utf-8")


def openapi_document() -> dict[str, Any]:
    """A fresh copy of the document (callers may mutate it)."""
    return copy.deepcopy(_document())
