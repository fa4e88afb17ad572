"""The agent tool table: defined once, served by ``mcp_server.py`` and ``jsonl.py``.

Each tool has a name, a description written for an agent (when to use it, what the numbers
mean), a JSON Schema for its input (``additionalProperties: false``: a misspelt option is an
error, not silently ignored; the fields the API takes too, such as query, top, text and cursor,
come from ``server/schemas/requests.py``, the one definition the API's request schemas use)
and one for its output (the ``vaultheat.*.v1`` document it returns: for search, related,
explain and missing the wire schema of ``server/schemas/``, the one the OpenAPI document
lists, inlined; the agent-only documents' are written here. Objects allow additional
properties, so a field added later never breaks a client that validates).

``call_tool`` is the single entry point of both shells: it validates, runs the handler and
turns every failure into an error document with a stable code. Nothing a client sends can
raise out of it, which is what lets one bad request never end a session.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from jsonschema import Draft202012Validator

from vaultheat import errors
from vaultheat.agents.backend import AutoBackend, Backend, ProgressCb, vault_path
from vaultheat.agents.notes import (
    MAX_NEIGHBORS,
    MAX_OPEN_BYTES,
    MAX_OPEN_LINES,
    OpenRequest,
    neighbors,
    open_note,
    render_open,
)
from vaultheat.agents.research import research
from vaultheat.core.requests import MAX_TOP
from vaultheat.documents import error_document
from vaultheat.server.schemas import RELEVANCE_LABELS, SERVER_STATUS, document_schema
from vaultheat.server.schemas.requests import (
    CURSOR,
    FOLDER,
    HELP,
    NOTE_PATH,
    PROPERTY,
    QUERY,
    TAG,
    TEXT,
    TOP,
)

log = logging.getLogger("vaultheat.agents")

MAX_ARGS_BYTES = 4_000_000  # serialized arguments of one call

Handler = Callable[[AutoBackend, dict[str, Any], ProgressCb | None], dict[str, Any]]


class UnknownToolError(errors.VaultheatError):
    code = "unknown_tool"


class TooLargeError(errors.VaultheatError):
    code = "too_large"


@dataclass(frozen=True)
class Tool:
    name: str
    title: str
    description: str
    input_schema: dict[str, Any]
    output_schema: dict[str, Any]
    handler: Handler
    read_only: bool = True
    render: Callable[[dict[str, Any]], str] | None = None

    def text(self, doc: dict[str, Any]) -> str:
        """What an agent reads as text: the document as JSON (open: numbered lines)."""
        return self.render(doc) if self.render else json.dumps(doc, ensure_ascii=False)


# -- schema pieces ------------------------------------------------------------------------------
def _obj(props: dict[str, Any], required: tuple[str, ...] = (), *, closed: bool = True) -> dict:
    out: dict[str, Any] = {"type": "object", "properties": props}
    if required:
        out["required"] = list(required)
    if closed:
        out["additionalProperties"] = False
    return out


def _doc(schema: str, props: dict[str, Any], required: tuple[str, ...]) -> dict[str, Any]:
    return _obj({"schema": {"const": schema}, **props}, ("schema", *required), closed=False)


def _with_agent(status: dict[str, Any]) -> dict[str, Any]:
    """The status document as the ``status`` tool adds where its answers come from."""
    agent = _obj({"backend": {"enum": ["engine", "server"]},
                  "server": {"type": ["string", "null"]}}, ("backend",), closed=False)  # fmt: skip
    return {**status, "properties": {**status["properties"], "agent": agent},
            "required": [*status["required"], "agent"]}  # fmt: skip


STR = {"type": "string"}
INT = {"type": "integer"}
NUM = {"type": "number"}
BOOL = {"type": "boolean"}
NULL_INT = {"type": ["integer", "null"]}
# the request fields the API takes too come from server/schemas/requests.py (QUERY, TOP, TEXT,
# CURSOR, ...); a tool adds only what is its own: bounds an agent should not pass, a default,
# a description written for an agent
PATH = {**NOTE_PATH, "minLength": 1, "maxLength": 4096,
        "description": "vault-relative path of a note, e.g. 'Projects/Ideas.md'"}  # fmt: skip
LABEL = {"enum": RELEVANCE_LABELS}
FILTERS = {
    "folder": {**FOLDER, "maxLength": 4096, "description": HELP["folder"]},
    "tag": {**TAG, "maxLength": 256, "description": HELP["tag"]},
}
PROPERTIES = {**PROPERTY, "maxProperties": 32,
              "additionalProperties": {"type": ["string", "number", "boolean"]},
              "description": HELP["property"]}  # fmt: skip
RELEVANCE_HELP = (
    " Each result has `relevance` (0-1, comparable across queries) and `relevance_label`: "
    "'strong' = clearly about it, 'good' = relevant, 'weak' = probably no good match (say so "
    "rather than build on it). `score` only orders results within one answer."
)


# -- handlers -----------------------------------------------------------------------------------
def _search(auto: AutoBackend, a: dict[str, Any], _: ProgressCb | None) -> dict[str, Any]:
    doc: dict[str, Any] = auto.run(lambda b: b.search(a))
    return doc


def _related(auto: AutoBackend, a: dict[str, Any], _: ProgressCb | None) -> dict[str, Any]:
    doc: dict[str, Any] = auto.run(lambda b: b.related(a))
    return doc


def _explain(auto: AutoBackend, a: dict[str, Any], _: ProgressCb | None) -> dict[str, Any]:
    a = dict(a)
    rank = a.pop("rank", 1)

    def run(b: Backend) -> dict[str, Any]:
        if "query" in a:
            if "target" in a or "path" in a:
                raise errors.InputError("give either query (+ chunk_id) or path (+ target)")
            if "chunk_id" not in a:
                found = b.search({**a, "top": max(rank, 1)})["results"]
                if len(found) < rank:
                    raise errors.NotFoundError(f"the query has fewer than {rank} results")
                a["chunk_id"] = found[rank - 1]["chunk_id"]
            return b.explain(a)
        if "path" not in a:
            raise errors.InputError("explain needs a query (search result) or a path (related)")
        if "chunk_id" in a:
            raise errors.InputError("chunk_id goes with query; a related result takes target")
        if "target" not in a:
            base = {k: v for k, v in a.items() if k in ("path", "text", "cursor")}
            found = b.related({**base, "top": max(rank, 1)})["results"]
            if len(found) < rank:
                raise errors.NotFoundError(f"the note has fewer than {rank} related notes")
            a["target"] = found[rank - 1]["path"]
        return b.explain(a)

    doc: dict[str, Any] = auto.run(run)
    return doc


def _missing(auto: AutoBackend, a: dict[str, Any], _: ProgressCb | None) -> dict[str, Any]:
    doc: dict[str, Any] = auto.run(lambda b: b.explain_missing(a))
    return doc


def _neighbors(auto: AutoBackend, a: dict[str, Any], _: ProgressCb | None) -> dict[str, Any]:
    def run(b: Backend) -> dict[str, Any]:
        store = b.store()
        if store is None:
            raise errors.IndexMissingError("the vault has not been indexed yet")
        path = vault_path(b.paths, a["path"]) if "path" in a else None
        return neighbors(store, path=path, chunk_id=a.get("chunk_id"), hops=a.get("hops", 1),
                         limit=a.get("limit", 50), kinds=a.get("kinds"))  # fmt: skip

    doc: dict[str, Any] = auto.run(run)
    return doc


def _open(auto: AutoBackend, a: dict[str, Any], _: ProgressCb | None) -> dict[str, Any]:
    def run(b: Backend) -> dict[str, Any]:
        store = b.store() if "chunk_id" in a else None
        return open_note(b.paths, b.settings, store, OpenRequest(**a))

    doc: dict[str, Any] = auto.run(run)
    return doc


def _research(auto: AutoBackend, a: dict[str, Any], _: ProgressCb | None) -> dict[str, Any]:
    a = dict(a)
    query, top = a.pop("query"), a.pop("top", 8)
    doc: dict[str, Any] = auto.run(lambda b: research(b, query, top=top, **a))
    return doc


def _status(auto: AutoBackend, a: dict[str, Any], _: ProgressCb | None) -> dict[str, Any]:
    def run(b: Backend) -> dict[str, Any]:
        doc = b.status()
        info = getattr(b, "info", None)
        doc["agent"] = {"backend": b.kind, "server": info.url if info else None}
        return doc

    doc: dict[str, Any] = auto.run(run)
    return doc


def _refresh(auto: AutoBackend, a: dict[str, Any], progress: ProgressCb | None) -> dict[str, Any]:
    doc: dict[str, Any] = auto.run(
        lambda b: b.refresh(
            full=a.get("full", False),
            wait=a.get("wait", True),
            timeout_s=a.get("timeout_s", 120),
            progress=progress,
        )
    )
    return doc


# -- the table ----------------------------------------------------------------------------------
# fmt: off
TOOLS: tuple[Tool, ...] = (
    Tool(
        "search", "Search the notes",
        "Find passages (or, with files_only, whole notes) in the user's Obsidian vault by "
        "meaning and keywords, boosted by the link graph. Use it first for any question about "
        "what the user wrote. Results carry path, line and byte ranges: pass them to `open` to "
        "read more." + RELEVANCE_HELP + " `ranked_by` 'words': nothing matched by meaning (or "
        "a first index is still computing meaning for part of the vault) and the results that "
        "contain the query's words come first (relevance still measures meaning, so they can "
        "read 'weak' and still be the note the user means).",
        _obj({"query": QUERY, "top": TOP, "files_only": {**BOOL, "default": False}, **FILTERS,
              "property": PROPERTIES}, ("query",)),
        document_schema("vaultheat.search.v1"),
        _search,
    ),
    Tool(
        "related", "Notes related to a note",
        "Notes related to one note (by meaning and shared words, raised by link votes: notes "
        "its closest notes link to, and link heat: notes near its own links), e.g. to suggest "
        "links "
        "or gather context. Give the note's path; while the user edits unsaved text, pass it "
        "as `text` (and `cursor`, a byte offset, to focus on the passage around it). "
        "`unlinked_only` keeps only notes the note does not link to yet (link suggestions). "
        "`link_status` says whether they already link each other." + RELEVANCE_HELP,
        _obj({"path": PATH, "text": TEXT, "cursor": CURSOR, "top": TOP,
              "unlinked_only": {**BOOL, "default": False}}, ("path",)),
        document_schema("vaultheat.related.v1"),
        _related,
    ),
    Tool(
        "explain", "Why a result is there",
        "Explain one result: the seed that found it, each graph hop with its edge type and "
        "weights, and the score parts. Give a search `query` with the result's `chunk_id` (or "
        "`rank`, default 1), or a related `path` with the result's `target` note (or `rank`).",
        _obj({"query": QUERY, "chunk_id": INT, "path": PATH, "target": PATH,
              "text": TEXT, "cursor": CURSOR,
              "rank": {"type": "integer", "minimum": 1, "maximum": MAX_TOP},
              **FILTERS}),
        document_schema("vaultheat.explain.v1"),
        _explain,
    ),
    Tool(
        "missing", "Why a note is missing from a search",
        "Where a note the user expected landed for a search `query`, and what kept it down: "
        "its `rank` (null when it was not among the candidates: then `reason` says why, e.g. "
        "neither in the vector nor the lexical top N, filtered, not indexed, and `would_rank` "
        "where its score would put it), its best chunk with the score parts, and `to_beat`, "
        "the result at rank `top` it would have to beat.",
        _obj({"query": QUERY, "path": PATH, "top": TOP, "files_only": {**BOOL, "default": False},
              **FILTERS}, ("query", "path")),
        document_schema("vaultheat.missing.v1"),
        _missing,
    ),
    Tool(
        "neighbors", "Graph neighbours of a note",
        "The typed edges of a note (aggregated over its chunks) or of one chunk: `link` "
        "(it links there), `backlink` (linked from there), `similar` (close in meaning), each "
        "with a weight in 0-1. hops=2 also walks one step further from the strongest "
        "neighbours (weight = product along the way, `via` = the note in between).",
        _obj({"path": PATH, "chunk_id": INT,
              "hops": {"type": "integer", "minimum": 1, "maximum": 2, "default": 1},
              "limit": {"type": "integer", "minimum": 1, "maximum": MAX_NEIGHBORS, "default": 50},
              "kinds": {"type": "array", "maxItems": 3, "uniqueItems": True,
                        "items": {"enum": ["link", "backlink", "similar"]}}}),
        _doc("vaultheat.neighbors.v1", {"node": _obj({"path": STR}, ("path",), closed=False),
             "hops": INT, "count": INT, "truncated": BOOL,
             "neighbors": {"type": "array", "items": _obj(
                 {"path": STR, "kind": STR, "weight": NUM, "hop": INT, "direction": STR},
                 ("path", "kind", "weight", "hop"), closed=False)}},
             ("node", "neighbors")),
        _neighbors,
    ),
    Tool(
        "open", "Read a note",
        "Read a note's exact text with line numbers: the whole note (up to max_lines), a "
        "line range, or the lines of a search result's `chunk_id`. The frontmatter comes as "
        "parsed `frontmatter` properties. Long answers are cut at a line boundary: "
        "`truncated` is true and `next_line` says where to continue. A PDF or canvas gives "
        "its indexed text (a `chunk_id`'s, or all of it up to max_bytes) with `page`/"
        "`page_end` or `card_ids` saying where it is; its lines are 0. Read-only.",
        _obj({"path": PATH, "chunk_id": INT,
              "line_start": {"type": "integer", "minimum": 1},
              "line_end": {"type": "integer", "minimum": 1},
              "max_lines": {"type": "integer", "minimum": 1, "maximum": MAX_OPEN_LINES,
                            "default": 200},
              "max_bytes": {"type": "integer", "minimum": 256, "maximum": MAX_OPEN_BYTES,
                            "default": 65536}}),
        _doc("vaultheat.open.v1", {"path": STR, "title": STR, "frontmatter": {"type": "object"},
             "line_start": INT, "line_end": INT, "total_lines": INT, "byte_start": INT,
             "byte_end": INT, "truncated": BOOL, "next_line": NULL_INT, "text": STR,
             "page": NULL_INT, "page_end": NULL_INT,
             "card_ids": {"type": "array", "items": STR}},
             ("path", "frontmatter", "line_start", "line_end", "truncated", "text")),
        _open,
        render=render_open,
    ),
    Tool(
        "research", "Research a question",
        "A bounded research step for an open question: a files-only search, then, only when "
        "the best result is weak, one expansion through the notes related to it. Reports each "
        "step and why it stopped; never more than two steps. Use `search` when you already "
        "know what to look for." + RELEVANCE_HELP,
        _obj({"query": QUERY, "top": {"type": "integer", "minimum": 1, "maximum": 30, "default": 8},
              **FILTERS}, ("query",)),
        _doc("vaultheat.research.v1", {"query": STR, "stopped": STR,
             "steps": {"type": "array", "items": _obj({"step": {"enum": ["search", "expand"]}},
                                                      ("step",), closed=False)},
             "results": {"type": "array", "items": _obj(
                 {"rank": INT, "path": STR, "found_by": {"enum": ["search", "expansion"]},
                  "relevance_label": LABEL}, ("rank", "path", "found_by"), closed=False)}},
             ("query", "steps", "stopped", "results")),
        _research,
    ),
    Tool(
        "status", "Index status",
        "The state of the vault's index (notes, chunks, links, skipped files, the model) and "
        "where answers come from (`agent.backend`: 'server' when `vaultheat serve` runs, else "
        "'engine' in this process). Check it when results look stale or empty.",
        _obj({}),
        _with_agent(document_schema("vaultheat.status.v1", optional=SERVER_STATUS)),
        _status,
    ),
    Tool(
        "refresh", "Re-index changed notes",
        "Bring the index up to date with the vault (only changed notes are re-embedded; "
        "`full` rebuilds everything). Never writes a note. With a running server the server's "
        "own indexer does it; `wait` (default true) waits up to `timeout_s` for it to finish.",
        _obj({"full": {**BOOL, "default": False}, "wait": {**BOOL, "default": True},
              "timeout_s": {"type": "number", "minimum": 1, "maximum": 600, "default": 120}}),
        _doc("vaultheat.refresh.v1", {"backend": {"enum": ["engine", "server"]}, "done": BOOL,
             "state": {"type": ["string", "null"]}, "report": {"type": ["object", "null"]}},
             ("backend", "done")),
        _refresh,
        read_only=False,
    ),
)
# fmt: on
BY_NAME = {t.name: t for t in TOOLS}
_VALIDATORS = {t.name: Draft202012Validator(t.input_schema) for t in TOOLS}


def error_doc(exc: errors.VaultheatError) -> dict[str, Any]:
    return error_document(exc)


def saturate(schema: dict[str, Any], args: dict[str, Any]) -> dict[str, Any]:
    """Numbers beyond a bound are set to the bound (``top: 1000`` asks for the most there
    is), as the seed protocol did; anything else wrong is still an error."""
    out = dict(args)
    for key, prop in schema.get("properties", {}).items():
        value = out.get(key)
        if isinstance(value, bool) or not isinstance(value, int | float):
            continue
        if prop.get("type") == "integer" and isinstance(value, float):
            continue  # 2.5 for an integer stays a type error
        if "maximum" in prop and value > prop["maximum"]:
            out[key] = prop["maximum"]
        if "minimum" in prop and value < prop["minimum"]:
            out[key] = prop["minimum"]
    return out


def validate_args(name: str, args: Any) -> tuple[Tool, dict[str, Any]]:
    """The tool and its checked arguments; an ``InputError`` says what is wrong."""
    tool = BY_NAME.get(name) if isinstance(name, str) else None
    if tool is None:
        raise UnknownToolError(f"unknown tool {str(name)[:80]!r}", known=[t.name for t in TOOLS])
    if args is None:
        args = {}
    if not isinstance(args, dict):
        raise errors.InputError("arguments must be a JSON object")
    if len(json.dumps(args, ensure_ascii=False)) > MAX_ARGS_BYTES:
        raise TooLargeError(f"arguments larger than {MAX_ARGS_BYTES} bytes")
    args = saturate(tool.input_schema, args)
    problem = next(iter(sorted(_VALIDATORS[name].iter_errors(args), key=lambda e: e.path)), None)
    if problem is not None:
        where = "/".join(str(p) for p in problem.absolute_path) or "arguments"
        message = problem.message if len(problem.message) < 300 else problem.message[:300] + "…"
        raise errors.InputError(f"{where}: {message}", tool=name)
    return tool, args


def call_tool(
    auto: AutoBackend, name: Any, args: Any, progress: ProgressCb | None = None
) -> tuple[bool, dict[str, Any]]:
    """(ok, document): the tool's result, or an error document. Never raises."""
    try:
        tool, checked = validate_args(name, args)
        return True, tool.handler(auto, checked, progress)
    except errors.VaultheatError as exc:
        return False, error_doc(exc)
    except RecursionError:
        return False, error_doc(TooLargeError("arguments nested too deeply"))
    except Exception as exc:  # a bug must not end the session: report it, log the trace
        log.exception("tool %r failed", name)
        err = errors.VaultheatError(f"internal error: {type(exc).__name__}: {exc}")
        err.code = "internal"
        return False, error_doc(err)
