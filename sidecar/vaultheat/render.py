"""Wire documents as a person reads them in a terminal: the CLI's text for explain, missing,
votes, link heat and a chunk's locator.

Core returns data (the ``vaultheat.*.v1`` documents of ``vaultheat.documents``); the words a
terminal prints are the shell's, so they live here beside ``console.py`` and read only the
documents, never core's objects. A sentence that is itself a field of a document (a missing
note's ``reason``, a pointer's ``text``, the status ``reason``) is data and is made in core;
this module only places it. Each line is written once: the ``score:`` line of explain and
missing, and the ``note score:`` line of a related explanation and of a files-only one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

# a note's score and its best chunk's count as equal below this (both print to 4 decimals)
_SAME = 5e-5


def locator_text(doc: Mapping[str, Any]) -> str:
    """A chunk document's locator as people write it: "p. 2", "pp. 2-3", "card 1a2b" ("" for
    a note's chunk); "pp. 2-3 (match on p. 3)" when the match is past a result's first page."""
    if doc.get("card_id") is not None:
        return f"card {doc['card_id']}"
    if doc.get("page") is None:
        return ""
    first, last = doc["page"], doc.get("page_end") or doc["page"]
    if first == last:
        return f"p. {first}"
    at = doc.get("open_page")
    return f"pp. {first}-{last}" + (f" (match on p. {at})" if at not in (None, first) else "")


def also_in(paths: Sequence[str], *, shown: int = 3) -> str:
    """``also in 4 notes that repeat it: a.md, b.md, c.md, …`` (search.fold_quotes)."""
    more = ", …" if len(paths) > shown else ""
    n = len(paths)
    return (
        f"also in {n} {'note that repeats' if n == 1 else 'notes that repeat'} it: "
        f"{', '.join(paths[:shown])}{more}"
    )


def describe_votes(votes: Mapping[str, Any], *, shown: int = 4) -> str:
    """In words: "linked from 9 of your 20 closest notes: Views (0.84), ... → 5.69 / 11.46 =
    0.497 × 2 = +0.993"."""
    voters = votes["voters"]
    names = ", ".join(f"{v['title']} ({float(v['score']):.2f})" for v in voters[:shown])
    if len(voters) > shown:
        names += f", and {len(voters) - shown} more"
    summed = sum(float(v["score"]) for v in voters)
    arith = f"{summed:.2f} / {float(votes['total']):.2f} = {float(votes['share']):.3f} × "
    arith += f"{float(votes['weight']):g}"
    if float(votes["hub_factor"]) != 1.0:
        arith += f" × hub {float(votes['hub_factor']):.2f}"
    return (
        f"linked from {votes['count']} of your {votes['k']} closest notes: {names} → "
        f"{arith} = +{float(votes['bonus']):.3f}"
    )


def describe_heat(heat: Mapping[str, Any], *, shown: int = 3) -> str:
    """In words: "via Raised Beds, Tomatoes (linked with your note): personalized
    PageRank 0.0123 / best 0.0400 = 0.308 × 0.2 = +0.062"."""
    names = ", ".join(v["title"] for v in heat["via"][:shown]) or "your note's links"
    how = "personalized PageRank" if heat["kind"] == "ppr" else "resource allocation"
    share = float(heat["heat"]) / float(heat["top"]) if float(heat["top"]) else 0.0
    return (
        f"via {names} (linked with your note): {how} "
        f"{float(heat['heat']):.4f} / best {float(heat['top']):.4f} = {share:.3f} × "
        f"{float(heat['weight']):g} = +{float(heat['bonus']):.3f}"
    )


def score_line(comp: Mapping[str, Any]) -> str:
    """A ``components`` object in one line: "score: vector 0.812→1.000×0.55 + ... = 0.7312"."""
    parts = [
        f"{k} {raw:.3f}→{comp['normalized'][k]:.3f}×{comp['weights'][k]:.2f}"
        for k, raw in comp["raw"].items()
        if raw is not None
    ]
    return "score: " + " + ".join(parts) + f" = {comp['final']:.4f}"


def note_score_line(
    best_chunk: float,
    content: float,
    bonuses: Sequence[tuple[str, float]] = (),
    coverage: float | None = None,
) -> str:
    """How a note's score meets the chunk the trace explains: the note's content score is its
    best chunk plus a bonus for further strong chunks (and, for a related note, its
    ``coverage`` part), and a related note adds its votes and link heat (``bonuses``) on top."""
    more = content - best_chunk - (coverage or 0.0)
    if not bonuses:
        further = f" + {more:.4f} from further chunks" if abs(more) > _SAME else ""
        return f"note score: best chunk {best_chunk:.4f}{further} = {content:.4f}"
    parts = [f"{more:.4f} from further chunks"] if abs(more) > _SAME else []
    if coverage is not None:
        parts.append(f"{coverage:.4f} coverage")
    further = f" (best chunk + {' + '.join(parts)})" if parts else ""
    added = "".join(f" + {name} {value:.4f}" for name, value in bonuses)
    total = content
    for _, value in bonuses:  # added in order, as the score was
        total += value
    return f"note score: content {content:.4f}{further}{added} = {total:.4f}"


