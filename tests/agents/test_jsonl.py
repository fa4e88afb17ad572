"""The JSON-lines protocol in process: every action, a re-index mid-session, and a fuzz of
malformed lines after which the session still answers."""

from __future__ import annotations

import io
import json
import os
import random
from pathlib import Path
from typing import Any

import pytest

from vaultheat.agents.backend import AutoBackend
from vaultheat.agents.jsonl import read_lines, serve_jsonl
from vaultheat.agents.tools import TOOLS
from vaultheat.engine import Engine
from vaultheat.providers.fake import FakeEmbedder

NOTE = "Coffee/Brewing/V60 Pour Over.md"


def session(auto: AutoBackend, lines: list[bytes | str]) -> list[dict[str, Any]]:
    raw = b"".join((x.encode() if isinstance(x, str) else x) + b"\n" for x in lines)
    out = io.BytesIO()
    assert serve_jsonl(auto, io.BytesIO(raw), out) == 0
    return [json.loads(line) for line in out.getvalue().splitlines()]


def req(action: str, rid: Any = None, **args: Any) -> str:
    return json.dumps({"action": action, "id": rid, **args})


def test_every_action_answers(auto: AutoBackend) -> None:
    lines = [
        req("tools", 0),
        req("search", 1, query="pour over water", top=3),
        req("related", 2, path=NOTE, top=3, unlinked_only=True),
        req("explain", 3, query="pour over water", rank=2),
        req("neighbors", 4, path=NOTE, kinds=["backlink"]),
        req("open", 5, path=NOTE, max_lines=3),
        req("research", 6, query="roasting"),
        req("status", 7),
        req("refresh", 8, progress=True),
    ]
    replies = session(auto, lines)
    final = [r for r in replies if "progress" not in r]
    assert [r["id"] for r in final] == list(range(9))
    assert all(r["ok"] for r in final), [r for r in final if not r["ok"]]
    by = {r["id"]: r["result"] for r in final}
    assert [t["name"] for t in by[0]["tools"]] == [t.name for t in TOOLS]
    assert len(by[1]["results"]) == 3
    assert all(r["link_status"] == "unlinked" for r in by[2]["results"])
    assert by[3]["chunk_id"] == by[1]["results"][1]["chunk_id"]
    assert by[4]["neighbors"] and {n["kind"] for n in by[4]["neighbors"]} == {"backlink"}
    assert by[5]["line_end"] == 3 and by[5]["next_line"] == 4
    assert by[6]["steps"][0]["step"] == "search"
    assert by[7]["agent"]["backend"] == "engine"
    assert by[8]["done"] and by[8]["report"]["notes"]["unchanged"] > 0


def test_numbers_saturate_at_their_bounds(auto: AutoBackend) -> None:
    (reply,) = session(auto, [req("search", query="coffee", top=10_000, files_only=True)])
    assert reply["ok"]
    assert 0 < len(reply["result"]["results"]) <= 100


def test_reindex_mid_session(auto: AutoBackend, agent_vault: Path) -> None:
    first = session(auto, [req("search", 1, query="zanzibar marmalade", top=1)])[0]
    assert first["ok"]
    assert first["result"]["results"][0]["path"] != "New/Zanzibar.md"
    (agent_vault / "New").mkdir()
    (agent_vault / "New" / "Zanzibar.md").write_text(
        "# Zanzibar\n\nZanzibar marmalade with cloves.\n", encoding="utf-8"
    )
    other = Engine.open(agent_vault, embedder=FakeEmbedder())  # another writer, e.g. the CLI
    other.index()
    other.close()
    again = session(auto, [req("search", 2, query="zanzibar marmalade", top=1),
                           req("open", 3, path="New/Zanzibar.md")])  # fmt: skip
    assert again[0]["ok"] and again[0]["result"]["results"][0]["path"] == "New/Zanzibar.md"
    assert again[1]["ok"] and "cloves" in again[1]["result"]["text"]


BAD_LINES: list[bytes | str] = [
    "not json",
    "{",
    "[]",
    "42",
    "null",
    '"search"',
    "{}",
    '{"action": 5}',
    '{"action": "drop_tables"}',
    '{"action": "search"}',
    '{"action": "search", "query": ""}',
    '{"action": "search", "query": ["a"]}',
    '{"action": "search", "query": "x", "top": "ten"}',
    '{"action": "search", "query": "x", "top": true}',
    '{"action": "search", "query": "x", "property": {"a": {"b": 1}}}',
    '{"action": "search", "query": "' + "x" * 5000 + '"}',
    '{"action": "related", "path": "/etc/passwd"}',
    '{"action": "related", "path": "../../../etc/passwd"}',
    '{"action": "open", "path": "..\\\\..\\\\secret.md"}',
    '{"action": "open", "path": "C:/Windows/x.md"}',
    '{"action": "open", "path": ".vaultheat/server.json"}',
    '{"action": "open", "path": ".hidden/Scratch.md"}',
    '{"action": "open", "path": "a\\u0000b.md"}',
    '{"action": "open"}',
    '{"action": "open", "chunk_id": 99999999}',
    '{"action": "open", "path": "Coffee/Index.md", "line_start": 5, "line_end": 2}',
    '{"action": "neighbors", "path": "Nope.md"}',
    '{"action": "neighbors", "hops": 3, "path": "Coffee/Index.md", "kinds": ["x"]}',
    '{"action": "explain", "query": "x", "chunk_id": -4}',
    '{"action": "explain", "path": "Coffee/Index.md", "target": "Nope.md"}',
    '{"action": "refresh", "full": "yes"}',
    '{"action": "search", "query": "x", "id": {"nested": true}, "top": 0.5}',
    b"\xff\xfe\x00garbage",
    "[" * 100_000 + "]" * 100_000,
]


def test_malformed_lines_never_end_the_session(auto: AutoBackend) -> None:
    rng = random.Random(16)
    noise = [bytes(rng.randrange(256) for _ in range(rng.randrange(1, 200))).replace(b"\n", b"")
             for _ in range(50)]  # fmt: skip
    lines = [*BAD_LINES, *noise, req("status", "last")]
    replies = session(auto, lines)
    assert len(replies) == len([x for x in lines if x.strip()])
    assert all(not r["ok"] for r in replies[:-1]), [r for r in replies[:-1] if r["ok"]]
    codes = {r["error"]["code"] for r in replies[:-1]}
    assert codes <= {"bad_frame", "bad_request", "unknown_tool", "not_found", "too_large"}
    assert "internal" not in codes
    assert replies[-1]["ok"] and replies[-1]["id"] == "last"


def test_symlink_out_of_the_vault_is_refused(auto: AutoBackend, agent_vault: Path,
                                             tmp_path: Path) -> None:  # fmt: skip
    secret = tmp_path / "secret.md"
    secret.write_text("# secret\n", encoding="utf-8")
    os.symlink(secret, agent_vault / "Leak.md")
    (reply,) = session(auto, [req("open", path="Leak.md")])
    assert not reply["ok"] and reply["error"]["code"] == "bad_request"
    assert "secret" not in json.dumps(reply["error"]).replace("secret.md", "")


@pytest.mark.parametrize("size", [10, 100])
def test_overlong_lines_are_skipped_in_bounded_pieces(size: int) -> None:
    data = b"x" * (size * 5) + b"\nshort\n" + b"y" * (size + 1)
    got = list(read_lines(io.BytesIO(data), limit=size))
    assert got == [None, b"short\n", None]
