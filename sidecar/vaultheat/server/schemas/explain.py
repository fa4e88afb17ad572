"""The explain documents: where a result's score started (its seed), each hop of graph heat,
the score arithmetic, the pointer credit, a result's own ``Explanation`` and
``vaultheat.explain.v1``."""

from __future__ import annotations

from vaultheat.server.schemas.base import (
    BOOL,
    COUNT,
    HEADINGS,
    INT,
    LOCATOR,
    NUM,
    PATH,
    SCORE,
    SNIPPET,
    STR,
    STR_LIST,
    Schema,
    d,
    nullable,
    obj,
    ref,
    tag,
)
from vaultheat.server.schemas.search import COMPONENT_NAMES


def explain_seed() -> Schema:
    return obj(
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
    )


def explain_hop() -> Schema:
    return obj(
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
        description="One hop of heat along an edge (only when experimental.search_hops > 0)",
    )


def score_breakdown() -> Schema:
    return obj(
        {
            "raw": d(ref("Components"), "the parts as each stage scored them"),
            "normalized": d(ref("Components"), "the parts min-max scaled over the candidates"),
            "weights": d(
                obj({k: NUM for k in COMPONENT_NAMES}), "the weight of each part in `final`"
            ),
            "final": d(NUM, "Σ weights[k] × normalized[k] over the parts that are not null"),
        },
        description="The score arithmetic",
    )


def pointer_lines() -> Schema:
    return obj(
        {
            "path": PATH,
            "line_start": d(INT, "the entry's first line in the note"),
            "line_end": d(INT, "its last line"),
        },
        description="A pointer entry: its note and its lines (1-based, inclusive)",
    )


def pointer_credit() -> Schema:
    return obj(
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
        description="experimental.search_pointer_credit: "
        "components.normalized.pointer == received - gave",
    )


def vector_space() -> Schema:
    return obj(
        {
            "space": d(
                {"type": "string", "enum": ["english", "multilingual"]},
                "the vector space whose cosines are the vector and note parts (on the English "
                "scale)",
            ),
            "query_language": d(STR, "the query's language (ISO 639-1; und: not known)"),
            "chunk_language": d(STR, "the chunk's language as the index has it"),
            "reason": d(STR, "the routing rule that applied, in words"),
            "partial": d(BOOL, "the multilingual space is still being filled"),
        },
        description="Search with a second vector space (embeddings.second_space): which "
        "space scored the chunk and why",
    )


def _trace() -> dict[str, Schema]:
    """What an explanation always has: the seed, the hops and the score arithmetic."""
    return {
        "seed": nullable(ref("ExplainSeed")),
        "hops": {"type": "array", "items": ref("ExplainHop")},
        "components": ref("ScoreBreakdown"),
    }


POINTER: Schema = d(ref("PointerCredit"), "search: the pointer credit it gave or got")
SPACE: Schema = d(
    ref("VectorSpace"), "search with a second vector space: which one scored it, and why"
)
CONTENT_SCORE: Schema = d(NUM, "related notes: the score before link votes and link heat")
COVERAGE: Schema = d(NUM, "related notes: the coverage part of content_score")


def explanation() -> Schema:
    return obj(
        _trace(),
        {
            "pointer": POINTER,
            "space": SPACE,
            "hop_count": COUNT,
            "content_score": CONTENT_SCORE,
            "coverage": COVERAGE,
            "votes": nullable(ref("Votes")),
            "link_heat": nullable(ref("LinkHeat")),
            "score": d(
                NUM, "related notes: content_score + votes.bonus + link_heat.bonus, unrounded"
            ),
        },
        description="A result's own explanation (`explain: true`): ExplainDoc without the "
        "identifying fields",
    )


def explain_doc() -> Schema:
    return obj(
        {
            "schema": tag("vaultheat.explain.v1"),
            "query": d(STR, "the query (related notes: `related to PATH`)"),
            "chunk_id": d(INT, "the explained result's chunk"),
            "path": d(STR, "the explained result's note"),
            "score": SCORE,
            **_trace(),
        },
        {
            "pointer": POINTER,
            "space": SPACE,
            "content_score": CONTENT_SCORE,
            "coverage": COVERAGE,
            "votes": nullable(ref("Votes")),
            "link_heat": nullable(ref("LinkHeat")),
        },
        description="`POST /v1/explain`, `vaultheat explain --json`, the agent tool `explain`",
    )
