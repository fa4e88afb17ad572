"""The wire schema: one JSON Schema per document and object the API, the CLI and the agents
send, named after the plugin's wire types. The one source every other description is made from:

- the OpenAPI document (``openapi.py``) lists ``component_schemas()`` as its components;
- the agent tools' output schemas are ``document_schema(tag)`` (``agents/tools.py``), the same
  schemas inlined under ``$defs`` so an MCP client needs nothing else to read them;
- docs/api.md's field tables and the plugin's copy for its contract test are generated from
  them (``wire_docs.py``; a test fails when either is stale);
- the tests validate every live answer and golden document against them, and check that the
  documents (``vaultheat/documents.py``) send no field the schema does not declare.

Names match ``obsidian-plugin/src/api/types.ts`` one to one so the plugin's contract check can
compare field lists. Required fields are what the server always sends; extra fields are allowed
(documents may grow), except in request bodies, which are closed like the request types that
validate them. A ``description`` on a field is what docs/api.md's table says about it.
"""

from __future__ import annotations

import copy
import functools
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
FRESHNESS = ("on_disk", "indexed", "not_indexed", "changed", "deleted")  # core.freshness
# what only a running server adds to the status document (the CLI and agents in process omit it)
SERVER_STATUS = ("progress", "last_error", "paused", "queue")
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
# a result's PDF chunk: the page to open, the one of page..page_end holding the match
RESULT_LOCATOR: dict[str, Schema] = {
    **LOCATOR,
    "open_page": {
        "type": "integer",
        "minimum": 1,
        "description": "PDF: the page to open, the one of page..page_end that holds the match "
        "(page when the chunk has one page, and for related notes)",
    },
}
# the score parts (core/pipeline.py); "title" is the note-name score (core/titles.py), "note"
# the cosine to the whole note's vector (core/notevec.py), "page" 1 for a note proper and 0 for
# a digest or a list page (core/pagekind.py), "pointer" the credit a digest's bullet moved to
# the notes it links (core/pointer_credit.py)
COMPONENT_NAMES = (
    "vector", "lexical", "heat", "fusion", "rerank", "title", "note", "page", "pointer",
)  # fmt: skip
COMPONENT_HELP = {
    "vector": "cosine of the query and the chunk",
    "lexical": "BM25 of the query's words in the chunk",
    "heat": "graph heat (only when search.hops > 0)",
    "fusion": "rank-fusion score of the seeds",
    "rerank": "the cross-encoder's score (when reranking ran)",
    "title": "the note-name match (core/titles.py)",
    "note": "cosine of the query and the whole note's vector (queries of more than 3 terms)",
    "page": "1 for a note proper, 0 for a digest or a list page (search only)",
    "pointer": "score received from a digest's or list page's bullet that links the note, less "
    "the score a pointer chunk gave away; weight 1, not scaled (search.pointer_credit > 0)",
}
PATH: Schema = {"type": "string", "description": "vault-relative path of the note"}
NOTE_TITLE: Schema = {"type": "string", "description": "the note's title"}


def tag(value: str) -> Schema:
    return {"type": "string", "const": value}


def d(schema: Schema, description: str) -> Schema:
    """``schema`` with the description docs/api.md's field table shows for the field."""
    return {**schema, "description": description}


RANK: Schema = d(INT, "1-based position in this answer")
SCORE: Schema = d(NUM, "orders the results of one answer (rounded to 6 decimals)")
TOOK_MS: Schema = d(NUM, "time the query took, in milliseconds")
HEADINGS: Schema = d(STR_LIST, "the headings above the chunk, outermost first")
SNIPPET: Schema = d(STR, "the chunk's text (a snippet, cut at `…` when long)")
LABEL: Schema = d({"enum": RELEVANCE_LABELS}, "`relevance` in words: strong ≥ 0.50, good ≥ 0.25")
EXPLAIN: Schema = d(nullable(ref("Explanation")), "the trace, when the request asked for it")


