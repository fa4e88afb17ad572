"""How far the index is from the vault on disk, and the one state word that says so.

The comparison is the indexer's own first step (``stat``: mtime and size), so it reads no file
and costs one directory walk. States, most urgent first: ``indexing`` (a writer holds the
index), ``stale`` because the model or chunking settings changed (only ``index --full``
helps), ``incomplete`` (the last run did not finish: notes on disk never indexed, or graph
work still queued), ``stale`` (notes added, edited or deleted since the last finished run),
``ready``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

STATES = ("indexing", "incomplete", "stale", "ready")


@dataclass(frozen=True)
class Pending:
    """Graph work queued by a run that did not finish it: chunks awaiting kNN, notes awaiting
    link resolution."""

    knn: int = 0
    links: int = 0

    @property
    def total(self) -> int:
        return self.knn + self.links


@dataclass(frozen=True)
class Freshness:
    on_disk: int  # notes discovery finds (minus those skipped with a reason)
    indexed: int  # of those, notes the index holds
    not_indexed: int  # on disk, never indexed
    changed: int  # indexed, but their stat differs now
    deleted: int  # indexed, gone from disk


@dataclass(frozen=True)
class IndexFreshness:
    """The index against the vault on disk: the state word, the sentence that says why, the
    counts behind it and the graph work still queued."""

    state: str
    detail: str
    freshness: Freshness
    pending: Pending


def compare_with_disk(
    disk: Iterable[tuple[str, int, int]],
    stored: Mapping[str, tuple[int, int]],
    skipped: Iterable[str] = (),
) -> Freshness:
    """``disk``: (path, mtime_ns, size) per note found; ``stored``: path -> (mtime_ns, size)."""
    skip = set(skipped)
    seen: set[str] = set()
    on_disk = not_indexed = changed = 0
    for path, mtime_ns, size in disk:
        seen.add(path)
        row = stored.get(path)
        if row is None:
            if path not in skip:
                on_disk += 1
                not_indexed += 1
            continue
        on_disk += 1
        if row != (mtime_ns, size):
            changed += 1
    deleted = sum(1 for path in stored if path not in seen)
    return Freshness(on_disk, on_disk - not_indexed, not_indexed, changed, deleted)


def plural(n: int, word: str, many: str | None = None) -> str:
    return f"{n:,} {word if n == 1 else many or word + 's'}"


def index_state(
    fresh: Freshness,
    *,
    indexing: bool,
    mismatch: bool,
    finished: bool,
    pending: int,
) -> tuple[str, str]:
    """The state word and a plain sentence that says why."""
    counts = f"{fresh.indexed:,} of {plural(fresh.on_disk, 'note')} indexed"
    if indexing:
        return "indexing", f"an index run is in progress; {counts} so far"
    if mismatch:
        return "stale", (
            "the embedding model or chunking settings changed since this index was built; "
            "run `vaultheat index --full`"
        )
    if not finished or pending:
        why = [counts]
        if pending:
            why.append(f"{plural(pending, 'graph task')} pending")
        return "incomplete", "; ".join(why) + "; run `vaultheat index` to finish"
    changes = []
    if fresh.not_indexed:
        changes.append(f"{plural(fresh.not_indexed, 'new note')}")
    if fresh.changed:
        changes.append(f"{plural(fresh.changed, 'note')} changed")
    if fresh.deleted:
        changes.append(f"{plural(fresh.deleted, 'note')} deleted")
    if changes:
        return "stale", ", ".join(changes) + " since the last index run; run `vaultheat index`"
    if not fresh.on_disk:
        return "ready", "the vault has no notes yet"
    if fresh.on_disk == 1:
        return "ready", "the vault's one note is in the index"
    return "ready", f"all {fresh.on_disk:,} notes on disk are in the index"
