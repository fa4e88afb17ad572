"""The documents, built once: ``vaultheat.search.v1``, ``vaultheat.related.v1`` and
``vaultheat.explain.v1`` from core's typed results (``core/query/results.py``),
``vaultheat.missing.v1`` from ``core/query/missing.py``'s ``MissingExplanation``, and
``vaultheat.status.v1`` / ``vaultheat.note_status.v1`` from the engine's ``Status`` and
``NoteStatus`` (``core/vault/status.py``), and the two that more than one shell sends:
``vaultheat.error.v1`` (the CLI's ``--json`` and the agent tools) and ``vaultheat.refresh.v1``
(the agents' in-process and server backends).

Documents one shell alone sends stay beside it: ``init`` / ``index`` / ``config`` in
``commands.py``, ``health`` in ``server/state.py``, ``open`` / ``neighbors`` / ``research`` /
``tools`` in ``agents/``, ``check`` and ``inspect.*`` in their modules, ``eval`` / ``sweep`` in
``evaluation/``.

The CLI (``--json``), the HTTP API and the agent tools all send what these functions return,
so the three cannot drift apart. This module owns the wire format: key order (clients and the
golden test read it), scores rounded to 6 decimals, tuples as lists. The schema of each
document is ``server/schemas/`` (the OpenAPI components, the agent tools' output schemas and
docs/api.md's field tables come from it); ``tests/documents/test_wire_schema.py`` checks that these
documents send no field it does not declare.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from vaultheat.core.query.linkheat import LinkHeat
from vaultheat.core.query.missing import MissingExplanation, RetrieverPlace, Rival
from vaultheat.core.query.related_batch import RelatedBatch
from vaultheat.core.query.results import (
    ChunkHit,
    ChunkRef,
    Explanation,
    HopTrace,
    NoteHit,
    PointerTrace,
    RelatedHit,
    RelatedResults,
    ScoreParts,
    SearchResults,
    SeedTrace,
    SpaceTrace,
    Trace,
)
from vaultheat.core.query.votes import Vote
from vaultheat.core.vault.freshness import Freshness, IndexFreshness
from vaultheat.core.vault.status import ModelInfo, NoteStatus, Phases, Status
from vaultheat.errors import VaultheatError

SEARCH = "vaultheat.search.v1"
RELATED = "vaultheat.related.v1"
RELATED_BATCH = "vaultheat.related_batch.v1"
EXPLAIN = "vaultheat.explain.v1"
MISSING = "vaultheat.missing.v1"
STATUS = "vaultheat.status.v1"
NOTE_STATUS = "vaultheat.note_status.v1"
ERROR = "vaultheat.error.v1"
REFRESH = "vaultheat.refresh.v1"

Doc = dict[str, Any]


def search_document(res: SearchResults) -> Doc:
    return {
        "schema": SEARCH,
        "query": res.query,
        "took_ms": res.took_ms,
        "files_only": res.files_only,
        "ranked_by": res.ranked_by,
        "per_note": res.per_note,
        "results": [chunk_hit(h) if isinstance(h, ChunkHit) else note_hit(h) for h in res.results],
    } | ({"partial_space": True} if res.partial_space else {})


def related_document(res: RelatedResults) -> Doc:
    return {
        "schema": RELATED,
        "path": res.path,
        "took_ms": res.took_ms,
        "results": [related_hit(h) for h in res.results],
    } | ({"partial_space": True} if res.partial_space else {})


def related_batch_document(batch: RelatedBatch) -> Doc:
    return {
        "schema": RELATED_BATCH,
        "took_ms": batch.took_ms,
        "notes": [
            {"path": res.path, "results": [related_hit(h) for h in res.results]}
            for res in batch.notes
        ],
        "missing": list(batch.missing),
    }


def explain_document(e: Explanation) -> Doc:
    t = e.trace
    doc: Doc = {
        "schema": EXPLAIN,
        "query": e.query,
        "chunk_id": e.chunk_id,
        "path": e.path,
        "score": round(e.score, 6),
        "seed": seed_doc(t.seed) if t else None,
        "hops": [hop_doc(h) for h in t.hops] if t else [],
        "components": parts_doc(t.components) if t else None,
    }
    if t is not None and t.pointer is not None:
        doc["pointer"] = pointer_doc(t.pointer)
    if t is not None and t.space is not None:
        doc["space"] = space_doc(t.space)
    if t is not None and t.content_score is not None:
        doc["content_score"] = t.content_score
        if t.coverage is not None:
            doc["coverage"] = t.coverage
        doc["votes"] = vote_document(e.votes, e.voter_titles)
        doc["link_heat"] = heat_document(e.link_heat, e.voter_titles)
    return doc


def missing_document(m: MissingExplanation) -> Doc:
    """Where a note landed for a query and what kept it down; ``rank`` is its rank in the
    search (null: not among the candidates), ``would_rank`` the rank its score would give."""
    return {
        "schema": MISSING,
        "query": m.query,
        "path": m.path,
        "files_only": m.files_only,
        "ranked_by": m.ranked_by,
        "status": m.status,
        "reason": m.reason,
        "top": m.top,
        "candidates": m.candidates,
        "rank": m.rank,
        "would_rank": m.would_rank,
        "score": round(m.score, 6) if m.score is not None else None,
        "relevance": m.relevance,
        "relevance_label": m.relevance_label,
        "best_chunk": chunk_ref(m.best_chunk) if m.best_chunk else None,
        "components": parts_doc(m.components) if m.components else None,
        "explain": trace_doc(m.trace) if m.trace else None,
        "retrievers": [place_doc(p) for p in m.retrievers],
        "to_beat": rival_doc(m.to_beat) if m.to_beat else None,
    }


def vote_document(vote: Vote | None, titles: Mapping[str, str]) -> Doc | None:
    """The ``votes`` object of a related result: null when nobody voted; ``titles`` names the
    voters (a voter without a title shows its path)."""
    if vote is None:
        return None
    return {
        "count": vote.count,
        "k": vote.k,
        "weight": vote.weight,
        "share": vote.share,
        "bonus": vote.bonus,
        "total": vote.total,
        "hub_factor": vote.hub_factor,
        "voters": [
            {"path": v.path, "title": titles.get(v.path, v.path), "score": v.score}
            for v in vote.voters
        ],
    }


def heat_document(heat: LinkHeat | None, titles: Mapping[str, str]) -> Doc | None:
    """The ``link_heat`` object of a related result: null when no heat reached it from the
    note's own links; ``via`` names the note's neighbours it came through."""
    if heat is None:
        return None
    return {
        "kind": heat.kind,
        "heat": heat.heat,
        "top": heat.top,
        "weight": heat.weight,
        "bonus": heat.bonus,
        "via": [{"path": p, "title": titles.get(p, p)} for p in heat.via],
    }


def place_doc(p: RetrieverPlace) -> Doc:
    return {"stage": p.stage, "rank": p.rank, "score": p.score, "keeps": p.keeps,
            "cutoff": p.cutoff}  # fmt: skip


def rival_doc(r: Rival) -> Doc:
    return {"rank": r.rank, "path": r.path, "chunk_id": r.chunk_id, "score": round(r.score, 6)}


def chunk_hit(h: ChunkHit) -> Doc:
    return _relevance(h, {
        "rank": h.rank,
        "chunk_id": h.chunk_id,
        "path": h.path,
        "title": h.title,
        "heading_path": list(h.heading_path),
        "line_start": h.line_start,
        "line_end": h.line_end,
        "byte_start": h.byte_start,
        "byte_end": h.byte_end,
        **locator_doc(h),
        "text": h.text,
        "text_truncated": h.text_truncated,
        "score": round(h.score, 6),
        "found_by": h.found_by,
        "duplicates": list(h.duplicates),
        "components": dict(h.components),
        "explain": trace_doc(h.explain) if h.explain else None,
    })  # fmt: skip


def note_hit(h: NoteHit) -> Doc:
    return _relevance(h, {
        "rank": h.rank,
        "path": h.path,
        "title": h.title,
        "score": round(h.score, 6),
        "best_chunk": chunk_ref(h.best_chunk),
        "duplicates": list(h.duplicates),
        "components": dict(h.components),
    })  # fmt: skip


def related_hit(h: RelatedHit) -> Doc:
    votes = vote_document(h.votes, h.voter_titles)
    heat = heat_document(h.link_heat, h.voter_titles)
    return _relevance(h, {
        "rank": h.rank,
        "path": h.path,
        "title": h.title,
        "folder": h.folder,
        "score": round(h.score, 6),
        "link_status": h.link_status,
        "best_chunk": chunk_ref(h.best_chunk),
        "duplicates": list(h.duplicates),
        "components": dict(h.components),
        "votes": votes,
        "link_heat": heat,
        "explain": trace_doc(h.explain, votes, heat) if h.explain else None,
    })  # fmt: skip


def _relevance(h: ChunkHit | NoteHit | RelatedHit, doc: Doc) -> Doc:
    """The hit's optional fields: its relevance once rated, the space that scored it with a
    second vector space (absent with one, so those documents are as they were)."""
    if h.space is not None:
        doc["space"] = h.space
    if isinstance(h, RelatedHit) and h.coverage is not None:
        doc["coverage"] = h.coverage
    if h.relevance is not None:
        doc["relevance"] = h.relevance
        doc["relevance_label"] = h.relevance_label
    return doc


def chunk_ref(c: ChunkRef) -> Doc:
    return {
        "chunk_id": c.chunk_id,
        "heading_path": list(c.heading_path),
        "line_start": c.line_start,
        "line_end": c.line_end,
        "byte_start": c.byte_start,
        "byte_end": c.byte_end,
        **locator_doc(c),
        "text": c.text,
    }


def locator_doc(c: ChunkHit | ChunkRef | SeedTrace) -> Doc:
    """Where a chunk of derived text comes from: ``page`` and ``page_end`` (a PDF, 1-based) or
    ``card_id`` (a canvas). Absent for a note's chunk, which its lines and bytes place. A
    result's PDF chunk adds ``open_page``: the page to open, the one of ``page``..``page_end``
    that holds the match (``page`` for a one-page chunk and for related notes)."""
    doc: Doc = {}
    if c.page is not None:
        doc["page"] = c.page
        doc["page_end"] = c.page_end if c.page_end is not None else c.page
        if not isinstance(c, SeedTrace):
            doc["open_page"] = c.open_page if c.open_page is not None else c.page
    if c.card_id is not None:
        doc["card_id"] = c.card_id
    return doc


def trace_doc(t: Trace, votes: Doc | None = None, heat: Doc | None = None) -> Doc:
    """A result's ``explain`` object; a related note's adds content_score, votes, link_heat
    and score."""
    doc: Doc = {
        "seed": seed_doc(t.seed),
        "hops": [hop_doc(h) for h in t.hops],
        "hop_count": len(t.hops),
        "components": parts_doc(t.components),
    }
    if t.pointer is not None:
        doc["pointer"] = pointer_doc(t.pointer)
    if t.space is not None:
        doc["space"] = space_doc(t.space)
    if t.content_score is not None:
        doc["content_score"] = t.content_score
        if t.coverage is not None:
            doc["coverage"] = t.coverage
        doc["votes"] = votes
        doc["link_heat"] = heat
        doc["score"] = t.score
    return doc


def space_doc(s: SpaceTrace) -> Doc:
    """A chunk's ``space`` object: the vector space that scored it and why."""
    return {"space": s.space, "query_language": s.query_language,
            "chunk_language": s.chunk_language, "reason": s.reason,
            "partial": s.partial}  # fmt: skip


