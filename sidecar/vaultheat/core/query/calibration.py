"""Related notes' labels fitted on the vault's own links (issues #38 and #37, item 5).

The model's related curve (``core/query/relevance.py``) was fitted on the help vault, where a note
whose best chunk reads cosine 0.8 is linked about half the time. A vault of template-made notes
reads 0.9 between notes that share only the template, and a documentation vault links few of its
close notes, so the same curve called "strong" what was a true link 1-3% of the time there
(held-out links, 20% hidden: waylonwalker 0.012-0.032, dendron-site 0.10, help/en 0.52-0.56).

So the index fits the curve again on the vault itself: for a seeded sample of notes that have
links, their related notes as the sidebar shows them (top 10, votes and all), each labelled by
whether the two notes are linked (either way). The isotonic fit over the same evidence the
model's curve reads (``cosine + share_weight × vote share``) is then P(this vault links such a
pair): "strong" means the same thing on every vault, and where the vault links little, nothing
reads "strong". Too few links to fit (a new vault): the model's curve stays.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from vaultheat.config import Settings
from vaultheat.core.query.related import run_related
from vaultheat.core.query.relevance import Curve, fit_isotonic
from vaultheat.core.query.view import IndexView, Models
from vaultheat.core.requests import RelatedRequest

LABELS_KEY = "related_labels"  # the index manifest's entry for the fit
SAMPLE = 150  # notes whose sidebars are read: 1.7-5.7 s on the shared vaults (2 cores)
SHOWN = 10  # results read per note: what the sidebar shows (related.top's default)
MIN_LINKED = 30  # linked results needed for a fit; fewer: the model's curve
KNOTS = 10
SEED = 0
STALE_SHARE = 0.1  # refit when the notes or the resolved links moved by more than this share


@dataclass(frozen=True)
class VaultCurve:
    """A fit's outcome: the curve (None: too few links, the model's curve applies) and what it
    was fitted on, so a later index run can tell whether it is stale."""

    curve: Curve | None
    model: str  # the embedding model's fingerprint
    notes: int  # notes in the index
    links: int  # resolved links (a count the index reads in milliseconds)
    sampled: int  # notes whose sidebars were read
    points: int  # results read
    linked: int  # of which linked to their note

    def to_doc(self) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "model": self.model,
            "notes": self.notes,
            "links": self.links,
            "sampled": self.sampled,
            "points": self.points,
            "linked": self.linked,
        }
        if self.curve is not None:
            c = self.curve
            doc["curve"] = {"xs": list(c.xs), "ps": list(c.ps), "share_weight": c.share_weight}
        return doc

    @classmethod
    def from_doc(cls, doc: Any) -> VaultCurve | None:
        """The stored fit, or None for a missing or malformed one (then: fit again)."""
        try:
            c = doc.get("curve")
            curve = None
            if c is not None:
                xs, ps = tuple(map(float, c["xs"])), tuple(map(float, c["ps"]))
                curve = Curve(xs, ps, float(c["share_weight"]))
            return cls(curve, str(doc["model"]), int(doc["notes"]), int(doc["links"]),
                       int(doc["sampled"]), int(doc["points"]), int(doc["linked"]))  # fmt: skip
        except (AttributeError, KeyError, TypeError, ValueError):
            return None

    def stale(self, model: str, notes: int, links: int) -> bool:
        """Whether the vault moved on enough (another model, a tenth more or fewer notes or
        resolved links) that the fit should be made again."""
        return (
            model != self.model
            or abs(notes - self.notes) > STALE_SHARE * max(self.notes, 1)
            or abs(links - self.links) > STALE_SHARE * max(self.links, 1)
        )


def fit_vault_curve(
    view: IndexView,
    models: Models,
    settings: Settings,
    base: Curve,
    *,
    model: str,
    notes: int,
    links: int,
    sample: int = SAMPLE,
    seed: int = SEED,
) -> VaultCurve:
    """Fit the related curve on ``view``'s own links (see the module's docstring). ``base`` is
    the model's curve: its vote-share weight is kept, so the evidence reads as it does there.
    ``model``, ``notes`` and ``links`` are recorded with the fit (``VaultCurve.stale``)."""
    graph = view.links.graph
    linked_notes = sorted(
        p
        for p, ids in view.links.chunks.items()
        if graph.neighbours(p) and all(int(c) in view.vectors for c in ids)
    )
    picked = random.Random(seed).sample(linked_notes, min(sample, len(linked_notes)))
    xs: list[float] = []
    ys: list[int] = []
    for path in picked:
        res = run_related(view, models, settings, RelatedRequest(path=path, top=SHOWN))
        partners = set(graph.neighbours(path))
        for hit in res.results[:SHOWN]:
            share = hit.votes.share * hit.votes.hub_factor if hit.votes is not None else 0.0
            xs.append(float(hit.components.get("vector") or 0.0) + base.share_weight * share)
            ys.append(int(hit.path in partners))
    curve = None
    if sum(ys) >= MIN_LINKED:
        fit = fit_isotonic(xs, ys, KNOTS)
        curve = Curve(fit.xs, fit.ps, share_weight=base.share_weight)
    return VaultCurve(curve, model, notes, links, len(picked), len(xs), sum(ys))
