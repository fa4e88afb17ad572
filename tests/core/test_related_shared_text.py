"""related.shared_text_notes: a chunk whose exact text many notes hold (a template's text)
neither asks nor answers in related notes, so notes made from one template are related only
through what they say beyond it. Fake embedder, in-memory view, votes and link heat off."""

from __future__ import annotations

import pytest

from tests.core.fakes import FakeModels, fake_view
from vaultheat.config import Settings
from vaultheat.core.query.related import run_related
from vaultheat.core.query.shared_text import SharedText, own_text
from vaultheat.core.query.view import IndexView
from vaultheat.core.requests import RelatedRequest

STYLE = (
    "<style> .game-header { display: flex; flex-direction: column; } .progress-bar "
    "{ background: #3a3a3a; border-radius: 8px; } .achievement-item { padding: 8px; } </style>"
)
NOTES = [
    ("steam/portal.md", f"# Portal\n\n{STYLE}\n\nPortal puzzles with a portal gun.", []),
    ("steam/tetris.md", f"# Tetris\n\n{STYLE}\n\nTetris falling blocks, clear the lines.", []),
    ("steam/golf.md", f"# Golf\n\n{STYLE}\n\nMini golf with friends on odd courses.", []),
    ("steam/chess.md", f"# Chess\n\n{STYLE}\n\nChess openings and endgame tables.", []),
    ("blog/portal-speedrun.md", "# Speedrun\n\nA portal gun speedrun of Portal puzzles.", []),
    ("blog/taxes.md", "# Taxes\n\nTax returns are due in April.", []),
]  # fmt: skip
OPEN = "steam/portal.md"
Setup = tuple[IndexView, FakeModels]


@pytest.fixture(scope="module")
def setup() -> Setup:
    models = FakeModels()
    return fake_view(NOTES, models), models


def _related(setup: Setup, notes: int, text: str | None = None) -> list[str]:
    view, models = setup
    s = (Settings().with_value("related.votes", False).with_value("related.link_heat", "off")
         .with_value("related.shared_text_notes", notes))  # fmt: skip
    req = RelatedRequest(path=OPEN, top=5, text=text)
    return [h.path for h in run_related(view, models, s, req).results]


def test_the_style_block_is_shared_text_of_four_notes(setup: Setup) -> None:
    shared = setup[0].shared_text()
    assert shared.is_shared(STYLE, 4) and not shared.is_shared(STYLE, 5)
    assert len(shared.chunk_ids(3)) == 4
    assert shared.chunk_ids(5) == frozenset()


def test_off_the_template_mates_come_first(setup: Setup) -> None:
    assert set(_related(setup, 0)[:3]) <= {p for p, _, _ in NOTES if p.startswith("steam/")}


def test_on_the_note_about_the_same_thing_comes_first(setup: Setup) -> None:
    ranked = _related(setup, 3)
    assert ranked[0] == "blog/portal-speedrun.md"


def test_unsaved_text_answers_without_the_template_mates_first(setup: Setup) -> None:
    # unsaved text goes through the real chunker (the fake view cuts paragraphs), so only the
    # first place is compared: the shared chunks of the other notes are no candidates
    assert _related(setup, 3, text=NOTES[0][1])[0] == "blog/portal-speedrun.md"
    assert _related(setup, 0, text=NOTES[0][1])[0].startswith("steam/")


def test_a_threshold_above_the_count_changes_nothing(setup: Setup) -> None:
    assert _related(setup, 5) == _related(setup, 0)


def test_a_note_that_is_only_shared_text_still_asks_with_it() -> None:
    assert own_text([True, True]) == [0, 1]
    assert own_text([True, False, True]) == [1]
    assert own_text([]) == []


def test_shared_text_counts_by_chunk_and_by_text() -> None:
    shared = SharedText.from_rows([("a", 3, [1, 2, 3]), ("b", 2, [4, 5])])
    assert shared.chunk_ids(3) == frozenset({1, 2, 3})
    assert shared.chunk_ids(2) == frozenset({1, 2, 3, 4, 5})
    assert shared.chunk_ids(1) == frozenset() and shared.chunk_ids(4) == frozenset()
    assert shared.is_shared("b", 2) and not shared.is_shared("b", 3)
    assert not shared.is_shared("zzz", 2) and not shared.is_shared("a", 0)
