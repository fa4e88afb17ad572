"""The related-notes documents: a related note with its link votes and link heat,
``vaultheat.related.v1`` and the batch document of many notes."""

from __future__ import annotations

from vaultheat.server.schemas.base import (
    BOOL,
    COUNT,
    EXPLAIN,
    LABEL,
    NOTE_TITLE,
    NUM,
    PATH,
    RANK,
    RELEVANCE,
    SPACE,
    STR,
    STR_LIST,
    TOOK_MS,
    Schema,
    d,
    nullable,
    obj,
    ref,
    tag,
)


def related_hit() -> Schema:
    return obj(
        {
            "rank": RANK,
            "path": PATH,
            "title": NOTE_TITLE,
            "folder": d(STR, "the note's folder (\"\" at the vault's root)"),
            "score": d(
                NUM,
                "content score (coverage included) plus the link votes' and link heat's bonuses",
            ),
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
            "space": SPACE,
            "coverage": d(
                NUM,
                "experimental.related_score_coverage: the part of the content score for how "
                "much of the open note this one speaks to (absent while off, the default, and "
                "where it is not computed: an open note of one chunk, a digest or a list page, "
                "a note read in the second space)",
            ),
        },
        description="A related note",
    )


def votes() -> Schema:
    return obj(
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
    )


def link_heat() -> Schema:
    return obj(
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
    )


def related_doc() -> Schema:
    return obj(
        {
            "schema": tag("vaultheat.related.v1"),
            "path": d(STR, "the query note"),
            "took_ms": TOOK_MS,
            "results": {"type": "array", "items": ref("RelatedHit")},
        },
        {
            "partial_space": d(
                BOOL,
                "present (true) when the note may be read in the multilingual space while it "
                "is still being filled: chunks without a vector there yet were scored in the "
                "English space",
            ),
        },
        description="`POST /v1/related`, `vaultheat related --json`, the tool `related`",
    )


def related_batch_note() -> Schema:
    return obj({"path": STR, "results": {"type": "array", "items": ref("RelatedHit")}})


def related_batch_doc() -> Schema:
    return obj(
        {
            "schema": tag("vaultheat.related_batch.v1"),
            "took_ms": NUM,
            "notes": {"type": "array", "items": ref("RelatedBatchNote")},
            "missing": STR_LIST,
        },
        description="Related notes of saved notes, in the order asked; paths the index "
        "does not hold are in missing",
    )
