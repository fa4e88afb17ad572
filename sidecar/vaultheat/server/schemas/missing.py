"""``vaultheat.missing.v1``: where a note the user expected landed in a search, and why."""

from __future__ import annotations

from vaultheat.core.query.missing import STATUSES as MISSING_STATUSES
from vaultheat.server.schemas.base import (
    BOOL,
    COUNT,
    INT,
    NUM,
    NUM_OR_NULL,
    RELEVANCE,
    RELEVANCE_LABELS,
    STR,
    Schema,
    nullable,
    obj,
    ref,
    tag,
)

RANK_OR_NULL: Schema = {"type": ["integer", "null"], "minimum": 1}


def retriever_place() -> Schema:
    return obj(
        {
            "stage": {"enum": ["vector", "lexical"]},
            "rank": RANK_OR_NULL,
            "score": NUM_OR_NULL,
            "keeps": COUNT,
            "cutoff": NUM_OR_NULL,
        },
        description="Where the note's highest-placed chunk stands in one retriever's full "
        "ranking (rank null: no match); the retriever passes on its top `keeps`",
    )


def rival() -> Schema:
    return obj({"rank": INT, "path": STR, "chunk_id": INT, "score": NUM})


def missing_doc() -> Schema:
    return obj(
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
            "rank": RANK_OR_NULL,
            "would_rank": RANK_OR_NULL,
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
    )
