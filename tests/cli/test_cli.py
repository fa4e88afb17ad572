"""The CLI contract: one JSON document on stdout, exit codes 0 / 1 / 2, validated config."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from vaultheat.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _init_fake(capsys: pytest.CaptureFixture[str], vault: Path) -> None:
    assert run(capsys, "init", str(vault))[0] == 0
    assert (
        run(capsys, "config", "set", "embeddings.provider", "fake", "--vault", str(vault))[0] == 0
    )


def test_init_twice_is_an_error(capsys: pytest.CaptureFixture[str], vault: Path) -> None:
    code, out, _ = run(capsys, "init", str(vault), "--json")
    assert code == 0
    assert json.loads(out)["schema"] == "vaultheat.init.v1"
    assert (vault / ".vaultheat" / "config.toml").read_text().startswith("# vaultheat")
    code, out, err = run(capsys, "init", str(vault), "--json")
    assert code == 2
    assert json.loads(out)["error"]["code"] == "index_exists"
    assert "already" in err


def test_index_status_search_json_purity(capsys: pytest.CaptureFixture[str], vault: Path) -> None:
    _init_fake(capsys, vault)
    code, out, _ = run(capsys, "index", "--vault", str(vault), "--json")
    assert code == 0
    doc = json.loads(out)  # stdout holds exactly one JSON document
    assert doc["notes"]["added"] >= 30 and doc["chunks"]["embedded"] > 0
    code, out, _ = run(capsys, "status", "--vault", str(vault), "--json")
    status = json.loads(out)
    assert code == 0
    assert status["schema"] == "vaultheat.status.v1"
    for key in ("vault", "notes", "chunks", "links", "tags", "skipped"):
        assert key in status
    assert set(status["links"]) == {"resolved", "unresolved"}
    assert all(set(s) >= {"path", "reason"} for s in status["skipped"])
    code, out, _ = run(capsys, "search", "espresso tastes sour", "--vault", str(vault), "--json")
    assert code == 0
    res = json.loads(out)
    assert res["schema"] == "vaultheat.search.v1" and res["results"]
    first = res["results"][0]
    for key in ("path", "score", "line_start", "line_end", "byte_start", "byte_end", "text",
                "components"):  # fmt: skip
        assert key in first
    raw = (vault / first["path"]).read_bytes()
    assert first["byte_end"] > first["byte_start"]
    assert len(raw) >= first["byte_end"]
    code, out, _ = run(
        capsys, "search", "espresso", "--files-only", "--vault", str(vault), "--json"
    )
    assert all(set(r) >= {"path", "score"} for r in json.loads(out)["results"])


def test_empty_result_exit_1_and_errors_exit_2(
    capsys: pytest.CaptureFixture[str], vault: Path, tmp_path: Path
) -> None:
    _init_fake(capsys, vault)
    run(capsys, "index", "--vault", str(vault))
    code, out, _ = run(capsys, "search", "espresso", "--folder", "Nope", "--vault", str(vault),
                       "--json")  # fmt: skip
    assert code == 1 and json.loads(out)["results"] == []
    empty = tmp_path / "empty"
    empty.mkdir()
    code, out, err = run(capsys, "status", "--vault", str(empty), "--json")
    assert code == 2 and json.loads(out)["error"]["code"] == "index_missing"
    code, _, err = run(capsys, "search", "--top", "zero", "x")
    assert code == 2 and "error" in err


@pytest.mark.parametrize(
    ("key", "value"),
    [("search.nope", "1"), ("nope.top", "1"), ("search.top", "many"), ("search.top", "-3"),
     ("embeddings.backend", "tensorflow"), ("graph.same_note", "maybe")],
)  # fmt: skip
def test_config_rejects_unknown_keys_and_bad_values(
    capsys: pytest.CaptureFixture[str], vault: Path, key: str, value: str
) -> None:
    run(capsys, "init", str(vault))
    code, _, err = run(capsys, "config", "set", key, value, "--vault", str(vault))
    assert code == 2 and "error" in err


def test_config_set_then_get_roundtrip(capsys: pytest.CaptureFixture[str], vault: Path) -> None:
    run(capsys, "init", str(vault))
    assert run(capsys, "config", "set", "search.top", "7", "--vault", str(vault))[0] == 0
    code, out, _ = run(capsys, "config", "get", "search.top", "--vault", str(vault), "--json")
    assert code == 0 and json.loads(out)["value"] == 7


def test_related_with_unsaved_text_from_stdin(vault: Path) -> None:
    exe = [sys.executable, "-m", "vaultheat.cli"]
    subprocess.run([*exe, "init", str(vault)], check=True, capture_output=True)
    subprocess.run([*exe, "config", "set", "embeddings.provider", "fake", "--vault", str(vault)],
                   check=True, capture_output=True)  # fmt: skip
    subprocess.run([*exe, "index", "--vault", str(vault)], check=True, capture_output=True)
    text = "# Draft\n\nCompost piles need greens and browns; coffee grounds count as greens.\n"
    proc = subprocess.run(
        [*exe, "related", "Drafts/new.md", "--text", "-", "--cursor", "10", "--json",
         "--vault", str(vault)],
        input=text, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["schema"] == "vaultheat.related.v1"
    assert doc["results"] and all(r["link_status"] == "unlinked" for r in doc["results"])
    assert not (vault / "Drafts").exists(), "the sidecar never writes into the vault"


def test_batch_search_one_document_per_line(capsys: pytest.CaptureFixture[str], vault: Path,
                                            tmp_path: Path) -> None:  # fmt: skip
    _init_fake(capsys, vault)
    run(capsys, "index", "--vault", str(vault))
    batch = tmp_path / "q.txt"
    batch.write_text('tomato blossom end rot\n\n{"query": "index funds fees"}\n', encoding="utf-8")
    code, out, _ = run(capsys, "search", "--batch", str(batch), "--vault", str(vault))
    lines = [json.loads(x) for x in out.splitlines()]
    assert code == 0 and len(lines) == 2
    assert lines[1]["query"] == "index funds fees"


def test_search_full_text_does_not_truncate_chunk_text(
    capsys: pytest.CaptureFixture[str], vault: Path
) -> None:
    _init_fake(capsys, vault)
    run(capsys, "index", "--vault", str(vault))
    args = ("search", "espresso tastes sour", "--vault", str(vault), "--json")
    cut = json.loads(run(capsys, *args)[1])["results"]
    full = json.loads(run(capsys, *args, "--full-text")[1])["results"]
    assert [r["path"] for r in cut] == [r["path"] for r in full]
    assert max(len(r["text"]) for r in cut) <= 310  # search.snippet_chars (300) and an ellipsis
    assert max(len(r["text"]) for r in full) > 310
    pairs = zip(cut, full, strict=True)
    assert all(f["text"].startswith(c["text"].rstrip("…").rstrip()) for c, f in pairs)
