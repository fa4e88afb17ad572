"""Read-only views for agents: ``open`` (a note's exact text, bounded) and ``neighbors``
(typed graph edges of a note or chunk, one or two hops).

Both work from the vault files and a read-only ``Store``, never the model, so the MCP process
can answer them itself even when a running server owns the model and the index writer.

``open`` is the one place an agent reads note text directly, so it enforces the vault's own
visibility rules: only ``*.md`` notes, nothing hidden (``.obsidian``, the index folder), no
path or symlink leaving the vault, nothing the user excluded (config globs, Obsidian's ignore
filters, a frontmatter opt-out). Output is bounded in lines and bytes; a cut is reported with
the line to continue from.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vaultheat.config import Settings
from vaultheat.core.models import ChunkRow, display_text, line_starts
from vaultheat.core.vault.derived_notes import document_kind
from vaultheat.core.vault.discovery import _Walker
from vaultheat.core.vault.parsing import is_excluded, split_frontmatter
from vaultheat.errors import InputError, NotFoundError
from vaultheat.indexing.report import content_hash
from vaultheat.paths import IndexPaths, safe_vault_path
from vaultheat.storage.store import Store

MAX_OPEN_LINES = 2000
MAX_OPEN_BYTES = 1_000_000
MAX_NOTE_BYTES = 16_000_000  # larger files are refused rather than read into memory
MAX_NEIGHBORS = 200
HOP2_FANOUT = 10  # hop-1 notes expanded for a second hop


@dataclass(frozen=True)
class OpenRequest:
    path: str | None = None
    chunk_id: int | None = None
    line_start: int | None = None
    line_end: int | None = None
    max_lines: int = 200
    max_bytes: int = 65_536


def note_file(
    paths: IndexPaths, settings: Settings, rel: str, *, documents: bool = False
) -> tuple[str, Path]:
    """(normalized vault-relative path, absolute path) of a note an agent may read
    (``documents``: or a PDF or canvas, whose indexed text is what is read)."""
    target = safe_vault_path(paths.vault, rel)
    norm = target.relative_to(paths.vault.resolve()).as_posix()
    if not norm.lower().endswith(".md") and not (documents and document_kind(norm)):
        raise InputError(
            f"{rel!r} is not a Markdown note (only .md notes, PDFs and canvases can be opened)"
        )
    if any(part.startswith(".") for part in norm.split("/")):
        raise InputError(f"{rel!r} is hidden (a name starting with '.'); it is not a note")
    root = paths.root.resolve()
    if target == root or root in target.parents:
        raise InputError(f"{rel!r} is inside the index folder")
    reason = _Walker(paths.vault, settings.vault, paths.root)._excluded(norm)
    if reason is not None:
        raise NotFoundError(f"{norm!r} is not part of the indexed vault ({reason})", path=norm)
    if not target.is_file():
        raise NotFoundError(f"no note {norm!r} in the vault", path=norm)
    return norm, target


def read_note(paths: IndexPaths, settings: Settings, rel: str) -> tuple[str, bytes]:
    norm, target = note_file(paths, settings, rel)
    size = target.stat().st_size
    if size > MAX_NOTE_BYTES:
        raise InputError(f"{norm!r} is {size} bytes, more than {MAX_NOTE_BYTES} can be opened")
    raw = target.read_bytes()
    fm, _, _ = split_frontmatter(raw.decode("utf-8", "surrogateescape"), [])
    if is_excluded(fm, settings.vault.exclude_property):
        raise NotFoundError(f"{norm!r} opts out of vaultheat in its frontmatter", path=norm)
    return norm, raw


def open_note(
    paths: IndexPaths, settings: Settings, store: Store | None, req: OpenRequest
) -> dict[str, Any]:
    """The ``vaultheat.open.v1`` document for ``req``."""
    chunk = None
    rel = req.path
    if req.chunk_id is not None:
        if store is None:
            raise NotFoundError("the vault has not been indexed yet: open by path")
        chunk = store.chunks([req.chunk_id]).get(req.chunk_id)
        if chunk is None:
            raise NotFoundError(f"chunk {req.chunk_id} is not in the index (re-indexed?)")
        if rel is not None and rel != chunk.path:
            raise InputError(f"chunk {req.chunk_id} belongs to {chunk.path!r}, not {rel!r}")
        rel = chunk.path
    if rel is None:
        raise InputError("give a path or a chunk_id")
    if document_kind(rel) is not None:
        return open_document(paths, settings, store, req, rel)
    norm, raw = read_note(paths, settings, rel)
    text = raw.decode("utf-8", "surrogateescape")
    fm, _, _ = split_frontmatter(text, [])
    starts = line_starts(raw)
    total = len(starts) - (1 if raw.endswith(b"\n") or not raw else 0)
    fresh = None
    if chunk is not None:
        row = store.note_by_path(norm) if store else None
        fresh = row is not None and row.content_hash == content_hash(raw)
        first = req.line_start or chunk.line_start
        last = req.line_end or chunk.line_end
    else:
        first = req.line_start or 1
        last = req.line_end or first + req.max_lines - 1
    if last < first:
        raise InputError("line_end must be >= line_start")
    first = max(1, min(first, max(total, 1)))
    last = min(last, first + req.max_lines - 1, max(total, 1))
    truncated = last < (req.line_end or last) or (req.line_end is None and last < total)
    b0 = starts[first - 1] if raw else 0
    b1 = starts[last] if last < len(starts) else len(raw)
    if b1 - b0 > req.max_bytes:
        cut = raw.rfind(b"\n", b0, b0 + req.max_bytes)
        b1 = cut + 1 if cut >= b0 else _utf8_boundary(raw, b0 + req.max_bytes)
        last = max(first, _line_of(starts, b1 - 1))
        truncated = True
    next_line = _line_of(starts, b1) if truncated and b1 < len(raw) else None
    return {
        "schema": "vaultheat.open.v1",
        "path": norm,
        "title": fm.get("title") if isinstance(fm.get("title"), str) else Path(norm).stem,
        "frontmatter": fm,
        "chunk_id": req.chunk_id,
        "fresh": fresh,
        "line_start": first,
        "line_end": last,
        "total_lines": total,
        "byte_start": b0,
        "byte_end": b1,
        "size": len(raw),
        "truncated": truncated,
        "next_line": next_line,
        "text": display_text(raw[b0:b1].decode("utf-8", "surrogateescape")),
    }


def open_document(
    paths: IndexPaths, settings: Settings, store: Store | None, req: OpenRequest, rel: str
) -> dict[str, Any]:
    """``open`` of a PDF or canvas: its indexed (extracted) text, since the file is no text;
    one chunk's (``chunk_id``) or the chunks in order up to ``max_bytes``, with the page range
    or card ids they come from. Lines are 0: derived text has no lines of the file."""
    norm, target = note_file(paths, settings, rel, documents=True)
    row = store.note_by_path(norm) if store is not None else None
    if row is None or store is None:
        raise NotFoundError(f"{norm!r} is not indexed (yet, or it was skipped)", path=norm)
    chunks = store.note_chunks(row.id)
    if req.chunk_id is not None:
        chunks = [c for c in chunks if c.id == req.chunk_id]
    parts: list[str] = []
    used: list[ChunkRow] = []
    size = 0
    for c in chunks:
        piece = display_text(c.text)
        if used and size + len(piece.encode()) > req.max_bytes:
            break
        parts.append(piece)
        used.append(c)
        size += len(piece.encode()) + 2
    pages = [c.page for c in used if c.page is not None]
    ends = [c.page_end or c.page for c in used if c.page is not None]
    stat = target.stat()
    return {
        "schema": "vaultheat.open.v1",
        "path": norm,
        "title": row.title,
        "frontmatter": {},
        "chunk_id": req.chunk_id,
        "fresh": (row.mtime_ns, row.size) == (stat.st_mtime_ns, stat.st_size),
        "line_start": 0,
        "line_end": 0,
        "total_lines": 0,
        "byte_start": 0,
        "byte_end": stat.st_size,
        "size": stat.st_size,
        "truncated": len(used) < len(chunks),
        "next_line": None,
        "page": min(pages) if pages else None,
        "page_end": max(ends) if ends else None,
        "card_ids": [c.card_id for c in used if c.card_id is not None],
        "text": "\n\n".join(parts),
    }


def _line_of(starts: list[int], byte: int) -> int:
    import bisect

    return bisect.bisect_right(starts, byte)


def _utf8_boundary(raw: bytes, end: int) -> int:
    while end > 0 and end < len(raw) and (raw[end] & 0xC0) == 0x80:
        end -= 1
    return end


def render_open(doc: dict[str, Any]) -> str:
    """The text an agent reads: a header, then the lines with their numbers (a PDF or canvas:
    its pages or cards, then the text)."""
    if doc.get("page") is not None or doc.get("card_ids"):
        where = (
            f"p. {doc['page']}" if doc["page"] == doc["page_end"]
            else f"pp. {doc['page']}-{doc['page_end']}"
        ) if doc.get("page") is not None else "cards " + ", ".join(doc["card_ids"])  # fmt: skip
        cut = " (truncated; open a result's chunk_id for the rest)" if doc["truncated"] else ""
        return f"{doc['path']} {where}{cut}\n{doc['text']}"
    lines = doc["text"].split("\n")
    if lines and lines[-1] == "" and doc["text"].endswith("\n"):
        lines.pop()
    width = len(str(doc["line_start"] + len(lines)))
    head = (
        f"{doc['path']} lines {doc['line_start']}-{doc['line_end']} of {doc['total_lines']}"
        + (f" (truncated; continue at line {doc['next_line']})" if doc["truncated"] else "")
    )
    body = [f"{doc['line_start'] + i:>{width}}| {line}" for i, line in enumerate(lines)]
    return "\n".join([head, *body])


# -- neighbors ----------------------------------------------------------------------------------
def _chunk_edges(store: Store, cid: int) -> list[tuple[int, str, float, str]]:
    """(other chunk, kind, weight, direction) of one chunk's stored edges, both ways."""
    out = [(dst, kind, w, "out") for dst, kind, w in store.edges_from(cid)]
    for src, kind, w in store.edges_to(cid):
        out.append((src, "backlink" if kind == "link" else kind, w, "in"))
    return out


