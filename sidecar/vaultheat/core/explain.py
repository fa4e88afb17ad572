"""Why one result is where it is: reading a ``vaultheat.explain.v1`` document.

The trace comes from the very run that produced the result (seed, each hop with its edge type
and weights, the score parts before and after normalization), so recomputing the score from
the document gives the reported score: ``final == Σ weights[k] · normalized[k]`` and
``heat == seed_score · Π (edge_weight · decay · type_weight · hub_factor)``. A related-notes
result adds ``content_score``, ``votes`` and ``link_heat``: ``score == content_score +
votes.bonus + link_heat.bonus`` (a missing part adds 0). A search result that gave or received
pointer credit (``core/pointer_credit.py``) adds ``pointer``: ``normalized.pointer == received -
gave``, weight 1. The trace
itself is ``core.results.Trace`` (built by ``core/pipeline.py``); the document is made in
``vaultheat.documents``; the functions here check and render a document.
"""

from __future__ import annotations

from typing import Any

from vaultheat.core.linkheat import describe_heat
from vaultheat.core.votes import describe_votes


def recompute_final(components: dict[str, Any]) -> float:
    return float(
        sum(
            components["weights"][k] * v
            for k, v in components["normalized"].items()
            if v is not None
        )
    )


def recompute_heat(explain: dict[str, Any]) -> float:
    heat = float(explain["seed"]["seed_score"])
    for hop in explain["hops"]:
        heat *= hop["edge_weight"] * hop["decay"] * hop["type_weight"] * hop["hub_factor"]
    return heat


def locator_text(doc: dict[str, Any]) -> str:
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


def render_text(doc: dict[str, Any]) -> str:
    """A readable explanation for a terminal."""
    lines = [f"{doc['path']}  score {doc['score']:.4f}", f"query: {doc['query']}"]
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
        parts = []
        for k, raw in comp["raw"].items():
            if raw is None:
                continue
            parts.append(f"{k} {raw:.3f}→{comp['normalized'][k]:.3f}×{comp['weights'][k]:.2f}")
        lines.append("score: " + " + ".join(parts) + f" = {comp['final']:.4f}")
    if doc.get("pointer"):  # search.pointer_credit: where the pointer part came from
        lines.append("pointer: " + doc["pointer"]["text"])
    if "content_score" in doc:
        votes, heat = doc.get("votes"), doc.get("link_heat")
        bonus = float(votes["bonus"]) if votes else 0.0
        warm = float(heat["bonus"]) if heat else 0.0
        more = doc["content_score"] - (comp["final"] if comp else 0.0)
        detail = f" (best chunk + {more:.4f} from further chunks)" if abs(more) > 5e-5 else ""
        plus = f" + link heat {warm:.4f}" if heat else ""
        lines.append(
            f"note score: content {doc['content_score']:.4f}{detail} + votes {bonus:.4f}"
            f"{plus} = {doc['content_score'] + bonus + warm:.4f}"
        )
        lines.append(
            "votes: " + (describe_votes(votes) if votes else "none of the closest notes link here")
        )
        if heat:
            lines.append("link heat: " + describe_heat(heat))
    return "\n".join(lines)
