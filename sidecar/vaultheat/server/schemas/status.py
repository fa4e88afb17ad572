"""The server's state documents: health, status (with its progress and skipped files), a
note's status, the acknowledgement of a queued run and the events the stream sends."""

from __future__ import annotations

from vaultheat.server.schemas.base import (
    BOOL,
    COUNT,
    NUM,
    NUM_OR_NULL,
    STR,
    Schema,
    d,
    nullable,
    obj,
    ref,
    tag,
)

STATES = ["indexing", "incomplete", "stale", "ready"]  # core.vault.freshness.STATES
FRESHNESS = ("on_disk", "indexed", "not_indexed", "changed", "deleted")  # core.vault.freshness
# what only a running server adds to the status document (the CLI and agents in process omit it)
SERVER_STATUS = ("progress", "last_error", "paused", "queue")
PHASE_STATES = ["done", "running", "interrupted", "pending"]  # core.vault.status.Phases
EVENT_NAMES = {
    "state": "StatusDoc",
    "progress": "Progress",
    "note_indexed": "NoteIndexedEvent",
    "ready": "ReadyEvent",
    "error": "ErrorEvent",
}
STR_OR_NULL: Schema = {"type": ["string", "null"]}


def health_doc() -> Schema:
    return obj(
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
    )


def progress() -> Schema:
    return obj(
        {"stage": STR, "done": COUNT, "total": COUNT, "rate": NUM_OR_NULL, "eta_s": NUM_OR_NULL}
    )


def skipped_file() -> Schema:
    return obj({"path": STR, "reason": STR})


def _status_always() -> dict[str, Schema]:
    """The status fields every sender has (the server's own marked "server only")."""
    return {
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
        "last_error": d(STR_OR_NULL, "server only"),
        "paused": d(BOOL, "server only: background indexing is paused"),
    }


def _phases() -> Schema:
    meaning = {
        "state": {"enum": PHASE_STATES},
        "done": COUNT,
        "total": COUNT,
        "percent": NUM,
        "eta_s": NUM_OR_NULL,
    }
    return obj({"words": obj({"state": {"enum": PHASE_STATES}}), "meaning": obj(meaning)})


def _status_optional() -> dict[str, Schema]:
    kinds = {
        kind: obj({"indexed": COUNT, "skipped": COUNT}) for kind in ("markdown", "pdf", "canvas")
    }
    return {
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
        "kinds": obj(kinds),
        "labels": obj(
            {
                "source": {"type": "string", "enum": ["vault", "model"]},
                "sampled": COUNT,
                "points": COUNT,
                "linked": COUNT,
            },
            description="where related notes' labels come from: fitted on this vault's links "
            "(vault) or the model's curve because too few of the sampled sidebars' results "
            "were linked (model); absent before the first fit or with related.fit_labels off",
        ),
        "languages": d(
            {"type": "object", "additionalProperties": COUNT},
            "chunks per language (ISO 639-1; und when too short or in a script to name), "
            "most first, then pending: chunks not detected yet (the meaning phase detects them)",
        ),
        "spaces": d(
            obj(
                {
                    "multilingual": obj(
                        {
                            "state": {"type": "string", "enum": ["empty", "filling", "done"]},
                            "vectors": COUNT,
                        },
                        {"only": COUNT},
                    )
                }
            ),
            "the second vector space (multilingual vectors of every chunk): empty until "
            "multilingual indexing fills it, filling, done; vectors: chunks with theirs in it; "
            "only (absent when 0): chunks in other languages that have no English vector and "
            "are read in this space only",
        ),
        "phases": _phases(),
        "queue": d(COUNT, "server only: changed notes and runs waiting to be indexed"),
        "excluded": COUNT,
        "exclude": {
            "type": "array",
            "items": STR,
            "description": "vault.exclude in effect (config and serve --exclude)",
        },
    }


def status_doc() -> Schema:
    return obj(_status_always(), _status_optional())


def note_status_doc() -> Schema:
    return obj(
        {
            "schema": tag("vaultheat.note_status.v1"),
            "path": STR,
            "exists": BOOL,
            "indexed": BOOL,
            "reason": STR_OR_NULL,
            "chunks": COUNT,
            "indexed_hash": STR_OR_NULL,
            "disk_hash": STR_OR_NULL,
            "fresh": BOOL,
        }
    )


def ack_doc() -> Schema:
    return obj(
        {"schema": tag("vaultheat.ack.v1")},
        {"queued": COUNT, "full": BOOL, "paused": BOOL},
    )


def note_indexed_event() -> Schema:
    return obj({"path": STR})


def ready_event() -> Schema:
    return obj({"notes": COUNT, "chunks": COUNT})


def error_event() -> Schema:
    return obj({"code": STR, "message": STR})
