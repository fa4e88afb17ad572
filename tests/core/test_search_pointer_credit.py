"""Pointer credit in search (experimental.search_pointer_credit, core/query/pointer_credit.py): a
digest's bullet that matches the query hands part of its score to the note it links, explain
says so and still adds up. The page part is off here (score_page 0) so the pointer credit alone
moves the digest. Fake embedder, in-memory view; scores compare at abs 1e-9."""

from __future__ import annotations

import pytest

from tests.core.fakes import FakeModels, fake_view
from vaultheat.config import Settings
from vaultheat.core.query.explain import recompute_final
from vaultheat.core.query.results import explanation
from vaultheat.core.query.search import run_search
from vaultheat.core.query.view import IndexView
from vaultheat.core.requests import SearchRequest
from vaultheat.documents import explain_document, parts_doc, search_document
from vaultheat.render import render_explain

TOL = 1e-9
QUERY = "markdown list board"
DIGEST = "Weekly/2021-03-14.md"
NOTES = [
    (DIGEST, "# Weekly\n\n## Plugins\n\n- [[Kanban]] turns a Markdown list into a board\n"
     "- [[Tasks]] tracks due dates\n- [[Calendar]] shows daily notes by month",
     ["Kanban.md", "Tasks.md", "Calendar.md"]),
    ("Kanban.md", "# Kanban\n\nDrag cards between columns to plan the work of a week.", []),
    ("Tasks.md", "# Tasks\n\nDue dates and recurring chores in one query.", []),
    ("Calendar.md", "# Calendar\n\nA month view of the daily notes.", []),
    ("x.md", "Tax returns are due in April.", []),
]  # fmt: skip
Setup = tuple[IndexView, FakeModels]


@pytest.fixture(scope="module")
def setup() -> Setup:
    models = FakeModels()
    return fake_view(NOTES, models), models


def _settings(share: float, **more: object) -> Settings:
    s = Settings().with_value("search.score_page", 0.0)
    s = s.with_value("experimental.search_pointer_credit", share)
    return s.with_overrides(dict(more))


def _search(setup: Setup, share: float, *, files_only: bool = True, **more: object) -> list:
    view, models = setup
    req = SearchRequest(query=QUERY, top=10, files_only=files_only, explain=True)
    return list(run_search(view, models, _settings(share, **more), req).results)


def test_the_view_knows_the_digest(setup: Setup) -> None:
    assert setup[0].page_kinds == {DIGEST: "digest"}


def test_off_the_digest_leads_on_the_note_it_points_at_does(setup: Setup) -> None:
    off = [h.path for h in _search(setup, 0.0)]
    on = [h.path for h in _search(setup, 0.5)]
    assert off[0] == DIGEST
    assert on[0] == "Kanban.md"
    assert on.index(DIGEST) > off.index(DIGEST)
    chunks = [h.path for h in _search(setup, 0.5, files_only=False)]
    assert chunks[0] == "Kanban.md"


def test_off_by_default_and_the_part_is_null_when_off(setup: Setup) -> None:
    assert Settings().experimental.search_pointer_credit == 0.0
    for h in _search(setup, 0.0, files_only=False):
        assert h.components["pointer"] is None
        assert h.explain.pointer is None


def test_the_digest_keeps_one_minus_s_and_kanban_gets_the_rest(setup: Setup) -> None:
    off = {h.path: h for h in reversed(_search(setup, 0.0, files_only=False))}  # best chunks
    on = {h.path: h for h in reversed(_search(setup, 0.5, files_only=False))}
    d_off, d_on, k_off, k_on = off[DIGEST], on[DIGEST], off["Kanban.md"], on["Kanban.md"]
    assert d_off.chunk_id == d_on.chunk_id
    assert d_on.score == pytest.approx(0.5 * d_off.score, abs=TOL)
    assert k_on.score == pytest.approx(k_off.score + 0.5 * d_off.score, abs=TOL)
    assert d_on.components["pointer"] == pytest.approx(-0.5 * d_off.score, abs=1e-6)
    assert k_on.components["pointer"] == pytest.approx(0.5 * d_off.score, abs=1e-6)
    for p in ("Tasks.md", "Calendar.md", "x.md"):
        assert on[p].score == pytest.approx(off[p].score, abs=TOL)
        assert on[p].explain.pointer is None


