"""Why one result is where it is: reading a ``vaultheat.explain.v1`` document.

The trace comes from the very run that produced the result (seed, each hop with its edge type
and weights, the score parts before and after normalization), so recomputing the score from
the document gives the reported score: ``final == Σ weights[k] · normalized[k]`` and
``heat == seed_score · Π (edge_weight · decay · type_weight · hub_factor)``. A related-notes
result adds ``content_score``, ``votes`` and ``link_heat``: ``score == content_score +
votes.bonus + link_heat.bonus`` (a missing part adds 0). A search result that gave or received
pointer credit (``core/query/pointer_credit.py``) adds ``pointer``:
``normalized.pointer == received - gave``, weight 1. The trace itself is
``core.query.results.Trace`` (built by ``core/query/traces.py``); the document is made in
``vaultheat.documents``; the functions here check a document, and ``vaultheat.render`` prints it
for a terminal.
"""

from __future__ import annotations

from typing import Any


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