def component_schemas() -> dict[str, Schema]:
    """Every named schema of the API (the plugin's wire types), by name."""
    components = obj(
        {k: d(NUM_OR_NULL, COMPONENT_HELP[k]) for k in COMPONENT_NAMES},
        description="The raw score parts of a result; null: the stage did not run",
    )
    place: dict[str, Schema] = {
        "line_start": d(INT, "first line, 1-based (0 for derived text)"),
        "line_end": d(INT, "last line, inclusive (0 for derived text)"),
        "byte_start": d(INT, "the chunk is the file's bytes `byte_start..byte_end`"),
        "byte_end": d(INT, "end of the chunk's bytes (exclusive)"),
    }
    best_chunk = obj(
        {
            "chunk_id": d(INT, "the chunk's id in this index generation"),
            "heading_path": HEADINGS,
            **place,
            "text": SNIPPET,
        },
        RESULT_LOCATOR,
        description="A result's best chunk: where it is and its snippet",
    )
    top = d(
        {"type": "integer", "minimum": 1, "maximum": MAX_TOP, "default": 10},
        "how many results (default from config: search.top / related.top)",
    )
    rerank = d({"type": ["boolean", "null"]}, "rerank the shortlist (null: as configured)")
    search_options: dict[str, Schema] = {
        "top": top,
        "files_only": d(BOOL, "one result per note"),
        "explain": d(BOOL, "add each result's trace (`explain`)"),
        "lexical": d(BOOL, "use the keyword (BM25) retriever (default true)"),
        "graph": d(BOOL, "heat propagation, when search.hops > 0 (default true)"),
        "rerank": rerank,
        "expand": d({"type": ["boolean", "null"]}, "query expansion (null: as configured)"),
        "folder": d({"type": ["string", "null"]}, "only notes under this folder"),
        "tag": d({"type": ["string", "null"]}, "only notes with this tag"),
        "property": d({"type": "object"}, "frontmatter properties that must match"),
    }
    query = {"type": "string", "minLength": 1, "maxLength": MAX_QUERY_CHARS}
    related_options: dict[str, Schema] = {
        "text": d(
            {"type": ["string", "null"], "maxLength": MAX_TEXT_CHARS},
            "the note's unsaved editor text",
        ),
        "cursor": d(
            {"type": ["integer", "null"], "minimum": 0},
            "byte offset into `text`: focus on the passage around it",
        ),
        "top": top,
        "unlinked_only": d(BOOL, "only notes the note does not link to yet"),
        "explain": d(BOOL, "add each result's trace (`explain`)"),
        "graph": d(
            BOOL,
            "link heat from the note's own links (related.link_heat) and heat propagation "
            "(when search.hops > 0); default true, the CLI's --no-graph",
        ),
        "lexical": d(BOOL, "use the keyword (BM25) retriever (default true)"),
        "rerank": rerank,
        "votes": d(BOOL, "link votes (default true; the CLI's --no-votes)"),
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
                "edges": obj(
                    {"similar": COUNT, "link": COUNT},
                    {"tag": d(COUNT, "the server counts tag edges too")},
                ),
                "model": obj(
                    {"provider": STR, "name": STR, "dimension": {"type": ["integer", "null"]}},
                    {"backend": STR, "preset": d(STR, "the config preset that named it")},
                ),
                "progress": d(nullable(ref("Progress")), "server only: the index run"),
                "last_error": d({"type": ["string", "null"]}, "server only"),
                "paused": d(BOOL, "server only: background indexing is paused"),
            },
            {
                "version": STR,
                "freshness": d(
                    obj({k: COUNT for k in FRESHNESS}),
                    "the notes on disk against the index (the scan status starts with)",
                ),
                "pending": obj({"knn": COUNT, "links": COUNT}),
                "pages": d(
                    {"type": "object", "additionalProperties": COUNT},
                    "notes by what they are (core/pagekind.py): note, digest, list; "
                    "unclassified until the next index run of an older index",
                ),
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
                "queue": d(COUNT, "server only: changed notes and runs waiting to be indexed"),
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
                "rank": RANK,
                "chunk_id": d(INT, "the chunk's id in this index generation"),
                "path": PATH,
                "title": NOTE_TITLE,
                "heading_path": HEADINGS,
                **place,
                "text": SNIPPET,
                "text_truncated": d(BOOL, "`text` was cut"),
                "score": SCORE,
                "relevance": RELEVANCE,
                "relevance_label": LABEL,
                "found_by": d(STR, "the retriever that found the chunk first"),
                "components": ref("Components"),
                "explain": EXPLAIN,
            },
            RESULT_LOCATOR,
            description="A search result: one chunk",
        ),
        "FileHit": obj(
            {
                "rank": RANK,
                "path": PATH,
                "title": NOTE_TITLE,
                "score": d(NUM, "the best chunk's score plus 5% of the next best chunks'"),
                "relevance": RELEVANCE,
                "relevance_label": LABEL,
                "best_chunk": ref("BestChunk"),
            },
            {"components": ref("Components"), "explain": EXPLAIN},
            description="A files-only search result: one note and its best chunk",
        ),
        "SearchDoc": obj(
            {
                "schema": tag("vaultheat.search.v1"),
                "query": STR,
                "took_ms": TOOK_MS,
                "files_only": d(BOOL, "results are notes (FileHit), not chunks (SearchHit)"),
                "ranked_by": d(
                    {"type": "string", "enum": ["meaning", "words"]},
                    "words: no vector match was good (or vectors are missing) and the "
                    "query's words led",
                ),
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
            },
            description="`POST /v1/search`, `vaultheat search --json`, the agent tool `search`",
        ),
        "RelatedRequest": obj({"path": STR}, related_options, closed=True),
        "BestChunk": best_chunk,
        "RelatedHit": obj(
            {
                "rank": RANK,
                "path": PATH,
                "title": NOTE_TITLE,
                "folder": d(STR, "the note's folder (\"\" at the vault's root)"),
                "score": d(NUM, "content score plus the link votes' and link heat's bonuses"),
                "relevance": RELEVANCE,
                "relevance_label": LABEL,
                "link_status": d(
                    {"enum": ["linked", "backlinked", "both", "unlinked"]},
                    "how the query note and this one link each other",
                ),
                "best_chunk": ref("BestChunk"),
                "duplicates": d(STR_LIST, "near-duplicate notes folded into this one"),
                "components": ref("Components"),
                "votes": d(nullable(ref("Votes")), "null: none of the closest notes link here"),
                "explain": EXPLAIN,
            },
            {
                "link_heat": d(
                    nullable(ref("LinkHeat")),
                    "null: no heat from the note's own links reached this one "
                    "(absent from sidecars before link heat)",
                ),
            },
            description="A related note",
        ),
        "Votes": obj(
            {
                "count": d(COUNT, "how many of the k closest notes link to the result"),
                "k": d(COUNT, "how many closest notes voted (related.vote_k)"),
                "weight": d(NUM, "related.vote_weight"),
                "share": d(NUM, "Σ voter scores / total"),
                "bonus": d(NUM, "weight × share × hub_factor, added to the score"),
                "voters": d(
                    {
                        "type": "array",
                        "items": obj({"path": STR, "title": STR, "score": NUM}),
                    },
                    "the notes that link to the result, best first",
                ),
            },
            {
                "total": d(NUM, "Σ of the k closest notes' scores"),
                "hub_factor": d(NUM, "1 unless hub damping or votes beyond chance are on"),
            },
            description="Link votes: count of the k closest notes that link to this one, share = "
            "Σ voter scores / total (Σ of the k scores), bonus = weight × share × hub_factor",
        ),
        "LinkHeat": obj(
            {
                "kind": d(
                    {"enum": ["ppr", "ra"]},
                    "related.link_heat: personalized PageRank "
                    "or resource allocation from the note's own links",
                ),
                "heat": d(NUM, "this note's heat"),
                "top": d(NUM, "the largest heat of any candidate"),
                "weight": d(NUM, "related.link_heat_weight"),
                "bonus": d(NUM, "weight × heat / top, added to the score"),
                "via": d(
                    {"type": "array", "items": obj({"path": STR, "title": STR})},
                    "the query note's neighbours next to this one, most telling first",
                ),
            },
            description="Link heat: spread from the query note's links (both ways) over the "
            "link graph; bonus = weight × heat / top",
        ),
        "RelatedDoc": obj(
            {
                "schema": tag("vaultheat.related.v1"),
                "path": d(STR, "the query note"),
                "took_ms": TOOK_MS,
                "results": {"type": "array", "items": ref("RelatedHit")},
            },
            description="`POST /v1/related`, `vaultheat related --json`, the tool `related`",
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
                "chunk_id": d(INT, "the seed chunk"),
                "path": PATH,
                "heading_path": HEADINGS,
                "text": SNIPPET,
                "stage": d(STR, "the retriever that found it: vector, lexical, note, votes, …"),
                "seed_score": d(NUM, "its rank-fusion score"),
            },
            LOCATOR,
            description="Where a result's score started",
        ),
        "ExplainHop": obj(
            {
                "hop": d(INT, "1 for the first step from the seed"),
                "from_chunk": INT,
                "to_chunk": INT,
                "edge": d(STR, "the edge type: link, backlink, similar, tag"),
                "edge_weight": NUM,
                "type_weight": NUM,
                "decay": NUM,
                "heat": d(NUM, "previous heat × edge_weight × decay × type_weight × hub_factor"),
                "hub_factor": NUM,
                "path": STR,
                "heading_path": HEADINGS,
                "text": STR,
            },
            description="One hop of heat along an edge (only when search.hops > 0)",
        ),
        "ScoreBreakdown": obj(
            {
                "raw": d(ref("Components"), "the parts as each stage scored them"),
                "normalized": d(ref("Components"), "the parts min-max scaled over the candidates"),
                "weights": d(
                    obj({k: NUM for k in COMPONENT_NAMES}), "the weight of each part in `final`"
                ),
                "final": d(NUM, "Σ weights[k] × normalized[k] over the parts that are not null"),
            },
            description="The score arithmetic",
        ),
        "PointerLines": obj(
            {
                "path": PATH,
                "line_start": d(INT, "the entry's first line in the note"),
                "line_end": d(INT, "its last line"),
            },
            description="A pointer entry: its note and its lines (1-based, inclusive)",
        ),
        "PointerCredit": obj(
            {
                "text": d(STR, "the credit in words"),
                "gave": d(NUM, "the score this pointer chunk gave away (0: none)"),
                "to": d(STR_LIST, "the notes it gave to"),
                "entry": d(nullable(ref("PointerLines")), "the entry that gave (null: none)"),
                "received": d(NUM, "the score this chunk received (0: none)"),
                "from": d(
                    nullable(ref("PointerLines")), "the entry whose credit it received (null: none)"
                ),
            },
            description="search.pointer_credit: components.normalized.pointer == received - gave",
        ),
        "Explanation": obj(
            {
                "seed": nullable(ref("ExplainSeed")),
                "hops": {"type": "array", "items": ref("ExplainHop")},
                "components": ref("ScoreBreakdown"),
            },
            {
                "pointer": d(ref("PointerCredit"), "search: the pointer credit it gave or got"),
                "hop_count": COUNT,
                "content_score": d(NUM, "related notes: the score before link votes and link heat"),
                "votes": nullable(ref("Votes")),
                "link_heat": nullable(ref("LinkHeat")),
                "score": d(
                    NUM, "related notes: content_score + votes.bonus + link_heat.bonus, unrounded"
                ),
            },
            description="A result's own explanation (`explain: true`): ExplainDoc without the "
            "identifying fields",
        ),
        "ExplainDoc": obj(
            {
                "schema": tag("vaultheat.explain.v1"),
                "query": d(STR, "the query (related notes: `related to PATH`)"),
                "chunk_id": d(INT, "the explained result's chunk"),
                "path": d(STR, "the explained result's note"),
                "score": SCORE,
                "seed": nullable(ref("ExplainSeed")),
                "hops": {"type": "array", "items": ref("ExplainHop")},
                "components": ref("ScoreBreakdown"),
            },
            {
                "pointer": d(ref("PointerCredit"), "search: the pointer credit it gave or got"),
                "content_score": d(NUM, "related notes: the score before link votes and link heat"),
                "votes": nullable(ref("Votes")),
                "link_heat": nullable(ref("LinkHeat")),
            },
            description="`POST /v1/explain`, `vaultheat explain --json`, the agent tool `explain`",
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


@functools.cache
def _components() -> dict[str, Schema]:
    return component_schemas()


def _refs(schema: Any) -> set[str]:
    """The component names ``schema`` refers to, directly."""
    if isinstance(schema, dict):
        target = schema.get("$ref")
        own = {target.rsplit("/", 1)[1]} if isinstance(target, str) else set()
        return own.union(*(_refs(v) for v in schema.values()))
    if isinstance(schema, list):
        return set().union(*(_refs(v) for v in schema))
    return set()


def rebase(schema: Any) -> Any:
    """``schema`` with its component references pointing at ``#/$defs/NAME``."""
    if isinstance(schema, dict):
        out = {k: rebase(v) for k, v in schema.items()}
        if isinstance(out.get("$ref"), str):
            out["$ref"] = "#/$defs/" + out["$ref"].rsplit("/", 1)[1]
        return out
    if isinstance(schema, list):
        return [rebase(v) for v in schema]
    return schema


def standalone(name: str) -> Schema:
    """The named schema as one self-contained JSON Schema: the components it uses (all the
    way down) under ``$defs``, so a client that knows no OpenAPI can validate with it."""
    components = _components()
    seen: set[str] = set()
    todo = [name]
    while todo:
        for ref_name in sorted(_refs(components[todo.pop()]) - seen):
            seen.add(ref_name)
            todo.append(ref_name)
    out: Schema = rebase(copy.deepcopy(components[name]))
    if seen:
        out["$defs"] = {n: rebase(copy.deepcopy(components[n])) for n in sorted(seen)}
    return out


def name_of(schema_tag: str) -> str:
    """The component name of the document tagged ``schema_tag`` (``vaultheat.search.v1``)."""
    for name, schema in _components().items():
        if schema.get("properties", {}).get("schema", {}).get("const") == schema_tag:
            return name
    raise KeyError(schema_tag)


def document_schema(schema_tag: str, *, optional: tuple[str, ...] = ()) -> Schema:
    """The self-contained schema of the document tagged ``schema_tag``; ``optional``: fields
    it requires that this sender may leave out (the status a server alone adds)."""
    out = standalone(name_of(schema_tag))
    out["required"] = [k for k in out["required"] if k not in optional]
    return out
