"""Optional query expansion: one LLM call yields query variants and a HyDE passage.

Expansion is a recall booster on top of a search that already works, so it must never make a
search fail: any problem (no generator, an exception, prose instead of JSON, a wrong shape) logs
one warning and yields an empty ``Expansion``; the caller then searches with the original query
alone. Only the ``Generator`` protocol is used here, no HTTP library: the core stays testable
with ``FakeGenerator``.

Parsing is defensive because chat models wrap JSON in markdown fences, prepend chatter or a
``<think>`` block: we strip those and take the text from the first ``{`` to the last ``}``.
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass, field
from typing import Any

from vaultheat.providers.base import Generator

log = logging.getLogger(__name__)

MAX_VARIANT_CHARS = 500
MAX_HYDE_CHARS = 3000
DEFAULT_MAX_TOKENS = 2048  # reasoning models think before they answer: leave them room

_THINK_RE = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)
_FENCE_RE = re.compile(r"```[a-zA-Z]*")
_SPACE_RE = re.compile(r"\s+")


@dataclass(frozen=True)
class Expansion:
    variants: list[str] = field(default_factory=list)  # rewrites/sub-queries, never the original
    hyde: str | None = None  # a hypothetical passage answering the query


class ExpansionParseError(ValueError):
    """The model's reply is not the JSON object we asked for."""


def build_prompt(query: str, *, variants: int, hyde: bool) -> str:
    """The single prompt: strict JSON with ``queries`` (and ``hyde`` when asked for)."""
    fields = [f'"queries": [up to {variants} strings]']
    rules = [
        f"- queries: {variants} different rephrasings or sub-questions of the query, using "
        "other words and synonyms a note might contain; do not repeat the query itself.",
    ]
    if hyde:
        fields.append('"hyde": "string"')
        rules.append(
            "- hyde: a short passage (2 to 4 sentences) written as if taken from a personal "
            "note that answers the query."
        )
    rules.append("- Keep the language of the query.")
    return (
        "You help search a personal collection of markdown notes.\n"
        f"Query: {json.dumps(query, ensure_ascii=False)}\n\n"
        "Reply with ONLY one JSON object, no markdown and no explanation, of the form\n"
        "{" + ", ".join(fields) + "}\n" + "\n".join(rules) + "\n"
    )


def extract_json_object(reply: str) -> dict[str, Any]:
    """The JSON object in ``reply`` (think blocks and fences removed, first '{' to last '}')."""
    text = _FENCE_RE.sub("", _THINK_RE.sub("", reply))
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end <= start:
        raise ExpansionParseError("no JSON object in the reply")
    try:
        data = json.loads(text[start : end + 1])
    except json.JSONDecodeError as exc:
        raise ExpansionParseError(f"invalid JSON ({exc.msg})") from exc
    if not isinstance(data, dict):
        raise ExpansionParseError("the reply is not a JSON object")
    return data


def clean_text(value: str) -> str:
    """Whitespace collapsed and trimmed."""
    return _SPACE_RE.sub(" ", value).strip()


def select_variants(candidates: list[Any], query: str, limit: int) -> list[str]:
    """Up to ``limit`` cleaned, non-empty variants, case-insensitively unique and != query."""
    if not all(isinstance(c, str) for c in candidates):
        raise ExpansionParseError("queries must be a list of strings")
    seen = {clean_text(query).casefold()}
    out: list[str] = []
    for candidate in candidates:
        if len(out) >= limit:  # checked first: a limit of 0 takes none
            break
        text = clean_text(candidate)[:MAX_VARIANT_CHARS]
        key = text.casefold()
        if not text or key in seen:
            continue
        seen.add(key)
        out.append(text)
    return out


def parse_expansion(reply: str, query: str, *, variants: int, hyde: bool) -> Expansion:
    """Parse a model reply; ExpansionParseError when it is not the requested shape."""
    data = extract_json_object(reply)
    queries = data.get("queries", [])
    if not isinstance(queries, list):
        raise ExpansionParseError("queries must be a list")
    raw_hyde = data.get("hyde")
    if raw_hyde is not None and not isinstance(raw_hyde, str):
        raise ExpansionParseError("hyde must be a string")
    passage = clean_text(raw_hyde)[:MAX_HYDE_CHARS] if hyde and raw_hyde else ""
    return Expansion(select_variants(queries, query, variants), passage or None)


def expand_query(
    gen: Generator | None,
    query: str,
    *,
    variants: int = 3,
    hyde: bool = True,
    max_tokens: int = DEFAULT_MAX_TOKENS,
) -> Expansion:
    """Ask ``gen`` once for variants and a HyDE passage; an empty Expansion on any failure."""
    variants = max(0, variants)
    if gen is None or not query.strip() or (variants == 0 and not hyde):
        return Expansion()
    try:
        reply = gen.generate(
            build_prompt(query, variants=variants, hyde=hyde), max_tokens=max_tokens
        )
        if not isinstance(reply, str):
            raise ExpansionParseError(f"generator returned {type(reply).__name__}, not text")
        return parse_expansion(reply, query, variants=variants, hyde=hyde)
    except Exception as exc:  # expansion must never break a search
        log.warning(
            "expansion: skipped (%s: %s); searching with the query alone", type(exc).__name__, exc
        )
        return Expansion()
