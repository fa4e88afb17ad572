"""``component_schemas()``: every named schema of the API, in the order docs/api.md's tables
and the OpenAPI document list them (each written in the module of its document)."""

from __future__ import annotations

from vaultheat.server.schemas import errors, explain, missing, related, requests, search, status
from vaultheat.server.schemas.base import Schema


def component_schemas() -> dict[str, Schema]:
    """Every named schema of the API (the plugin's wire types), by name."""
    return {
        "ErrorBody": errors.error_body(),
        "HealthDoc": status.health_doc(),
        "Progress": status.progress(),
        "SkippedFile": status.skipped_file(),
        "StatusDoc": status.status_doc(),
        "NoteStatusDoc": status.note_status_doc(),
        "Components": search.components(),
        "SearchRequest": requests.search_request(),
        "SearchHit": search.search_hit(),
        "FileHit": search.file_hit(),
        "SearchDoc": search.search_doc(),
        "RelatedRequest": requests.related_request(),
        "BestChunk": search.best_chunk(),
        "RelatedHit": related.related_hit(),
        "Votes": related.votes(),
        "LinkHeat": related.link_heat(),
        "RelatedDoc": related.related_doc(),
        "RelatedBatchRequest": requests.related_batch_request(),
        "RelatedBatchNote": related.related_batch_note(),
        "RelatedBatchDoc": related.related_batch_doc(),
        "ExplainRequest": requests.explain_request(),
        "ExplainSeed": explain.explain_seed(),
        "ExplainHop": explain.explain_hop(),
        "ScoreBreakdown": explain.score_breakdown(),
        "PointerLines": explain.pointer_lines(),
        "PointerCredit": explain.pointer_credit(),
        "VectorSpace": explain.vector_space(),
        "Explanation": explain.explanation(),
        "ExplainDoc": explain.explain_doc(),
        "MissingRequest": requests.missing_request(),
        "RetrieverPlace": missing.retriever_place(),
        "Rival": missing.rival(),
        "MissingDoc": missing.missing_doc(),
        "ChangeEvent": requests.change_event(),
        "ChangesRequest": requests.changes_request(),
        "IndexRequest": requests.index_request(),
        "AckDoc": status.ack_doc(),
        "NoteIndexedEvent": status.note_indexed_event(),
        "ReadyEvent": status.ready_event(),
        "ErrorEvent": status.error_event(),
    }
