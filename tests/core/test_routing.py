"""Routing by language over a second vector space (issue #40 slice 3, ``core/query/routing.py``):
with no second space search is unchanged; with one, an English query reads a German chunk in
the multilingual space and English chunks in the English one, a German query reads every
chunk in the multilingual space, and the two spaces' cosines meet on the relevance curves."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from tests.core.fakes import ROUTED, FakeModels, fake_view, second_model, with_second_space
from vaultheat.config import Settings
from vaultheat.core.query.relevance import CURVES, curve_for
from vaultheat.core.query.results import ChunkHit, SearchResults
from vaultheat.core.query.routing import CosineMap
from vaultheat.core.query.search import run_search
from vaultheat.core.requests import SearchRequest

NOTES = [
    ("Coffee/Espresso.md", "The espresso machine builds pressure with a pump and hot water.",
     []),
    ("Coffee/Grinders.md", "Burr grinders give an even grind for the espresso machine.", []),
    ("Kaffee/Maschine.md", "Die Espresso Maschine baut den Druck mit einer Pumpe auf und "
     "braucht heißes Wasser für guten Kaffee.", []),
    ("Garden/Tomatoes.md", "Tomatoes need calcium against blossom end rot.", []),
]  # fmt: skip
GERMAN_CHUNK = 2  # one chunk per note above, in order
S = Settings()
EN_QUERY = "how does the espresso machine build pressure with the pump"
DE_QUERY = "Wie baut die Espresso Maschine den Druck mit der Pumpe auf"


def chunk_hits(res: SearchResults) -> list[ChunkHit]:
    hits = [h for h in res.results if isinstance(h, ChunkHit)]
    assert len(hits) == len(res.results)
    return hits


def test_without_a_second_space_search_is_unchanged() -> None:
    plain = FakeModels()
    view = fake_view(NOTES, plain)
    req = SearchRequest(EN_QUERY, top=10, explain=True)
    before = run_search(view, plain, S, req)
    # the setting on, a second model at hand, but the index has no second space
    routed_models = FakeModels(second_model=second_model())
    same = run_search(view, routed_models, ROUTED, req)
    assert same.results == before.results
    # a second space in the index, but the setting off
    spaced = with_second_space(view, second_model(), {GERMAN_CHUNK: "de"})
    off = run_search(spaced, routed_models, S, req)
    assert off.results == before.results
    for h in chunk_hits(before):
        assert h.explain is not None and h.explain.space is None


def test_an_english_query_reads_a_german_chunk_in_the_second_space() -> None:
    models = FakeModels(second_model=second_model())
    view = with_second_space(fake_view(NOTES, models), second_model(), {GERMAN_CHUNK: "de"})
    res = run_search(view, models, ROUTED, SearchRequest(EN_QUERY, top=10, explain=True))
    hits = {h.chunk_id: h for h in chunk_hits(res)}
    assert GERMAN_CHUNK in hits and 0 in hits
    german = hits[GERMAN_CHUNK].explain
    assert german is not None and german.space is not None
    assert german.space.space == "multilingual"
    assert (german.space.query_language, german.space.chunk_language) == ("en", "de")
    assert not german.space.partial
    english = hits[0].explain
    assert english is not None and english.space is not None
    assert english.space.space == "english"
    assert english.space.chunk_language == "en"
    # the English chunk's vector part is its cosine in the English space, unchanged
    plain = FakeModels()
    q = plain.embedder.embed_query(EN_QUERY)
    doc = plain.embedder.embed_documents(["Espresso\n\n" + NOTES[0][1]])[0]
    assert hits[0].components["vector"] == pytest.approx(float(doc @ q), abs=1e-5)


def test_a_german_query_reads_every_chunk_in_the_second_space() -> None:
    models = FakeModels(second_model=second_model())
    view = with_second_space(fake_view(NOTES, models), second_model(), {GERMAN_CHUNK: "de"})
    res = run_search(view, models, ROUTED, SearchRequest(DE_QUERY, top=10, explain=True))
    hits = chunk_hits(res)
    assert hits
    for h in hits:
        assert h.explain is not None and h.explain.space is not None
        assert h.explain.space.space == "multilingual"
        assert h.explain.space.query_language == "de"


def test_a_chunk_without_a_second_vector_stays_in_the_first_space_and_partial_is_said() -> None:
    models = FakeModels(second_model=second_model())
    view = with_second_space(fake_view(NOTES, models), second_model(), {GERMAN_CHUNK: "de"},
                             missing=[GERMAN_CHUNK])  # fmt: skip
    res = run_search(view, models, ROUTED, SearchRequest(DE_QUERY, top=10, explain=True))
    hits = {h.chunk_id: h for h in chunk_hits(res)}
    assert GERMAN_CHUNK in hits  # found by its words
    trace = hits[GERMAN_CHUNK].explain
    assert trace is not None and trace.space is not None
    assert trace.space.space == "english" and trace.space.partial
    assert "no multilingual vector yet" in trace.space.reason
    assert res.partial_space


def test_the_cosine_map_is_the_identity_on_one_curve_and_monotone_between_two() -> None:
    english = curve_for("local", "all-MiniLM-L6-v2", "search")
    second = CURVES["multilingual-e5-small-q4"]["search"]
    xs = np.linspace(-1.0, 1.0, 2001)
    same = CosineMap.between(english, english)
    assert np.allclose(same(xs), xs, atol=1e-9)
    mapped = CosineMap.between(english, second)(xs)
    assert np.all(np.diff(mapped) > 0)  # strictly increasing: the second space keeps its order
    # the mapped cosine reads the same relevance on the English curve as the raw one on its own
    for c in (0.80, 0.83, 0.845, 0.86, 0.88):
        m = float(CosineMap.between(english, second)(np.array([c]))[0])
        assert english(m) == pytest.approx(second(c), abs=0.01)


def test_the_cosine_map_goes_on_in_a_straight_line_where_the_curves_share_no_relevance() -> None:
    # e5's related curve starts at P 0.15, MiniLM's at 0.19: the e5 cosines below the one that
    # reads 0.19 have no English cosine of their relevance; they once all went to -2 and tied
    english = curve_for("local", "all-MiniLM-L6-v2", "related")
    second = CURVES["multilingual-e5-small-q4"]["related"]
    cmap = CosineMap.between(english, second)
    ratio = (english.xs[-1] - english.xs[0]) / (second.xs[-1] - second.xs[0])
    below = np.linspace(0.70, 0.93, 24)
    mapped = cmap(below)
    assert np.allclose(np.diff(mapped), ratio * np.diff(below), rtol=1e-6)
    assert mapped[-1] < english.xs[0] < float(cmap(np.array([0.97]))[0])
    xs = np.linspace(-1.0, 1.0, 4001)
    assert np.all(np.diff(cmap(xs)) > 0)  # one strictly increasing map, joined


def test_the_search_map_keeps_the_curves_where_both_read_every_relevance() -> None:
    # MiniLM's search curve reads every relevance e5's does (both start at 0, MiniLM's ends
    # higher): no straight line, every cosine maps to the English cosine of its relevance,
    # below e5's first knot and above its last too
    english = curve_for("local", "all-MiniLM-L6-v2", "search")
    second = CURVES["multilingual-e5-small-q4"]["search"]
    cmap = CosineMap.between(english, second)
    for c in (0.70, 0.75, 0.80, 0.85, 0.90, 0.95, 1.0):
        m = float(cmap(np.array([c]))[0])
        assert english(m) == pytest.approx(second(c), abs=0.01)


def test_explain_missing_reads_the_cosine_of_the_space_that_scored_the_note() -> None:
    from vaultheat.core.query.missing import explain_missing

    models = FakeModels(second_model=second_model())
    view = with_second_space(fake_view(NOTES, models), second_model(), {GERMAN_CHUNK: "de"})
    req = SearchRequest(DE_QUERY, top=1, explain=True)
    res = run_search(view, models, ROUTED, dataclasses.replace(req, top=10))
    hit = next(h for h in chunk_hits(res) if h.path == "Garden/Tomatoes.md")
    missing = explain_missing(view, models, ROUTED, req, "Garden/Tomatoes.md")
    vector = next(p for p in missing.retrievers if p.stage == "vector")
    assert vector.score == pytest.approx(hit.components["vector"], abs=1e-5)


@pytest.mark.parametrize("kind", ["search", "related"])
def test_the_second_curve_follows_the_second_space_model(kind: str) -> None:
    """``embeddings.second_space_model``: e5 and USE each read their own fitted curves (not the
    default ramp), and the cosine map from USE's onto MiniLM's works as e5's does."""
    from vaultheat.config import USE_MODEL
    from vaultheat.core.query.search import second_model as space_model

    models = FakeModels(second_model=second_model())
    view = with_second_space(fake_view(NOTES, models), second_model(), {GERMAN_CHUNK: "de"})
    found = {}
    for name in ("e5", "use"):
        s = ROUTED.with_value("embeddings.second_space_model", name)
        got = space_model(view, models, s, kind)
        assert got is not None and got[1] is curve_for("local", "english", kind)
        found[name] = got[2]
    assert found["e5"] is CURVES["multilingual-e5-small-q4"][kind]
    assert found["use"] is CURVES[USE_MODEL][kind] is curve_for("local", USE_MODEL, kind)
    assert found["use"] is not CURVES["default"][kind]
    english, second = curve_for("local", "all-MiniLM-L6-v2", kind), found["use"]
    cmap = CosineMap.between(english, second)
    xs = np.linspace(-1.0, 1.0, 4001)
    mapped = cmap(xs)
    assert np.all(np.isfinite(mapped)) and np.all(np.diff(mapped) > 0)
    # where both curves read a relevance, a mapped cosine reads the same on the English curve
    checked = 0
    for c in np.linspace(second.xs[0], min(second.xs[-1], 1.0), 7):
        m = float(cmap(np.array([c]))[0])
        if min(english.ps) < second(c) < max(english.ps):
            assert english(m) == pytest.approx(second(c), abs=0.01)
            checked += 1
    assert checked
