"""``research``: retrieve, then at most one graph expansion when the top results are weak.

A bounded loop an agent can trust not to wander: step 1 is a files-only search; when its best
result is weak (``relevance_label == "weak"``, or before calibrated relevance exists, a raw
cosine under ``WEAK_COSINE``), step 2 asks for the notes related to the best hit (semantic +
link graph) and adds those the search did not find. It never takes a third step, and every
step says what it found and why the loop stopped.
"""

from __future__ import annotations

import time
from typing import Any

from vaultheat.agents.backend import Backend

WEAK_COSINE = 0.35  # fallback when results carry no calibrated relevance yet
GOOD_COSINE = 0.5


def strength(result: dict[str, Any]) -> tuple[str, float | None]:
    """(label, value): the calibrated relevance when present, else the raw vector cosine."""
    if isinstance(result.get("relevance_label"), str):
        return result["relevance_label"], result.get("relevance")
    cosine = (result.get("components") or {}).get("vector")
    if cosine is None:
        return "weak", None
    label = "strong" if cosine >= GOOD_COSINE else ("good" if cosine >= WEAK_COSINE else "weak")
    return label, float(cosine)


def _item(r: dict[str, Any], found_by: str, via: str | None) -> dict[str, Any]:
    label, value = strength(r)
    return {
        "path": r["path"],
        "title": r.get("title"),
        "found_by": found_by,
        "via": via,
        "score": r.get("score"),
        "relevance": value,
        "relevance_label": label,
        "best_chunk": r.get("best_chunk"),
    }


def research(backend: Backend, query: str, *, top: int = 8, **filters: Any) -> dict[str, Any]:
    t0 = time.perf_counter()
    body = {"query": query, "top": top, "files_only": True, **filters}
    found = backend.search(body)["results"]
    results = [_item(r, "search", None) for r in found]
    best = results[0] if results else None
    steps: list[dict[str, Any]] = [{
        "step": "search", "results": len(results),
        "best": best and {"path": best["path"], "relevance": best["relevance"],
                          "relevance_label": best["relevance_label"]},
    }]  # fmt: skip
    if best is None:
        stopped = "no results: nothing to expand from"
    elif best["relevance_label"] != "weak":
        stopped = f"the best result is {best['relevance_label']}: no expansion needed"
    else:
        related = backend.related({"path": best["path"], "top": top})["results"]
        seen = {r["path"] for r in results}
        added = [_item(r, "expansion", best["path"]) for r in related if r["path"] not in seen]
        results += added
        steps.append({"step": "expand", "from": best["path"], "related": len(related),
                      "added": len(added)})  # fmt: skip
        stopped = "the best result was weak: expanded once through related notes (the limit)"
    for rank, r in enumerate(results, 1):
        r["rank"] = rank
    return {
        "schema": "vaultheat.research.v1",
        "query": query,
        "took_ms": round((time.perf_counter() - t0) * 1000, 2),
        "steps": steps,
        "stopped": stopped,
        "results": results,
    }
