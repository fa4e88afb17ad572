"""docs/settings.md explains real keys, and config.py's "why:" pointers land on its headings."""

from __future__ import annotations

import re
from pathlib import Path

from vaultheat.config_help import key_help

REPO = Path(__file__).resolve().parents[2]
DOC = (REPO / "docs" / "settings.md").read_text(encoding="utf-8")
CONFIG = (REPO / "sidecar" / "vaultheat" / "config.py").read_text(encoding="utf-8")


def _anchor(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation but - and _ dropped, spaces to -."""
    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")


def test_every_documented_key_exists() -> None:
    keys = re.findall(r"^### `([\w.]+)`$", DOC, re.M)
    assert keys
    assert sorted(set(keys) - set(key_help())) == []


def test_every_pointer_in_config_lands_on_a_heading() -> None:
    anchors = {_anchor(h) for h in re.findall(r"^#+ (.+)$", DOC, re.M)}
    pointers = re.findall(r"docs/settings\.md#([\w-]+)", CONFIG)
    assert pointers
    assert sorted(set(pointers) - anchors) == []