def pointer_doc(p: PointerTrace) -> Doc:
    """A chunk's ``pointer`` object: what it gave or received of the pointer credit."""

    def lines(path: str | None, span: tuple[int, int] | None) -> Doc | None:
        if path is None or span is None:
            return None
        return {"path": path, "line_start": span[0], "line_end": span[1]}

    return {
        "text": p.text,
        "gave": p.gave,
        "to": list(p.to),
        "entry": lines(p.path, p.lines),
        "received": p.received,
        "from": lines(p.source, p.source_lines),
    }


def seed_doc(s: SeedTrace) -> Doc:
    return {
        "chunk_id": s.chunk_id,
        "path": s.path,
        "heading_path": list(s.heading_path),
        **locator_doc(s),
        "text": s.text,
        "stage": s.stage,
        "seed_score": s.seed_score,
    }


def hop_doc(h: HopTrace) -> Doc:
    return {
        "hop": h.hop,
        "from_chunk": h.from_chunk,
        "to_chunk": h.to_chunk,
        "edge": h.edge,
        "edge_weight": h.edge_weight,
        "type_weight": h.type_weight,
        "hub_factor": h.hub_factor,
        "decay": h.decay,
        "heat": h.heat,
        "path": h.path,
        "heading_path": list(h.heading_path),
        "text": h.text,
    }


