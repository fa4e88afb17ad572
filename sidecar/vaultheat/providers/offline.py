"""The hub switch: whether this process may reach the Hugging Face hub.

A leaf module (no other vaultheat import) so that every provider can read or set it without
importing another provider: the ONNX exporter sets it before loading sentence-transformers, and
importing ``local`` for that closed a cycle (local → e5_q4 → onnx_export → local).
"""

from __future__ import annotations

import os


def set_offline_mode() -> None:
    """Forbid hub access for this process (must run before sentence-transformers is imported)."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"


def is_offline() -> bool:
    return any(
        os.environ.get(var, "").strip().lower() in ("1", "true", "yes", "on")
        for var in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")
    )
