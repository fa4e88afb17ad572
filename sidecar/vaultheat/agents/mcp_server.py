"""``vaultheat mcp``: the tool table as an MCP server on stdio (the official ``mcp`` SDK).

A thin shell: tools come from ``tools.TOOLS`` (results as ``structuredContent`` validated by
the client against each tool's output schema, plus the same document as text), the indexed
notes are resources ``vault://<url-encoded path>`` (and a ``vault://{path}`` template), and two
prompts set up common jobs. Tool failures are in-band (``isError`` with a
``vaultheat.error.v1`` body), so no call ends the session. Blocking engine work runs in a
worker thread; the SDK's stdio transport keeps stdout for protocol frames (logs: stderr).
"""

from __future__ import annotations

import json
import logging
import time
from typing import Any
from urllib.parse import quote, unquote

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

from vaultheat import __version__, errors
from vaultheat.agents.backend import AutoBackend
from vaultheat.agents.notes import note_list, read_note
from vaultheat.agents.tools import TOOLS, call_tool
from vaultheat.core.models import display_text

log = logging.getLogger("vaultheat.agents")

SCHEME = "vault://"
CALL_MS = "vaultheat/call_ms"
PAGE = 500
INSTRUCTIONS = (
    "vaultheat searches the user's Obsidian vault locally. Start with `search` (or `research` "
    "for open questions), read hits with `open`, use `related` and `neighbors` to follow "
    "the notes' links and topics, `explain` to say why a result is there. A "
    "relevance_label of 'weak' means probably no good match. Notes are read-only."
)

PROMPTS = (
    types.Prompt(
        name="link-draft",
        title="Find notes to link from a draft",
        description="Suggest existing notes the draft should link to, with the passage for each.",
        arguments=[
            types.PromptArgument(name="path", description="the draft's vault path", required=True),
            types.PromptArgument(name="text", description="unsaved text of the draft"),
        ],
    ),
    types.Prompt(
        name="answer-from-notes",
        title="Answer a question from my notes",
        description="Answer from the vault only, citing note paths and lines.",
        arguments=[types.PromptArgument(name="question", required=True)],
    ),
)


def note_uri(path: str) -> str:
    return SCHEME + quote(path, safe="/")


def uri_path(uri: str) -> str:
    if not uri.startswith(SCHEME):
        raise errors.InputError(f"resource URIs look like {SCHEME}<path>, got {uri[:80]!r}")
    return unquote(uri[len(SCHEME) :])


def prompt_text(name: str, args: dict[str, str]) -> str:
    if name == "link-draft":
        path = args.get("path")
        if not path:
            raise errors.InputError("link-draft needs the draft's path")
        text = args.get("text")
        extra = f" Pass this unsaved text of it as `text`:\n\n{text}" if text else ""
        return (
            f"Find notes I should link from my draft {path!r}. Call `related` with path={path!r} "
            "and unlinked_only=true; for the best few, `open` their best chunk and tell me which "
            "sentence of my draft each one fits, as an Obsidian [[link]]. Skip 'weak' ones."
            + extra
        )
    if name == "answer-from-notes":
        question = args.get("question")
        if not question:
            raise errors.InputError("answer-from-notes needs a question")
        return (
            f"Answer from my notes only: {question}\nUse `research` (or `search`), `open` the "
            "passages you rely on and cite them as path:line. If the best results are 'weak', "
            "say the notes do not cover it instead of guessing."
        )
    raise errors.NotFoundError(f"no prompt {name!r}")


async def _list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
    return types.ListToolsResult(tools=[
        types.Tool(
            name=t.name, title=t.title, description=t.description,
            input_schema=t.input_schema, output_schema=t.output_schema,
            annotations=types.ToolAnnotations(
                title=t.title, read_only_hint=t.read_only, destructive_hint=False,
                idempotent_hint=True, open_world_hint=False),
        )
        for t in TOOLS
    ])  # fmt: skip


