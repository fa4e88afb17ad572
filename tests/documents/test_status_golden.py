"""The status documents, byte for byte, in every state an index can be in.

``vaultheat status --json``, ``GET /v1/status``, ``GET /v1/notes/status`` and the agent
``status`` tool on the example vault with the fake embedder, captured by the code before
status was typed (issue #18) in each state we can produce: no index yet, an interrupted run
(incomplete), ready, stale after edits, stale because the chunking settings changed, and a
writer holding the lock (indexing). Paths of the temporary vault and the version are masked,
and the server's worker is paused (it would catch up at start); everything else, key order
included, must stay as it was. ``VAULTHEAT_UPDATE_GOLDEN=1``
rewrites the file (only when a change is meant: say why in the commit).

Key order, as the golden file shows it: with no index yet the counts come before ``state``
(``notes, chunks, links, tags, skipped, vectors, edges, excluded, state, ...``); once an index
exists ``state, state_detail, freshness, pending`` come first and the counts follow in the
store's order (``notes, excluded, chunks, links, tags, edges, skipped, vectors``). Both orders
are what clients got before #18; every client we ship parses JSON into an object (the plugin,
the agents, the HTTP client) and none reads the order, but the order is kept anyway so that
this refactor changes no byte. ``edges`` always has ``similar`` and ``link`` (the server adds
``tag``), then whatever other kinds the store holds.

Rewritten on purpose once since: #27 added ``kinds`` (Markdown notes, PDFs, canvases, each
``{indexed, skipped}``) just before ``phases`` in every status document; no other byte changed.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import copy_vault
from vaultheat.agents.backend import AutoBackend
from vaultheat.agents.tools import call_tool
from vaultheat.cli import main
from vaultheat.config import Settings, save_settings
from vaultheat.engine import Engine
from vaultheat.paths import index_paths
from vaultheat.providers.fake import FakeEmbedder
from vaultheat.server.app import create_app
from vaultheat.server.runner import ServerThread
from vaultheat.server.state import STATE
from vaultheat.storage.lock import WriterLock

GOLDEN = Path(__file__).parents[1] / "data" / "golden_status.json"
TOKEN = "golden-token-" + "x" * 32
EDITED = "Coffee/Roasting/Roasting Basics.md"
NEW = "Garden/Greenhouse.md"
NOTE_PATHS = (
    EDITED,  # indexed (stale once edited)
    NEW,  # missing, then new since the last run
    "Archive/Old Coffee Notes.md",  # opted out by its frontmatter
    "Attachments/image.png",  # not Markdown
    "No such note.md",
)
STATES = ("fresh", "incomplete", "ready", "stale", "mismatch", "indexing")


def normalize(value: Any, masks: dict[str, str]) -> Any:
    if isinstance(value, dict):
        return {k: "<version>" if k == "version" else normalize(v, masks) for k, v in value.items()}
    if isinstance(value, list):
        return [normalize(v, masks) for v in value]
    if isinstance(value, str):
        for real, mask in masks.items():
            value = value.replace(real, mask)
    return value


SNAPSHOTS: dict[str, dict[str, Any]] = {
    # what the worker reports mid-run (its own state, not the index's): the server's status
    # says ``indexing`` with the stage, whatever the index's own state word
    "worker-embedding": {"indexing": True, "paused": False, "queue": 0, "last_error": None,
                         "progress": {"stage": "embed", "done": 4, "total": 10, "rate": 2.0,
                                      "eta_s": 3.0}},
    "worker-starting": {"indexing": True, "paused": False, "queue": 2, "last_error": "boom",
                        "progress": None},
}  # fmt: skip


def capture(vault: Path) -> dict[str, Any]:
    """Every status document of the vault as it is now, under ``surface:name`` keys."""
    paths = index_paths(vault)
    masks = {str(paths.root): "<index_dir>", str(vault): "<vault>"}
    docs: dict[str, Any] = {}

    def put(key: str, doc: Any) -> None:
        docs[key] = normalize(doc, masks)

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["status", "--vault", str(vault), "--json"])
    put("cli:status", {"exit": code, "doc": json.loads(out.getvalue())})

    auto = AutoBackend(paths, embedder=FakeEmbedder(), prefer_server=False)
    try:
        ok, doc = call_tool(auto, "status", {})
    finally:
        auto.close()
    assert ok, doc
    put("agent:status", doc)

    engine = Engine.open(vault, embedder=FakeEmbedder(), overrides={"server.scan_interval_s": 0})
    app = create_app(engine, engine.settings.server, TOKEN, warm_up=False, index_process=False)
    app[STATE].worker.pause()  # it would catch up at start: hold the index as it is
    thread = ServerThread(app).start()
    try:
        headers = {"Authorization": f"Bearer {TOKEN}"}
        with httpx.Client(
            base_url=thread.url, headers=headers, timeout=30, trust_env=False
        ) as client:
            resp = client.get("/v1/status")
            assert resp.status_code == 200, resp.text
            put("http:status", resp.json())
            for path in NOTE_PATHS:
                resp = client.get("/v1/notes/status", params={"path": path})
                assert resp.status_code == 200, resp.text
                put(f"http:note:{path}", resp.json())
            worker = app[STATE].worker
            for name, snap in SNAPSHOTS.items():
                worker.snapshot = lambda snap=snap: dict(snap)  # type: ignore[method-assign]
                put(f"http:status:{name}", client.get("/v1/status").json())
    finally:
        thread.stop()
        engine.close()
    return docs


def interrupted_after(calls: int) -> Callable[[], bool]:
    seen = [0]

    def should_stop() -> bool:
        seen[0] += 1
        return seen[0] > calls

    return should_stop


@pytest.fixture(scope="module")
def documents(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """The vault walked through the states in order, the documents captured in each."""
    vault = copy_vault(tmp_path_factory.mktemp("status") / "vault")
    paths = index_paths(vault)
    paths.root.mkdir()
    settings = Settings().with_value("embeddings.provider", "fake")
    save_settings(paths.config, settings)
    by_state: dict[str, dict[str, Any]] = {"fresh": capture(vault)}

    engine = Engine.open(vault, embedder=FakeEmbedder())
    engine.index(should_stop=interrupted_after(1))
    engine.close()
    by_state["incomplete"] = capture(vault)

    engine = Engine.open(vault, embedder=FakeEmbedder())
    engine.index()
    engine.close()
    by_state["ready"] = capture(vault)

    edited = vault / EDITED
    edited.write_text(edited.read_text(encoding="utf-8") + "\nA new line.\n", encoding="utf-8")
    os.utime(edited, ns=(1_700_000_000_000_000_000, 1_700_000_000_000_000_000))
    (vault / NEW).write_text("# Greenhouse\n\nSeedlings start here.\n", encoding="utf-8")
    by_state["stale"] = capture(vault)

    save_settings(paths.config, settings.with_value("chunking.max_tokens", 123))
    by_state["mismatch"] = capture(vault)
    save_settings(paths.config, settings)

    with WriterLock(paths.lock):
        by_state["indexing"] = capture(vault)
    return by_state


@pytest.fixture(scope="module")
def golden() -> Iterator[dict[str, Any]]:
    loaded: dict[str, Any] = {}
    if GOLDEN.is_file():
        loaded = json.loads(GOLDEN.read_text(encoding="utf-8"))
    yield loaded
    if os.environ.get("VAULTHEAT_UPDATE_GOLDEN") == "1":
        GOLDEN.write_text(json.dumps(loaded, ensure_ascii=False, indent=1) + "\n", "utf-8")


@pytest.mark.parametrize("state", STATES)
def test_status_documents_unchanged(
    state: str, documents: dict[str, dict[str, Any]], golden: dict[str, Any]
) -> None:
    got = documents[state]
    if os.environ.get("VAULTHEAT_UPDATE_GOLDEN") == "1":
        golden[state] = got
        return
    assert state in golden, f"no golden documents for {state!r}: run with VAULTHEAT_UPDATE_GOLDEN=1"
    for key, doc in got.items():
        assert json.dumps(doc, ensure_ascii=False) == json.dumps(
            golden[state].get(key), ensure_ascii=False
        ), f"{state} {key}"
    assert sorted(got) == sorted(golden[state])


def test_each_state_is_the_one_it_claims(documents: dict[str, dict[str, Any]]) -> None:
    """The walk really produced the states (else the golden file pins the wrong thing)."""
    expect = {"fresh": "incomplete", "incomplete": "incomplete", "ready": "ready",
              "stale": "stale", "mismatch": "stale", "indexing": "indexing"}  # fmt: skip
    for state, word in expect.items():
        for key in ("cli:status", "agent:status", "http:status"):
            doc = documents[state][key]
            doc = doc["doc"] if key == "cli:status" else doc
            assert doc["state"] == word, (state, key, doc["state_detail"])
    assert "changed on disk" in documents["stale"][f"http:note:{EDITED}"]["reason"]
    assert "new since" in documents["stale"][f"http:note:{NEW}"]["reason"]
    assert "model or chunking" in documents["mismatch"]["http:status"]["state_detail"]


def test_status_and_shared_documents_are_built_in_one_place() -> None:
    """The engine returns ``Status`` / ``NoteStatus``; only ``vaultheat/documents.py`` builds
    the status, note status, error and refresh documents (the others declare their types:
    the OpenAPI wire types and the agent tools' output schemas)."""
    package = Path(__file__).resolve().parents[2] / "sidecar" / "vaultheat"
    names = ("status", "note_status", "error", "refresh")
    builders = sorted(
        str(p.relative_to(package))
        for p in package.rglob("*.py")
        if any(f'"vaultheat.{n}.v1"' in p.read_text(encoding="utf-8") for n in names)
    )
    assert builders == ["agents/tools.py", "documents.py", "server/schemas/status.py"]
    tools = (package / "agents" / "tools.py").read_text(encoding="utf-8")
    assert '"schema": "vaultheat.' not in tools
