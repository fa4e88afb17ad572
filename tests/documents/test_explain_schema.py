"""Every explain trace of a related result matches the OpenAPI `Explanation` schema, the traces
of notes only link votes found included (their weights once lacked `rerank`; schemathesis
found it)."""

from __future__ import annotations

import json
from typing import Any

from openapi_schema_validator import validate

from tests.conftest import related_doc
from vaultheat.core.requests import RelatedRequest
from vaultheat.server.openapi import openapi_document


def test_every_related_trace_matches_the_schema(fake_engine: Any) -> None:
    spec = openapi_document()
    schema = {"$ref": "#/components/schemas/Explanation", "components": spec["components"]}
    stages = set()
    for text in ("x", "coffee", "tomatoes in raised beds"):
        req = RelatedRequest(path="new.md", text=text, explain=True, top=33)
        doc = related_doc(fake_engine, req)
        for r in json.loads(json.dumps(doc))["results"]:
            validate(r["explain"], schema)
            assert set(r["explain"]["components"]["weights"]) == set(r["components"])
            stages.add(r["explain"]["seed"]["stage"])
    assert "votes" in stages  # a vote-only note's trace was among them