def parts_doc(p: ScoreParts) -> Doc:
    return {
        "raw": dict(p.raw),
        "normalized": dict(p.normalized),
        "weights": dict(p.weights),
        "final": p.final,
    }


# -- status ------------------------------------------------------------------------------------
def status_document(st: Status, server: Doc | None = None) -> Doc:
    """``vaultheat.status.v1``; ``server``: the fields a running server adds (``progress``,
    ``last_error``, ``paused``, ``queue``), its document also always counts ``tag`` edges.

    Two key orders, both kept as clients got them before #18 (no client reads the order):
    without an index database the counts precede ``state``, in the order the no-index branch
    listed them; with one, ``state`` and its companions come first and the counts follow in
    the store's order. ``tests/documents/test_status_golden.py`` pins both. ``kinds``
    (Markdown notes, PDFs, canvases: indexed and skipped) and ``phases`` close both.
    """
    doc: Doc = {
        "schema": STATUS,
        "version": st.version,
        "vault": st.vault,
        "index_dir": st.index_dir,
        "model": model_doc(st.model),
        "exclude": list(st.exclude),
    }
    skipped = [{"path": s.path, "reason": s.reason} for s in st.skipped]
    links = {"resolved": st.links_resolved, "unresolved": st.links_unresolved}
    if st.built:
        doc.update(freshness_doc(st.index))
        doc.update(notes=st.notes, excluded=st.excluded, chunks=st.chunks, links=links,
                   tags=st.tags, edges=dict(st.edges), skipped=skipped,
                   vectors=st.vectors)  # fmt: skip
    else:
        doc.update(notes=st.notes, chunks=st.chunks, links=links, tags=st.tags,
                   skipped=skipped, vectors=st.vectors, edges=dict(st.edges),
                   excluded=st.excluded)  # fmt: skip
        doc.update(freshness_doc(st.index))
    doc["kinds"] = {k: {"indexed": c.indexed, "skipped": c.skipped} for k, c in st.kinds.items()}
    if st.pages:
        doc["pages"] = dict(st.pages)
    if st.labels is not None:
        f = st.labels
        doc["labels"] = {"source": f.source, "sampled": f.sampled, "points": f.points,
                         "linked": f.linked}  # fmt: skip
    if st.languages:
        doc["languages"] = dict(st.languages)
    if st.multilingual is not None:
        m = st.multilingual
        doc["spaces"] = {"multilingual": {"state": m.state, "vectors": m.vectors}}
        if m.only:
            doc["spaces"]["multilingual"]["only"] = m.only
    doc["phases"] = phases_doc(st.phases)
    if server is not None:
        doc.update(server)
        doc["edges"].setdefault("tag", 0)
    return doc


