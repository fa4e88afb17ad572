"""The building blocks of the wire schema: the helpers that write a JSON Schema and the field
schemas more than one document uses (a result's rank, score, relevance, snippet, place)."""

from __future__ import annotations

from typing import Any

Schema = dict[str, Any]


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


def tag(value: str) -> Schema:
    return {"type": "string", "const": value}


def d(schema: Schema, description: str) -> Schema:
    """``schema`` with the description docs/api.md's field table shows for the field."""
    return {**schema, "description": description}


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
PATH: Schema = {"type": "string", "description": "vault-relative path of the note"}
NOTE_TITLE: Schema = {"type": "string", "description": "the note's title"}
RANK: Schema = d(INT, "1-based position in this answer")
SCORE: Schema = d(NUM, "orders the results of one answer (rounded to 6 decimals)")
TOOK_MS: Schema = d(NUM, "time the query took, in milliseconds")
HEADINGS: Schema = d(STR_LIST, "the headings above the chunk, outermost first")
SNIPPET: Schema = d(STR, "the chunk's text (a snippet, cut at `…` when long)")
LABEL: Schema = d({"enum": RELEVANCE_LABELS}, "`relevance` in words: strong ≥ 0.50, good ≥ 0.25")
EXPLAIN: Schema = d(nullable(ref("Explanation")), "the trace, when the request asked for it")
# an index with a second vector space (embeddings.second_space, docs/multilingual.md): the one
# that scored a result's best chunk; absent with one space
SPACE: Schema = d(
    {"type": "string", "enum": ["english", "multilingual"]},
    "the vector space that scored the best chunk (present only when the index has a second "
    "space): multilingual when the query's language or the chunk's is not English",
)
CHUNK_ID: Schema = d(INT, "the chunk's id in this index generation")


def place() -> dict[str, Schema]:
    """Where a chunk is in its file: its lines and its bytes."""
    return {
        "line_start": d(INT, "first line, 1-based (0 for derived text)"),
        "line_end": d(INT, "last line, inclusive (0 for derived text)"),
        "byte_start": d(INT, "the chunk is the file's bytes `byte_start..byte_end`"),
        "byte_end": d(INT, "end of the chunk's bytes (exclusive)"),
    }
