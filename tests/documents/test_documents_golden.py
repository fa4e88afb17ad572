"""The query documents, byte for byte: search, files-only search, related, explain and explain
of a related note, as the CLI (``--json``), the HTTP API and the agent tools send them.

The golden file was written by the code before the typed-results refactor (issue #18); any
change to a key, its order or a value shows here. ``took_ms`` is masked (a timing). Floats are
compared at a tolerance (``tests/golden_compare.py``: rel 1e-6, abs 1e-7) because on another
CPU the float32 score sums run in another order and differ in the 8th-9th significant digit;
keys, their order, every string and integer stay exact, so a changed score still fails.
``VAULTHEAT_UPDATE_GOLDEN=1`` rewrites the file (only when a change is meant: say why in the
commit).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import copy_vault, open_fake_index
from tests.golden_compare import assert_matches
from vaultheat.agents.backend import AutoBackend
from vaultheat.agents.tools import call_tool
from vaultheat.cli import main
from vaultheat.engine import Engine
from vaultheat.paths import index_paths
from vaultheat.providers.fake import FakeEmbedder
from vaultheat.server.app import create_app
from vaultheat.server.runner import ServerThread

GOLDEN = Path(__file__).parents[1] / "data" / "golden_documents.json"
TOKEN = "golden-token-" + "x" * 32
NOTE = "Coffee/Roasting/Roasting Basics.md"
DRAFT = "Drafts/Unsaved.md"
MISSING = "Finance/Steuererklärung.md"  # not among the candidates of "compost garden"
DRAFT_TEXT = "# Garden plan\n\nTomatoes need compost and calcium. See [[Roasting Basics]].\n"

CLI_CASES: dict[str, list[str]] = {
    "search": ["search", "coffee roasting", "--top", "5"],
    "search-explain": ["search", "roasting first crack", "--top", "3", "--explain"],
    "search-files-only": ["search", "compost garden", "--files-only", "--top", "5"],
    "related": ["related", NOTE, "--top", "5"],
    "related-explain": ["related", NOTE, "--top", "3", "--explain"],
    "related-text": ["related", DRAFT, "--text", DRAFT_TEXT, "--top", "4", "--cursor", "20"],
    "explain": ["explain", "coffee roasting", "--rank", "2"],
    "explain-files-only": ["explain", "compost garden", "--files-only", "--rank", "1"],
    "explain-related": ["explain", "--related", NOTE, "--rank", "1"],
    "explain-missing": ["explain", "compost garden", "--path", MISSING, "--top", "5"],
    "explain-missing-files-only": [
        "explain",
        "compost garden",
        "--path",
        "Finance/Budget.md",
        "--files-only",
    ],
}
HTTP_CASES: dict[str, tuple[str, dict[str, Any]]] = {
    "search": ("/v1/search", {"query": "coffee roasting", "top": 5}),
    "search-explain": ("/v1/search", {"query": "roasting first crack", "top": 3, "explain": True}),
    "search-files-only": ("/v1/search", {"query": "compost garden", "files_only": True, "top": 5}),
    "related": ("/v1/related", {"path": NOTE, "top": 5}),
    "related-explain": ("/v1/related", {"path": NOTE, "top": 3, "explain": True}),
    "related-text": ("/v1/related", {"path": DRAFT, "text": DRAFT_TEXT, "top": 4, "cursor": 20}),
    "explain": ("/v1/explain", {"query": "coffee roasting", "chunk_id": 0}),  # id filled in
    "explain-related": ("/v1/explain", {"path": NOTE, "target": ""}),  # target filled in
    "explain-missing": (
        "/v1/explain/missing",
        {"query": "compost garden", "path": MISSING, "top": 5},
    ),
}
AGENT_CASES: dict[str, tuple[str, dict[str, Any]]] = {
    "search": ("search", {"query": "coffee roasting", "top": 5}),
    "related": ("related", {"path": NOTE, "top": 5}),
    "explain": ("explain", {"query": "coffee roasting", "rank": 2}),
    "explain-related": ("explain", {"path": NOTE, "rank": 1}),
    "explain-missing": ("missing", {"query": "compost garden", "path": MISSING, "top": 5}),
}


def normalize(value: Any) -> Any:
    """``took_ms`` masked, floats at 9 significant digits (as the golden file stores them; the
    comparison is at a looser tolerance anyway); key order kept."""
    if isinstance(value, dict):
        return {k: ("<ms>" if k == "took_ms" else normalize(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [normalize(v) for v in value]
    if isinstance(value, float):
        return float(f"{value:.9g}")
    return value


def text(doc: Any) -> str:
    """The document as the comparison sees it: keys in their order, one line."""
    return json.dumps(normalize(doc), ensure_ascii=False)


@pytest.fixture(scope="module")
def golden_vault(tmp_path_factory: pytest.TempPathFactory) -> Path:
    vault = copy_vault(tmp_path_factory.mktemp("golden") / "vault")
    engine = open_fake_index(vault)
    engine.close()
    return vault


@pytest.fixture(scope="module")
def golden() -> dict[str, Any]:
    if GOLDEN.is_file():
        loaded: dict[str, Any] = json.loads(GOLDEN.read_text(encoding="utf-8"))
        return loaded
    return {}


@pytest.fixture(scope="module")
def server(golden_vault: Path) -> Iterator[str]:
    engine = Engine.open(golden_vault, embedder=FakeEmbedder(),
                         overrides={"server.scan_interval_s": 0})  # fmt: skip
    app = create_app(engine, engine.settings.server, TOKEN)
    thread = ServerThread(app).start()
    yield thread.url
    thread.stop()
    engine.close()


def check(golden: dict[str, Any], key: str, doc: Any) -> None:
    got = text(doc)
    if os.environ.get("VAULTHEAT_UPDATE_GOLDEN") == "1":
        golden[key] = json.loads(got)
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_text(json.dumps(golden, ensure_ascii=False, indent=1) + "\n", "utf-8")
        return
    assert key in golden, f"no golden document {key!r}: run with VAULTHEAT_UPDATE_GOLDEN=1"
    # numbers at a tolerance (another CPU sums float32 in another order), the rest exact
    assert_matches(json.loads(got), golden[key], f"$[{key!r}]")


@pytest.mark.parametrize("case", sorted(CLI_CASES))
def test_cli_documents_unchanged(
    case: str, golden_vault: Path, golden: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    code = main([*CLI_CASES[case], "--vault", str(golden_vault), "--json"])
    out, _ = capsys.readouterr()
    assert code == 0
    check(golden, f"cli:{case}", json.loads(out))


@pytest.mark.parametrize("case", sorted(HTTP_CASES))
def test_http_documents_unchanged(case: str, server: str, golden: dict[str, Any]) -> None:
    route, body = HTTP_CASES[case]
    headers = {"Authorization": f"Bearer {TOKEN}"}
    with httpx.Client(base_url=server, headers=headers, timeout=30, trust_env=False) as client:
        if case == "explain":
            found = client.post("/v1/search", json={"query": body["query"], "top": 2}).json()
            body = {**body, "chunk_id": found["results"][1]["chunk_id"]}
        elif case == "explain-related":
            found = client.post("/v1/related", json={"path": NOTE, "top": 1}).json()
            body = {**body, "target": found["results"][0]["path"]}
        resp = client.post(route, json=body)
    assert resp.status_code == 200, resp.text
    check(golden, f"http:{case}", resp.json())


@pytest.mark.parametrize("case", sorted(AGENT_CASES))
def test_agent_documents_unchanged(case: str, golden_vault: Path, golden: dict[str, Any]) -> None:
    auto = AutoBackend(index_paths(golden_vault), embedder=FakeEmbedder(), prefer_server=False)
    try:
        name, args = AGENT_CASES[case]
        ok, doc = call_tool(auto, name, args)
    finally:
        auto.close()
    assert ok, doc
    check(golden, f"agent:{case}", doc)


def test_the_surfaces_agree(golden: dict[str, Any]) -> None:
    """The CLI, the API and the agent tools send the same document for the same question."""
    for case in ("search", "related", "related-text", "search-files-only", "explain-related",
                 "explain-missing"):  # fmt: skip
        if f"http:{case}" in golden:
            assert golden[f"cli:{case}"] == golden[f"http:{case}"], case
    for case in ("search", "related", "explain", "explain-related", "explain-missing"):
        assert golden[f"agent:{case}"] == golden[f"cli:{case}"], case


def test_query_documents_are_built_in_one_place() -> None:
    """Core and the engine return typed results; only ``vaultheat/documents.py`` names the
    search / related / explain document types (the CLI, the API and the agents call it)."""
    package = Path(__file__).resolve().parents[2] / "sidecar" / "vaultheat"
    names = ("vaultheat.search.v1", "vaultheat.related.v1", "vaultheat.explain.v1",
             "vaultheat.missing.v1")  # fmt: skip
    builders = sorted(
        str(p.relative_to(package))
        for p in package.rglob("*.py")
        if any(f'"{n}"' in p.read_text(encoding="utf-8") for n in names)
    )
    # the others only declare the types: the OpenAPI wire types, the agent tools' output
    # schemas, and an example line in the JSON-lines protocol's docstring
    schemas = [f"server/schemas/{m}.py" for m in ("explain", "missing", "related", "search")]
    assert builders == ["agents/jsonl.py", "agents/tools.py", "documents.py", *schemas]
    for p in (package / "core").rglob("*.py"):
        assert '"schema":' not in p.read_text(encoding="utf-8"), p.name
