"""Evaluation sets: loading (JSONL), the tune/holdout split, sampling, and query rendering.

Link-prediction queries are the evaluated note's own text with its links rendered away, so the
system sees the words a writer would type but not the answer. Rendering works on the parser's
byte spans (``parse_note``), so "links inside code stay" is decided by the same mask the indexer
uses. The frontmatter block is removed entirely in both variants: property links live there,
and cutting single YAML values out would leave a half-edited block; this is the simplest honest
choice and it only removes metadata, never body text.

The split is a hash of the query text (or note path), so it never changes when a set grows.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from vaultheat.core.models import Link
from vaultheat.core.vault.parsing import parse_note
from vaultheat.errors import InputError

VARIANTS = ("links-removed", "links-as-text")
SPLITS = ("all", "tune", "holdout")

T = TypeVar("T", "SearchItem", "LinkItem")


@dataclass(frozen=True)
class SearchItem:
    query: str
    relevant: tuple[str, ...]
    lang: str | None = None  # the set's ``lang`` field when present

    @property
    def key(self) -> str:
        return self.query


@dataclass(frozen=True)
class LinkItem:
    note: str
    relevant: tuple[str, ...]
    variant: str | None = None

    @property
    def key(self) -> str:
        return self.note


def _read_jsonl(path: Path) -> list[tuple[int, dict[str, Any]]]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise InputError(f"cannot read evaluation set {path}: {exc}", path=str(path)) from exc
    out = []
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(
                f"{path}:{n}: not valid JSON ({exc.msg})", path=str(path), line=n
            ) from exc
        if not isinstance(obj, dict):
            raise InputError(f"{path}:{n}: expected a JSON object", path=str(path), line=n)
        out.append((n, obj))
    return out


def _str_list(obj: dict[str, Any], key: str, path: Path, n: int) -> tuple[str, ...]:
    value = obj.get(key)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InputError(f"{path}:{n}: '{key}' must be a list of paths", path=str(path), line=n)
    return tuple(dict.fromkeys(value))


def _str(obj: dict[str, Any], key: str, path: Path, n: int) -> str:
    value = obj.get(key)
    if not isinstance(value, str) or not value.strip():
        raise InputError(f"{path}:{n}: '{key}' must be a non-empty string", path=str(path), line=n)
    return value


def load_search_set(path: Path) -> list[SearchItem]:
    """``{"query": str, "relevant_files": [paths]}`` per line; blank lines are skipped."""
    return [
        SearchItem(
            _str(o, "query", path, n),
            _str_list(o, "relevant_files", path, n),
            o["lang"] if isinstance(o.get("lang"), str) and o["lang"] else None,
        )
        for n, o in _read_jsonl(path)
    ]


def load_linkpred_set(path: Path) -> list[LinkItem]:
    """``{"note": path, "relevant": [paths], "variant": str}`` per line."""
    items = []
    for n, o in _read_jsonl(path):
        variant = o.get("variant")
        if variant is not None and variant not in VARIANTS:
            raise InputError(f"{path}:{n}: unknown variant {variant!r}", path=str(path), line=n)
        items.append(LinkItem(_str(o, "note", path, n), _str_list(o, "relevant", path, n), variant))
    return items


def filter_variant(items: Sequence[LinkItem], variant: str | None) -> list[LinkItem]:
    """Lines for ``variant`` (lines without one always count); all lines when None. A set that
    lists each note once per variant is then evaluated once per note."""
    return [it for it in items if variant is None or it.variant in (None, variant)]


def is_holdout(key: str) -> bool:
    """Deterministic 1-in-5 held-out split by the md5 of the query text or note path."""
    return int(hashlib.md5(key.encode("utf-8")).hexdigest(), 16) % 5 == 0


def filter_split(items: Sequence[T], split: str) -> list[T]:
    if split not in SPLITS:
        raise InputError(f"unknown split {split!r}; use one of {', '.join(SPLITS)}")
    if split == "all":
        return list(items)
    want = split == "holdout"
    return [it for it in items if is_holdout(it.key) == want]


def sample_items(items: Sequence[T], n: int | None, seed: int) -> list[T]:
    """A reproducible random sample of ``n`` items (all of them when n is None or too big),
    kept in their original order."""
    if n is None or n >= len(items):
        return list(items)
    if n < 1:
        raise InputError("--sample must be at least 1")
    chosen = set(random.Random(seed).sample(range(len(items)), n))
    return [it for i, it in enumerate(items) if i in chosen]


def link_as_text(link: Link) -> str:
    """``[[A|b]]`` → ``b``, ``[[A]]`` → ``A``, ``[[A#H]]`` → ``A > H``, ``[t](x.md)`` → ``t``."""
    if link.alias:
        return link.alias
    parts = [p for p in (link.target, *(link.subpath or "").split("#")) if p]
    return " > ".join(parts)


def render_note(path: str, raw: bytes, variant: str) -> str:
    """The note's text as an evaluation query: frontmatter dropped, body links rendered."""
    if variant not in VARIANTS:
        raise InputError(f"unknown variant {variant!r}; use one of {', '.join(VARIANTS)}")
    note = parse_note(path, raw)
    out = bytearray(raw)
    body_links = sorted(
        (
            lk
            for lk in note.links
            if lk.kind != "property" and lk.byte_start >= note.body_byte_start
        ),
        key=lambda lk: lk.byte_start,
        reverse=True,
    )
    for lk in body_links:
        repl = b"" if variant == "links-removed" else link_as_text(lk).encode("utf-8")
        out[lk.byte_start : lk.byte_end] = repl
    del out[: note.body_byte_start]
    return bytes(out).decode("utf-8", "surrogateescape")
