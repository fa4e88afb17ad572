"""Hostile notes: a vault of every malformed input we could think of indexes without a crash.

The CLI runs in a child process with a wall-clock timeout and a 3 GiB address-space cap
(RLIMIT_AS), so a YAML bomb or a quadratic parser shows up as a failure here, not as a hung CI
job. Afterwards every note is either indexed or listed as skipped with a reason, the index
checks out, search and related answer, and a case-only rename converges.
"""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest

from tests.reliability.reliability_helpers import (
    hostile_notes,
    init_fake_index,
    run_cli,
    write_hostile_vault,
)
from vaultheat.engine import Engine

pytestmark = pytest.mark.slow  # the reliability suite: `pytest -m "not slow"` skips it

UNDECODABLE = ("invalid utf8.md", "utf16.md")  # also checked alone, below
PEAK_RSS_LIMIT = int(1.5 * 1024**3)
INDEX_PEAK_RSS: dict[str, int] = {}  # the fixture's `index` child, measured by run_cli


@pytest.fixture(scope="module")
def hostile_vault(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, bytes]]:
    vault = tmp_path_factory.mktemp("hostile") / "vault"
    notes = write_hostile_vault(vault)
    init_fake_index(vault)
    result = run_cli(["index", "--vault", str(vault), "--json"], timeout=120)
    assert result.rc == 0, result.stderr[-3000:]
    assert "Traceback" not in result.stderr
    assert result.json()["schema"] == "vaultheat.index.v1"
    INDEX_PEAK_RSS["index"] = result.peak_rss
    return vault, notes


def test_hostile_vault_indexes_within_memory_bound(hostile_vault: tuple[Path, dict]) -> None:
    assert 0 < INDEX_PEAK_RSS["index"] < PEAK_RSS_LIMIT


def test_hostile_vault_checks_out(hostile_vault: tuple[Path, dict]) -> None:
    vault, _ = hostile_vault
    result = run_cli(["check", "--vault", str(vault), "--json"])
    assert result.rc == 0, result.stderr
    doc = result.json()
    assert doc["state"] == "clean", doc["problems"]


def test_every_note_is_indexed_or_skipped_with_a_reason(hostile_vault: tuple[Path, dict]) -> None:
    vault, notes = hostile_vault
    status = run_cli(["status", "--vault", str(vault), "--json"]).json()
    skipped = {s["path"]: s["reason"] for s in status["skipped"]}
    assert all(reason.strip() for reason in skipped.values())
    engine = Engine.open(vault)
    try:
        indexed = set(engine.views.store().notes())
    finally:
        engine.close()
    for name in notes:
        nfc = unicodedata.normalize("NFC", name)
        assert nfc in indexed or nfc in skipped, f"{name!r} neither indexed nor skipped"
    assert "larger than" in skipped["big file.md"]
    assert "Café crème.md" in indexed  # one spelling wins, the other is skipped with a reason
    assert "normalization" in skipped["Café crème.md"]


@pytest.mark.parametrize(
    "args",
    [
        ["search", "compost coffee"],
        ["search", "lol lol lol"],
        ["search", "\u05e9\u05dc\u05d5\u05dd \U0001f525"],
        ["search", "[[Target 0]] #tag ^blk | \\ \" ' OR NOT AND NEAR( *"],
        ["related", "Circle A.md"],
        ["related", "self link.md"],
        ["related", "ten thousand links.md"],
        ["related", "billion laughs.md"],
        ["related", "exotic frontmatter.md"],
        ["related", "with | pipe.md"],
    ],
    ids=lambda a: "-".join(a)[:40],
)
def test_queries_answer_on_the_hostile_vault(
    hostile_vault: tuple[Path, dict], args: list[str]
) -> None:
    vault, _ = hostile_vault
    result = run_cli([*args, "--vault", str(vault), "--json", "--top", "5"])
    assert result.rc in (0, 1), result.stderr[-2000:]
    assert isinstance(result.json()["results"], list)


def test_case_only_rename_converges(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    notes = {k: v for k, v in hostile_notes(big_mb=0).items() if k not in UNDECODABLE}
    for rel, data in notes.items():
        (vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (vault / rel).write_bytes(data)
    init_fake_index(vault)
    assert run_cli(["index", "--vault", str(vault)]).rc == 0
    (vault / "Case Note.md").rename(vault / "case note.md")
    (vault / "Circle A.md").rename(vault / "CIRCLE A.md")
    second = run_cli(["index", "--vault", str(vault), "--json"])
    assert second.rc == 0, second.stderr[-2000:]
    assert second.json()["notes"]["renamed"] == 2
    check = run_cli(["check", "--vault", str(vault), "--json"]).json()
    assert check["state"] == "clean", check["problems"]
    engine = Engine.open(vault)
    try:
        paths = set(engine.views.store().notes())
    finally:
        engine.close()
    assert {"case note.md", "CIRCLE A.md"} <= paths
    assert not {"Case Note.md", "Circle A.md"} & paths
    related = run_cli(["related", "CIRCLE A.md", "--vault", str(vault), "--json"])
    assert related.rc == 0, related.stderr[-2000:]


@pytest.mark.parametrize("name", UNDECODABLE)
def test_undecodable_note_is_skipped_not_fatal(tmp_path: Path, name: str) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / name).write_bytes(hostile_notes(big_mb=0)[name])
    (vault / "fine.md").write_text("# Fine\n\nan ordinary note\n", encoding="utf-8")
    init_fake_index(vault)
    result = run_cli(["index", "--vault", str(vault)])
    assert result.rc == 0, result.stderr[-1500:]
    assert "Traceback" not in result.stderr
