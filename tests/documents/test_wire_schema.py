"""The wire schema (``server/schemas/``) is the one description of the documents: every golden
document validates against it, sends no field it does not declare, and the agent tools, the
OpenAPI document, docs/api.md and the plugin's contract copy all come from it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from vaultheat.agents.tools import BY_NAME
from vaultheat.core.query.results import (
    Explanation,
    HopTrace,
    ScoreParts,
    SearchResults,
    SeedTrace,
    SpaceTrace,
    Trace,
)
from vaultheat.documents import explain_document, search_document
from vaultheat.server import schemas, wire_docs
from vaultheat.server.openapi import openapi_document

REPO = Path(__file__).resolve().parents[2]
GOLDEN = json.loads((REPO / "tests" / "data" / "golden_documents.json").read_text("utf-8"))
STATUS = json.loads((REPO / "tests" / "data" / "golden_status.json").read_text("utf-8"))


def _timed(doc: Any) -> Any:
    """The golden files write ``took_ms`` as ``"<ms>"``; any number stands for it."""
    if isinstance(doc, dict):
        return {k: 1.5 if k == "took_ms" else _timed(v) for k, v in doc.items()}
    if isinstance(doc, list):
        return [_timed(v) for v in doc]
    return doc


def undeclared(value: Any, schema: dict[str, Any], where: str = "") -> list[str]:
    """Fields of ``value`` that ``schema`` does not name (the schemas allow extra fields, so
    validation alone would never see a document outgrow its schema)."""
    components = schemas.component_schemas()
    while "$ref" in schema:
        schema = components[schema["$ref"].rsplit("/", 1)[1]]
    for key in ("anyOf", "oneOf"):
        if key in schema:
            fits = [s for s in schema[key] if Draft202012Validator(_with_defs(s)).is_valid(value)]
            return undeclared(value, fits[0], where) if fits else [f"{where}: fits no branch"]
    out: list[str] = []
    if isinstance(value, dict) and "properties" in schema:
        props = schema["properties"]
        out += [f"{where}.{k}" for k in value if k not in props]
        for k, v in value.items():
            if k in props:
                out += undeclared(v, props[k], f"{where}.{k}")
    elif isinstance(value, list) and "items" in schema:
        for i, v in enumerate(value):
            out += undeclared(v, schema["items"], f"{where}[{i}]")
    return out


DEFS = {name: schemas.rebase(s) for name, s in schemas.component_schemas().items()}


def _with_defs(schema: dict[str, Any]) -> dict[str, Any]:
    return {**schemas.rebase(schema), "$defs": DEFS}


@pytest.mark.parametrize("key", sorted(GOLDEN))
def test_every_golden_document_fits_its_schema_exactly(key: str) -> None:
    doc = _timed(GOLDEN[key])
    schema = schemas.document_schema(doc["schema"])
    Draft202012Validator(schema).validate(doc)
    assert undeclared(doc, schema) == []


@pytest.mark.parametrize("state", sorted(STATUS))
def test_every_golden_status_document_fits_its_schema_exactly(state: str) -> None:
    """The server's status and note status documents fit the API's schema; the CLI's and the
    agents' (no server fields) fit the status tool's, which is the same schema."""
    tool = BY_NAME["status"].output_schema
    for key, doc in STATUS[state].items():
        doc = doc["doc"] if key == "cli:status" else doc
        if key.startswith("http:"):
            schema = schemas.document_schema(doc["schema"])
            Draft202012Validator(schema).validate(doc)
            assert undeclared(doc, schema) == [], key
        elif key == "agent:status":
            Draft202012Validator(tool).validate(doc)
            assert undeclared(doc, tool) == []
        else:
            assert undeclared(doc, schemas.document_schema(doc["schema"])) == [], key
    assert tool["properties"]["agent"]["required"] == ["backend"]


def test_undeclared_sees_a_field_the_schema_lacks() -> None:
    doc = _timed(GOLDEN["cli:related-explain"])
    doc["results"][0]["best_chunk"]["colour"] = "red"
    doc["results"][0]["explain"]["seed"]["mood"] = 1
    assert undeclared(doc, schemas.document_schema(doc["schema"])) == [
        ".results[0].best_chunk.colour",
        ".results[0].explain.seed.mood",
    ]


@pytest.mark.parametrize("tool", ["search", "related", "explain", "missing"])
def test_agent_tools_return_the_wire_documents(tool: str) -> None:
    tag = {"search": "vaultheat.search.v1", "related": "vaultheat.related.v1",
           "explain": "vaultheat.explain.v1", "missing": "vaultheat.missing.v1"}[tool]  # fmt: skip
    assert BY_NAME[tool].output_schema == schemas.document_schema(tag)
    Draft202012Validator.check_schema(BY_NAME[tool].output_schema)


# values a field may be sent: every one a tool takes, the API must take as well
SAMPLES: list[Any] = [None, True, -1, 0, 1, 5, 100, 101, 2.5, "", "x", "x" * 5000,
                      {}, {"status": "done"}, {"n": [1]}, ["x"]]  # fmt: skip


@pytest.mark.parametrize(
    ("tool", "request_name"),
    [("search", "SearchRequest"), ("related", "RelatedRequest"), ("missing", "MissingRequest")],
)
def test_agent_tools_take_no_value_the_api_refuses(tool: str, request_name: str) -> None:
    """A field a tool shares with the API comes from ``schemas/requests.py``: the tool may add
    bounds (no null, a length limit), never accept what the API's request schema refuses."""
    api = schemas.component_schemas()[request_name]["properties"]
    shared = set(BY_NAME[tool].input_schema["properties"]) & set(api)
    assert {"top"} <= shared
    for name in sorted(shared):
        own = Draft202012Validator(BY_NAME[tool].input_schema["properties"][name])
        theirs = Draft202012Validator(api[name])
        taken = [v for v in SAMPLES if own.is_valid(v) and not theirs.is_valid(v)]
        assert taken == [], name


