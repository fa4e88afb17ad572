"""Graph repair: links resolved and re-pointed, the kNN lists and link edges the indexer's
batches queued (pending_knn / pending_links) computed and stored, batch by batch.

Plain functions over the ``Store`` and the vector index: the words phase stores link rows
(``link_rows``) and re-points links whose target name changed (``reresolve``); a run then
finishes the queued work (``repair_graph``), the link edges of each note from its resolved
links (``link_edges``: which chunk a link leaves from and which it points at).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from vaultheat.config import GraphSettings
from vaultheat.core.models import ParsedNote
from vaultheat.core.vault.derived_notes import document_kind
from vaultheat.core.vault.knn import affected_ids, knn_lists
from vaultheat.core.vault.resolve import LinkResolver
from vaultheat.indexing import limits
from vaultheat.indexing.report import IndexReport, ProgressFn
from vaultheat.storage.store import Store, name_key
from vaultheat.storage.vectorspace import VectorSpace


def link_rows(note: ParsedNote, resolver: LinkResolver) -> list[tuple[Any, ...]]:
    """The rows ``Store.replace_links`` stores for the note's links, each resolved (none for an
    excluded note)."""
    if note.excluded:
        return []
    rows = []
    for link in note.links:
        if not link.target:
            continue  # [[#Heading]] inside the note: not an edge between notes
        resolved = resolver.resolve_link(link, note.path)
        rows.append(
            (
                link.raw,
                link.target,
                name_key(link.target),
                link.subpath,
                link.alias,
                link.kind,
                link.byte_start,
                link.byte_end,
                link.line,
                resolved,
            )
        )
    return rows


def reresolve(
    store: Store, resolver: LinkResolver, keys: set[str], deleted_paths: set[str]
) -> None:
    """Re-point the stored links whose target name is one of ``keys`` or whose target was
    deleted, and queue their notes' link edges."""
    rows = store.links_with_keys(keys) + store.links_to_paths(deleted_paths)
    touched: set[int] = set()
    notes = {r.id: r.path for r in store.notes().values()}
    for r in rows:
        source = notes.get(r["note_id"])
        if source is None:
            continue
        new = resolver.resolve(r["target"], source)
        if new != r["resolved_path"]:
            store.set_link_resolution(r["rowid"], new)
            touched.add(r["note_id"])
    store.add_pending_links(touched)


def repair_graph(
    store: Store,
    vectors: VectorSpace,
    report: IndexReport,
    g: GraphSettings,
    progress: ProgressFn,
) -> None:
    """Finish the queued graph work in batches, one transaction each: the kNN lists of the
    pending chunks (and of the chunks whose lists they change), then the link edges of the
    pending notes."""
    note_of = store.chunk_notes()
    exclude = None if g.same_note else (lambda a, b: note_of.get(a) == note_of.get(b))
    pending = [cid for cid in store.pending_knn() if cid in note_of]
    done = 0
    for start in range(0, len(pending), limits.GRAPH_BATCH):
        ids = pending[start : start + limits.GRAPH_BATCH]
        lists = knn_lists(vectors, ids, k=g.knn_k, min_sim=g.knn_min_sim, exclude=exclude)
        more = [i for i in affected_ids(lists) if i in note_of and i not in lists]
        if more:
            lists.update(
                knn_lists(vectors, more, k=g.knn_k, min_sim=g.knn_min_sim, exclude=exclude)
            )
        with store.transaction():
            store.replace_similar(lists)
            store.clear_pending_knn(ids)
        done += len(ids)
        report.graph["knn_updated"] += len(lists)
        progress("graph", done, len(pending))
    with store.transaction():
        store.clear_pending_knn([cid for cid in store.pending_knn() if cid not in note_of])
    notes_pending = store.pending_links()
    for start in range(0, len(notes_pending), limits.GRAPH_BATCH):
        ids = notes_pending[start : start + limits.GRAPH_BATCH]
        with store.transaction():
            store_link_edges(store, ids)
            store.clear_pending_links(ids)
        report.graph["link_notes"] += len(ids)


def store_link_edges(store: Store, note_ids: Sequence[int]) -> None:
    """Replace the link edges from the chunks of ``note_ids``: three reads for the batch
    (its chunks, its resolved links, the chunks of the notes they point at) and one write,
    not several queries per note."""
    chunks = store.chunks_of_notes(note_ids)
    links = store.resolved_links_of_notes(list(chunks))
    wanted = {r for rows in links.values() for *_, r in rows}
    by_path = {cs[0].path: cs for cs in chunks.values()}
    by_path.update(store.chunks_of_paths(sorted(wanted - by_path.keys())))
    edges = link_edges(chunks, links, by_path)
    store.replace_link_edges([c.id for cs in chunks.values() for c in cs], edges)


def link_edges(
    chunks: dict[int, list[Any]],
    links: dict[int, list[tuple[str | None, str, int, str]]],
    target_chunks: dict[str, list[Any]],
) -> list[tuple[int, int, float]]:
    """The link edges (src chunk, dst chunk, 1.0) of the notes in ``chunks`` (note id -> its
    chunks by ordinal), from their resolved ``links`` (note id -> (subpath, kind, byte start,
    resolved path)) and the chunks of the notes they point at (path -> chunks). Self links and
    links to what is neither a markdown note nor a document are left out."""
    edges: dict[tuple[int, int], float] = {}
    for note_id, own in chunks.items():
        self_path = own[0].path
        derived = document_kind(self_path) is not None  # a canvas: its links are not in bytes
        for subpath, kind, b0, resolved in links.get(note_id, ()):
            if resolved == self_path:
                continue
            if not resolved.lower().endswith(".md") and document_kind(resolved) is None:
                continue
            targets = _pick_targets(target_chunks.get(resolved, []), subpath)
            # a property link, or a canvas's (file card, link in a card): from the first chunk
            src = own[0] if kind == "property" or derived else _chunk_at(own, b0)
            for t in targets:
                edges[(src.id, t.id)] = 1.0
    return [(s, d, w) for (s, d), w in edges.items()]


def _chunk_at(chunks: list[Any], byte_offset: int) -> Any:
    best = chunks[0]
    for c in chunks:
        if c.byte_start <= byte_offset:
            best = c
        else:
            break
    return best


def _pick_targets(chunks: list[Any], subpath: str | None) -> list[Any]:
    """The chunk(s) a link points at: the heading's or block's chunk when named, else all."""
    if not chunks:
        return []
    if subpath:
        if subpath.startswith("page=") and subpath[5:].isdigit():  # [[Manual.pdf#page=3]]
            n = int(subpath[5:])
            hits = [c for c in chunks if c.page is not None and c.page <= n <= (c.page_end or n)]
            return hits[:1] or chunks
        if subpath.startswith("^"):
            marker = subpath
            hits = [c for c in chunks if marker in c.text]
        else:
            want = subpath.split("#")[-1].strip().casefold()
            hits = [c for c in chunks if c.heading_path and c.heading_path[-1].casefold() == want]
            if not hits:
                hits = [c for c in chunks if any(h.casefold() == want for h in c.heading_path)]
        if hits:
            return hits[:1]
    return chunks
