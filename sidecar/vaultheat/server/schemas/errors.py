"""The error body every failing request answers with (``vaultheat.error.v1``'s ``error``)."""

from __future__ import annotations

from vaultheat.server.schemas.base import STR, Schema, obj

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


def error_body() -> Schema:
    return obj(
        {
            "error": obj(
                {"code": {"type": "string", "enum": ERROR_CODES}, "message": STR},
                {"context": {"type": "object"}},
            )
        }
    )
