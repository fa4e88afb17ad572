"""The search documents: a result's score parts, its best chunk, the two kinds of result and
``vaultheat.search.v1`` itself."""

from __future__ import annotations

from vaultheat.server.schemas.base import (
    BOOL,
    CHUNK_ID,
    EXPLAIN,
    HEADINGS,
    LABEL,
    NOTE_TITLE,
    NUM,
    NUM_OR_NULL,
    PATH,
    RANK,
    RELEVANCE,
    RESULT_LOCATOR,
    SCORE,
    SNIPPET,
    SPACE,
    STR,
    STR_LIST,
    TOOK_MS,
    Schema,
    d,
    obj,
    place,
    ref,
    tag,
)

# the score parts (core/query/pipeline.py); "title" is the note-name score (core/query/titles.py),
# "note" the cosine to the whole note's vector (core/query/notevec.py), "page" 1 for a note proper
# and 0 for a digest or a list page (core/vault/pagekind.py), "pointer" the credit a digest's bullet
# moved to the notes it links (core/query/pointer_credit.py)
COMPONENT_NAMES = (
    "vector", "lexical", "heat", "fusion", "rerank", "title", "note", "page", "pointer",
)  # fmt: skip
COMPONENT_HELP = {
    "vector": "cosine of the query and the chunk",
    "lexical": "BM25 of the query's words in the chunk",
    "heat": "graph heat (only when experimental.search_hops > 0)",
    "fusion": "rank-fusion score of the seeds",
    "rerank": "the cross-encoder's score (when reranking ran)",
    "title": "the note-name match (core/titles.py)",
    "note": "cosine of the query and the whole note's vector (queries of more than 3 terms)",
    "page": "1 for a note proper, 0 for a digest or a list page (search only)",
    "pointer": "score received from a digest's or list page's bullet that links the note, less "
    "the score a pointer chunk gave away; weight 1, not scaled "
    "(experimental.search_pointer_credit > 0)",
}


DUPLICATES = d(
    STR_LIST,
    "notes ranked below this result whose best chunk is mostly this note's text (a digest "
    "quoting it), folded in (search.fold_quotes)",
)


PARTIAL_SPACE = d(
    BOOL,
    "present (true) when the query was read in the multilingual space while it is still being "
    "filled: chunks without a vector there yet were scored in the English space",
)


def components() -> Schema:
    return obj(
        {k: d(NUM_OR_NULL, COMPONENT_HELP[k]) for k in COMPONENT_NAMES},
        description="The raw score parts of a result; null: the stage did not run",
    )


def best_chunk() -> Schema:
    return obj(
        {"chunk_id": CHUNK_ID, "heading_path": HEADINGS, **place(), "text": SNIPPET},
        RESULT_LOCATOR,
        description="A result's best chunk: where it is and its snippet",
    )


def search_hit() -> Schema:
    return obj(
        {
            "rank": RANK,
            "chunk_id": CHUNK_ID,
            "path": PATH,
            "title": NOTE_TITLE,
            "heading_path": HEADINGS,
            **place(),
            "text": SNIPPET,
            "text_truncated": d(BOOL, "`text` was cut"),
            "score": SCORE,
            "relevance": RELEVANCE,
            "relevance_label": LABEL,
            "found_by": d(STR, "the retriever that found the chunk first"),
            "duplicates": DUPLICATES,
            "components": ref("Components"),
            "explain": EXPLAIN,
        },
        {**RESULT_LOCATOR, "space": SPACE},
        description="A search result: one chunk",
    )


def file_hit() -> Schema:
    return obj(
        {
            "rank": RANK,
            "path": PATH,
            "title": NOTE_TITLE,
            "score": d(NUM, "the best chunk's score plus 5% of the next best chunks'"),
            "relevance": RELEVANCE,
            "relevance_label": LABEL,
            "best_chunk": ref("BestChunk"),
            "duplicates": DUPLICATES,
        },
        {"components": ref("Components"), "explain": EXPLAIN, "space": SPACE},
        description="A files-only search result: one note and its best chunk",
    )


def search_doc() -> Schema:
    return obj(
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
        {"partial_space": PARTIAL_SPACE},
        description="`POST /v1/search`, `vaultheat search --json`, the agent tool `search`",
    )
