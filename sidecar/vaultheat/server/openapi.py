"""The OpenAPI 3.1 document of /v1, written by hand as data, checked against live answers.

Component names are the plugin's wire types (``obsidian-plugin/src/api/types.ts``) so its
contract check can compare field lists one to one. The tests validate every answer the server
gives in them against this document, so it cannot drift from the real behaviour. 3.1 rather
than 3.0 because its schemas are JSON Schema: ``null`` is a type, so "number or null" fields
validate exactly as the server sends them.
"""

from __future__ import annotations

import copy
import functools
from typing import Any

from vaultheat import __version__
from vaultheat.core.requests import MAX_QUERY_CHARS, MAX_TEXT_CHARS, MAX_TOP

Schema = dict[str, Any]

ERROR_CODES = [
    "config", "vault", "index_missing", "index_exists", "index_mismatch", "index_corrupt",
    "index_locked", "provider", "model_missing", "not_found", "bad_request", "unauthorized",
    "forbidden", "too_large", "internal",
]  # fmt: skip
STATES = ["empty", "ready", "indexing", "stale"]
EVENT_NAMES = {
    "state": "StatusDoc",
    "progress": "Progress",
    "note_indexed": "NoteIndexedEvent",
    "ready": "ReadyEvent",
    "error": "ErrorEvent",
}


def ref(name: str) -> Schema:
    return {"$ref": f"#/components/schemas/{name}"}


def nullable(schema: Schema) -> Schema:
    return {"anyOf": [schema, {"type": "null"}]}


def obj(required: dict[str, Schema], optional: dict[str, Schema] | None = None,
        *, closed: bool = False, description: str = "") -> Schema:  # fmt: skip
    """An object schema: every ``required`` field must be present, ``optional`` may be."""
    out: Schema = {
        "type": "object",
        "required": list(required),
        "properties": {**required, **(optional or {})},
    }
    if closed:
        out["additionalProperties"] = False
    if description:
        out["description"] = description
    return out


STR: Schema = {"type": "string"}
INT: Schema = {"type": "integer"}
NUM: Schema = {"type": "number"}
BOOL: Schema = {"type": "boolean"}
COUNT: Schema = {"type": "integer", "minimum": 0}
STR_LIST: Schema = {"type": "array", "items": STR}
NUM_OR_NULL: Schema = {"type": ["number", "null"]}


def tag(value: str) -> Schema:
    return {"type": "string", "const": value}


