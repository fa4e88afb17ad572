"""The request bodies, and the one definition of the fields the agent tools take too.

A field both the API and the agent tools (``agents/tools.py``) take is written once here:
its bare schema (``QUERY``, ``TOP``, ``TEXT``, ...) and what it means (``HELP``). The API's
request schemas add what only HTTP allows (``null`` for "as configured", the docs' description);
the tools add their own bounds and descriptions for agents. Both validate the same values as
the request types of ``core/requests.py`` that the server checks bodies with.
"""

from __future__ import annotations

from vaultheat.core.query.related_batch import MAX_BATCH_PATHS
from vaultheat.core.requests import MAX_QUERY_CHARS, MAX_TEXT_CHARS, MAX_TOP
from vaultheat.server.schemas.base import BOOL, INT, STR, Schema, d, obj, ref

QUERY: Schema = {"type": "string", "minLength": 1, "maxLength": MAX_QUERY_CHARS}
TOP: Schema = {"type": "integer", "minimum": 1, "maximum": MAX_TOP, "default": 10}
NOTE_PATH: Schema = STR
TEXT: Schema = {"type": "string", "maxLength": MAX_TEXT_CHARS}
CURSOR: Schema = {"type": "integer", "minimum": 0}
FOLDER: Schema = STR
TAG: Schema = STR
PROPERTY: Schema = {"type": "object"}
HELP = {
    "top": "how many results (default from config: search.top / related.top)",
    "files_only": "one result per note",
    "folder": "only notes under this folder",
    "tag": "only notes with this tag",
    "property": "frontmatter properties that must match",
    "text": "the note's unsaved editor text",
    "cursor": "byte offset into `text`: focus on the passage around it",
    "unlinked_only": "only notes the note does not link to yet",
}


def or_null(schema: Schema) -> Schema:
    """``schema`` that also takes ``null`` (the API's "not given")."""
    return {**schema, "type": [schema["type"], "null"]}


def _api(name: str, schema: Schema) -> Schema:
    """A shared field as the API's request schemas show it: with its description."""
    return d(schema, HELP[name])


def search_options() -> dict[str, Schema]:
    """The options of a search (``SearchRequest`` less ``query``)."""
    return {
        "top": _api("top", TOP),
        "files_only": _api("files_only", BOOL),
        "explain": d(BOOL, "add each result's trace (`explain`)"),
        "lexical": d(BOOL, "use the keyword (BM25) retriever (default true)"),
        "graph": d(BOOL, "heat propagation, when experimental.search_hops > 0 (default true)"),
        "rerank": d({"type": ["boolean", "null"]}, "rerank the shortlist (null: as configured)"),
        "expand": d({"type": ["boolean", "null"]}, "query expansion (null: as configured)"),
        "folder": _api("folder", or_null(FOLDER)),
        "tag": _api("tag", or_null(TAG)),
        "property": _api("property", PROPERTY),
    }


def related_options() -> dict[str, Schema]:
    """The options of related notes (``RelatedRequest`` less ``path``)."""
    return {
        "text": _api("text", or_null(TEXT)),
        "cursor": _api("cursor", or_null(CURSOR)),
        "top": _api("top", TOP),
        "unlinked_only": _api("unlinked_only", BOOL),
        "explain": d(BOOL, "add each result's trace (`explain`)"),
        "graph": d(
            BOOL,
            "link heat from the note's own links (related.link_heat) and heat propagation "
            "(when experimental.search_hops > 0); default true, the CLI's --no-graph",
        ),
        "lexical": d(BOOL, "use the keyword (BM25) retriever (default true)"),
        "rerank": d({"type": ["boolean", "null"]}, "rerank the shortlist (null: as configured)"),
        "votes": d(BOOL, "link votes (default true; the CLI's --no-votes)"),
    }


def search_request() -> Schema:
    return obj({"query": QUERY}, search_options(), closed=True)


def related_request() -> Schema:
    return obj({"path": NOTE_PATH}, related_options(), closed=True)


def related_batch_request() -> Schema:
    paths = {"type": "array", "items": STR, "minItems": 1, "maxItems": MAX_BATCH_PATHS}
    return obj({"paths": paths}, {"top": TOP}, closed=True)


def explain_request() -> Schema:
    return {
        "oneOf": [
            obj({"query": QUERY, "chunk_id": INT}, search_options(), closed=True),
            obj({"path": NOTE_PATH, "target": NOTE_PATH}, related_options(), closed=True),
        ]
    }


def missing_request() -> Schema:
    return obj({"query": QUERY, "path": NOTE_PATH}, search_options(), closed=True)


def change_event() -> Schema:
    return obj(
        {"type": {"enum": ["create", "modify", "delete", "rename"]}, "path": STR},
        {"old_path": {"type": "string", "description": "rename only: the former path"}},
        closed=True,
    )


def changes_request() -> Schema:
    events = {"type": "array", "items": ref("ChangeEvent"), "maxItems": 10_000}
    return obj({"events": events}, closed=True)


def index_request() -> Schema:
    return obj({}, {"full": {**BOOL, "default": False}}, closed=True)