def test_explain_says_where_the_credit_came_from_and_adds_up(setup: Setup) -> None:
    view, models = setup
    req = SearchRequest(query=QUERY, top=10, explain=True)
    doc = search_document(run_search(view, models, _settings(0.5), req))
    by_path = {r["path"]: r for r in reversed(doc["results"])}  # each note's first chunk
    kanban, digest = by_path["Kanban.md"]["explain"], by_path[DIGEST]["explain"]
    assert kanban["pointer"]["from"] == {"path": DIGEST, "line_start": 5, "line_end": 5}
    assert "2021-03-14 line 5" in kanban["pointer"]["text"]
    assert digest["pointer"]["to"] == ["Kanban.md"]
    assert "gave 0.5 of its score" in digest["pointer"]["text"]
    for r in doc["results"]:
        comp = r["explain"]["components"]
        assert recompute_final(comp) == pytest.approx(r["score"], abs=1e-5)
        assert comp["normalized"]["pointer"] == pytest.approx(
            r["explain"].get("pointer", {}).get("received", 0.0)
            - r["explain"].get("pointer", {}).get("gave", 0.0),
            abs=1e-9,
        )


def test_the_terminal_explanation_says_it(setup: Setup) -> None:
    hit = next(h for h in _search(setup, 0.5, files_only=False) if h.path == "Kanban.md")
    text = render_explain(explain_document(explanation(QUERY, hit)))
    assert "pointer: credited" in text and "2021-03-14 line 5" in text


def test_faithful_to_the_unrounded_score(setup: Setup) -> None:
    for h in _search(setup, 0.5, files_only=False):
        assert recompute_final(parts_doc(h.explain.components)) == pytest.approx(h.score, abs=TOL)


def test_a_target_that_was_no_candidate_joins_with_its_best_chunk(setup: Setup) -> None:
    # one result per retriever: Kanban's chunks are not candidates, the credit brings one in
    off = [h.path for h in _search(setup, 0.0, **{"search.vector_top": 1, "search.lexical_top": 1})]
    assert "Kanban.md" not in off and off[0] == DIGEST
    on = _search(setup, 0.5, files_only=False,
                 **{"search.vector_top": 1, "search.lexical_top": 1})  # fmt: skip
    kanban = next(h for h in on if h.path == "Kanban.md")
    assert kanban.found_by == "pointer"
    assert kanban.explain.pointer.source == DIGEST
    assert recompute_final(parts_doc(kanban.explain.components)) == pytest.approx(
        kanban.score, abs=TOL
    )


def test_a_filter_that_leaves_the_target_out_moves_nothing(setup: Setup) -> None:
    view, models = setup
    req = SearchRequest(query=QUERY, top=10, files_only=True, folder="Weekly")
    off = run_search(view, models, _settings(0.0), req).results
    on = run_search(view, models, _settings(0.5), req).results
    assert [(h.path, h.score) for h in on] == [(h.path, h.score) for h in off]


def test_the_share_is_a_share(setup: Setup) -> None:
    with pytest.raises(Exception, match="pointer_credit"):
        Settings().with_value("experimental.search_pointer_credit", 1.5)


def test_several_pointers_at_one_note_credit_the_largest_once() -> None:
    models = FakeModels()
    text = ("# Weekly\n\n## Plugins\n\n- [[Kanban]] a Markdown list as a board again\n"
            "- [[Tasks]] due dates\n- [[Calendar]] by month")  # fmt: skip
    second = ("Weekly/2021-03-21.md", text, ["Kanban.md"])
    view = fake_view([*NOTES, second], models)
    req = SearchRequest(query=QUERY, top=10, explain=True)

    def best(share: float) -> dict[str, float]:
        hits = run_search(view, models, _settings(share), req).results
        return {h.path: h.score for h in reversed(hits)}

    off, on = best(0.0), best(0.5)
    assert off[DIGEST] != off[second[0]]
    credit = on["Kanban.md"] - off["Kanban.md"]
    assert credit == pytest.approx(0.5 * max(off[DIGEST], off[second[0]]), abs=TOL)
    assert on[second[0]] == pytest.approx(0.5 * off[second[0]], abs=TOL)  # both gave
