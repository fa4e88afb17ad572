"""The JSON Schemas of the API's documents, named after the plugin's wire types.

Shared by the OpenAPI document (``openapi.py``) and the tests that validate live answers and
events. Names match ``obsidian-plugin/src/api/types.ts`` one to one so the plugin's contract
check can compare field lists. Required fields are what the server always sends; extra fields
are allowed (documents may grow), except in request bodies, which are closed like the request
types that validate them.
"""

from __future__ import annotations

from typing import Any

from vaultheat.core.missing import STATUSES as MISSING_STATUSES
from vaultheat.core.related_batch import MAX_BATCH_PATHS
from vaultheat.core.requests import MAX_QUERY_CHARS, MAX_TEXT_CHARS, MAX_TOP

Schema = dict[str, Any]

ERROR_CODES = [
    "config",
    "vault",
    "index_missing",
    "index_exists",
    "index_mismatch",
    "index_corrupt",
    "index_changed",
    "index_locked",
    "index_process",
    "provider",
    "model_missing",
    "not_found",
    "bad_request",
    "unauthorized",
    "forbidden",
    "too_large",
    "internal",
]
STATES = ["indexing", "incomplete", "stale", "ready"]  # core.freshness.STATES
PHASE_STATES = ["done", "running", "interrupted", "pending"]  # core.status.Phases
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


def obj(
    required: dict[str, Schema],
    optional: dict[str, Schema] | None = None,
    *,
    closed: bool = False,
    description: str = "",
) -> Schema:
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
RELEVANCE: Schema = {
    "type": "number",
    "minimum": 0,
    "maximum": 1,
    "description": "calibrated probability that the result is relevant (docs/api.md)",
}
RELEVANCE_LABELS = ["strong", "good", "weak"]
# Where a chunk of derived text comes from (a PDF's pages, a canvas's card): present only on
# such chunks, whose text is the extracted text, lines 0 and bytes the whole file (docs/api.md)
PAGE: Schema = {"type": "integer", "minimum": 1, "description": "PDF: first page, 1-based"}
LOCATOR: dict[str, Schema] = {
    "page": PAGE,
    "page_end": {"type": "integer", "minimum": 1, "description": "PDF: last page"},
    "card_id": {"type": "string", "description": "canvas: the JSON Canvas node id"},
}
# the score parts (core/pipeline.py); "title" is the note-name score (core/titles.py)
COMPONENT_NAMES = ("vector", "lexical", "heat", "fusion", "rerank", "title")


def tag(value: str) -> Schema:
    return {"type": "string", "const": value}


