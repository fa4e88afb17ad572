"""Link votes in related notes on the example vault (fake embedder): the field, the trace that
adds up, votes off = the old ranking, and the query note's own links never voting."""

from __future__ import annotations

import math

import pytest

from tests.conftest import explain_related_doc, related_doc
from vaultheat.core.query.explain import recompute_final
from vaultheat.core.query.related import run_related
from vaultheat.core.query.votes import link_votes, recompute_bonus
from vaultheat.core.requests import RelatedRequest
from vaultheat.documents import related_document
from vaultheat.engine import Engine

NOTE = "Coffee/Roasting/Roasting Basics.md"


def _related(engine: Engine, **kw: object) -> dict:
    return related_doc(engine, RelatedRequest(**{"path": NOTE, "top": 30, "explain": True, **kw}))


def test_every_related_result_carries_votes_and_the_trace_adds_up(fake_engine: Engine) -> None:
    doc = _related(fake_engine, top=100)
    notes = fake_engine.views.store().notes()
    voted = [r for r in doc["results"] if r["votes"] is not None]
    assert voted, "the example vault has links between notes: someone must vote"
    only_votes = [r for r in doc["results"] if r["explain"]["seed"]["stage"] == "votes"]
    assert only_votes, "a note that only link votes found (its parts must add up too)"
    assert all(r["components"]["vector"] > 0 for r in only_votes)
    for r in doc["results"]:
        ex = r["explain"]
        assert ex["votes"] == r["votes"] and ex["link_heat"] == r["link_heat"]
        heat = r["link_heat"]["bonus"] if r["link_heat"] is not None else 0.0
        bonus = 0.0
        if r["votes"] is not None:
            v = r["votes"]
            assert set(v) >= {"count", "k", "weight", "share", "bonus", "voters"}
            assert v["count"] == len(v["voters"]) and 1 <= v["count"] <= v["k"] <= 20
            assert recompute_bonus(v) == v["bonus"]
            assert v["share"] == sum(x["score"] for x in v["voters"]) / v["total"]
            assert all(x["path"] not in (NOTE, r["path"]) for x in v["voters"])
            assert all(x["title"] == notes[x["path"]].title for x in v["voters"])
            bonus = v["bonus"]
        # votes and link heat add up in that order, then join the content score
        assert ex["content_score"] + (bonus + heat if r["votes"] else heat) == ex["score"]
        assert round(ex["score"], 6) == r["score"]
        # the best chunk's own parts still add up (also for notes only votes brought in)
        assert math.isclose(recompute_final(ex["components"]), ex["components"]["final"],
                            abs_tol=1e-12)  # fmt: skip


def test_votes_follow_the_formula_over_the_votes_off_ranking(fake_engine: Engine) -> None:
    heat_off = fake_engine.with_settings(
        fake_engine.settings.with_value("related.link_heat", "off")
    )
    votes_off = heat_off.with_settings(heat_off.settings.with_value("related.votes", False))
    on = _related(heat_off, top=100)
    off = _related(votes_off, top=100)
    assert all(r["votes"] is None for r in off["results"])
    links = votes_off.index_view().links
    expected = link_votes([(r["path"], r["score"]) for r in off["results"]], links.out_links,
                          k=20, weight=2.0, query=NOTE)  # fmt: skip
    got = {r["path"]: r["votes"] for r in on["results"] if r["votes"]}
    collapsed = {d for r in on["results"] for d in r["duplicates"]}
    assert set(got) == (set(expected.votes) & set(links.chunks)) - collapsed
    for path, v in got.items():
        assert v["count"] == expected.votes[path].count
        assert v["share"] == pytest.approx(expected.votes[path].share, abs=1e-5)


