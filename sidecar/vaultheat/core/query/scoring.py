"""Final score: a weighted sum of min-max normalized components, exactly recomputable.

Components (vector, lexical, heat, rerank...) live on unrelated scales, so each is min-max
normalized over the *candidates* before weighting. A component that is already on an absolute
[0, 1] scale (the note-name score, ``core/query/titles.py``) can be named ``absolute``: it is only
clipped, so a weak best match stays weak instead of being stretched to 1. A component that
is off (``None``, e.g. no reranker) drops out and the remaining weights are renormalized to
sum to 1, so turning the reranker off does not shrink every score. The result keeps the
normalized values and effective weights it used so ``explain`` can show them and anyone can
recompute ``final`` from them.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass

from vaultheat.errors import ConfigError


@dataclass(frozen=True)
class CombineResult:
    """``final[c] == sum(weights[name] * normalized[name][c] for name in weights)``, exactly.

    ``weights`` and ``normalized`` hold the same keys (the components that are on, in the order
    given); ``off`` names the components that were ``None``.
    """

    final: dict[int, float]
    normalized: dict[str, dict[int, float]]
    weights: dict[str, float]
    off: tuple[str, ...] = ()


def normalize(scores: Mapping[int, float]) -> dict[int, float]:
    """Min-max to [0, 1]; empty -> {}; all equal -> all 1.0."""
    if not scores:
        return {}
    low, high = min(scores.values()), max(scores.values())
    if high == low:
        return dict.fromkeys(scores, 1.0)
    span = high - low
    return {doc: (value - low) / span for doc, value in scores.items()}


def effective_weights(
    components: Mapping[str, object | None], weights: Mapping[str, float]
) -> dict[str, float]:
    """Weights of the components that are on, renormalized to sum to 1."""
    on = [name for name, values in components.items() if values is not None]
    missing = [name for name in on if name not in weights]
    if missing:
        raise ValueError(f"no weight for score component(s) {', '.join(missing)}")
    if any(weights[name] < 0 for name in on):
        raise ConfigError("score weights must not be negative", weights=dict(weights))
    total = sum(weights[name] for name in on)
    if on and total <= 0:
        raise ConfigError(
            f"the score weights of the active components ({', '.join(on)}) sum to 0",
            weights={name: weights[name] for name in on},
        )
    return {name: weights[name] / total for name in on}


def combine(
    candidates: Iterable[int],
    components: Mapping[str, Mapping[int, float] | None],
    weights: Mapping[str, float],
    absolute: Collection[str] = (),
) -> CombineResult:
    """Weighted sum over the on components of their values normalized over ``candidates``
    (the ``absolute`` ones clipped to [0, 1] instead).

    A candidate missing from a component counts as 0.0 raw (before normalization).
    """
    cands = list(dict.fromkeys(candidates))
    eff = effective_weights(components, weights)
    normalized: dict[str, dict[int, float]] = {}
    for name in eff:
        raw = components[name]
        assert raw is not None  # effective_weights keeps only the on components
        values = {c: float(raw.get(c, 0.0)) for c in cands}
        if name in absolute:
            normalized[name] = {c: min(1.0, max(0.0, v)) for c, v in values.items()}
        else:
            normalized[name] = normalize(values)
    final = {c: sum(eff[name] * normalized[name][c] for name in eff) for c in cands}
    off = tuple(name for name, values in components.items() if values is None)
    return CombineResult(final=final, normalized=normalized, weights=eff, off=off)