def _schemas() -> dict[str, Schema]:
    components = obj({k: NUM_OR_NULL for k in ("vector", "lexical", "heat", "rerank")})
    best_chunk = obj(
        {
            "chunk_id": INT, "heading_path": STR_LIST, "line_start": INT, "line_end": INT,
            "byte_start": INT, "byte_end": INT, "text": STR,
        }
    )  # fmt: skip
    search_options: dict[str, Schema] = {
        "top": {"type": "integer", "minimum": 1, "maximum": MAX_TOP, "default": 10},
        "files_only": BOOL,
        "explain": BOOL,
        "lexical": BOOL,
        "graph": BOOL,
        "rerank": {"type": ["boolean", "null"]},
        "expand": {"type": ["boolean", "null"]},
        "folder": {"type": ["string", "null"]},
        "tag": {"type": ["string", "null"]},
        "property": {"type": "object"},
    }
    query = {"type": "string", "minLength": 1, "maxLength": MAX_QUERY_CHARS}
    related_options: dict[str, Schema] = {
        "text": {"type": ["string", "null"], "maxLength": MAX_TEXT_CHARS},
        "cursor": {"type": ["integer", "null"], "minimum": 0},
        "top": {"type": "integer", "minimum": 1, "maximum": MAX_TOP, "default": 10},
        "unlinked_only": BOOL,
        "explain": BOOL,
        "graph": BOOL,
        "lexical": BOOL,
        "rerank": {"type": ["boolean", "null"]},
    }
    return {
        "ErrorBody": obj(
            {"error": obj({"code": {"type": "string", "enum": ERROR_CODES}, "message": STR},
                          {"context": {"type": "object"}})}  # fmt: skip
        ),
        "HealthDoc": obj(
            {"schema": tag("vaultheat.health.v1"), "status": tag("ok"), "version": STR,
             "state": {"enum": STATES}}  # fmt: skip
        ),
        "Progress": obj(
            {"stage": STR, "done": COUNT, "total": COUNT, "rate": NUM_OR_NULL,
             "eta_s": NUM_OR_NULL}  # fmt: skip
        ),
        "SkippedFile": obj({"path": STR, "reason": STR}),
        "StatusDoc": obj(
            {
                "schema": tag("vaultheat.status.v1"),
                "vault": STR,
                "index_dir": STR,
                "state": {"enum": STATES},
                "notes": COUNT,
                "chunks": COUNT,
                "links": obj({"resolved": COUNT, "unresolved": COUNT}),
                "tags": COUNT,
                "skipped": {"type": "array", "items": ref("SkippedFile")},
                "vectors": COUNT,
                "edges": obj({"similar": COUNT, "link": COUNT, "tag": COUNT}),
                "model": obj(
                    {"provider": STR, "name": STR, "dimension": {"type": ["integer", "null"]}},
                    {"backend": STR},
                ),
                "progress": nullable(ref("Progress")),
                "last_error": {"type": ["string", "null"]},
                "paused": BOOL,
            },
            {
                "version": STR,
                "pending": obj({"knn": COUNT, "links": COUNT}),
                "queue": {**COUNT, "description": "changed notes and runs waiting to be indexed"},
                "excluded": COUNT,
            },
        ),
        "NoteStatusDoc": obj(
            {
                "schema": tag("vaultheat.note_status.v1"),
                "path": STR,
                "exists": BOOL,
                "indexed": BOOL,
                "reason": {"type": ["string", "null"]},
                "chunks": COUNT,
                "indexed_hash": {"type": ["string", "null"]},
                "disk_hash": {"type": ["string", "null"]},
                "fresh": BOOL,
            }
        ),
        "Components": components,
        "SearchRequest": obj({"query": query}, search_options, closed=True),
        "SearchHit": obj(
            {
                "rank": INT, "chunk_id": INT, "path": STR, "title": STR,
                "heading_path": STR_LIST, "line_start": INT, "line_end": INT, "byte_start": INT,
                "byte_end": INT, "text": STR, "text_truncated": BOOL, "score": NUM,
                "found_by": STR, "components": ref("Components"),
                "explain": nullable(ref("Explanation")),
            }
        ),  # fmt: skip
        "FileHit": obj(
            {"rank": INT, "path": STR, "title": STR, "score": NUM,
             "best_chunk": ref("BestChunk")},  # fmt: skip
            {"components": ref("Components"), "explain": nullable(ref("Explanation"))},
        ),
        "SearchDoc": obj(
            {
                "schema": tag("vaultheat.search.v1"),
                "query": STR,
                "took_ms": NUM,
                "files_only": BOOL,
                "results": {
                    "type": "array",
                    "items": {"anyOf": [ref("SearchHit"), ref("FileHit")]},
                },
            }
        ),
        "RelatedRequest": obj({"path": STR}, related_options, closed=True),
        "BestChunk": best_chunk,
        "RelatedHit": obj(
            {
                "rank": INT, "path": STR, "title": STR, "folder": STR, "score": NUM,
                "link_status": {"enum": ["linked", "backlinked", "both", "unlinked"]},
                "best_chunk": ref("BestChunk"), "duplicates": STR_LIST,
                "components": ref("Components"), "explain": nullable(ref("Explanation")),
            }
        ),  # fmt: skip
        "RelatedDoc": obj(
            {"schema": tag("vaultheat.related.v1"), "path": STR, "took_ms": NUM,
             "results": {"type": "array", "items": ref("RelatedHit")}}  # fmt: skip
        ),
        "ExplainRequest": {
            "oneOf": [
                obj({"query": query, "chunk_id": INT}, search_options, closed=True),
                obj({"path": STR, "target": STR}, related_options, closed=True),
            ]
        },
        "ExplainSeed": obj(
            {"chunk_id": INT, "path": STR, "heading_path": STR_LIST, "text": STR, "stage": STR,
             "seed_score": NUM}  # fmt: skip
        ),
        "ExplainHop": obj(
            {
                "hop": INT, "from_chunk": INT, "to_chunk": INT, "edge": STR, "edge_weight": NUM,
                "type_weight": NUM, "decay": NUM, "heat": NUM, "path": STR, "text": STR,
            }
        ),  # fmt: skip
        "ScoreBreakdown": obj(
            {
                "raw": ref("Components"),
                "normalized": ref("Components"),
                "weights": obj({k: NUM for k in ("vector", "lexical", "heat", "rerank")}),
                "final": NUM,
            }
        ),
        "Explanation": obj(
            {"seed": nullable(ref("ExplainSeed")),
             "hops": {"type": "array", "items": ref("ExplainHop")},
             "components": ref("ScoreBreakdown")},
            {"hop_count": COUNT},
            description="A result's own explanation (`explain: true`): ExplainDoc without the "
            "identifying fields",
        ),  # fmt: skip
        "ExplainDoc": obj(
            {
                "schema": tag("vaultheat.explain.v1"), "query": STR, "chunk_id": INT, "path": STR,
                "score": NUM, "seed": nullable(ref("ExplainSeed")),
                "hops": {"type": "array", "items": ref("ExplainHop")},
                "components": ref("ScoreBreakdown"),
            }
        ),  # fmt: skip
        "ChangeEvent": obj(
            {"type": {"enum": ["create", "modify", "delete", "rename"]}, "path": STR},
            {"old_path": {"type": "string", "description": "rename only: the former path"}},
            closed=True,
        ),
        "ChangesRequest": obj(
            {"events": {"type": "array", "items": ref("ChangeEvent"), "maxItems": 10_000}},
            closed=True,
        ),
        "IndexRequest": obj({}, {"full": {**BOOL, "default": False}}, closed=True),
        "AckDoc": obj(
            {"schema": tag("vaultheat.ack.v1")},
            {"queued": COUNT, "full": BOOL, "paused": BOOL},
        ),
        "NoteIndexedEvent": obj({"path": STR}),
        "ReadyEvent": obj({"notes": COUNT, "chunks": COUNT}),
        "ErrorEvent": obj({"code": STR, "message": STR}),
    }


