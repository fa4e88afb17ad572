"""PDFs and canvases as notes of the index: found, remembered when skipped, read into chunks.

Design: a PDF or canvas goes through the indexer exactly as a note does (stat, then content
hash, then the embedding cache; batches, deletions, renames and graph work unchanged), so the
incremental rules hold for free. What differs is only how it becomes chunks: its text is
extracted (``pdftext``, in a bounded child process) or decoded (``canvas``) and chunked by
``derived``, and each chunk carries its locator (page range or card id) instead of an exact
byte slice: its bytes span the whole file and its lines are 0. A canvas's file cards and links
in its text cards become links, so the link graph and votes treat it like a note.

A file that cannot be used (broken, encrypted, no text layer, past a cap, bad JSON) is skipped
with a reason and remembered by its stat and the caps in force, so an unchanged broken PDF is
not read again on every run (a PDF that timed out would otherwise cost the timeout each time).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from vaultheat.config import Settings
from vaultheat.core.models import ChunkDraft, Link, ParsedNote
from vaultheat.core.vault.canvas import MAX_CANVAS_BYTES, parse_canvas
from vaultheat.core.vault.derived import DerivedChunk, chunk_canvas, chunk_pdf
from vaultheat.core.vault.discovery import (
    DOCUMENT_KINDS,
    Discovery,
    FileEntry,
    Skip,
    discover_documents,
)
from vaultheat.core.vault.pdftext import extract_pdf

MANIFEST_KEY = "document_skips"  # path -> [mtime_ns, size, caps, reason]
_SUFFIX_KIND = {ext: kind for kind, ext in DOCUMENT_KINDS.items()}


def document_kind(path: str) -> str | None:
    """The kind ("pdf" or "canvas") of a file the index can read as derived text, else None."""
    low = path.lower()
    return next((kind for ext, kind in _SUFFIX_KIND.items() if low.endswith(ext)), None)


def _caps(settings: Settings, kind: str) -> str:
    i = settings.index
    return f"pdf:{i.pdf_max_bytes}/{i.pdf_max_pages}/{i.pdf_timeout_s:g}/{i.pdf_memory_mb}" \
        if kind == "pdf" else "canvas"  # fmt: skip


def find_documents(
    vault_root: Path,
    settings: Settings,
    disc: Discovery,
    remembered: Mapping[str, Any],
) -> dict[str, list[Any]]:
    """Fill ``disc.documents`` with the PDFs and canvases ``index.kinds`` asks for (Obsidian's
    excluded files and the exclude globs honoured as for notes); a file skipped before and
    unchanged since (same stat, same caps) goes to ``disc.skipped`` again without being read.
    Returns the remembered skips still valid (the rest are dropped)."""
    kinds = settings.index.kinds
    if "markdown" not in kinds:
        disc.notes = []
    entries, skipped = discover_documents(
        vault_root,
        settings.vault,
        disc,
        kinds=kinds,
        max_bytes={"pdf": settings.index.pdf_max_bytes, "canvas": MAX_CANVAS_BYTES},
    )
    # a skip carried over from the stored view (the server's partial runs) is decided anew here
    fresh = {e.path for e in entries} | {s.path for s in skipped}
    disc.skipped = [s for s in disc.skipped if s.path not in fresh]
    disc.skipped.extend(skipped)
    keep: dict[str, list[Any]] = {}
    docs = []
    for e in entries:
        if e.size == 0:  # nothing to read (Obsidian writes "{}" for a new canvas)
            disc.skipped.append(Skip(e.path, "empty file"))
            continue
        memo = remembered.get(e.path)
        kind = document_kind(e.path) or ""
        if (
            isinstance(memo, list)
            and len(memo) == 4
            and memo[:3] == [e.mtime_ns, e.size, _caps(settings, kind)]
        ):
            keep[e.path] = memo
            disc.skipped.append(Skip(e.path, str(memo[3])))
            continue
        docs.append(e)
    disc.documents = docs
    return keep


def remember_skip(
    memo: dict[str, list[Any]], settings: Settings, entry: FileEntry, reason: str
) -> None:
    caps = _caps(settings, document_kind(entry.path) or "")
    memo[entry.path] = [entry.mtime_ns, entry.size, caps, reason]


def read_document(
    entry: FileEntry, raw: bytes, settings: Settings, max_tokens: int
) -> ParsedNote | str:
    """The PDF or canvas as a parsed note with its chunks made, or why it is skipped.
    ``max_tokens``: the embedder's window (PDF chunks are sized to about 3/4 of it)."""
    kind = document_kind(entry.path)
    title = entry.path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    links: list[Link] = []
    if entry.size == 0:
        return "empty file"
    if kind == "pdf":
        i = settings.index
        pdf = extract_pdf(entry.abs_path, entry.path, max_bytes=i.pdf_max_bytes,
                          max_pages=i.pdf_max_pages, timeout_s=i.pdf_timeout_s,
                          memory_mb=i.pdf_memory_mb)  # fmt: skip
        if pdf.skipped is not None:
            return pdf.skipped
        max_chars = max(400, min(4000, 3 * max_tokens))  # ~4 chars a token, 3/4 of the window
        chunks = chunk_pdf(pdf, max_chars=max_chars)
    elif kind == "canvas":
        doc = parse_canvas(entry.path, raw)
        if doc.skipped is not None:
            return doc.skipped
        chunks = chunk_canvas(doc)
        links = [_link(target) for target in doc.links]
    else:
        return "not a PDF or canvas"
    if not chunks and not links:
        return "no text" if kind == "pdf" else "canvas has no text cards and no file cards"
    drafts = [_draft(c, entry.size) for c in chunks]
    text = "\n\n".join(d.text for d in drafts)
    return ParsedNote(path=entry.path, raw=text.encode("utf-8", "surrogatepass"), text=text,
                      body_byte_start=0, frontmatter={}, title=title, aliases=[], tags=[],
                      links=links, headings=[], kind=kind, drafts=drafts)  # fmt: skip


def _draft(c: DerivedChunk, size: int) -> ChunkDraft:
    return ChunkDraft(ordinal=c.ordinal, byte_start=0, byte_end=max(size, 1), line_start=0,
                      line_end=0, text=c.text, heading_path=(), embed_input=c.embed_input,
                      page=c.page, page_end=c.page_end, card_id=c.card_id,
                      page_starts=c.page_starts)  # fmt: skip


def _link(target: str) -> Link:
    """A canvas link: a file card's path, or a [[link]] / [](link) written in a text card."""
    return Link(raw=target, target=target, subpath=None, alias=None, kind="embed",
                byte_start=0, byte_end=0, line=0)  # fmt: skip