def _note_edges(store: Store, note_id: int) -> dict[tuple[str, str], dict[str, Any]]:
    """Note-level edges of a note: per (other note, kind) the strongest chunk edge."""
    cids = store.chunk_ids_of_notes([note_id]).get(note_id, [])
    raw = [e for cid in cids for e in _chunk_edges(store, cid)]
    rows = store.chunks(sorted({e[0] for e in raw}))
    best: dict[tuple[str, str], dict[str, Any]] = {}
    for other, kind, w, direction in raw:
        row = rows.get(other)
        if row is None or row.note_id == note_id:
            continue
        key = (row.path, kind)
        item = best.get(key)
        if item is None:
            best[key] = {"path": row.path, "title": row.title, "kind": kind,
                         "direction": direction, "weight": float(w), "edges": 1}  # fmt: skip
        else:
            item["edges"] += 1
            item["weight"] = max(item["weight"], float(w))
    return best


def neighbors(
    store: Store,
    *,
    path: str | None = None,
    chunk_id: int | None = None,
    hops: int = 1,
    limit: int = 50,
    kinds: list[str] | None = None,
) -> dict[str, Any]:
    """The ``vaultheat.neighbors.v1`` document of a note (note-level edges, aggregated over
    its chunks) or of a chunk (its own edges), strongest first."""
    wanted = set(kinds) if kinds else None
    if chunk_id is not None:
        row = store.chunks([chunk_id]).get(chunk_id)
        if row is None:
            raise NotFoundError(f"chunk {chunk_id} is not in the index")
        edges = _chunk_edges(store, chunk_id)
        rows = store.chunks(sorted({e[0] for e in edges}))
        items: list[dict[str, Any]] = [
            {"path": rows[o].path, "title": rows[o].title, "chunk_id": o, "kind": k,
             "direction": d, "weight": float(w), "edges": 1, "hop": 1, "via": None,
             "line_start": rows[o].line_start, "line_end": rows[o].line_end}
            for o, k, w, d in edges if o in rows and (wanted is None or k in wanted)
        ]  # fmt: skip
        node: dict[str, Any] = {"path": row.path, "chunk_id": chunk_id}
        hops = 1
    else:
        if path is None:
            raise InputError("give a path or a chunk_id")
        note = store.note_by_path(path)
        if note is None:
            raise NotFoundError(f"note {path!r} is not in the index", path=path)
        node = {"path": note.path, "chunk_id": None}
        first = [
            {**e, "hop": 1, "via": None}
            for e in _note_edges(store, note.id).values()
            if wanted is None or e["kind"] in wanted
        ]
        items = list(first)
        if hops == 2:
            items += _second_hop(store, note.path, first, wanted)
    items.sort(key=lambda e: (int(e["hop"]), -float(e["weight"]), str(e["path"]), str(e["kind"])))
    for e in items:
        e["weight"] = round(float(e["weight"]), 6)
    return {
        "schema": "vaultheat.neighbors.v1",
        "node": node,
        "hops": hops,
        "count": len(items),
        "truncated": len(items) > limit,
        "neighbors": items[:limit],
    }


def _second_hop(
    store: Store, start: str, first: list[dict[str, Any]], wanted: set[str] | None
) -> list[dict[str, Any]]:
    seen = {start} | {e["path"] for e in first}
    by_path: dict[str, dict[str, Any]] = {}
    strongest = sorted(first, key=lambda e: (-e["weight"], e["path"]))
    expanded: set[str] = set()
    for hop1 in strongest:
        if len(expanded) >= HOP2_FANOUT or hop1["path"] in expanded:
            continue
        expanded.add(hop1["path"])
        row = store.note_by_path(hop1["path"])
        if row is None:
            continue
        for e in _note_edges(store, row.id).values():
            if e["path"] in seen or (wanted is not None and e["kind"] not in wanted):
                continue
            weight = hop1["weight"] * e["weight"]
            old = by_path.get(e["path"])
            if old is None or weight > old["weight"]:
                by_path[e["path"]] = {**e, "weight": weight, "hop": 2, "via": hop1["path"]}
    return list(by_path.values())


def note_list(store: Store) -> list[tuple[str, str]]:
    """(path, title) of every indexed note an agent may see, sorted by path."""
    return sorted((r.path, r.title) for r in store.notes().values() if not r.excluded)