def phases_doc(p: Phases) -> Doc:
    """``phases``: words (notes, lexical index, links) then meaning (vectors), each with its
    state; meaning also with its progress and, while it runs, the time left."""
    return {
        "words": {"state": p.words},
        "meaning": {"state": p.meaning, "done": p.vectors, "total": p.chunks,
                    "percent": p.percent, "eta_s": p.eta_s},
    }  # fmt: skip


def model_doc(m: ModelInfo) -> Doc:
    doc: Doc = {"provider": m.provider, "name": m.name, "backend": m.backend}
    if m.preset is not None:
        doc["preset"] = m.preset
    doc["dimension"] = m.dimension
    return doc


def freshness_doc(f: IndexFreshness) -> Doc:
    """``state``, ``state_detail``, ``freshness`` and ``pending``, as status lists them."""
    return {
        "state": f.state,
        "state_detail": f.detail,
        "freshness": counts_doc(f.freshness),
        "pending": {"knn": f.pending.knn, "links": f.pending.links},
    }


def counts_doc(f: Freshness) -> Doc:
    return {
        "on_disk": f.on_disk,
        "indexed": f.indexed,
        "not_indexed": f.not_indexed,
        "changed": f.changed,
        "deleted": f.deleted,
    }


def note_status_document(n: NoteStatus) -> Doc:
    return {
        "schema": NOTE_STATUS,
        "path": n.path,
        "exists": n.exists,
        "indexed": n.indexed,
        "reason": n.reason,
        "chunks": n.chunks,
        "indexed_hash": n.indexed_hash,
        "disk_hash": n.disk_hash,
        "fresh": n.fresh,
    }


# -- shared by several shells ------------------------------------------------------------------
def error_document(exc: VaultheatError) -> Doc:
    return {"schema": ERROR, "error": exc.to_dict()}


def refresh_document(
    backend: str, *, full: bool, done: bool, state: str | None, report: Doc | None
) -> Doc:
    """An agent's ``refresh``: which backend ran it, whether it finished, the state after and
    (in process) the index report."""
    return {"schema": REFRESH, "backend": backend, "full": full, "done": done, "state": state,
            "report": report}  # fmt: skip
