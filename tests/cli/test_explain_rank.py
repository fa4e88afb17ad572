"""``explain --rank N`` explains what the user saw at rank N, and says why when it cannot."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vaultheat.cli import main


@pytest.fixture
def indexed(vault: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    assert main(["init", str(vault)]) == 0
    assert main(["config", "set", "embeddings.provider", "fake", "--vault", str(vault)]) == 0
    assert main(["index", "--vault", str(vault)]) == 0
    capsys.readouterr()
    return vault


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict]:
    code = main([*argv, "--json"])
    out = capsys.readouterr()[0]
    return code, json.loads(out) if out.strip() else {}


@pytest.mark.parametrize("rank", [1, 2, 3])
def test_files_only_rank_explains_the_note_shown(
    indexed: Path, capsys: pytest.CaptureFixture[str], rank: int
) -> None:
    v = str(indexed)
    _, shown = _json(capsys, "search", "espresso grind", "--files-only", "--vault", v)
    _, chunks = _json(capsys, "search", "espresso grind", "--vault", v)
    want = shown["results"][rank - 1]["path"]
    code, doc = _json(
        capsys, "explain", "espresso grind", "--files-only", "--rank", str(rank), "--vault", v
    )
    assert code == 0
    assert doc["path"] == want
    assert doc["chunk_id"] == shown["results"][rank - 1]["best_chunk"]["chunk_id"]
    # the chunk ranking puts other notes at these ranks: numbering by chunk would differ
    assert [r["path"] for r in chunks["results"][:3]] != [r["path"] for r in shown["results"][:3]]


def test_rank_out_of_range_says_why(indexed: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["explain", "espresso", "--rank", "99", "--vault", str(indexed)])
    err = capsys.readouterr()[1]
    assert code == 2
    assert "--rank 99" in err and "results" in err
    code = main(["explain", "espresso", "--rank", "0", "--vault", str(indexed)])
    assert code == 2 and "--rank" in capsys.readouterr()[1]
    code = main(["explain", "--related", "Home.md", "--rank", "99", "--vault", str(indexed)])
    assert code == 2 and "--rank 99" in capsys.readouterr()[1]
