"""docs/api.md lists every document the CLI and the API print, with the fields they carry."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from tests.conftest import status_doc

REPO = Path(__file__).resolve().parents[2]


def test_every_schema_name_is_documented() -> None:
    source = "\n".join(p.read_text(encoding="utf-8") for p in (REPO / "sidecar").rglob("*.py"))
    names = set(re.findall(r"vaultheat\.[a-z_.]+\.v1", source))
    doc = (REPO / "docs" / "api.md").read_text(encoding="utf-8")
    missing = sorted(n for n in names if n not in doc)
    assert not missing, f"not in docs/api.md: {missing}"


def test_status_carries_the_documented_fields(fake_engine: Any) -> None:
    doc = (REPO / "docs" / "api.md").read_text(encoding="utf-8")
    section = doc.split("### vaultheat.status.v1", 1)[1].split("\n\n", 1)[0]
    server_only = {"progress", "last_error", "paused", "queue"}
    fields = _top_level_fields(section) - server_only
    status = status_doc(fake_engine)
    assert fields - set(status) == set()
    assert set(status) - fields - {"schema"} == set(), "undocumented status fields"


def _top_level_fields(text: str) -> set[str]:
    """Field names at the outer level of a `{a, b: {c, d}, e}` outline."""
    depth, out = 0, set()
    for m in re.finditer(r"[{}]|(?<=[{,])\s*([a-z_]+)", text):
        if m.group(0) == "{":
            depth += 1
        elif m.group(0) == "}":
            depth -= 1
        elif depth == 1 and m.group(1):
            out.add(m.group(1))
    return out
