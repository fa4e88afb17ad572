"""Raw JSON-RPC frames to ``vaultheat mcp``: garbage, unknown methods and wrong types are
answered (or dropped) without ending the session; stdout carries nothing but frames."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from tests.agents.conftest import subprocess_env, vaultheat_cmd


def test_bad_frames_do_not_end_the_mcp_session(agent_vault: Path) -> None:
    proc = subprocess.Popen(
        vaultheat_cmd("mcp", "--vault", str(agent_vault)),
        env=subprocess_env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )  # fmt: skip
    assert proc.stdin and proc.stdout

    def send(obj: Any) -> None:
        assert proc.stdin
        raw = obj if isinstance(obj, bytes) else json.dumps(obj).encode()
        proc.stdin.write(raw + b"\n")
        proc.stdin.flush()

    def reply(rid: int) -> dict[str, Any]:
        assert proc.stdout
        while True:
            line = proc.stdout.readline()
            assert line, "the MCP server closed its stdout"
            msg = json.loads(line)  # every line on stdout is a JSON-RPC frame
            if msg.get("id") == rid:
                return msg  # type: ignore[no-any-return]

    try:
        send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"}}})  # fmt: skip
        assert "result" in reply(1)
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        for junk in (b"not json", b"{", b"[]", b"42", b'{"jsonrpc": "2.0"}', b"\xff\xfe",
                     b'{"jsonrpc": "2.0", "id": 2, "method": "no/such/method"}'):  # fmt: skip
            send(junk)
        assert "error" in reply(2)
        send({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
              "params": {"name": "search", "arguments": "not an object"}})  # fmt: skip
        third = reply(3)
        assert "error" in third or third["result"]["isError"]
        send({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
              "params": {"name": "open", "arguments": {"path": "/etc/passwd"}}})  # fmt: skip
        bad = reply(4)["result"]
        assert bad["isError"] and json.loads(bad["content"][0]["text"])["error"]["code"] == (
            "bad_request"
        )
        query = {"query": "espresso", "top": 1}
        send({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
              "params": {"name": "search", "arguments": query}})  # fmt: skip
        good = reply(5)["result"]
        assert not good["isError"]
        assert good["structuredContent"]["results"][0]["path"].endswith(".md")
    finally:
        proc.stdin.close()
        proc.wait(30)