def test_openapi_lists_the_wire_schemas() -> None:
    assert openapi_document()["components"]["schemas"] == schemas.component_schemas()


def test_standalone_schemas_carry_everything_they_refer_to() -> None:
    schema = schemas.document_schema("vaultheat.related.v1")
    text = json.dumps(schema)
    assert "#/components/" not in text
    assert {"RelatedHit", "Votes", "Explanation", "BestChunk"} <= set(schema["$defs"])
    bad = _timed(GOLDEN["cli:related"])
    bad["results"][0]["votes"] = {"count": "many"}
    assert not Draft202012Validator(schema).is_valid(bad)


def test_docs_api_md_tables_are_generated_from_the_schema() -> None:
    text = (REPO / "docs" / "api.md").read_text("utf-8")
    assert wire_docs.render_api_md(text) == text, "run: python -m vaultheat.server.wire_docs"
    assert "| `relevance_label` |" in text and "#### RelatedHit" in text


def test_the_plugins_copy_of_the_schema_is_current() -> None:
    path = REPO / wire_docs.PLUGIN_COPY
    assert path.read_text("utf-8") == wire_docs.plugin_copy(), (
        "run: python -m vaultheat.server.wire_docs"
    )


def test_a_table_row_says_type_presence_and_meaning() -> None:
    rows = wire_docs.field_rows(schemas.component_schemas()["RelatedHit"])
    assert "| `votes` | [Votes](#votes) or null | yes | null: none of the closest notes " \
        "link here |" in rows  # fmt: skip
    assert "| `link_status` | `linked`, `backlinked`, `both` or `unlinked` | yes |" in "\n".join(
        rows
    )


def test_a_heat_hop_sends_only_declared_fields() -> None:
    """The golden queries run at hops = 0, so no golden document holds a hop: build one."""
    hop = HopTrace(1, 40, 42, "link", 1.0, 1.0, 0.8, 0.5, 0.016, "A.md", ("Intro",), "text")
    seed = SeedTrace(40, "B.md", (), "seed", "vector", 0.032, page=2, page_end=3)
    parts = {k: 0.5 for k in schemas.COMPONENT_NAMES}
    trace = Trace(seed, (hop,), ScoreParts(parts, parts, parts, 0.91))
    doc = explain_document(Explanation("q", 42, "A.md", 0.91, trace))
    schema = schemas.document_schema("vaultheat.explain.v1")
    Draft202012Validator(schema).validate(doc)
    assert undeclared(doc, schema) == []
    assert set(doc["hops"][0]) == set(schemas.component_schemas()["ExplainHop"]["required"])


def test_a_routed_search_sends_only_declared_fields() -> None:
    """No golden index has a second vector space: build a routed trace and a search document
    read in a space still being filled (issue #40 slice 3)."""
    seed = SeedTrace(40, "B.md", (), "seed", "vector", 0.032)
    parts = {k: 0.5 for k in schemas.COMPONENT_NAMES}
    space = SpaceTrace("multilingual", "en", "de", "the chunk is in de", True)
    trace = Trace(seed, (), ScoreParts(parts, parts, parts, 0.91), space=space)
    doc = explain_document(Explanation("q", 42, "A.md", 0.91, trace))
    schema = schemas.document_schema("vaultheat.explain.v1")
    Draft202012Validator(schema).validate(doc)
    assert undeclared(doc, schema) == []
    assert doc["space"]["space"] == "multilingual"
    res = search_document(SearchResults("q", 1.5, False, (), partial_space=True))
    schema = schemas.document_schema("vaultheat.search.v1")
    Draft202012Validator(schema).validate(res)
    assert undeclared(res, schema) == [] and res["partial_space"] is True
    assert "partial_space" not in search_document(SearchResults("q", 1.5, False, ()))