def test_no_votes_switches_votes_off_and_no_graph_does_not(fake_engine: Engine) -> None:
    """``votes`` is the votes' own switch; ``graph`` (``--no-graph``) is heat only: link heat
    and heat propagation."""
    assert any(r["link_heat"] for r in _related(fake_engine)["results"])
    assert not any(r["link_heat"] for r in _related(fake_engine, graph=False)["results"])
    heat_off = fake_engine.with_settings(
        fake_engine.settings.with_value("related.link_heat", "off")
    )
    on = _related(heat_off)
    assert any(r["votes"] is not None for r in on["results"])
    assert all(r["votes"] is None for r in _related(heat_off, votes=False)["results"])
    assert _related(heat_off, graph=False)["results"] == on["results"]  # hops 0: no heat
    votes_off = heat_off.with_settings(heat_off.settings.with_value("related.votes", False))
    assert _related(votes_off, votes=False)["results"] == _related(votes_off)["results"]


def test_the_query_notes_own_links_never_vote(fake_engine: Engine) -> None:
    """Point the query note's stored links at notes far down its ranking (a planted-link
    canary in memory): its related notes, saved or from unsaved text, must not move."""
    import dataclasses

    links = fake_engine.index_view().links
    before = _related(fake_engine, top=100)
    text = (fake_engine.paths.vault / NOTE).read_text(encoding="utf-8")
    before_text = _related(fake_engine, top=100, text=text)
    own = links.out_links.get(NOTE, frozenset())
    planted = frozenset(r["path"] for r in before["results"][-8:]) - own
    assert planted
    # the planted links join the note's own (a consistent link table: in-degrees count them)
    view = dataclasses.replace(fake_engine.index_view(), links=dataclasses.replace(
        links, out_links={**links.out_links, NOTE: own | planted},
        in_degree={**links.in_degree, **{p: links.in_degree.get(p, 0) + 1 for p in planted}},
    ))  # fmt: skip

    def planted_related(engine: Engine, **kw: object) -> dict:
        req = RelatedRequest(**{"path": NOTE, "top": 30, "explain": True, **kw})
        s = engine.settings
        res = run_related(view, engine.models, s, req)
        # the curve the engine labels with (the index's own fit, core/query/calibration.py)
        return related_document(res.with_relevance(engine._related_curve(s)))

    for hub in (0, 1):
        engine = fake_engine.with_settings(
            fake_engine.settings.with_value("related.vote_hub_degree", hub)
        )
        after = planted_related(engine, top=100)
        after_text = planted_related(engine, top=100, text=text)
        if hub == 0:
            assert after["results"] == before["results"]
            assert after_text["results"] == before_text["results"]
        for r in after["results"]:
            if r["path"] in planted and r["votes"]:
                assert all(v["path"] != NOTE for v in r["votes"]["voters"])


def test_note_links_are_distinct_note_targets(fake_engine: Engine) -> None:
    links = fake_engine.index_view().links
    store = fake_engine.views.store()
    notes = set(store.notes())
    row = store.note_by_path(NOTE)
    assert row is not None
    assert links.out_links[NOTE] == frozenset(store.linked_paths(row.id) & notes - {NOTE})
    for src, targets in links.out_links.items():
        assert src in notes and targets <= notes and src not in targets
    assert sum(links.in_degree.values()) == sum(len(t) for t in links.out_links.values())
    assert set(links.chunks) <= notes


def test_explain_document_shows_the_votes_in_words(fake_engine: Engine) -> None:
    from vaultheat.render import render_explain

    doc = _related(fake_engine)
    target = next(r for r in doc["results"] if r["votes"])
    ex = explain_related_doc(fake_engine, RelatedRequest(path=NOTE), target["path"])
    assert ex["votes"] == target["votes"]
    assert ex["content_score"] + ex["votes"]["bonus"] == pytest.approx(target["score"], abs=1e-6)
    text = render_explain(ex)
    v = target["votes"]
    assert f"linked from {v['count']} of your {v['k']} closest notes: " in text
    assert f"= +{v['bonus']:.3f}" in text and "note score: content" in text
