"""Typed query requests shared by the CLI, the HTTP API and evaluation.

``from_dict`` validates untrusted JSON: unknown fields, wrong types and out-of-range numbers
are an ``InputError`` (HTTP 400), never a crash.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, TypeVar

from vaultheat.errors import InputError

MAX_TOP = 100
MAX_QUERY_CHARS = 4000
MAX_TEXT_CHARS = 2_000_000

T = TypeVar("T")


@dataclass(frozen=True)
class SearchRequest:
    query: str
    top: int = 10
    files_only: bool = False
    explain: bool = False
    lexical: bool = True
    graph: bool = True
    rerank: bool | None = None  # None = configuration decides
    expand: bool | None = None
    folder: str | None = None
    tag: str | None = None
    property: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, data: Any) -> SearchRequest:
        req = _build(cls, data)
        for key, value in req.property.items():
            if not isinstance(value, str | int | float | bool) or isinstance(key, bool):
                raise InputError(f"property {key!r} must be a string, number or boolean")
        if not req.query.strip():
            raise InputError("query must not be empty")
        if len(req.query) > MAX_QUERY_CHARS:
            raise InputError(f"query longer than {MAX_QUERY_CHARS} characters")
        return req


@dataclass(frozen=True)
class RelatedRequest:
    path: str
    text: str | None = None  # unsaved editor text
    cursor: int | None = None  # byte offset into text (or into the file when text is None)
    top: int = 10
    unlinked_only: bool = False
    explain: bool = False
    graph: bool = True  # heat propagation (experimental.search_hops > 0)
    lexical: bool = True
    rerank: bool | None = None
    votes: bool = True  # link votes (when related.votes is on)

    @classmethod
    def from_dict(cls, data: Any) -> RelatedRequest:
        req = _build(cls, data)
        if req.text is not None and len(req.text) > MAX_TEXT_CHARS:
            raise InputError(f"text longer than {MAX_TEXT_CHARS} characters")
        if req.cursor is not None and req.cursor < 0:
            raise InputError("cursor must be >= 0")
        return req


def with_default_top(body: Any, top: int) -> Any:
    """``body`` with ``top`` set to the configured default (``search.top`` / ``related.top``)
    when the client left it out; anything else is left to ``from_dict`` to judge."""
    if isinstance(body, dict) and "top" not in body:
        return {**body, "top": top}
    return body


_TYPES: dict[str, tuple[type, ...]] = {
    "str": (str,),
    "int": (int,),
    "bool": (bool,),
    "bool | None": (bool, type(None)),
    "str | None": (str, type(None)),
    "int | None": (int, type(None)),
    "dict[str, Any]": (dict,),
}


def _build(cls: type[T], data: Any) -> T:
    if not isinstance(data, dict):
        raise InputError("request body must be a JSON object")
    fields = {f.name: f for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    unknown = sorted(set(data) - set(fields))
    if unknown:
        raise InputError(f"unknown field(s): {', '.join(unknown)}")
    values: dict[str, Any] = {}
    for name, f in fields.items():
        if name not in data:
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise InputError(f"missing field: {name}")
            continue
        value = data[name]
        allowed = _TYPES[str(f.type)]
        if isinstance(value, bool) and bool not in allowed:
            raise InputError(f"field {name} has the wrong type")
        if not isinstance(value, allowed):
            raise InputError(f"field {name} has the wrong type")
        values[name] = value
    if "top" in values and not 1 <= values["top"] <= MAX_TOP:
        raise InputError(f"top must be between 1 and {MAX_TOP}")
    return cls(**values)