def _json(name: str, description: str = "OK") -> dict[str, Any]:
    return {"description": description,
            "content": {"application/json": {"schema": ref(name)}}}  # fmt: skip


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
    events_doc = "\n".join(
        f"- `{name}`: `{schema}`" for name, schema in EVENT_NAMES.items()
    )
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
                    {"name": "path", "in": "query", "required": True, "schema": STR,
                     "description": "vault-relative note path"}  # fmt: skip
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
        "/v1/explain": {
            "post": {
                "operationId": "explain",
                "summary": "Why a search result or a related note scored as it did",
                "requestBody": _body("ExplainRequest"),
                "responses": {"200": _json("ExplainDoc"), **_errors(*QUERY_ERRORS, 404)},
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
                    "200": {"description": "OpenAPI 3.1 document",
                            "content": {"application/json": {"schema": {"type": "object"}}}},
                    **_errors(*GUARDS),
                },  # fmt: skip
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
            "from `<index_dir>/server.json`.",
        },
        "servers": [{"url": "http://127.0.0.1:51764"}],
        "security": [{"bearer": []}],
        "paths": _paths(),
        "components": {
            "schemas": _schemas(),
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
    }


def openapi_document() -> dict[str, Any]:
    """A fresh copy of the document (callers may mutate it)."""
    return copy.deepcopy(_document())
