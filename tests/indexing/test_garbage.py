"""Garbage in, named: binary files are skipped with a reason; index reports what it skipped."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import search_doc, status_doc
from vaultheat.cli import main
from vaultheat.core.requests import SearchRequest
from vaultheat.core.vault.binary import binary_reason


def _noise(n: int, *, nul: bool = True) -> bytes:
    rng = random.Random(7)
    data = bytes(rng.randrange(256) for _ in range(n))
    return data if nul else data.replace(b"\x00", b"\x01")


@pytest.mark.parametrize(
    ("raw", "binary"),
    [
        (b"# Title\n\nplain words\n", False),
        ("# Café\n\nnaïve crème brûlée, déjà vu\n".encode("latin-1"), False),
        ("# 日本語\n\n東京の天気は晴れです。\n".encode(), False),
        (b"text with one\x00 NUL byte", True),
        (_noise(20_000), True),
        (_noise(20_000, nul=False), True),
        (b"\x1b[31mred\x1b[0m terminal log\n" * 20, False),
    ],
    ids=["ascii", "latin-1", "cjk", "nul", "random", "random-no-nul", "ansi-log"],
)
def test_binary_reason(raw: bytes, binary: bool) -> None:
    assert (binary_reason(raw) is not None) is binary


def test_binary_note_is_skipped_with_a_reason(fake_engine: Any, vault: Path) -> None:
    (vault / "x.md").write_bytes(_noise(200_000))
    report = fake_engine.index()
    skipped = {s["path"]: s["reason"] for s in status_doc(fake_engine)["skipped"]}
    assert "binary" in skipped["x.md"]
    assert any(s["path"] == "x.md" for s in report.skipped_files)
    doc = search_doc(fake_engine, SearchRequest(query="random noise binary", files_only=True))
    assert all(r["path"] != "x.md" for r in doc["results"])
    assert status_doc(fake_engine)["state"] == "ready"


def test_note_that_turns_binary_leaves_the_index(fake_engine: Any, vault: Path) -> None:
    note = vault / "turns.md"
    note.write_text("# Turns\n\nquokka marmalade\n", encoding="utf-8")
    fake_engine.index()
    assert fake_engine.views.store().note_by_path("turns.md") is not None
    note.write_bytes(_noise(5_000))
    fake_engine.index()
    assert fake_engine.views.store().note_by_path("turns.md") is None
    assert status_doc(fake_engine)["state"] == "ready"


def test_index_reports_skipped_and_malformed_at_the_end(
    vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (vault / "x.md").write_bytes(_noise(3_000))
    (vault / "bad yaml.md").write_text("---\ntitle: [unclosed\n---\n\nbody\n", encoding="utf-8")
    assert main(["init", str(vault)]) == 0
    assert main(["config", "set", "embeddings.provider", "fake", "--vault", str(vault)]) == 0
    capsys.readouterr()
    assert main(["index", "--vault", str(vault)]) == 0
    out, _ = capsys.readouterr()
    assert "x.md: binary" in out
    assert "bad yaml.md: frontmatter ignored" in out
    assert main(["index", "--vault", str(vault), "--json"]) == 0  # a no-op run says it too
    doc = json.loads(capsys.readouterr()[0])
    skipped = [s["path"] for s in doc["skipped_files"]]
    assert "x.md" in skipped and "bad yaml.md" not in skipped
    assert doc["skipped"] == len(skipped)
    assert "bad yaml.md" in [w["path"] for w in doc["warnings"]]
    assert doc["excluded"] >= 1  # the example vault's opted-out notes: counted, not skipped
    main(["status", "--vault", str(vault), "--json"])
    status = json.loads(capsys.readouterr()[0])
    assert len(status["skipped"]) == doc["skipped"]
    assert status["excluded"] == doc["excluded"]
    assert status["notes"] == doc["notes_indexed"]
