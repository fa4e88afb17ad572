"""Every /v1 endpoint over real HTTP: answers, validation errors, index control, consistency.

Each answer is validated against ``/v1/openapi.json`` by ``Live.request`` (see conftest).
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from live_server import Live, MakeLive, write_notes
from openapi_spec_validator import validate as validate_spec

from vaultheat.errors import InputError, NotFoundError
from vaultheat.server.client import call, find_server
from vaultheat.server.discovery import ServerInfo, write_discovery
from vaultheat.server.openapi import openapi_document


def note_status(live: Live, path: str) -> dict[str, Any]:
    resp = live.get("/v1/notes/status", params={"path": path})
    assert resp.status_code == 200, resp.text
    return resp.json()


# -- documents --------------------------------------------------------------------------------
def test_health_answers_without_token(live: Live) -> None:
    resp = live.get("/v1/health", auth=False)
    assert resp.status_code == 200
    assert resp.json()["status"] == "ok"
    assert resp.json()["state"] == "ready"


def test_health_names_the_vault_by_an_id_that_hides_its_path(live: Live) -> None:
    import hashlib

    doc = live.get("/v1/health", auth=False).json()
    vault = Path(live.get("/v1/status").json()["vault"]).resolve()
    assert doc["vault_id"] == hashlib.sha256(str(vault).encode()).hexdigest()[:16]
    assert set(doc) == {"schema", "status", "version", "state", "vault_id"}
    assert all(str(vault) not in str(v) for v in doc.values())


def test_status_reports_counts_and_server_fields(live: Live) -> None:
    doc = live.get("/v1/status").json()
    assert doc["state"] == "ready"
    assert doc["notes"] > 0 and doc["chunks"] >= doc["notes"] // 2
    assert doc["vectors"] == doc["chunks"]
    assert doc["paused"] is False and doc["progress"] is None and doc["last_error"] is None
    assert doc["queue"] == 0
    assert all(s["reason"] for s in doc["skipped"])
    assert doc["model"]["dimension"] == 64


def test_note_status_normalizes_the_path(live: Live) -> None:
    plain = note_status(live, "Coffee/Index.md")
    assert plain["indexed"] and plain["fresh"] and plain["chunks"] > 0
    odd = note_status(live, "Coffee/./Roasting/../Index.md")
    assert odd["path"] == "Coffee/Index.md"
    assert odd["indexed_hash"] == plain["indexed_hash"]


def test_note_status_of_a_missing_note(live: Live) -> None:
    doc = note_status(live, "No such note.md")
    assert doc["exists"] is False and doc["indexed"] is False and doc["reason"]


def test_note_status_needs_a_path(live: Live) -> None:
    resp = live.get("/v1/notes/status")
    assert resp.status_code == 400
    assert resp.json()["error"]["code"] == "bad_request"


def test_openapi_document_is_valid_and_served(live: Live) -> None:
    doc = live.get("/v1/openapi.json").json()
    validate_spec(doc)
    assert doc == openapi_document()
    routes = {r.resource.canonical for r in live.server.app.router.routes()}  # type: ignore[union-attr]
    assert routes == set(doc["paths"])


# -- queries ----------------------------------------------------------------------------------
def test_search_returns_ranked_chunks(live: Live) -> None:
    doc = live.post("/v1/search", {"query": "roasting coffee beans", "top": 5}).json()
    assert 0 < len(doc["results"]) <= 5
    assert [r["rank"] for r in doc["results"]] == list(range(1, len(doc["results"]) + 1))
    assert any(r["path"].startswith("Coffee/") for r in doc["results"])


@pytest.mark.parametrize(
    "options",
    [
        {"files_only": True},
        {"explain": True},
        {"lexical": False, "graph": False},
        {"folder": "Garden"},
    ],
    ids=["files-only", "explain", "vector-only", "folder"],
)
def test_search_options_answer_their_schema(live: Live, options: dict[str, Any]) -> None:
    resp = live.post("/v1/search", {"query": "compost for tomatoes", **options})
    assert resp.status_code == 200, resp.text
    doc = resp.json()
    assert doc["results"]
    if options.get("files_only"):
        assert doc["files_only"] and "best_chunk" in doc["results"][0]
    if options.get("explain"):
        assert doc["results"][0]["explain"] is not None


@pytest.mark.parametrize(
    ("body", "content"),
    [
        ({}, None),
        ({"query": ""}, None),
        ({"query": "x", "top": 0}, None),
        ({"query": "x", "top": 101}, None),
        ({"query": "x", "top": "3"}, None),
        ({"query": "x", "files_only": 1}, None),
        ({"query": "x", "bogus": True}, None),
        (["query"], None),
        (None, b"{not json"),
        (None, b"\xff\xfe"),
    ],
    ids=[
        "empty",
        "blank-query",
        "top-0",
        "top-101",
        "top-str",
        "flag-int",
        "unknown-field",
        "array",
        "bad-json",
        "bad-utf8",
    ],
)
def test_search_rejects_bad_bodies(live: Live, body: Any, content: bytes | None) -> None:
    if content is not None:
        resp = live.post("/v1/search", content=content)
    else:
        resp = live.post("/v1/search", json=body)
    assert resp.status_code == 400, resp.text
    assert resp.json()["error"]["code"] == "bad_request"


def test_related_to_a_saved_note(live: Live) -> None:
    doc = live.post("/v1/related", {"path": "Coffee/Index.md", "top": 5}).json()
    assert doc["path"] == "Coffee/Index.md"
    assert doc["results"] and all(r["path"] != "Coffee/Index.md" for r in doc["results"])


def test_related_to_unsaved_text_at_the_cursor(live: Live) -> None:
    text = "# Draft\n\nMy tomatoes need compost and a raised bed this spring."
    doc = live.post("/v1/related", {"path": "Drafts/New.md", "text": text, "cursor": 20}).json()
    assert doc["results"]
    assert any(r["path"].startswith("Garden/") for r in doc["results"][:3])


def test_related_to_an_unknown_note_is_404(live: Live) -> None:
    resp = live.post("/v1/related", {"path": "Nope.md"})
    assert resp.status_code == 404
    assert resp.json()["error"]["code"] == "not_found"


def test_explain_a_search_result(live: Live) -> None:
    hit = live.post("/v1/search", {"query": "pour over water"}).json()["results"][0]
    doc = live.post("/v1/explain", {"query": "pour over water", "chunk_id": hit["chunk_id"]}).json()
    assert doc["chunk_id"] == hit["chunk_id"] and doc["path"] == hit["path"]
    c = doc["components"]
    total = sum(c["weights"][k] * v for k, v in c["normalized"].items() if v is not None)
    assert total == pytest.approx(c["final"], abs=1e-6)


def test_explain_a_related_note(live: Live) -> None:
    hit = live.post("/v1/related", {"path": "Coffee/Index.md"}).json()["results"][0]
    doc = live.post("/v1/explain", {"path": "Coffee/Index.md", "target": hit["path"]}).json()
    assert doc["path"] == hit["path"]


@pytest.mark.parametrize(
    ("body", "status"),
    [
        ({"query": "coffee", "chunk_id": 10**9}, 404),
        ({"query": "coffee"}, 400),
        ({"query": "coffee", "chunk_id": "1"}, 400),
        ({"path": "Coffee/Index.md"}, 400),
        ({"path": "Coffee/Index.md", "target": "Nope.md"}, 404),
        ({"chunk_id": 1}, 400),
    ],
    ids=["unknown-chunk", "no-chunk", "chunk-str", "no-target", "unknown-target", "neither"],
)
def test_explain_errors(live: Live, body: dict[str, Any], status: int) -> None:
    resp = live.post("/v1/explain", body)
    assert resp.status_code == status, resp.text


def test_unknown_route_and_wrong_method_answer_json(live: Live) -> None:
    resp = live.get("/v1/nope")
    assert resp.status_code == 404
    assert resp.json()["error"]["code"] == "not_found"
    resp = live.request("GET", "/v1/search", check=False)
    assert resp.status_code == 405
    assert resp.json()["error"]["code"] == "bad_request"


# -- notes/changed, index control -------------------------------------------------------------
def test_changed_note_is_reindexed(live: Live) -> None:
    note = live.vault / "Coffee/Index.md"
    note.write_text(note.read_text(encoding="utf-8") + "\nCardamom buns go well with it.\n")
    unreported = live.vault / "Home.md"  # edited outside Obsidian: no event for it
    unreported.write_text(unreported.read_text(encoding="utf-8") + "\nA stray edit.\n")
    assert note_status(live, "Coffee/Index.md")["fresh"] is False
    ack = live.post(
        "/v1/notes/changed", {"events": [{"type": "modify", "path": "Coffee/Index.md"}]}
    )
    assert ack.json()["queued"] == 1
    live.wait_idle()
    after = note_status(live, "Coffee/Index.md")
    assert after["fresh"] is True and after["indexed_hash"] == after["disk_hash"]
    assert [r.kind for r in live.state.worker.runs][-1] == "changes"
    # the run looked at the changed path only; the next full scan catches the stray edit
    assert note_status(live, "Home.md")["fresh"] is False
    live.post("/v1/index", {})
    live.wait_idle()
    assert note_status(live, "Home.md")["fresh"] is True


def test_burst_of_events_for_one_note_indexes_it_once(make_live: MakeLive) -> None:
    live = make_live(overrides={"server.debounce_ms": 1000})  # slack for a slow machine
    note = live.vault / "Garden/Composting.md"
    runs_before = len(live.state.worker.runs)
    for i in range(20):
        note.write_text(f"# Composting\n\nVersion {i} of the compost heap notes.\n")
        resp = live.post(
            "/v1/notes/changed",
            {"events": [{"type": "modify", "path": str(note.relative_to(live.vault))}]},
        )
        assert resp.status_code == 200
    live.wait_idle()
    runs = live.state.worker.runs[runs_before:]
    assert [r.kind for r in runs] == ["changes"]
    assert runs[0].only == ("Garden/Composting.md",)
    assert note_status(live, "Garden/Composting.md")["fresh"]


def test_create_delete_and_rename_events(live: Live) -> None:
    (live.vault / "Inbox").mkdir()
    (live.vault / "Inbox/Fresh idea.md").write_text("# Fresh idea\n\nSourdough starter feeding.\n")
    live.post("/v1/notes/changed", {"events": [{"type": "create", "path": "Inbox/Fresh idea.md"}]})
    live.wait_idle()
    assert note_status(live, "Inbox/Fresh idea.md")["indexed"]

    (live.vault / "Inbox/Fresh idea.md").rename(live.vault / "Inbox/Renamed idea.md")
    live.post(
        "/v1/notes/changed",
        {
            "events": [
                {
                    "type": "rename",
                    "path": "Inbox/Renamed idea.md",
                    "old_path": "Inbox/Fresh idea.md",
                }
            ]
        },
    )
    live.wait_idle()
    assert note_status(live, "Inbox/Renamed idea.md")["indexed"]
    assert not note_status(live, "Inbox/Fresh idea.md")["indexed"]

    (live.vault / "Inbox/Renamed idea.md").unlink()
    live.post(
        "/v1/notes/changed", {"events": [{"type": "delete", "path": "Inbox/Renamed idea.md"}]}
    )
    live.wait_idle()
    gone = note_status(live, "Inbox/Renamed idea.md")
    assert not gone["indexed"] and not gone["exists"]
    hits = live.post("/v1/search", {"query": "sourdough starter"}).json()["results"]
    assert all(not h["path"].startswith("Inbox/") for h in hits)


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"events": "x"},
        {"events": [{"type": "explode", "path": "a.md"}]},
        {"events": [{"type": "modify"}]},
        {"events": [{"type": "modify", "path": 3}]},
        {"events": [{"type": "rename", "path": "b.md"}]},
        {"events": [{"type": "modify", "path": "a.md", "old_path": "b.md"}]},
        {"events": [{"type": "modify", "path": "a.md", "extra": 1}]},
        {"events": [], "more": 1},
    ],
    ids=[
        "no-events",
        "not-list",
        "bad-type",
        "no-path",
        "path-int",
        "rename-no-old",
        "old-on-modify",
        "extra-field",
        "extra-top",
    ],
)
def test_changed_rejects_bad_events(live: Live, body: dict[str, Any]) -> None:
    resp = live.post("/v1/notes/changed", body)
    assert resp.status_code == 400, resp.text
    assert live.state.worker.queued == 0


@pytest.mark.parametrize(
    ("body", "status"),
    [(None, 200), ({}, 200), ({"full": False}, 200), ({"full": "yes"}, 400), ({"x": 1}, 400)],
    ids=["no-body", "empty", "incremental", "full-str", "unknown"],
)
def test_index_request_validation(live: Live, body: Any, status: int) -> None:
    resp = live.post("/v1/index", body)
    assert resp.status_code == status, resp.text
    live.wait_idle()


def test_pause_holds_changes_until_resume(live: Live) -> None:
    assert live.post("/v1/index/pause").json() == {"schema": "vaultheat.ack.v1", "paused": True}
    (live.vault / "Later.md").write_text("# Later\n\nKombucha brewing schedule.\n")
    live.post("/v1/notes/changed", {"events": [{"type": "create", "path": "Later.md"}]})
    # synchronised on the queue, not on a sleep: under load the 50 ms debounce can take longer
    live.wait_for(lambda: live.get("/v1/status").json()["queue"] == 1, what="the change queued")
    status = live.get("/v1/status").json()
    assert status["paused"] is True and status["queue"] == 1
    assert not note_status(live, "Later.md")["indexed"]
    assert live.post("/v1/index/resume").json()["paused"] is False
    live.wait_idle()
    assert note_status(live, "Later.md")["indexed"]
    assert live.get("/v1/status").json()["paused"] is False


def test_periodic_scan_catches_changes_made_outside_obsidian(make_live: MakeLive) -> None:
    live = make_live(overrides={"server.scan_interval_s": 0.3})
    (live.vault / "Synced.md").write_text("# Synced\n\nArrived by git pull: bonsai wiring.\n")
    live.wait_for(lambda: note_status(live, "Synced.md")["indexed"], what="the scan")
    assert any(r.kind == "scan" for r in live.state.worker.runs)


def test_new_vault_is_indexed_in_the_background(tmp_path: Path, make_live: MakeLive) -> None:
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    (fresh / "One.md").write_text("# One\n\nHiking boots and trail maps.\n")
    (fresh / "Two.md").write_text("# Two\n\nTrail running shoes for hiking.\n")
    live = make_live(vault_path=fresh, wait=False)
    assert live.get("/v1/health", auth=False).status_code == 200
    live.wait_idle()
    assert live.get("/v1/status").json()["notes"] == 2
    assert live.post("/v1/search", {"query": "hiking"}).json()["results"]


def test_queries_before_any_index_say_so(tmp_path: Path, make_live: MakeLive) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    live = make_live(vault_path=empty)
    live.wait_idle()
    doc = live.get("/v1/status").json()
    assert doc["state"] == "ready" and doc["state_detail"] == "the vault has no notes yet"
    resp = live.post("/v1/search", {"query": "anything"})
    assert resp.status_code == 409
    assert resp.json()["error"]["code"] == "index_missing"


def test_queries_are_answered_while_indexing(live: Live) -> None:
    write_notes(live.vault, 200, words=40)
    errors: list[str] = []
    done = threading.Event()
    during = 0

    def query(i: int) -> int:
        kind = (
            ("/v1/search", {"query": f"coffee{i % 97} garden"})
            if i % 2
            else ("/v1/related", {"path": "Coffee/Index.md"})
        )
        resp = live.post(*kind)
        if resp.status_code != 200:
            errors.append(f"{resp.status_code} {resp.text[:200]}")
        return resp.status_code

    live.post("/v1/index", {"full": False})
    live.wait_for(lambda: live.state.worker.indexing, timeout=10, what="indexing to start")
    with ThreadPoolExecutor(4) as pool:
        i = 0
        while live.state.worker.indexing and i < 2000:
            list(pool.map(query, range(i, i + 8)))
            during += 8
            i += 8
    done.set()
    live.wait_idle()
    assert during >= 8
    assert errors == []
    assert live.get("/v1/status").json()["notes"] >= 200


# -- the CLI's client -------------------------------------------------------------------------
def test_cli_client_finds_the_server_and_steers_it(live: Live) -> None:
    paths = live.engine.paths
    assert find_server(paths) is None
    port = int(live.url.rsplit(":", 1)[1])
    info = ServerInfo(live.url, "127.0.0.1", port, os.getpid(), live.token, str(live.vault), "now")
    write_discovery(paths.server, info)
    found = find_server(paths)
    assert found == info
    assert call(found, "POST", "/v1/index/pause")["paused"] is True
    assert live.get("/v1/status").json()["paused"] is True
    assert call(found, "POST", "/v1/index/resume")["paused"] is False
    with pytest.raises(InputError, match="query"):
        call(found, "POST", "/v1/search", {"query": ""})
    with pytest.raises(NotFoundError):
        call(found, "POST", "/v1/related", {"path": "Nope.md"})


def test_pdf_and_canvas_results_answer_their_schema(tmp_path: Path, make_live: MakeLive) -> None:
    """A PDF page and a canvas card through the HTTP API, validated against the OpenAPI
    document (``Live.request``): the locators are declared fields."""
    from tests.indexing.test_pdf_canvas_index import make_vault

    live = make_live(vault_path=make_vault(tmp_path / "docs"), wait=False)
    live.wait_idle()
    query = "harden zinnia seedlings outdoors"
    hit = live.post("/v1/search", {"query": query}).json()["results"][0]
    assert (hit["path"], hit["page"], hit["page_end"]) == ("Docs/Manual.pdf", 2, 2)
    files = live.post("/v1/search", {"query": "sourdough starter rye", "files_only": True}).json()
    assert files["results"][0]["best_chunk"]["card_id"] == "c-sourdough"
    seed = live.post("/v1/explain", {"query": query, "chunk_id": hit["chunk_id"]}).json()["seed"]
    assert seed["page"] == 2
    skipped = {s["path"]: s["reason"] for s in live.get("/v1/status").json()["skipped"]}
    assert skipped["Docs/Broken.pdf"].startswith("broken PDF")
