"""What a run reports and records: the report, the content and input hashes, the settings an
index stores and the meaning phase's progress as the manifest keeps it.

Small and free of the indexer's machinery, so the engine, ``status`` and the agents' note
writer can use them without importing the phases.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import xxhash

from vaultheat.config import Settings
from vaultheat.providers.base import Embedder

ProgressFn = Callable[[str, int, int], None]  # (stage, done, total)


def meaning_doc(total: int, done: int, started: float) -> dict[str, Any]:
    """The meaning phase's progress as the manifest keeps it (``status`` reads it)."""
    return {"total": total, "done": done, "started": round(started, 3),
            "updated": round(time.time(), 3)}  # fmt: skip


def content_hash(raw: bytes) -> str:
    return xxhash.xxh3_128_hexdigest(raw)


def input_hash(text: str) -> str:
    return xxhash.xxh3_128_hexdigest(text.encode("utf-8", "surrogatepass"))


def stored_settings(settings: Settings, embedder: Embedder) -> dict[str, Any]:
    """Everything that changes what the index stores; a change needs ``index --full``."""
    c = settings.chunking
    return {
        "fingerprint": embedder.fingerprint,
        "chunking": [
            c.max_tokens,
            c.target_tokens,
            c.min_chars,
            c.overlap_chars,
            c.header_aliases_tags,
        ],
    }


@dataclass
class IndexReport:
    notes: dict[str, int] = field(
        default_factory=lambda: dict.fromkeys(
            ("added", "modified", "deleted", "renamed", "unchanged"), 0
        )
    )
    chunks: dict[str, int] = field(
        default_factory=lambda: dict.fromkeys(("embedded", "reused", "deleted"), 0)
    )
    skipped: int = 0
    graph: dict[str, int] = field(default_factory=lambda: {"knn_updated": 0, "link_notes": 0})
    timings: dict[str, float] = field(default_factory=dict)
    model_loaded: bool = False
    full: bool = False
    failed: list[Any] = field(default_factory=list)  # notes stored without chunks, with why
    # after the run, what `status` lists too: files not searchable and notes with problems
    skipped_files: list[dict[str, str]] = field(default_factory=list)
    warnings: list[dict[str, str]] = field(default_factory=list)
    notes_indexed: int = 0
    excluded: int = 0
    # which notes this run wrote and removed (renames: both), for the server's note events;
    # left out of ``to_dict`` so a full index's JSON report stays small
    written: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "notes": self.notes,
            "chunks": self.chunks,
            "skipped": self.skipped,
            "skipped_files": self.skipped_files,
            "warnings": self.warnings,
            "notes_indexed": self.notes_indexed,
            "excluded": self.excluded,
            "graph": self.graph,
            "timings_s": {k: round(v, 4) for k, v in self.timings.items()},
            "model_loaded": self.model_loaded,
            "full": self.full,
        }
