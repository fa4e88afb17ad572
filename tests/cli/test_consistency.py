"""Small truths: config list is text, a missing note is named, claims match the README."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from vaultheat.cli import main
from vaultheat.config import CONFIG_HEADER

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def indexed(vault: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    assert main(["init", str(vault)]) == 0
    assert main(["config", "set", "embeddings.provider", "fake", "--vault", str(vault)]) == 0
    assert main(["index", "--vault", str(vault)]) == 0
    capsys.readouterr()
    return vault


def test_config_list_prints_text(indexed: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["config", "list", "--vault", str(indexed)]) == 0
    out = capsys.readouterr()[0]
    assert not out.lstrip().startswith("{")
    assert 'embeddings.provider = "fake"' in out
    assert "search.top = " in out


def test_related_on_a_missing_note_says_no_such_note(
    indexed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["related", "Nope/never.md", "--vault", str(indexed)]) == 2
    assert "no such note" in capsys.readouterr()[1]


def test_status_text_has_no_python_dicts(indexed: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main(["status", "--vault", str(indexed)])
    out = capsys.readouterr()[0]
    assert "{" not in out and "'" not in out


def test_config_speed_claim_matches_the_readme() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    claims = re.findall(r"~?(\d+(?:\.\d+)?)x faster", CONFIG_HEADER)
    for claim in claims:
        assert f"**{claim}x**" in readme or f"({claim}x)" in readme, claim
