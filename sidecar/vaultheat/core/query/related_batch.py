"""Related notes of many saved notes in one request: what the Obsidian plugin's snapshot for
mobile is built from (each note's top related notes, kept in the plugin's folder and read on a
phone that has no model).

One ``/v1/related`` per note would cost a round trip and a JSON document each, 10k of them for a
large vault; a batch runs the same related query for each path back to back in one call of the
query pool. A path the index does not hold (not indexed yet, excluded, not a note) is listed in
``missing`` instead of failing the batch. The batch is capped (``MAX_BATCH_PATHS``) so one call
never holds the query pool for long: the sidebar's live queries wait behind it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from vaultheat.core.query.results import RelatedResults
from vaultheat.core.requests import MAX_TOP, RelatedRequest
from vaultheat.errors import InputError, NotFoundError

MAX_BATCH_PATHS = 200


@dataclass(frozen=True, slots=True)
class RelatedBatchRequest:
    paths: tuple[str, ...]
    top: int = 10

    @classmethod
    def from_dict(cls, data: Any) -> RelatedBatchRequest:
        if not isinstance(data, dict):
            raise InputError("request body must be a JSON object")
        unknown = sorted(set(data) - {"paths", "top"})
        if unknown:
            raise InputError(f"unknown field(s): {', '.join(unknown)}")
        paths = data.get("paths")
        if not isinstance(paths, list) or not all(isinstance(p, str) for p in paths):
            raise InputError("paths must be a list of vault-relative paths")
        if not 1 <= len(paths) <= MAX_BATCH_PATHS:
            raise InputError(f"paths must hold 1 to {MAX_BATCH_PATHS} paths")
        top = data.get("top", 10)
        if isinstance(top, bool) or not isinstance(top, int) or not 1 <= top <= MAX_TOP:
            raise InputError(f"top must be between 1 and {MAX_TOP}")
        return cls(paths=tuple(dict.fromkeys(paths)), top=top)


@dataclass(frozen=True, slots=True)
class RelatedBatch:
    notes: tuple[RelatedResults, ...]
    missing: tuple[str, ...]
    took_ms: float


def related_batch(
    related: Callable[[RelatedRequest], RelatedResults], req: RelatedBatchRequest
) -> RelatedBatch:
    """``related`` (the engine's) for each saved note of ``req``; unknown notes go to missing."""
    t0 = time.perf_counter()
    notes: list[RelatedResults] = []
    missing: list[str] = []
    for path in req.paths:
        try:
            notes.append(related(RelatedRequest(path=path, top=req.top)))
        except NotFoundError:
            missing.append(path)
    took = (time.perf_counter() - t0) * 1000
    return RelatedBatch(notes=tuple(notes), missing=tuple(missing), took_ms=round(took, 3))
