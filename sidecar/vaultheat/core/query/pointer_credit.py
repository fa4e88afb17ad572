"""Pointer credit in search: a digest's bullet that matched the query hands part of its score to
the notes it links.

``experimental.search_pointer_credit`` = s in [0, 1] (0: off, the ranking is untouched). Among
the first ``POINTER_TOP`` chunks of the ranking, each chunk of a digest or a list page
(``IndexView.page_kinds``) whose entry holds the query's evidence and links 1 to 3 notes
(``core/query/pointers.py``) is a *pointer*:

* it keeps (1 - s) of its score: it gives ``s × score``, split evenly over its targets;
* each target note receives its share on its best chunk for this query: its highest-scoring
  ranked chunk, so its note score rises by the credit; a target that was not a candidate joins
  with its chunk most similar to the query vectors (``votes.best_chunks``, within the search's
  filter), scored as retrieval scores a chunk only the graph
  found (``pipeline.unseen_parts``), then credited;
* a target that several pointers credit takes the largest single credit, not the sum: ten
  weekly digests repeating one bullet are one piece of evidence, not ten (so credit is not
  conserved: the other pointers' gifts are lost);
* a pointer to its own note gives nothing (``core/query/pointers.py`` leaves its own note out).

The transfer is a score part of its own, ``pointer``, in score units (weight 1, not scaled):
``received - gave`` on every chunk it touched, 0 elsewhere, so ``final == Σ weights[k] ·
normalized[k]`` still holds and explain shows where it came from (``results.PointerTrace``).
The order is sorted again after it, so chunk results, note scores and files-only results all
read the new scores.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from collections.abc import Set as AbstractSet

import numpy as np

from vaultheat.core.query.pipeline import Retrieval, unseen_parts
from vaultheat.core.query.pointers import Pointer, find_pointer, note_resolver
from vaultheat.core.query.results import PointerTrace
from vaultheat.core.query.view import IndexView
from vaultheat.core.query.votes import best_chunks
from vaultheat.core.vault.lexical import query_terms

POINTER_TOP = 50  # pointers are looked for among this many chunks of the ranking
PART = "pointer"


def credit_pointers(
    view: IndexView,
    r: Retrieval,
    query: str,
    share: float,
    allowed: AbstractSet[int] | None = None,
) -> Retrieval:
    """``r`` with the pointer credit moved (the rules are in the module docstring); ``r``
    itself when nothing moves. ``allowed``: the search's filter (None: every chunk)."""
    if share <= 0 or not view.page_kinds or not r.order:
        return r
    kinds, path_of, notes = view.page_kinds, view.graph.path_of, view.links.chunks
    ids = [c for c in r.order[:POINTER_TOP] if kinds.get(path_of(c) or "")]
    rows = view.store.chunks(ids) if ids else {}
    terms = query_terms(query)
    found: list[tuple[int, str, int, Pointer]] = []  # (chunk, its note, its first line, pointer)
    for cid in ids:
        row = rows.get(cid)
        if row is None:
            continue
        p = find_pointer(row.text, terms, note_resolver(view.resolver, notes, row.path), row.path)
        if p is not None:
            found.append((cid, row.path, row.line_start, p))
    if not found:
        return r
    targets = sorted({t for *_, p in found for t in p.targets})
    # a target already ranked takes the credit on its best-scoring chunk (so its note score
    # rises by it); one that is not is brought in with its chunk closest to the query
    best = _ranked_best(r, targets, path_of, allowed)
    chunks = {t: _eligible(notes[t], allowed) for t in targets if t not in best}
    best.update(best_chunks(r.qmat, chunks, view.chunk_vectors))
    final = dict(r.final)
    raw = {k: (dict(v) if v is not None else None) for k, v in r.raw.items()}
    normalized = {k: dict(v) for k, v in r.normalized.items()}
    seed_stage = dict(r.seed_stage)
    for cid, sim in best.values():
        if cid not in final:  # a target that was not a candidate joins with its best chunk
            parts = unseen_parts(r, sim)
            for k, v in raw.items():
                if v is not None:
                    v[cid] = float(parts["raw"][k] or 0.0)
            for k, nv in normalized.items():
                nv[cid] = float(parts["normalized"][k] or 0.0)
            final[cid] = float(parts["final"])
            seed_stage[cid] = PART
    gave: dict[int, tuple[float, tuple[str, ...], tuple[int, int]]] = {}
    got: dict[int, tuple[float, str, tuple[int, int]]] = {}  # the largest credit per chunk
    for cid, path, first, p in found:
        to = tuple(t for t in p.targets if t in best)
        if not to:
            continue
        lines = (first + p.line_start - 1, first + p.line_end - 1)
        amount = share * r.final[cid]
        gave[cid] = (amount, to, lines)
        for t in to:
            tc = best[t][0]
            if tc not in got or amount / len(to) > got[tc][0]:
                got[tc] = (amount / len(to), path, lines)
    if not gave:
        return r
    delta = {c: 0.0 for c in final}
    for c, (amount, _, _) in gave.items():
        delta[c] -= amount
    for c, (amount, _, _) in got.items():
        delta[c] += amount
    raw[PART] = {c: v for c, v in delta.items() if v != 0.0}
    normalized[PART] = delta
    weights = {**r.weights, PART: 1.0}
    final = {c: sc + delta[c] for c, sc in final.items()}  # the last term of Σ weights · parts
    traces = {
        c: _trace(view, share, gave.get(c), got.get(c), path_of(c) or "") for c in {*gave, *got}
    }
    order = sorted(final, key=lambda c: (-final[c], c))
    return dataclasses.replace(r, final=final, raw=raw, normalized=normalized, weights=weights,
                               seed_stage=seed_stage, order=order,
                               pointers={**r.pointers, **traces})  # fmt: skip


