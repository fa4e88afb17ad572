"""``vaultheat mcp`` as a subprocess, driven by the MCP SDK's own stdio client.

Once with the index opened in the MCP process, once with a running ``vaultheat serve``: then
the MCP process must not build an embedder at all (its ``make_embedder`` is replaced by one
that raises, so any attempt would turn every query into an error).
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from jsonschema import Draft202012Validator
from mcp import ClientSession, StdioServerParameters, stdio_client

from tests.agents.conftest import subprocess_env, vaultheat_cmd
from vaultheat.agents.tools import TOOLS
from vaultheat.server.discovery import running_server

NOTE = "Coffee/Brewing/V60 Pour Over.md"
NO_MODEL = (
    "import sys, vaultheat.providers.registry as r, vaultheat.engine as e\n"
    "def boom(*a, **k):\n"
    "    raise RuntimeError('the MCP process tried to build an embedder')\n"
    "r.make_embedder = e.make_embedder = boom\n"
    "from vaultheat.cli import main\n"
    "sys.exit(main(sys.argv[1:]))\n"
)
CALLS: list[tuple[str, dict[str, Any]]] = [
    ("search", {"query": "pour over water", "top": 3}),
    ("search", {"query": "espresso", "top": 2, "files_only": True, "folder": "Coffee"}),
    ("related", {"path": NOTE, "top": 3}),
    ("explain", {"query": "pour over water"}),
    ("explain", {"path": NOTE, "rank": 1}),
    ("neighbors", {"path": NOTE, "hops": 2, "limit": 10}),
    ("open", {"path": NOTE, "line_start": 2, "max_lines": 5}),
    ("research", {"query": "water hardness for coffee"}),
    ("status", {}),
    ("refresh", {}),
]


async def drive(params: StdioServerParameters) -> dict[str, Any]:
    out: dict[str, Any] = {"calls": []}
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        init = await session.initialize()
        out["server"] = init.server_info.name
        out["tools"] = (await session.list_tools()).tools
        for name, args in CALLS:
            # call_tool validates structured content against the listed output schema itself
            out["calls"].append((name, args, await session.call_tool(name, args)))
        out["bad"] = [
            await session.call_tool("no_such_tool", {}),
            await session.call_tool("open", {"path": "../outside.md"}),
            await session.call_tool("search", {"query": 42}),
            await session.call_tool("search", {"query": "x", "bogus": 1}),
        ]
        out["after_bad"] = await session.call_tool("search", {"query": "espresso", "top": 1})
        out["resources"] = (await session.list_resources()).resources
        out["templates"] = (await session.list_resource_templates()).resource_templates
        out["read"] = await session.read_resource("vault://Coffee/Brewing/V60%20Pour%20Over.md")
        out["prompts"] = (await session.list_prompts()).prompts
        out["prompt"] = await session.get_prompt("link-draft", {"path": NOTE})
    return out


def check_session(out: dict[str, Any], backend: str) -> None:
    assert out["server"] == "vaultheat"
    listed = {t.name: t for t in out["tools"]}
    assert set(listed) == {t.name for t in TOOLS}
    for tool in out["tools"]:
        assert tool.description and tool.input_schema["type"] == "object"
        assert tool.output_schema is not None
        Draft202012Validator.check_schema(tool.input_schema)
        Draft202012Validator.check_schema(tool.output_schema)
    for name, args, result in out["calls"]:
        assert isinstance(result, types.CallToolResult)
        assert not result.is_error, (name, args, result.content)
        doc = result.structured_content
        Draft202012Validator(listed[name].output_schema).validate(doc)
        assert doc["schema"].startswith("vaultheat.") and doc["schema"].endswith(".v1")
        if name == "search":
            assert doc["results"] and doc["query"] == args["query"]
            if args.get("folder"):
                assert all(r["path"].startswith("Coffee/") for r in doc["results"])
        if name == "related":
            assert doc["results"] and all(r["path"] != NOTE for r in doc["results"])
        if name == "open":
            assert doc["line_start"] == 2 and doc["line_end"] == 6 and doc["truncated"]
            text = result.content[0].text
            assert "\n2| " in text or "\n 2| " in text
        if name in ("status", "refresh"):
            assert doc.get("agent", {"backend": doc.get("backend")})["backend"] == backend
    codes = [json.loads(r.content[0].text)["error"]["code"] for r in out["bad"]]
    assert all(r.is_error for r in out["bad"])
    assert codes == ["unknown_tool", "bad_request", "bad_request", "bad_request"]
    assert not out["after_bad"].is_error  # the session survived
    uris = {r.uri for r in out["resources"]}
    assert "vault://Coffee/Brewing/V60%20Pour%20Over.md" in uris
    assert not any(".hidden/" in u or ".vaultheat" in u for u in uris)
    assert out["templates"][0].uri_template == "vault://{path}"
    text = out["read"].contents[0].text
    assert text == (Path(out["vault"]) / NOTE).read_text(encoding="utf-8")
    assert {p.name for p in out["prompts"]} == {"link-draft", "answer-from-notes"}
    assert NOTE in out["prompt"].messages[0].content.text


def test_mcp_in_process(agent_vault: Path) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=[*vaultheat_cmd("mcp", "--vault", str(agent_vault))[1:]],
        env=subprocess_env(),
    )
    out = asyncio.run(drive(params))
    out["vault"] = agent_vault
    check_session(out, "engine")


def _start_server(vault: Path) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(
        vaultheat_cmd("serve", "--vault", str(vault), "--port", "0"),
        env=subprocess_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while running_server(vault / ".vaultheat" / "server.json") is None:
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            err = proc.stderr.read().decode() if proc.stderr else ""
            pytest.fail(f"vaultheat serve did not start: {err}")
        time.sleep(0.1)
    return proc


def test_mcp_through_running_server(agent_vault: Path) -> None:
    server = _start_server(agent_vault)
    try:
        params = StdioServerParameters(
            command=sys.executable,
            args=["-c", NO_MODEL, "mcp", "--vault", str(agent_vault)],
            env=subprocess_env(),
        )
        out = asyncio.run(drive(params))
        out["vault"] = agent_vault
        check_session(out, "server")
    finally:
        server.terminate()
        server.wait(30)


def test_mcp_refresh_reports_progress(agent_vault: Path) -> None:
    note = agent_vault / NOTE
    note.write_text(note.read_text(encoding="utf-8") + "\nA new line about kettles.\n", "utf-8")
    seen: list[tuple[float, float | None, str | None]] = []

    async def progress(done: float, total: float | None, message: str | None) -> None:
        seen.append((done, total, message))

    async def run() -> Any:
        params = StdioServerParameters(
            command=sys.executable, args=["-m", "vaultheat", "mcp", "--vault", str(agent_vault)],
            env=subprocess_env(),
        )  # fmt: skip
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            return await session.call_tool("refresh", {}, progress_callback=progress)

    result = asyncio.run(run())
    assert not result.is_error, result.content
    assert result.structured_content["report"]["notes"]["modified"] == 1
    assert seen and all(total is not None and done <= total for done, total, _ in seen)
    assert {m for _, _, m in seen} >= {"index"}