def component_schemas() -> dict[str, Schema]:
    """Every named schema of the API (the plugin's wire types), by name."""
    components = obj({k: NUM_OR_NULL for k in COMPONENT_NAMES})
    best_chunk = obj(
        {
            "chunk_id": INT,
            "heading_path": STR_LIST,
            "line_start": INT,
            "line_end": INT,
            "byte_start": INT,
            "byte_end": INT,
            "text": STR,
        },
        LOCATOR,
    )
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
        "votes": BOOL,
    }
    return {
        "ErrorBody": obj(
            {
                "error": obj(
                    {"code": {"type": "string", "enum": ERROR_CODES}, "message": STR},
                    {"context": {"type": "object"}},
                )
            }
        ),
        "HealthDoc": obj(
            {
                "schema": tag("vaultheat.health.v1"),
                "status": tag("ok"),
                "version": STR,
                "state": {"enum": STATES},
                "vault_id": {
                    "type": "string",
                    "pattern": "^[0-9a-f]{16}$",
                    "description": "first 16 hex digits of sha256 of the vault's resolved path",
                },
            }
        ),
        "Progress": obj(
            {
                "stage": STR,
                "done": COUNT,
                "total": COUNT,
                "rate": NUM_OR_NULL,
                "eta_s": NUM_OR_NULL,
            }
        ),
        "SkippedFile": obj({"path": STR, "reason": STR}),
        "StatusDoc": obj(
            {
                "schema": tag("vaultheat.status.v1"),
                "vault": STR,
                "index_dir": STR,
                "state": {"enum": STATES},
                "state_detail": {**STR, "description": "why the index is in this state"},
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
                "kinds": obj(
                    {
                        kind: obj({"indexed": COUNT, "skipped": COUNT})
                        for kind in ("markdown", "pdf", "canvas")
                    }
                ),
                "phases": obj(
                    {
                        "words": obj({"state": {"enum": PHASE_STATES}}),
                        "meaning": obj(
                            {
                                "state": {"enum": PHASE_STATES},
                                "done": COUNT,
                                "total": COUNT,
                                "percent": NUM,
                                "eta_s": NUM_OR_NULL,
                            }
                        ),
                    }
                ),
                "queue": {**COUNT, "description": "changed notes and runs waiting to be indexed"},
                "excluded": COUNT,
                "exclude": {
                    "type": "array",
                    "items": STR,
                    "description": "vault.exclude in effect (config and serve --exclude)",
                },
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
                "rank": INT,
                "chunk_id": INT,
                "path": STR,
                "title": STR,
                "heading_path": STR_LIST,
                "line_start": INT,
                "line_end": INT,
                "byte_start": INT,
                "byte_end": INT,
                "text": STR,
                "text_truncated": BOOL,
                "score": NUM,
                "relevance": RELEVANCE,
                "relevance_label": {"enum": RELEVANCE_LABELS},
                "found_by": STR,
                "components": ref("Components"),
                "explain": nullable(ref("Explanation")),
            },
            LOCATOR,
        ),
        "FileHit": obj(
            {
                "rank": INT,
                "path": STR,
                "title": STR,
                "score": NUM,
                "relevance": RELEVANCE,
                "relevance_label": {"enum": RELEVANCE_LABELS},
                "best_chunk": ref("BestChunk"),
            },
            {"components": ref("Components"), "explain": nullable(ref("Explanation"))},
        ),
        "SearchDoc": obj(
            {
                "schema": tag("vaultheat.search.v1"),
                "query": STR,
                "took_ms": NUM,
                "files_only": BOOL,
                "ranked_by": {"type": "string", "enum": ["meaning", "words"]},
                "per_note": {
                    "type": "integer",
                    "minimum": 0,
                    "description": "chunk results: at most this many chunks of one note came "
                    "before every other note's (0: plain score order)",
                },
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
                "rank": INT,
                "path": STR,
                "title": STR,
                "folder": STR,
                "score": NUM,
                "relevance": RELEVANCE,
                "relevance_label": {"enum": RELEVANCE_LABELS},
                "link_status": {"enum": ["linked", "backlinked", "both", "unlinked"]},
                "best_chunk": ref("BestChunk"),
                "duplicates": STR_LIST,
                "components": ref("Components"),
                "votes": nullable(ref("Votes")),
                "explain": nullable(ref("Explanation")),
            }
        ),
        "Votes": obj(
            {
                "count": COUNT,
                "k": COUNT,
                "weight": NUM,
                "share": NUM,
                "bonus": NUM,
                "voters": {
                    "type": "array",
                    "items": obj({"path": STR, "title": STR, "score": NUM}),
                },
            },
            {"total": NUM, "hub_factor": NUM},
            description="Link votes: count of the k closest notes that link to this one, share = "
            "Σ voter scores / total (Σ of the k scores), bonus = weight × share × hub_factor",
        ),
        "RelatedDoc": obj(
            {
                "schema": tag("vaultheat.related.v1"),
                "path": STR,
                "took_ms": NUM,
                "results": {"type": "array", "items": ref("RelatedHit")},
            }
        ),
        "RelatedBatchRequest": obj(
            {
                "paths": {
                    "type": "array",
                    "items": STR,
                    "minItems": 1,
                    "maxItems": MAX_BATCH_PATHS,
                }
            },
            {"top": {"type": "integer", "minimum": 1, "maximum": MAX_TOP, "default": 10}},
            closed=True,
        ),
        "RelatedBatchNote": obj(
            {"path": STR, "results": {"type": "array", "items": ref("RelatedHit")}}
        ),
        "RelatedBatchDoc": obj(
            {
                "schema": tag("vaultheat.related_batch.v1"),
                "took_ms": NUM,
                "notes": {"type": "array", "items": ref("RelatedBatchNote")},
                "missing": STR_LIST,
            },
            description="Related notes of saved notes, in the order asked; paths the index "
            "does not hold are in missing",
        ),
        "ExplainRequest": {
            "oneOf": [
                obj({"query": query, "chunk_id": INT}, search_options, closed=True),
                obj({"path": STR, "target": STR}, related_options, closed=True),
            ]
        },
        "ExplainSeed": obj(
            {
                "chunk_id": INT,
                "path": STR,
                "heading_path": STR_LIST,
                "text": STR,
                "stage": STR,
                "seed_score": NUM,
            },
            LOCATOR,
        ),
        "ExplainHop": obj(
            {
                "hop": INT,
                "from_chunk": INT,
                "to_chunk": INT,
                "edge": STR,
                "edge_weight": NUM,
                "type_weight": NUM,
                "decay": NUM,
                "heat": NUM,
                "path": STR,
                "text": STR,
            }
        ),
        "ScoreBreakdown": obj(
            {
                "raw": ref("Components"),
                "normalized": ref("Components"),
                "weights": obj({k: NUM for k in COMPONENT_NAMES}),
                "final": NUM,
            }
        ),
        "Explanation": obj(
            {
                "seed": nullable(ref("ExplainSeed")),
                "hops": {"type": "array", "items": ref("ExplainHop")},
                "components": ref("ScoreBreakdown"),
            },
            {
                "hop_count": COUNT,
                "content_score": NUM,
                "votes": nullable(ref("Votes")),
                "score": NUM,
            },
            description="A result's own explanation (`explain: true`): ExplainDoc without the "
            "identifying fields",
        ),
        "ExplainDoc": obj(
            {
                "schema": tag("vaultheat.explain.v1"),
                "query": STR,
                "chunk_id": INT,
                "path": STR,
                "score": NUM,
                "seed": nullable(ref("ExplainSeed")),
                "hops": {"type": "array", "items": ref("ExplainHop")},
                "components": ref("ScoreBreakdown"),
            },
            {"content_score": NUM, "votes": nullable(ref("Votes"))},
        ),
        "MissingRequest": obj({"query": query, "path": STR}, search_options, closed=True),
        "RetrieverPlace": obj(
            {
                "stage": {"enum": ["vector", "lexical"]},
                "rank": {"type": ["integer", "null"], "minimum": 1},
                "score": NUM_OR_NULL,
                "keeps": COUNT,
                "cutoff": NUM_OR_NULL,
            },
            description="Where the note's highest-placed chunk stands in one retriever's full "
            "ranking (rank null: no match); the retriever passes on its top `keeps`",
        ),
        "Rival": obj({"rank": INT, "path": STR, "chunk_id": INT, "score": NUM}),
        "MissingDoc": obj(
            {
                "schema": tag("vaultheat.missing.v1"),
                "query": STR,
                "path": STR,
                "files_only": BOOL,
                "ranked_by": {"enum": ["meaning", "words"]},
                "status": {"enum": list(MISSING_STATUSES)},
                "reason": STR,
                "top": COUNT,
                "candidates": COUNT,
                "rank": {"type": ["integer", "null"], "minimum": 1},
                "would_rank": {"type": ["integer", "null"], "minimum": 1},
                "score": NUM_OR_NULL,
                "relevance": {"anyOf": [RELEVANCE, {"type": "null"}]},
                "relevance_label": {"enum": [*RELEVANCE_LABELS, None]},
                "best_chunk": nullable(ref("BestChunk")),
                "components": nullable(ref("ScoreBreakdown")),
                "explain": nullable(ref("Explanation")),
                "retrievers": {"type": "array", "items": ref("RetrieverPlace")},
                "to_beat": nullable(ref("Rival")),
            },
            description="Why a note is missing: its rank in the search (null: not among the "
            "candidates; `would_rank` is then where its score would put it), its best chunk's "
            "score parts and the result it would have to beat",
        ),
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
