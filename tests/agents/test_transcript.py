"""A scripted agent session over ``vaultheat agent`` (search → open → related → explain) whose
answers match the CLI's for the same inputs, and the note bytes on disk."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from tests.agents.conftest import subprocess_env, vaultheat_cmd


def cli(vault: Path, *args: str) -> dict[str, Any]:
    done = subprocess.run(
        vaultheat_cmd(*args, "--json", "--vault", str(vault)),
        env=subprocess_env(), capture_output=True, timeout=120, check=True,
    )  # fmt: skip
    doc: dict[str, Any] = json.loads(done.stdout)
    return doc


def strip(doc: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in doc.items() if k != "took_ms"}


def test_agent_transcript_matches_the_cli(agent_vault: Path) -> None:
    query = "how hard should brewing water be"
    proc = subprocess.Popen(
        vaultheat_cmd("agent", "--vault", str(agent_vault)),
        env=subprocess_env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )  # fmt: skip
    assert proc.stdin and proc.stdout

    def ask(**frame: Any) -> dict[str, Any]:
        assert proc.stdin and proc.stdout
        proc.stdin.write(json.dumps(frame).encode() + b"\n")
        proc.stdin.flush()
        reply: dict[str, Any] = json.loads(proc.stdout.readline())
        assert reply["ok"], reply
        return reply["result"]  # type: ignore[no-any-return]

    try:
        found = ask(action="search", query=query, top=5)
        top = found["results"][0]
        opened = ask(action="open", chunk_id=top["chunk_id"])
        related = ask(action="related", path=top["path"], top=5)
        why = ask(action="explain", path=top["path"], target=related["results"][0]["path"])
    finally:
        proc.stdin.close()
        assert proc.wait(30) == 0
    assert strip(found) == strip(cli(agent_vault, "search", query, "--top", "5"))
    assert strip(related) == strip(cli(agent_vault, "related", top["path"], "--top", "5"))
    cli_why = cli(agent_vault, "explain", "--related", top["path"],
                  "--target", related["results"][0]["path"])  # fmt: skip
    assert why == cli_why
    raw = (agent_vault / top["path"]).read_bytes()
    assert opened["path"] == top["path"] and opened["fresh"] is True
    assert (opened["line_start"], opened["line_end"]) == (top["line_start"], top["line_end"])
    assert raw[opened["byte_start"] : opened["byte_end"]].decode() == opened["text"]
    span = raw[opened["byte_start"] : opened["byte_end"]]
    assert raw[top["byte_start"] : top["byte_end"]] in span
