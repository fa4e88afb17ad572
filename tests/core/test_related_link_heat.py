"""Link heat in related notes (core/query/related.py ``_add_graph``) on a small in-memory vault with
the fake embedder: the bonus adds to the note's score, the receipt names the path, linked notes get
none, and the seeds are the links of the text as it stands (unsaved text included).

Link votes are off in these runs so the only difference between link heat on and off is the
link heat bonus; scores compare at abs 1e-9.
"""

from __future__ import annotations

import pytest

from tests.core.fakes import FakeModels, fake_view
from vaultheat.config import Settings
from vaultheat.core.query.related import run_related
from vaultheat.core.query.results import RelatedHit
from vaultheat.core.query.view import IndexView
from vaultheat.core.requests import RelatedRequest

TOL = 1e-9
OPEN = "Q.md"
# Q links A and D; A links T and U; D links T; E links Q (a backlink) and F; B links C.
# Stored neighbourhood of Q: S = {A, D, E}. Q is taken out of the graph, so degrees count no
# edge to Q: d(A) = 2 (T, U), d(D) = 1 (T), d(E) = 1 (F).
# RA: h(T) = 1/2 + 1 = 3/2 (the top), h(U) = 1/2, h(F) = 1; B, C, X are out of reach.
NOTES = [
    ("Q.md", "Espresso extraction depends on grind size, dose and water temperature.",
     ["A.md", "D.md"]),
    ("A.md", "Grinders: burr geometry shapes the particle distribution.", ["T.md", "U.md"]),
    ("D.md", "Dialing in a new bag of beans takes a few shots.", ["T.md"]),
    ("T.md", "Tasting notes: sour means under-extracted, bitter over-extracted.", []),
    ("U.md", "Cleaning the grinder burrs every month.", []),
    ("E.md", "My morning routine starts with an espresso.", ["Q.md", "F.md"]),
    ("F.md", "Breakfast ideas with eggs and toast.", []),
    ("B.md", "Milk steaming for latte art and microfoam.", ["C.md"]),
    ("C.md", "Pouring a rosetta pattern in a cappuccino.", []),
    ("X.md", "Tax returns are due in April.", []),
]  # fmt: skip
WEIGHT = 0.5
Setup = tuple[IndexView, FakeModels]


@pytest.fixture(scope="module")
def setup() -> Setup:
    models = FakeModels()
    return fake_view(NOTES, models), models


def _settings(kind: str, weight: float = WEIGHT) -> Settings:
    return (
        Settings()
        .with_value("related.votes", False)
        .with_value("related.link_heat", kind)
        .with_value("related.link_heat_weight", weight)
    )


def _run(
    setup: Setup, kind: str, *, text: str | None = None, graph: bool = True
) -> dict[str, RelatedHit]:
    view, models = setup
    req = RelatedRequest(path=OPEN, top=20, text=text, graph=graph)
    res = run_related(view, models, _settings(kind), req)
    assert len({h.path for h in res.results}) == len(res.results)
    return {h.path: h for h in res.results}


def test_off_no_hit_carries_link_heat(setup: Setup) -> None:
    off = _run(setup, "off")
    assert off and all(h.link_heat is None for h in off.values())
    text = "Espresso extraction. See [[B]]."
    assert all(h.link_heat is None for h in _run(setup, "off", text=text).values())


def test_a_zero_weight_or_graph_off_is_off(setup: Setup) -> None:
    view, models = setup
    res = run_related(view, models, _settings("ra", 0.0), RelatedRequest(path=OPEN, top=20))
    assert res.results and all(h.link_heat is None for h in res.results)
    no_graph = _run(setup, "ra", graph=False)
    assert all(h.link_heat is None for h in no_graph.values())
    off = _run(setup, "off")
    assert {p: h.score for p, h in no_graph.items()} == {p: h.score for p, h in off.items()}


