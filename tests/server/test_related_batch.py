"""POST /v1/related/batch: the saved notes' related notes, many at once (the plugin's snapshot).

Each note's list must be exactly what /v1/related answers for it; unknown paths are reported,
not fatal; the request is bounded and validated like every other body.
"""

from __future__ import annotations

from typing import Any

import pytest
from live_server import Live

from vaultheat.core.query.related_batch import MAX_BATCH_PATHS, RelatedBatchRequest, related_batch
from vaultheat.core.query.results import RelatedResults
from vaultheat.core.requests import RelatedRequest
from vaultheat.errors import InputError, NotFoundError

NOTES = ["Coffee/Index.md", "Garden/Composting.md", "Home.md"]


def test_each_list_is_what_related_answers_for_that_note(live: Live) -> None:
    doc = live.post("/v1/related/batch", {"paths": NOTES, "top": 5}).json()
    assert doc["schema"] == "vaultheat.related_batch.v1"
    assert [n["path"] for n in doc["notes"]] == NOTES
    assert doc["missing"] == []
    for note in doc["notes"]:
        one = live.post("/v1/related", {"path": note["path"], "top": 5}).json()
        assert [r["path"] for r in note["results"]] == [r["path"] for r in one["results"]]
        assert [r["relevance_label"] for r in note["results"]] == [
            r["relevance_label"] for r in one["results"]
        ]
        assert 0 < len(note["results"]) <= 5


def test_unknown_notes_are_missing_not_an_error(live: Live) -> None:
    doc = live.post("/v1/related/batch", {"paths": ["Nope.md", "Home.md", "Nope.md"]}).json()
    assert [n["path"] for n in doc["notes"]] == ["Home.md"]
    assert doc["missing"] == ["Nope.md"]


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"paths": []},
        {"paths": "Home.md"},
        {"paths": [1]},
        {"paths": ["Home.md"], "top": 0},
        {"paths": ["Home.md"], "top": True},
        {"paths": ["Home.md"], "extra": 1},
        {"paths": ["../../etc/passwd"]},
        {"paths": [f"n{i}.md" for i in range(MAX_BATCH_PATHS + 1)]},
    ],
    ids=[
        "empty",
        "no-paths",
        "not-a-list",
        "not-strings",
        "top-0",
        "top-bool",
        "unknown-field",
        "escape",
        "too-many",
    ],
)
def test_bad_bodies_are_400(live: Live, body: dict[str, Any]) -> None:
    resp = live.post("/v1/related/batch", body)
    assert resp.status_code == 400
    assert resp.json()["error"]["code"] == "bad_request"


def test_core_batch_keeps_order_and_dedupes() -> None:
    asked: list[RelatedRequest] = []

    def related(req: RelatedRequest) -> RelatedResults:
        asked.append(req)
        if req.path == "gone.md":
            raise NotFoundError("no such note")
        return RelatedResults(path=req.path, took_ms=1.0, results=())

    req = RelatedBatchRequest.from_dict({"paths": ["b.md", "a.md", "b.md", "gone.md"], "top": 3})
    batch = related_batch(related, req)
    assert [n.path for n in batch.notes] == ["b.md", "a.md"]
    assert batch.missing == ("gone.md",)
    assert [r.top for r in asked] == [3, 3, 3]
    with pytest.raises(InputError):
        RelatedBatchRequest.from_dict([])