def _ranked_best(
    r: Retrieval,
    targets: list[str],
    path_of: Callable[[int], str | None],
    allowed: AbstractSet[int] | None,
) -> dict[str, tuple[int, float]]:
    """target -> (its highest-scoring ranked chunk, 0.0) for the targets already ranked."""
    wanted = set(targets)
    out: dict[str, tuple[int, float]] = {}
    for cid in r.order:  # best first: the first chunk seen of a note is its best
        path = path_of(cid)
        if path in wanted and path not in out and (allowed is None or cid in allowed):
            out[path] = (cid, 0.0)
    return out


def _eligible(ids: np.ndarray, allowed: AbstractSet[int] | None) -> np.ndarray:
    if allowed is None:
        return ids
    return np.asarray([c for c in ids.tolist() if c in allowed], dtype=np.int64)


def _trace(
    view: IndexView,
    share: float,
    gave: tuple[float, tuple[str, ...], tuple[int, int]] | None,
    got: tuple[float, str, tuple[int, int]] | None,
    path: str,
) -> PointerTrace:
    words = []
    out = PointerTrace(text="")
    if gave is not None:
        amount, to, lines = gave
        what = _kind(view, path)
        words.append(f"its {what}'s entry at {_lines(lines)} links {_names(to)}: it gave "
                     f"{share:g} of its score ({amount:.4f}) to {_names(to)}")  # fmt: skip
        out = dataclasses.replace(out, gave=amount, to=to, path=path, lines=lines)
    if got is not None:
        amount, source, lines = got
        words.append(f"credited {amount:.4f} from a {_kind(view, source)}'s entry that links "
                     f"here: {_name(source)} {_lines(lines)}")  # fmt: skip
        out = dataclasses.replace(out, received=amount, source=source, source_lines=lines)
    return dataclasses.replace(out, text="; ".join(words))


def _kind(view: IndexView, path: str) -> str:
    return "list page" if view.page_kinds.get(path) == "list" else "digest"


def _lines(lines: tuple[int, int]) -> str:
    return f"line {lines[0]}" if lines[0] == lines[1] else f"lines {lines[0]}-{lines[1]}"


def _name(path: str) -> str:
    base = path.rsplit("/", 1)[-1]
    return base[:-3] if base.lower().endswith(".md") else base


def _names(paths: tuple[str, ...]) -> str:
    return ", ".join(_name(p) for p in paths)
