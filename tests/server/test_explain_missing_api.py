"""``POST /v1/explain/missing``: the answer is the CLI's ``vaultheat.missing.v1`` document
(validated against the OpenAPI schema by ``Live``), and its rank is the search's."""

from __future__ import annotations

from typing import Any

import pytest
from live_server import Live


def test_missing_note_rank_is_the_search_rank(live: Live) -> None:
    query = "pour over water"
    results = live.post("/v1/search", {"query": query, "top": 50}).json()["results"]
    first: dict[str, dict[str, Any]] = {}
    for r in results:
        first.setdefault(r["path"], r)
    hit = next(r for r in first.values() if r["rank"] > 3)
    doc = live.post("/v1/explain/missing", {"query": query, "path": hit["path"], "top": 3}).json()
    assert doc["schema"] == "vaultheat.missing.v1"
    assert doc["rank"] == hit["rank"] and doc["status"] == "ranked"
    assert doc["score"] == pytest.approx(hit["score"], abs=1e-6)
    assert doc["to_beat"]["rank"] == 3 and doc["to_beat"]["path"] == results[2]["path"]
    notes = live.post("/v1/search", {"query": query, "files_only": True, "top": 50}).json()
    ranks = {r["path"]: r["rank"] for r in notes["results"]}
    doc = live.post(
        "/v1/explain/missing", {"query": query, "path": hit["path"], "files_only": True}
    ).json()
    assert doc["rank"] == ranks[hit["path"]]


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"query": "coffee", "path": "Nope.md"}, 404, "not_found"),
        ({"query": "coffee"}, 400, "bad_request"),
        ({"path": "Coffee/Index.md"}, 400, "bad_request"),
        ({"query": "coffee", "path": "../outside.md"}, 400, "bad_request"),
        ({"query": "coffee", "path": "Coffee/Index.md", "chunk_id": 1}, 400, "bad_request"),
    ],
    ids=["unknown-note", "no-path", "no-query", "escape", "unknown-field"],
)
def test_missing_errors(live: Live, body: dict[str, Any], status: int, code: str) -> None:
    resp = live.post("/v1/explain/missing", body)
    assert resp.status_code == status, resp.text
    assert resp.json()["error"]["code"] == code