def test_ra_two_links_away_gains_the_bonus_with_its_path(setup: Setup) -> None:
    off = _run(setup, "off")
    on = _run(setup, "ra")
    heated = {p for p, h in on.items() if h.link_heat is not None}
    assert heated == {"T.md", "U.md", "F.md"}
    top = 1 / 2 + 1
    expected = {"T.md": top, "U.md": 1 / 2, "F.md": 1.0}
    for path, h in expected.items():
        lh = on[path].link_heat
        assert lh is not None
        assert lh.kind == "ra" and lh.target == path
        assert lh.heat == pytest.approx(h, abs=TOL)
        assert lh.top == pytest.approx(top, abs=TOL)
        assert lh.bonus == pytest.approx(WEIGHT * h / top, abs=TOL)
        # the score is the link-heat-off score plus the bonus
        assert on[path].score == pytest.approx(off[path].score + lh.bonus, abs=TOL)
    # T is two links away through A and D (both linked from Q): the lower degree first
    t = on["T.md"].link_heat
    assert t is not None and t.via == ("D.md", "A.md") and t.bonus == pytest.approx(WEIGHT)
    u = on["U.md"].link_heat
    assert u is not None and u.via == ("A.md",)
    f = on["F.md"].link_heat
    assert f is not None and f.via == ("E.md",)  # through a backlink: E links to Q
    # the rest are untouched
    for path in set(on) - heated:
        assert on[path].score == pytest.approx(off[path].score, abs=TOL)


def test_notes_already_linked_get_no_link_heat(setup: Setup) -> None:
    on = _run(setup, "ra")
    for path in ("A.md", "D.md", "E.md"):  # Q links A and D; E links Q
        assert path in on
        assert on[path].link_heat is None
    assert on["A.md"].link_status == "linked" and on["E.md"].link_status == "backlinked"
    ppr = _run(setup, "ppr")
    assert all(ppr[p].link_heat is None for p in ("A.md", "D.md", "E.md"))


def test_ppr_bonus_is_relative_to_the_hottest_note(setup: Setup) -> None:
    off = _run(setup, "off")
    on = _run(setup, "ppr")
    heated = {p: h.link_heat for p, h in on.items() if h.link_heat is not None}
    assert {"T.md", "U.md", "F.md"} <= set(heated)
    assert not set(heated) & {"A.md", "D.md", "E.md", "B.md", "C.md", "X.md"}
    top = max(lh.heat for lh in heated.values())
    for path, lh in heated.items():
        assert lh.kind == "ppr" and lh.top == pytest.approx(top, abs=TOL)
        assert lh.bonus == pytest.approx(WEIGHT * lh.heat / top, abs=TOL)
        assert on[path].score == pytest.approx(off[path].score + lh.bonus, abs=TOL)
    # T (two seeds beside it) is the best connected
    assert heated["T.md"].bonus == pytest.approx(WEIGHT, abs=TOL)


def test_unsaved_text_links_are_the_seeds(setup: Setup) -> None:
    """The text links B (the stored note links A and D instead): C, next to B, gains heat; T and
    U, next to the stored links only, get none; F still does through the backlink E."""
    text = "Espresso extraction depends on grind size. See [[B]]."
    off = _run(setup, "off", text=text)
    on = _run(setup, "ra", text=text)
    heated = {p for p, h in on.items() if h.link_heat is not None}
    # S = {B, E}: d(B) = 1 (C), d(E) = 1 (F; the edge to Q not counted); h(C) = h(F) = 1
    assert heated == {"C.md", "F.md"}
    c, f = on["C.md"].link_heat, on["F.md"].link_heat
    assert c is not None and f is not None
    assert c.via == ("B.md",) and f.via == ("E.md",)
    assert c.heat == pytest.approx(1.0, abs=TOL) and c.bonus == pytest.approx(WEIGHT, abs=TOL)
    assert f.heat == pytest.approx(1.0, abs=TOL)
    assert f.bonus == pytest.approx(WEIGHT, abs=TOL)
    for path in ("C.md", "F.md"):
        lh = on[path].link_heat
        assert lh is not None
        assert on[path].score == pytest.approx(off[path].score + lh.bonus, abs=TOL)
    for path in ("T.md", "U.md", "A.md", "D.md"):
        assert on[path].link_heat is None
        assert on[path].score == pytest.approx(off[path].score, abs=TOL)
    assert on["B.md"].link_heat is None and on["B.md"].link_status == "linked"
