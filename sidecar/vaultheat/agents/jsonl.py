"""``vaultheat agent``: the JSON-lines protocol, for agents and scripts without MCP.

One request per line, one reply per line, in order::

    > {"id": 1, "action": "search", "query": "pour over", "top": 3}
    < {"id": 1, "ok": true, "action": "search", "result": {"schema": "vaultheat.search.v1", ...}}
    > {"action": "open", "path": "../etc/passwd"}
    < {"id": null, "ok": false, "action": "open", "error": {"code": "bad_request", ...}}

``action`` is a tool name from ``tools.TOOLS`` (or ``tools``: the table with its schemas);
every other key except ``id`` and ``progress`` is the tool's argument. With ``"progress":
true`` a ``refresh`` also writes ``{"id", "progress": {...}}`` lines before its reply.

No line can end the session: a line that is not JSON, not an object, too long (it is skipped
up to its newline without being held in memory) or names no known action gets an error reply
(codes ``bad_frame``, ``bad_request``, ``unknown_tool``, ``too_large``) and the loop goes on.
Only end of input ends it. stdout carries replies alone: stray prints go to stderr.
"""

from __future__ import annotations

import json
import os
import sys
from typing import IO, Any

from vaultheat.agents.backend import AutoBackend
from vaultheat.agents.tools import TOOLS, call_tool

MAX_LINE_BYTES = 8_000_000
FRAME_KEYS = ("id", "action", "progress")


def _error(code: str, message: str) -> dict[str, Any]:
    return {"error": {"code": code, "message": message}}


def tool_list() -> dict[str, Any]:
    return {
        "schema": "vaultheat.tools.v1",
        "tools": [
            {"name": t.name, "title": t.title, "description": t.description,
             "input_schema": t.input_schema, "output_schema": t.output_schema,
             "read_only": t.read_only}
            for t in TOOLS
        ],
    }  # fmt: skip


def handle_line(auto: AutoBackend, line: bytes, write: Any) -> None:
    """Answer one request line through ``write(obj)``."""
    try:
        frame = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        write({"id": None, "ok": False, **_error("bad_frame", f"not a JSON line: {exc}"[:300])})
        return
    if not isinstance(frame, dict):
        write({"id": None, "ok": False, **_error("bad_frame", "a request is a JSON object")})
        return
    rid = frame.get("id")
    if not isinstance(rid, str | int | float | type(None)) or isinstance(rid, bool):
        rid = None
    action = frame.get("action")
    head = {"id": rid, "action": action if isinstance(action, str) else None}
    if not isinstance(action, str):
        write({**head, "ok": False, **_error("bad_request", "missing `action` (a tool name)")})
        return
    if action == "tools":
        write({**head, "ok": True, "result": tool_list()})
        return
    args = {k: v for k, v in frame.items() if k not in FRAME_KEYS}

    def progress(stage: str, done: int, total: int) -> None:
        write({"id": rid, "progress": {"stage": stage, "done": done, "total": total}})

    ok, doc = call_tool(auto, action, args, progress if frame.get("progress") is True else None)
    if ok:
        write({**head, "ok": True, "result": doc})
    else:
        write({**head, "ok": False, "error": doc["error"]})


def read_lines(stream: IO[bytes], limit: int = MAX_LINE_BYTES) -> Any:
    """Lines of at most ``limit`` bytes; a longer one yields None (its rest is skipped)."""
    while True:
        line = stream.readline(limit + 1)
        if not line:
            return
        if len(line) > limit and not line.endswith(b"\n"):
            while True:  # drop the rest of the line, a bounded piece at a time
                rest = stream.readline(limit)
                if not rest or rest.endswith(b"\n"):
                    break
            yield None
            continue
        yield line


def serve_jsonl(auto: AutoBackend, stdin: IO[bytes] | None = None,
                stdout: IO[bytes] | None = None) -> int:  # fmt: skip
    """Run the loop until end of input; returns the exit code (0)."""
    if stdout is None:  # keep fd 1 for replies; anything printed elsewhere lands on stderr
        stdout = os.fdopen(os.dup(1), "wb", buffering=0)
        os.dup2(2, 1)
        sys.stdout = sys.stderr
    source = stdin if stdin is not None else sys.stdin.buffer

    def write(obj: dict[str, Any]) -> None:
        stdout.write(json.dumps(obj, ensure_ascii=False).encode("utf-8") + b"\n")
        stdout.flush()

    try:
        for line in read_lines(source):
            if line is None:
                too_long = f"line longer than {MAX_LINE_BYTES} bytes"
                write({"id": None, "ok": False, **_error("too_large", too_long)})
            elif line.strip():
                handle_line(auto, line, write)
    finally:
        auto.close()
    return 0
