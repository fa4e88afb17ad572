"""Named schemas as self-contained JSON Schemas: the agent tools' output schemas, which an MCP
client reads without the OpenAPI document, so the components they use come inlined."""

from __future__ import annotations

import copy
import functools
from typing import Any

from vaultheat.server.schemas.base import Schema
from vaultheat.server.schemas.catalog import component_schemas


@functools.cache
def _components() -> dict[str, Schema]:
    return component_schemas()


def _refs(schema: Any) -> set[str]:
    """The component names ``schema`` refers to, directly."""
    if isinstance(schema, dict):
        target = schema.get("$ref")
        own = {target.rsplit("/", 1)[1]} if isinstance(target, str) else set()
        return own.union(*(_refs(v) for v in schema.values()))
    if isinstance(schema, list):
        return set().union(*(_refs(v) for v in schema))
    return set()


def rebase(schema: Any) -> Any:
    """``schema`` with its component references pointing at ``#/$defs/NAME``."""
    if isinstance(schema, dict):
        out = {k: rebase(v) for k, v in schema.items()}
        if isinstance(out.get("$ref"), str):
            out["$ref"] = "#/$defs/" + out["$ref"].rsplit("/", 1)[1]
        return out
    if isinstance(schema, list):
        return [rebase(v) for v in schema]
    return schema


def standalone(name: str) -> Schema:
    """The named schema as one self-contained JSON Schema: the components it uses (all the
    way down) under ``$defs``, so a client that knows no OpenAPI can validate with it."""
    components = _components()
    seen: set[str] = set()
    todo = [name]
    while todo:
        for ref_name in sorted(_refs(components[todo.pop()]) - seen):
            seen.add(ref_name)
            todo.append(ref_name)
    out: Schema = rebase(copy.deepcopy(components[name]))
    if seen:
        out["$defs"] = {n: rebase(copy.deepcopy(components[n])) for n in sorted(seen)}
    return out


def name_of(schema_tag: str) -> str:
    """The component name of the document tagged ``schema_tag`` (``vaultheat.search.v1``)."""
    for name, schema in _components().items():
        if schema.get("properties", {}).get("schema", {}).get("const") == schema_tag:
            return name
    raise KeyError(schema_tag)


def document_schema(schema_tag: str, *, optional: tuple[str, ...] = ()) -> Schema:
    """The self-contained schema of the document tagged ``schema_tag``; ``optional``: fields
    it requires that this sender may leave out (the status a server alone adds)."""
    out = standalone(name_of(schema_tag))
    out["required"] = [k for k in out["required"] if k not in optional]
    return out
