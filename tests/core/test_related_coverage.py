"""experimental.related_score_coverage: each related note's content score gains weight x its
coverage of the open note (core/query/coverage.py), so a note that speaks to the whole note
rises over one that matches a single side section; nothing is added for an open note of one
chunk or for a digest, and explain shows the part. Fake embedder, in-memory view, votes and
link heat off; scores compare at abs 1e-9."""

from __future__ import annotations

import pytest

from tests.core.fakes import ROUTED, FakeModels, fake_view, second_model, with_second_space
from vaultheat.config import Settings
from vaultheat.core.query.related import run_related
from vaultheat.core.query.results import RelatedHit
from vaultheat.core.query.view import IndexView
from vaultheat.core.requests import RelatedRequest
from vaultheat.documents import related_hit
from vaultheat.render import note_score_line

TOL = 1e-9
OPEN = "compost.md"
NOTES = [
    ("compost.md",
     "The compost pile needs greens and browns, nitrogen and carbon.\n\n"
     "Turn the compost bay every month; worms move in as the temperature drops.\n\n"
     "Spent coffee grounds, espresso pucks and paper filters go in too.", []),
    # one section of the open note word for word, then other coffee matters
    ("coffee.md",
     "Spent coffee grounds, espresso pucks and paper filters go in too.\n\n"
     "Grind size and water hardness decide the extraction of an espresso.\n\n"
     "A light roast ends soon after first crack.", []),
    # the open note's two main sections, in other words
    ("beds.md",
     "Raised beds want a compost pile of greens and browns.\n\n"
     "Worms move in when the compost bay is turned.", []),
    ("tax.md", "# Tax\n\nTax returns are due in April.", []),
    ("short.md", "Greens and browns make a compost pile.", []),
    ("newsletter/2024_05_01.md",
     "# Garden\n\n### [Compost](compost.md)\n\n* New: the compost pile needs greens and browns.\n\n"
     "### [Beds](beds.md)\n\n* New: worms move in when the compost bay is turned.",
     ["compost.md", "beds.md"]),
]  # fmt: skip
DIGEST = "newsletter/2024_05_01.md"
BASE = Settings()
Setup = tuple[IndexView, FakeModels]


@pytest.fixture(scope="module")
def setup() -> Setup:
    models = FakeModels()
    return fake_view(NOTES, models), models


def _run(
    setup: Setup, weight: float, path: str = OPEN, explain: bool = False, base: Settings = BASE
) -> list[RelatedHit]:
    view, models = setup
    s = (base.with_value("related.votes", False).with_value("related.link_heat", "off")
         .with_value("experimental.related_score_coverage", weight))  # fmt: skip
    req = RelatedRequest(path=path, top=10, explain=explain)
    return list(run_related(view, models, s, req).results)


def test_coverage_is_added_to_the_content_score_and_nothing_else_moves(setup: Setup) -> None:
    off = {h.path: h for h in _run(setup, 0.0)}
    on = {h.path: h for h in _run(setup, 0.5)}
    assert all(h.coverage is None for h in off.values())
    assert set(on) == set(off)
    for path, h in on.items():
        if path == DIGEST:
            continue
        assert h.coverage is not None and h.coverage > 0
        assert h.score == pytest.approx(off[path].score + h.coverage, abs=TOL)


def test_the_note_that_speaks_to_the_whole_note_rises_over_a_side_match(setup: Setup) -> None:
    off = [h.path for h in _run(setup, 0.0)]
    assert off.index("coffee.md") < off.index("beds.md")  # one section matched word for word
    on = {h.path: h for h in _run(setup, 0.5)}
    assert (on["beds.md"].coverage or 0) > (on["coffee.md"].coverage or 0) > 0
    strong = [h.path for h in _run(setup, 4.0)]
    assert strong.index("beds.md") < strong.index("coffee.md")


def test_a_digest_gets_no_coverage(setup: Setup) -> None:
    assert setup[0].page_kinds == {DIGEST: "digest"}
    off = {h.path: h.score for h in _run(setup, 0.0)}
    on = {h.path: h for h in _run(setup, 0.5)}
    assert on[DIGEST].coverage is None
    assert on[DIGEST].score == pytest.approx(off[DIGEST], abs=TOL)


def test_an_open_note_of_one_chunk_gets_none(setup: Setup) -> None:
    off = _run(setup, 0.0, "short.md")
    on = _run(setup, 0.5, "short.md")
    assert all(h.coverage is None for h in on)
    assert [h.path for h in on] == [h.path for h in off]
    assert [h.score for h in on] == pytest.approx([h.score for h in off], abs=TOL)


def test_explain_shows_the_part_and_the_sum_holds(setup: Setup) -> None:
    for h in _run(setup, 0.5, explain=True):
        assert h.explain is not None and h.explain.content_score is not None
        assert h.explain.coverage == h.coverage
        assert h.score == pytest.approx(h.explain.content_score, abs=TOL)  # votes, heat off
        doc = related_hit(h)
        assert doc.get("coverage") == h.coverage
        assert doc["explain"].get("coverage") == h.coverage
    beds = next(h for h in _run(setup, 0.5, explain=True) if h.path == "beds.md")
    assert beds.explain is not None and beds.explain.content_score is not None
    line = note_score_line(0.5, beds.explain.content_score, [("votes", 0.0)], beds.coverage)
    assert f"{beds.coverage:.4f} coverage" in line


GERMAN = ("kompost.md", "Der Komposthaufen braucht Grünes und Braunes, Stickstoff und "
          "Kohlenstoff.\n\nDie Würmer ziehen ein, wenn es kühler wird.", [])  # fmt: skip


def test_an_english_note_routed_by_a_second_space_still_gets_coverage() -> None:
    """With a second space every note is routed (issue #40): an English note's coverage is
    read in the English space as without one, and a candidate read only in the second space
    (every chunk in another language) gets none; a note in another language gets none."""
    models = FakeModels(second_model=second_model())
    plain = fake_view([*NOTES, GERMAN], models)
    german = {int(c): "de" for c in plain.links.chunks["kompost.md"]}
    routed = with_second_space(plain, second_model(), german)
    alone = {h.path: h for h in _run((plain, models), 0.5)}
    both = {h.path: h for h in _run((routed, models), 0.5, base=ROUTED)}
    for path in ("coffee.md", "beds.md"):
        assert both[path].coverage is not None and both[path].coverage > 0
        assert both[path].coverage == pytest.approx(alone[path].coverage, abs=TOL)
    assert "kompost.md" in both and both["kompost.md"].coverage is None
    assert all(h.coverage is None for h in _run((routed, models), 0.5, "kompost.md", base=ROUTED))