async def _list_templates(ctx: Any, params: Any) -> types.ListResourceTemplatesResult:
    return types.ListResourceTemplatesResult(resource_templates=[
        types.ResourceTemplate(uri_template=SCHEME + "{path}", name="note",
                               title="A note of the vault", mime_type="text/markdown")
    ])  # fmt: skip


async def _list_prompts(ctx: Any, params: Any) -> types.ListPromptsResult:
    return types.ListPromptsResult(prompts=list(PROMPTS))


async def _get_prompt(ctx: Any, params: types.GetPromptRequestParams) -> types.GetPromptResult:
    try:
        text = prompt_text(params.name, dict(params.arguments or {}))
    except errors.VaultheatError as exc:
        from mcp.shared.exceptions import MCPError

        raise MCPError(code=-32602, message=exc.message) from exc
    return types.GetPromptResult(messages=[
        types.PromptMessage(role="user", content=types.TextContent(text=text))
    ])  # fmt: skip


def build_server(auto: AutoBackend) -> Server[Any]:
    async def call(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        def progress(stage: str, done: int, total: int) -> None:
            try:  # a lost progress note must never stop an index run
                anyio.from_thread.run(ctx.session.report_progress, done, total, stage)
            except Exception as exc:
                log.debug("progress notification failed: %s", exc)

        def timed() -> tuple[bool, dict[str, Any], float]:
            t0 = time.perf_counter()
            ok, doc = call_tool(auto, params.name, params.arguments, progress)
            return ok, doc, (time.perf_counter() - t0) * 1000

        ok, doc, call_ms = await anyio.to_thread.run_sync(timed)
        tool = next((t for t in TOOLS if t.name == params.name), None)
        text = tool.text(doc) if ok and tool else json.dumps(doc, ensure_ascii=False)
        return types.CallToolResult(
            content=[types.TextContent(text=text)],
            structured_content=doc if ok else None,
            is_error=not ok,
            # the handler's own time, so a client (the benchmark) can tell what MCP adds
            _meta={CALL_MS: round(call_ms, 3)},
        )

    async def list_resources(ctx: Any, params: Any) -> types.ListResourcesResult:
        def notes() -> list[tuple[str, str]]:
            store = auto.run(lambda b: b.store())
            return note_list(store) if store is not None else []

        items = await anyio.to_thread.run_sync(notes)
        cursor = getattr(params, "cursor", None) if params is not None else None
        start = int(cursor) if cursor and cursor.isdigit() else 0
        page = items[start : start + PAGE]
        return types.ListResourcesResult(
            resources=[types.Resource(uri=note_uri(p), name=p, title=title,
                                      mime_type="text/markdown") for p, title in page],
            next_cursor=str(start + PAGE) if start + PAGE < len(items) else None,
        )  # fmt: skip

    async def read_resource(ctx: Any, params: types.ReadResourceRequestParams) -> Any:
        def read() -> str:
            return display_text(
                auto.run(lambda b: read_note(b.paths, b.settings, uri_path(str(params.uri))))[1]
                .decode("utf-8", "surrogateescape")
            )

        try:
            text = await anyio.to_thread.run_sync(read)
        except errors.VaultheatError as exc:
            from mcp.shared.exceptions import MCPError

            raise MCPError(code=-32602 if exc.code == "bad_request" else -32002,
                           message=exc.message, data=exc.to_dict()) from exc  # fmt: skip
        return types.ReadResourceResult(contents=[
            types.TextResourceContents(uri=str(params.uri), mime_type="text/markdown", text=text)
        ])  # fmt: skip

    return Server(
        "vaultheat",
        version=__version__,
        instructions=INSTRUCTIONS,
        on_list_tools=_list_tools,
        on_call_tool=call,
        on_list_resources=list_resources,
        on_list_resource_templates=_list_templates,
        on_read_resource=read_resource,
        on_list_prompts=_list_prompts,
        on_get_prompt=_get_prompt,
    )


def serve_mcp(auto: AutoBackend) -> int:
    server = build_server(auto)

    async def main() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    try:
        anyio.run(main)
    finally:
        auto.close()
    return 0
