"""Read a JSON Canvas 1.0 board (``.canvas``) as derived text: cards, links and context.

Design: a canvas is untrusted JSON. It is size-bounded before parsing and node-bounded after, and
every field is type-checked, so a malformed board ends as a skip with a reason, never an
exception. Text cards become chunks that carry their card id (the locator, since derived text is
not a byte slice of the file). File cards and links written inside text cards become outgoing
links, so a canvas votes for the notes it holds and is voted for by them. Group labels (of every
group whose rectangle contains the card) and labels of edges touching the card are context: they
are prefixed to the card's text, not separate chunks.

A board of file cards only has no text of its own, yet the graph needs a chunk to hang its links
on (and related notes need a vector to rank it): it gets one chunk naming the notes it holds,
with their groups' and edges' labels, located at its first file card (``file_cards``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

MAX_CANVAS_BYTES = 16 * 1024 * 1024
MAX_CANVAS_NODES = 20_000
MAX_CARD_CHARS = 64 * 1024

_WIKILINK = re.compile(r"!?\[\[([^\]\|#\^\n]+)(?:[#\^][^\]\|\n]*)?(?:\|[^\]\n]*)?\]\]")
_MDLINK = re.compile(r"!?\[[^\]\n]*\]\(<?([^)>\s#]+\.(?:md|pdf|canvas))(?:#[^)>\s]*)?>?\)")


@dataclass(frozen=True)
class CanvasCard:
    card_id: str
    text: str  # the card's own text
    context: tuple[str, ...] = ()  # group labels around it, labels of edges touching it

    @property
    def chunk_text(self) -> str:
        """What is embedded: context first (one line each), then the card."""
        return "\n".join((*self.context, self.text)) if self.context else self.text


@dataclass
class CanvasDoc:
    path: str
    cards: list[CanvasCard] = field(default_factory=list)
    links: list[str] = field(default_factory=list)  # link targets as written (file cards first)
    file_cards: list[CanvasCard] = field(default_factory=list)  # text: the target as written
    skipped: str | None = None  # reason the canvas is not indexed
    warnings: list[str] = field(default_factory=list)


def _rect(node: dict[str, Any]) -> tuple[float, float, float, float] | None:
    try:
        x, y = float(node["x"]), float(node["y"])
        w, h = float(node["width"]), float(node["height"])
    except (KeyError, TypeError, ValueError):
        return None
    return (x, y, x + w, y + h)


def _inside(inner: tuple[float, float, float, float], outer: tuple[float, ...]) -> bool:
    return (
        inner[0] >= outer[0]
        and inner[1] >= outer[1]
        and inner[2] <= outer[2]
        and inner[3] <= outer[3]
    )


def parse_canvas(
    path: str, raw: bytes, *, max_bytes: int = MAX_CANVAS_BYTES, max_nodes: int = MAX_CANVAS_NODES
) -> CanvasDoc:
    """Parse one canvas. Never raises for bad content: a board that cannot be used is skipped."""
    doc = CanvasDoc(path=path)
    if len(raw) > max_bytes:
        doc.skipped = f"canvas is {len(raw)} bytes, over the {max_bytes}-byte cap"
        return doc
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        doc.skipped = f"not valid JSON Canvas: {type(exc).__name__}: {str(exc)[:120]}"
        return doc
    if not isinstance(data, dict):
        doc.skipped = "not valid JSON Canvas: the top level is not an object"
        return doc
    nodes_raw = data.get("nodes", [])
    edges_raw = data.get("edges", [])
    if not isinstance(nodes_raw, list) or not isinstance(edges_raw, list):
        doc.skipped = "not valid JSON Canvas: nodes/edges are not lists"
        return doc
    if len(nodes_raw) > max_nodes:
        doc.skipped = f"canvas has {len(nodes_raw)} nodes, over the {max_nodes}-node cap"
        return doc
    nodes = [n for n in nodes_raw if isinstance(n, dict) and isinstance(n.get("id"), str)]
    if len(nodes) < len(nodes_raw):
        doc.warnings.append(f"{len(nodes_raw) - len(nodes)} node(s) without an id ignored")
    groups = [
        (r, n["label"].strip())
        for n in nodes
        if n.get("type") == "group"
        and isinstance(n.get("label"), str)
        and n["label"].strip()
        and (r := _rect(n)) is not None
    ]
    edge_labels: dict[str, list[str]] = {}
    for e in edges_raw:
        if not isinstance(e, dict) or not isinstance(e.get("label"), str) or not e["label"].strip():
            continue
        for end in ("fromNode", "toNode"):
            if isinstance(e.get(end), str):
                edge_labels.setdefault(e[end], []).append(e["label"].strip())
    links: list[str] = []
    text_links: list[str] = []
    for n in nodes:
        kind = n.get("type")
        if kind == "file" and isinstance(n.get("file"), str) and n["file"].strip():
            links.append(n["file"].strip())
            r = _rect(n)
            ctx = [label for gr, label in groups if r is not None and _inside(r, gr)]
            ctx.extend(edge_labels.get(n["id"], []))
            doc.file_cards.append(CanvasCard(n["id"], n["file"].strip(), tuple(dict.fromkeys(ctx))))
        elif kind == "text" and isinstance(n.get("text"), str) and n["text"].strip():
            text = n["text"][:MAX_CARD_CHARS]
            r = _rect(n)
            ctx = [label for gr, label in groups if r is not None and _inside(r, gr)]
            ctx.extend(edge_labels.get(n["id"], []))
            doc.cards.append(CanvasCard(n["id"], text.strip(), tuple(dict.fromkeys(ctx))))
            text_links.extend(m.group(1).strip() for m in _WIKILINK.finditer(text))
            text_links.extend(m.group(1).strip() for m in _MDLINK.finditer(text))
    doc.links = list(dict.fromkeys([*links, *text_links]))
    return doc
