"""related.page_factor: a digest or a list page (core/vault/pagekind.py) has its content score
scaled in related notes, so the notes it points at come first; other notes are untouched.
Fake embedder, in-memory view, votes and link heat off; scores compare at abs 1e-9."""

from __future__ import annotations

import pytest

from tests.core.fakes import FakeModels, fake_view
from vaultheat.config import Settings
from vaultheat.core.query.related import run_related
from vaultheat.core.query.results import RelatedHit
from vaultheat.core.query.view import IndexView
from vaultheat.core.requests import RelatedRequest

TOL = 1e-9
OPEN = "luks.md"
NOTES = [
    ("luks.md", "# LUKS\n\nChange a LUKS passphrase with cryptsetup luksChangeKey.", []),
    ("newsletter/2021_06_22.md",
     "# GNULinux\n\n### [LUKS](luks.md)\n\n* New: change a LUKS passphrase with cryptsetup.",
     ["luks.md"]),
    ("ssh.md", "# SSH\n\nChange an SSH key passphrase with ssh-keygen -p.", []),
    ("x.md", "Tax returns are due in April.", []),
]  # fmt: skip
DIGEST = "newsletter/2021_06_22.md"
Setup = tuple[IndexView, FakeModels]


@pytest.fixture(scope="module")
def setup() -> Setup:
    models = FakeModels()
    return fake_view(NOTES, models), models


def _run(setup: Setup, factor: float) -> list[RelatedHit]:
    view, models = setup
    s = (Settings().with_value("related.votes", False).with_value("related.link_heat", "off")
         .with_value("related.page_factor", factor))  # fmt: skip
    return list(run_related(view, models, s, RelatedRequest(path=OPEN, top=10)).results)


def test_off_the_digest_that_quotes_the_note_comes_first(setup: Setup) -> None:
    assert setup[0].page_kinds == {DIGEST: "digest"}
    assert _run(setup, 1.0)[0].path == DIGEST


def test_a_factor_scales_only_the_digest(setup: Setup) -> None:
    off = {h.path: h.score for h in _run(setup, 1.0)}
    half = {h.path: h.score for h in _run(setup, 0.5)}
    assert half[DIGEST] == pytest.approx(off[DIGEST] * 0.5, abs=TOL)
    others = {p for p in off if p != DIGEST}
    assert {p: half[p] for p in others} == pytest.approx({p: off[p] for p in others}, abs=TOL)
    assert _run(setup, 0.5)[0].path == "ssh.md"
