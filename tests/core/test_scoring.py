"""Score combination: normalization edge cases, weight renormalization, exact recomputation."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from vaultheat.core.query.scoring import combine, normalize
from vaultheat.errors import ConfigError


@pytest.mark.parametrize(
    ("scores", "expected"),
    [
        ({}, {}),
        ({1: 3.0}, {1: 1.0}),
        ({1: 2.0, 2: 2.0}, {1: 1.0, 2: 1.0}),
        ({1: 0.0, 2: 5.0, 3: 10.0}, {1: 0.0, 2: 0.5, 3: 1.0}),
        ({1: -1.0, 2: 1.0}, {1: 0.0, 2: 1.0}),
    ],
    ids=["empty", "single", "all-equal", "spread", "negative"],
)
def test_normalize(scores: dict[int, float], expected: dict[int, float]) -> None:
    assert normalize(scores) == expected


def test_combine_with_all_components_on() -> None:
    result = combine(
        [1, 2, 3],
        {"vector": {1: 0.9, 2: 0.5, 3: 0.1}, "heat": {2: 1.0}, "rerank": {1: 2.0, 2: 4.0, 3: 0.0}},
        {"vector": 0.2, "heat": 0.2, "rerank": 0.6},
    )
    assert result.weights == {"vector": 0.2, "heat": 0.2, "rerank": 0.6}
    assert result.normalized["heat"] == {1: 0.0, 2: 1.0, 3: 0.0}  # missing -> 0.0 raw
    assert result.normalized["rerank"] == {1: 0.5, 2: 1.0, 3: 0.0}
    assert result.final[2] == pytest.approx(0.2 * 0.5 + 0.2 * 1.0 + 0.6 * 1.0)
    assert result.off == ()


def test_off_component_drops_out_and_weights_renormalize() -> None:
    result = combine(
        [1, 2],
        {"vector": {1: 1.0, 2: 0.0}, "lexical": {2: 3.0}, "heat": {1: 0.5}, "rerank": None},
        {"vector": 0.8, "lexical": 0.1, "heat": 0.1, "rerank": 0.6},
    )
    assert result.weights == pytest.approx({"vector": 0.8, "lexical": 0.1, "heat": 0.1})
    assert set(result.normalized) == {"vector", "lexical", "heat"}
    assert result.off == ("rerank",)
    assert result.final[1] == pytest.approx(0.9)
    assert result.final[2] == pytest.approx(0.1)


def test_candidates_outside_components_and_duplicates() -> None:
    result = combine([3, 3, 4], {"vector": {3: 0.4, 99: 1.0}}, {"vector": 2.0})
    assert list(result.final) == [3, 4]  # 99 is not a candidate: it does not stretch the range
    assert result.normalized["vector"] == {3: 1.0, 4: 0.0}
    assert result.weights == {"vector": 1.0}


@pytest.mark.parametrize(
    ("components", "weights", "error"),
    [
        ({"vector": {1: 1.0}}, {"vector": 0.0}, ConfigError),
        ({"vector": {1: 1.0}}, {"vector": -1.0}, ConfigError),
        ({"vector": {1: 1.0}}, {}, ValueError),
    ],
    ids=["zero-sum", "negative", "missing-weight"],
)
def test_combine_refuses_bad_weights(components: dict, weights: dict, error: type) -> None:
    with pytest.raises(error):
        combine([1], components, weights)


def test_no_candidates() -> None:
    result = combine([], {"vector": {1: 1.0}, "rerank": None}, {"vector": 1.0, "rerank": 1.0})
    assert result.final == {} and result.normalized == {"vector": {}}


values = st.dictionaries(st.integers(0, 20), st.floats(-5, 5, allow_nan=False), max_size=12)


@given(
    candidates=st.lists(st.integers(0, 25), max_size=15),
    vector=values,
    lexical=values,
    heat=st.one_of(st.none(), values),
    rerank=st.one_of(st.none(), values),
    weights=st.fixed_dictionaries(
        {k: st.floats(0.01, 3) for k in ("vector", "lexical", "heat", "rerank")}
    ),
)
def test_final_is_exactly_recomputable(
    candidates: list[int],
    vector: dict[int, float],
    lexical: dict[int, float],
    heat: dict[int, float] | None,
    rerank: dict[int, float] | None,
    weights: dict[str, float],
) -> None:
    components = {"vector": vector, "lexical": lexical, "heat": heat, "rerank": rerank}
    result = combine(candidates, components, weights)
    assert set(result.weights) == {k for k, v in components.items() if v is not None}
    assert sum(result.weights.values()) == pytest.approx(1.0)
    assert list(result.final) == list(dict.fromkeys(candidates))
    for c in result.final:
        assert result.final[c] == sum(
            result.weights[k] * result.normalized[k][c] for k in result.weights
        )
        assert -1e-12 <= result.final[c] <= 1 + 1e-12
    for norm in result.normalized.values():
        assert all(0.0 <= v <= 1.0 for v in norm.values())


def test_an_absolute_component_is_clipped_not_stretched() -> None:
    # the best title match among the candidates is weak (0.3): it stays 0.3, where min-max
    # would have made it 1.0 and let a weak partial name match lead
    result = combine(
        [1, 2, 3],
        {"vector": {1: 0.9, 2: 0.5, 3: 0.1}, "title": {2: 0.3, 3: 1.7}},
        {"vector": 0.8, "title": 0.2},
        absolute=("title",),
    )
    assert result.normalized["title"] == {1: 0.0, 2: 0.3, 3: 1.0}
    assert result.normalized["vector"] == {1: 1.0, 2: 0.5, 3: 0.0}
    assert result.final[2] == pytest.approx(0.8 * 0.5 + 0.2 * 0.3)