def space_line(space: Mapping[str, Any] | None) -> str:
    """The vector space that scored a chunk (a ``space`` object, an index with a second space,
    issue #40), when it is worth a line: "space: multilingual (the chunk is in ja: ...)" for a
    chunk read in the multilingual space or one not in English left in the English space (its
    multilingual vector not there yet); "" otherwise, and always without a second space, so
    English-only output has no such line."""
    if not space:
        return ""
    if space["space"] == "english" and space.get("chunk_language", "en") in ("en", "und"):
        return ""
    return f"space: {space['space']} ({space['reason']})"


def space_mark(hit: Mapping[str, Any]) -> str:
    """The mark "  · multilingual" ending a result line read in the multilingual space (its
    ``space``, set only when the index has a second space); "" otherwise, so the lines of an
    English-only index, and the English space's results, are as they were."""
    return "  · multilingual" if hit.get("space") == "multilingual" else ""


PARTIAL_SPACE = (
    "note: the multilingual space is still being filled (`vaultheat index` runs its second "
    "pass); chunks without a vector there yet were scored in the English space"
)


def partial_space_notice(doc: Mapping[str, Any]) -> list[str]:
    """One line when a search or related notes read a second space that is still being filled:
    a search or related document's ``partial_space``, or an explain document's ``space.partial``."""
    space = doc.get("space")
    partial = doc.get("partial_space") or (isinstance(space, Mapping) and space.get("partial"))
    return [PARTIAL_SPACE] if partial else []


def render_explain(doc: Mapping[str, Any], *, note_score: float | None = None) -> str:
    """A ``vaultheat.explain.v1`` document for a terminal. ``note_score``: the files-only
    result's score, when the trace explains that note's best chunk."""
    lines = [f"{doc['path']}  score {doc['score']:.4f}", f"query: {doc['query']}"]
    lines += trace_lines(doc)
    if note_score is not None:
        lines.append(note_score_line(doc["score"], note_score))
    lines += partial_space_notice(doc)
    return "\n".join(lines)


def trace_lines(doc: Mapping[str, Any]) -> list[str]:
    """The trace of an explain document or of a result's ``explain`` object (``--explain``),
    without the header (path, score, query) that the document or the result line says."""
    lines: list[str] = []
    seed = doc.get("seed")
    if seed:
        where = locator_text(seed) or " > ".join(seed.get("heading_path") or []) or "(top)"
        lines.append(
            f"seed: {seed['path']} [{where}] found by {seed['stage']} "
            f"(seed score {seed['seed_score']:.4f})"
        )
    for hop in doc.get("hops") or []:
        lines.append(
            f"  hop {hop['hop']}: --{hop['edge']} (weight {hop['edge_weight']:.2f} × type "
            f"{hop['type_weight']:.2f} × decay {hop['decay']:.2f} × hub {hop['hub_factor']:.2f})"
            f"--> {hop['path']}  heat {hop['heat']:.4f}"
        )
    comp = doc.get("components")
    if comp:
        lines.append(score_line(comp))
    if doc.get("pointer"):  # experimental.search_pointer_credit: where the pointer part came from
        lines.append("pointer: " + doc["pointer"]["text"])
    space = space_line(doc.get("space"))
    if space:
        lines.append(space)
    if "content_score" in doc:
        votes, heat = doc.get("votes"), doc.get("link_heat")
        bonuses = [("votes", float(votes["bonus"]) if votes else 0.0)]
        if heat:
            bonuses.append(("link heat", float(heat["bonus"])))
        best = comp["final"] if comp else 0.0
        lines.append(note_score_line(best, doc["content_score"], bonuses, doc.get("coverage")))
        lines.append(
            "votes: " + (describe_votes(votes) if votes else "none of the closest notes link here")
        )
        if heat:
            lines.append("link heat: " + describe_heat(heat))
    return lines


def render_missing(doc: Mapping[str, Any]) -> str:
    """A ``vaultheat.missing.v1`` document for a terminal."""
    where = "notes" if doc["files_only"] else "chunks"
    lines = [f"{doc['path']}: {doc['status'].replace('_', ' ')}", f"query: {doc['query']}"]
    lines.append(doc["reason"])
    if doc["ranked_by"] == "words":
        lines.append("ranked by the words found: no match in meaning was even good")
    chunk = doc.get("best_chunk")
    if chunk:
        heading = " > ".join(chunk["heading_path"]) or "(top)"
        span = f"lines {chunk['line_start']}-{chunk['line_end']}"
        text = " ".join(chunk["text"].split())[:120]
        lines.append(f"best chunk {chunk['chunk_id']} [{heading}] {span}: {text}")
    comp = doc.get("components")
    if comp:
        lines.append(score_line(comp))
    if doc.get("relevance_label"):
        lines.append(f"relevance: {doc['relevance']:.2f} ({doc['relevance_label']})")
    for p in doc.get("retrievers") or []:
        if p["rank"] is None:
            lines.append(f"{p['stage']}: no match (keeps the top {p['keeps']})")
            continue
        cut = f", #{p['keeps']} at {p['cutoff']:.3f}" if p["cutoff"] is not None else ""
        keeps = f"keeps the top {p['keeps']}{cut}"
        lines.append(f"{p['stage']}: #{p['rank']} ({p['score']:.3f}; {keeps})")
    rival = doc.get("to_beat")
    if rival and doc.get("score") is not None:
        gap = rival["score"] - doc["score"]
        beat = f"#{rival['rank']} {rival['path']} {rival['score']:.4f}"
        lines.append(f"to beat: {beat} (gap {gap:.4f}, ranking {where})")
    return "\n".join(lines)
