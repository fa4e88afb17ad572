"""The query note of a related query: the note being written, from its saved chunks or its
unsaved text, and its query vectors.

Unsaved text is parsed and chunked exactly like a saved note and embedded on the fly (cached
by text hash) without writing anything; a saved note's chunks and links come from the index.
Its chunks whose exact text many notes hold are left out (``core/query/shared_text.py``). The query
vectors are the note's mean chunk vector, then its chunks one by one, weighted toward the
section around the cursor (``core/query/related.py`` retrieves with them).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from vaultheat.config import Settings
from vaultheat.core.language import detect
from vaultheat.core.ports import StorePort, VectorIndexPort
from vaultheat.core.query.plan import QueryVector
from vaultheat.core.query.routing import SecondSpace, note_language
from vaultheat.core.query.shared_text import SharedText, own_text
from vaultheat.core.query.view import Models, text_key
from vaultheat.core.requests import RelatedRequest
from vaultheat.core.vault.parsing import parse_note
from vaultheat.core.vault.resolve import LinkResolver
from vaultheat.core.vault.sizing import chunk_for
from vaultheat.errors import NotFoundError
from vaultheat.providers.base import Embedder

MAX_QUERY_CHUNKS = 8


@dataclass(frozen=True)
class QueryNote:
    """The note related notes are asked for, from its saved chunks or its unsaved text."""

    mat: np.ndarray  # its chunk vectors, one per row
    spans: list[tuple[int, int]]  # byte range of each chunk
    title: str
    body: str
    own_ids: frozenset[int]  # its chunks in the index (never results, never relay heat)
    links_out: frozenset[str]  # notes it links to
    # with a second vector space (core/query/routing.py): the same chunks' vectors there (None: the
    # space has not all of them yet), and the note's language (its chunks' majority)
    second_mat: np.ndarray | None = None
    language: str = "en"


def _text_chunks(
    models: Models, s: Settings, path: str, raw: bytes
) -> tuple[list[Any], np.ndarray, Any]:
    """Chunks of unsaved text and their vectors (embedding cache first, then the model)."""
    note = parse_note(path, raw, exclude_property=s.vault.exclude_property)
    drafts = chunk_for(note, s, models.embedder)
    return drafts, _draft_vectors(models, drafts), note


def _draft_vectors(
    models: Models, drafts: list[Any], embedder: Embedder | None = None
) -> np.ndarray:
    """The vectors of unsaved chunks by ``embedder`` (default the index's model), one per
    row: the cache first (the second model's under keys of its own fingerprint)."""
    prefix = "d:" if embedder is None else f"d:{embedder.fingerprint}:"
    model = embedder or models.embedder
    vecs: list[np.ndarray] = []
    todo: list[tuple[int, str, str]] = []
    for i, d in enumerate(drafts):
        key = prefix + text_key(d.embed_input)
        cached = models.cache.get(key)
        vecs.append(cached if cached is not None else np.zeros(0, dtype=np.float32))
        if cached is None:
            todo.append((i, key, d.embed_input))
    if todo:
        fresh = model.embed_documents([t for _, _, t in todo])
        for (i, key, _), v in zip(todo, fresh, strict=True):
            vecs[i] = np.asarray(v, dtype=np.float32)
            models.cache[key] = vecs[i]
    return np.stack(vecs) if vecs else np.zeros((0, 1), dtype=np.float32)


def query_note(
    models: Models,
    s: Settings,
    store: StorePort,
    vectors: VectorIndexPort,
    req: RelatedRequest,
    resolver: LinkResolver | None,
    shared: SharedText | None = None,
    second: tuple[SecondSpace, Embedder] | None = None,
) -> QueryNote:
    """The query note: unsaved text parsed, chunked and embedded like a saved note (its links
    resolved against the index), else the saved note's chunks and links from the index. Its
    chunks whose exact text many notes hold (``shared``, ``related.shared_text_notes``) are
    left out of its vectors and words, unless the note is nothing else. With ``second`` (the
    view's second space and its model) the note also gets its vectors there (unsaved text
    embedded by that model) and its language, the majority of its chunks' (unsaved text's
    detected chunk by chunk, as the index detects them)."""
    shared = shared or SharedText()
    min_notes = s.related.shared_text_notes
    row = store.note_by_path(req.path)
    own_ids = frozenset(c.id for c in store.note_chunks(row.id)) if row is not None else frozenset()
    if req.text is not None:
        raw = req.text.encode("utf-8", "surrogatepass")
        drafts, mat, note = _text_chunks(models, s, req.path, raw)
        if not drafts and (stand_in := stand_in_text(note)):
            # no body (an empty note, a book note of properties only): its name, aliases,
            # tags and properties stand in, so its sidebar is not empty
            drafts, mat, _ = _text_chunks(models, s, req.path, stand_in.encode("utf-8", "replace"))
        own = own_text([shared.is_shared(d.text, min_notes) for d in drafts])
        if resolver is None:
            resolver = LinkResolver(list(store.notes()), store.attachments(), store.note_aliases())
        links_out = {
            p for link in note.links if link.target and (p := resolver.resolve_link(link, req.path))
        } - {req.path}
        body = note.text[note.body_byte_start :] if note.body_byte_start else note.text
        if len(own) < len(drafts):
            body = "\n\n".join(drafts[i].text for i in own)
        second_mat, language = None, "en"
        if second is not None and own:
            kept = [drafts[i] for i in own]
            second_mat = _draft_vectors(models, kept, second[1])
            language = note_language(detect(d.embed_input).code for d in kept)
        return QueryNote(
            mat=mat[own] if len(own) < len(drafts) else mat,
            spans=[(drafts[i].byte_start, drafts[i].byte_end) for i in own],
            title=note.title,
            body=body,
            own_ids=own_ids,
            links_out=frozenset(links_out),
            second_mat=second_mat,
            language=language,
        )
    if row is None:
        raise NotFoundError(f"{req.path} is not indexed; pass its text to find related notes")
    every = store.note_chunks(row.id)
    muted = shared.chunk_ids(min_notes)
    chunks = [every[i] for i in own_text([c.id in muted for c in every])]
    second_mat, language = None, "en"
    if second is not None and chunks:
        space = second[0]
        language = note_language(space.languages.get(c.id, "en") for c in chunks)
        if all(c.id in space.vectors for c in chunks):
            second_mat = space.vectors.get_vectors([c.id for c in chunks])
    return QueryNote(
        mat=_english_rows(vectors, [c.id for c in chunks]) if chunks else np.zeros((0, 1)),
        spans=[(c.byte_start, c.byte_end) for c in chunks],
        title=row.title,
        body="\n\n".join(c.text for c in chunks),
        own_ids=own_ids,
        links_out=frozenset(store.linked_paths(row.id) - {req.path}),
        second_mat=second_mat,
        language=language,
    )


def _english_rows(vectors: VectorIndexPort, ids: list[int]) -> np.ndarray:
    """The English vectors of chunks ``ids``, one per row; a chunk without one (in another
    language, read in the second space only, issue #40) has a zero row."""
    mat = np.zeros((len(ids), vectors.dim), dtype=np.float32)
    have = [i for i, cid in enumerate(ids) if cid in vectors]
    if have:
        mat[have] = vectors.get_vectors([ids[i] for i in have])
    return mat


def stand_in_text(note: Any) -> str:
    """What a note without a body says of itself, as a Markdown body: its title, aliases and
    tags, and each frontmatter property whose value is text (``author: Andy Weir``); dates and
    numbers say nothing of what it is about and are left out."""
    lines = [f"# {note.title}"] if note.title else []
    if note.aliases:
        lines.append("aliases: " + ", ".join(note.aliases))
    tags = [t.name for t in note.tags]
    if tags:
        lines.append("tags: " + ", ".join(tags))
    for key, value in note.frontmatter.items():
        if key in ("title", "aliases", "alias", "tags", "tag"):
            continue
        values = value if isinstance(value, list) else [value]
        words = [v for v in values if isinstance(v, str) and _WORDY.search(v)]
        if words:
            lines.append(f"{key}: " + ", ".join(words))
    return "\n\n".join(lines) + "\n" if len(lines) > 1 or note.title else ""


_WORDY = re.compile(r"[^\W\d_]{2,}")  # a value with a word in it, not a date or a number


def query_vectors(note: QueryNote, cursor: int | None, window: int) -> list[QueryVector]:
    """The note's mean chunk vector, then its chunks one by one (at most MAX_QUERY_CHUNKS),
    each weighted toward the section around the cursor."""
    weights = np.ones(len(note.spans), dtype=np.float32)
    if cursor is not None:
        for i, (b0, b1) in enumerate(note.spans):
            dist = 0 if b0 <= cursor <= b1 else min(abs(cursor - b0), abs(cursor - b1))
            weights[i] = 0.5 + 1.5 * np.exp(-dist / max(window, 1))
    second = note.second_mat  # the same vectors in the second space (core/query/routing.py)
    queries = [QueryVector(_mean(note.mat, weights), 1.0, "note",
                           _mean(second, weights) if second is not None else None)]  # fmt: skip
    order = np.argsort(-weights, kind="stable")[:MAX_QUERY_CHUNKS]
    if len(note.spans) > 1:
        for i in order:
            weight = 0.5 * float(weights[i]) / len(order)
            chunk_second = second[i] if second is not None else None
            queries.append(QueryVector(note.mat[i], weight, f"chunk:{i}", chunk_second))
    return queries


def _mean(mat: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """The weighted mean of ``mat``'s rows, unit length (unless it is 0)."""
    mean = (mat * weights[:, None]).sum(axis=0)
    norm = float(np.linalg.norm(mean))
    return np.asarray(mean / norm if norm else mean)
