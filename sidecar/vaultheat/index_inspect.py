"""``vaultheat inspect chunk ID | note PATH | neighbors ID``: look inside the index."""

from __future__ import annotations

from typing import Any

from vaultheat.core.models import ChunkRow, display_text
from vaultheat.errors import InputError, NotFoundError
from vaultheat.render import locator_text


def _chunk_id(ref: str) -> int:
    try:
        return int(ref)
    except ValueError as exc:
        raise InputError(f"expected a chunk id (an integer), got {ref!r}") from exc


def inspect_doc(engine: Any, what: str, ref: str) -> dict[str, Any]:
    store = engine.views.store()
    if what == "note":
        row = store.note_by_path(ref)
        if row is None:
            raise NotFoundError(f"note {ref!r} is not in the index")
        meta = store.note_meta(row.id)
        links = [
            {"raw": r[0], "target": r[1], "subpath": r[2], "kind": r[3], "byte_start": r[4],
             "byte_end": r[5], "line": r[6], "resolved": r[7]}
            for r in store.outgoing_links(row.id)
        ]  # fmt: skip
        return {
            "schema": "vaultheat.inspect.note.v1",
            **meta,
            "content_hash": row.content_hash,
            "tags": store.note_tags(row.id),
            "links": links,
            "backlinks": sorted(store.backlinking_paths(ref)),
            "chunks": [
                {
                    "id": c.id,
                    "ordinal": c.ordinal,
                    "byte_start": c.byte_start,
                    "byte_end": c.byte_end,
                    "line_start": c.line_start,
                    "line_end": c.line_end,
                    "heading_path": list(c.heading_path),
                    **_locator(c),
                    "text": display_text(c.text),
                }
                for c in store.note_chunks(row.id)
            ],
        }
    cid = _chunk_id(ref)
    rows = store.chunks([cid])
    if cid not in rows:
        raise NotFoundError(f"chunk {cid} is not in the index")
    c = rows[cid]
    if what == "chunk":
        return {
            "schema": "vaultheat.inspect.chunk.v1",
            "id": c.id,
            "path": c.path,
            "title": c.title,
            "ordinal": c.ordinal,
            "byte_start": c.byte_start,
            "byte_end": c.byte_end,
            "line_start": c.line_start,
            "line_end": c.line_end,
            "heading_path": list(c.heading_path),
            **_locator(c),
            "embed_hash": c.embed_hash,
            "text": display_text(c.text),
        }
    out = [(dst, kind, w) for dst, kind, w in store.edges_from(cid)]
    inc = [(src, "backlink" if kind == "link" else kind, w) for src, kind, w in store.edges_to(cid)]
    ids = [i for i, _, _ in out + inc]
    paths = {i: r.path for i, r in store.chunks(ids).items()}
    neighbors = [
        {"id": i, "path": paths.get(i), "kind": kind, "weight": round(w, 6), "direction": d}
        for d, group in (("out", out), ("in", inc))
        for i, kind, w in sorted(group, key=lambda x: (-x[2], x[0]))
    ]
    return {"schema": "vaultheat.inspect.neighbors.v1", "id": cid, "path": c.path,
            "neighbors": neighbors}  # fmt: skip


def render_inspect(doc: dict[str, Any]) -> str:
    schema = doc["schema"]
    if schema.endswith("note.v1"):
        tags = ", ".join(doc["tags"]) or "(none)"
        kind = f"  kind: {doc['page_kind']}" if doc.get("page_kind") else ""
        lines = [f"{doc['path']}  title: {doc['title']}  tags: {tags}{kind}"]
        lines += [f"  link {x['raw']} -> {x['resolved'] or '(unresolved)'}" for x in doc["links"]]
        lines += [f"  backlink <- {p}" for p in doc["backlinks"]]
        for c in doc["chunks"]:
            if locator_text(c):  # a PDF's page range or a canvas's card: no lines of the file
                lines.append(f"  chunk {c['id']}: {locator_text(c)}")
                continue
            lines.append(
                f"  chunk {c['id']}: lines {c['line_start']}-{c['line_end']} bytes "
                f"{c['byte_start']}-{c['byte_end']} {' > '.join(c['heading_path'])}"
            )
        return "\n".join(lines)
    if schema.endswith("chunk.v1"):
        where = locator_text(doc) or f"lines {doc['line_start']}-{doc['line_end']}"
        return f"chunk {doc['id']} of {doc['path']} {where}\n{doc['text']}"
    return (
        "\n".join(
            f"{n['direction']:>3} {n['kind']:<9} {n['weight']:.3f}  {n['id']}  {n['path']}"
            for n in doc["neighbors"]
        )
        or "no neighbours"
    )


def _locator(c: ChunkRow) -> dict[str, Any]:
    """A PDF chunk's page range or a canvas chunk's card id; nothing for a note's chunk."""
    out: dict[str, Any] = {}
    if c.page is not None:
        out.update(page=c.page, page_end=c.page_end)
    if c.card_id is not None:
        out["card_id"] = c.card_id
    return out
