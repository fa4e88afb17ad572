"""The CPU budget of indexing: ``index.cpus`` cores and ``index.nice`` niceness.

Applied once at the start of an indexing process (``vaultheat index``, the server's index
child) before the model loads: the process is niced first (Linux niceness is per thread and
threads started later inherit it), then pinned to ``cpus`` cores (CPU affinity, which the
model's and hnswlib's threads inherit), and the model's intra-op threads (ONNX Runtime, torch)
follow ``cpus`` unless ``embeddings.threads`` is set.
"""

from __future__ import annotations

import contextlib
import os

from vaultheat import procs
from vaultheat.config import Settings


def usable_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def budget_cpus(settings: Settings, default: int | None = None) -> int | None:
    """The cores indexing may use: ``index.cpus`` and ``default`` (the lower of the two when
    both are set), capped at the usable ones; None = no limit."""
    want = min(settings.index.cpus, default) if settings.index.cpus and default else None
    want = want or settings.index.cpus or default
    if not want:
        return None
    return max(1, min(want, usable_cpus()))


def raise_niceness(nice: int) -> bool:
    """Raise this process's niceness to at least ``nice`` (never lower it); False where the OS
    refused. Windows has no niceness: any ``nice`` > 0 means the below-normal priority class."""
    if hasattr(os, "nice"):
        try:
            current = os.nice(0)
            if current < nice:
                os.nice(nice - current)
        except OSError:
            return False
        return True
    if procs.PLATFORM == "win32":  # pragma: no cover - Windows only
        return procs.windows_below_normal_priority(procs.win32_kernel32())
    return False


def apply_cpu_budget(
    settings: Settings, *, default_cpus: int | None = None, min_nice: int = 0
) -> Settings:
    """Nice and pin this process as the budget says (niceness raised to at least
    ``max(index.nice, min_nice)``, never lowered); the settings the indexer should use
    (``embeddings.threads`` sized to the cores when it was 0)."""
    nice = max(settings.index.nice, min_nice)
    if nice > 0:
        raise_niceness(nice)
    cpus = budget_cpus(settings, default_cpus)
    if cpus is None:
        return settings
    if hasattr(os, "sched_setaffinity"):
        allowed = sorted(os.sched_getaffinity(0))
        if len(allowed) > cpus:
            with contextlib.suppress(OSError):
                os.sched_setaffinity(0, allowed[-cpus:])  # core 0 often takes interrupts
    if settings.embeddings.threads == 0:
        settings = settings.with_value("embeddings.threads", cpus)
    return settings
