"""Giving a model's memory back before another one loads (issue #40 item 6).

The second pass (indexing/meaning.py) loads the multilingual model after the English meaning
phase; the English model's onnxruntime session (weights and arena, about 0.5-0.9 GB after a
meaning phase) would otherwise stay beside it for the rest of the run. ``release_model`` drops
what an embedder can make again on its next use (``OnnxEmbedder.release``; other embedders
have nothing to drop), and ``trim_heap`` collects the garbage and asks glibc to hand its free
pages back to the OS (``malloc_trim``; elsewhere a no-op, never an error).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import logging
import sys

log = logging.getLogger(__name__)


def release_model(model: object) -> bool:
    """Drop ``model``'s loaded weights if it can make them again on its next use (a
    ``release()`` method); True when it had one."""
    release = getattr(model, "release", None)
    if not callable(release):
        return False
    release()
    return True


def trim_heap() -> None:
    """``gc.collect()``, then glibc's ``malloc_trim(0)`` (Linux with glibc only)."""
    gc.collect()
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        trim = libc.malloc_trim
    except (OSError, AttributeError):  # musl and other C libraries have no malloc_trim
        return
    try:
        trim(0)
    except Exception as exc:  # pragma: no cover - never fatal
        log.debug("malloc_trim failed: %s", exc)
