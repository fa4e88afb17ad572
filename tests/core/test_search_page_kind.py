"""The page part of search (search.score_page, core/vault/pagekind.py): a digest that repeats a
note's words loses to the note when both match, notes proper keep their order among themselves, and
the explain trace adds up. Fake embedder, in-memory view; scores compare at abs 1e-9."""

from __future__ import annotations

import pytest

from tests.core.fakes import FakeModels, fake_view
from vaultheat.config import Settings
from vaultheat.core.query.search import run_search
from vaultheat.core.query.view import IndexView
from vaultheat.core.requests import SearchRequest

TOL = 1e-9
QUERY = "luks change passphrase"
NOTES = [
    # the digest repeats the bullet word for word and links the note that answers
    ("newsletter/2021_06_22.md",
     "# GNULinux\n\n### [LUKS](luks.md)\n\n* New: LUKS change passphrase.", ["luks.md"]),
    ("luks.md", "# LUKS\n\nRun cryptsetup luksChangeKey on the device to replace a key.\n\n"
     "Keyfiles unlock a LUKS volume at boot.", []),
    ("ssh.md", "# SSH\n\nCreate an SSH key and change its passphrase with ssh-keygen -p.", []),
    ("gpg.md", "# GPG\n\nChange a GPG key passphrase with gpg --edit-key and passwd.", []),
    ("x.md", "Tax returns are due in April.", []),
]  # fmt: skip
Setup = tuple[IndexView, FakeModels]


@pytest.fixture(scope="module")
def setup() -> Setup:
    models = FakeModels()
    return fake_view(NOTES, models), models


def _files(setup: Setup, weight: float, explain: bool = False) -> list:
    view, models = setup
    s = Settings().with_value("search.score_page", weight)
    req = SearchRequest(query=QUERY, top=10, files_only=True, explain=explain)
    return list(run_search(view, models, s, req).results)


def test_the_view_knows_the_digest(setup: Setup) -> None:
    assert setup[0].page_kinds == {"newsletter/2021_06_22.md": "digest"}


def test_off_the_digest_comes_first_on_the_note_it_points_at_beats_it(setup: Setup) -> None:
    digest = "newsletter/2021_06_22.md"
    off = [h.path for h in _files(setup, 0.0)]
    on = [h.path for h in _files(setup, 1.0)]
    assert off[0] == digest  # the words match best in the digest
    assert off.index(digest) < off.index("luks.md")
    assert on.index(digest) > on.index("luks.md")
    assert on.index(digest) > off.index(digest)


def test_notes_proper_keep_their_order(setup: Setup) -> None:
    digest = "newsletter/2021_06_22.md"
    off = [h.path for h in _files(setup, 0.0) if h.path != digest]
    on = [h.path for h in _files(setup, 1.0) if h.path != digest]
    assert on == off


def test_the_page_part_is_in_the_components_and_the_trace_adds_up(setup: Setup) -> None:
    hits = {h.path: h for h in _files(setup, 1.0)}
    assert hits["luks.md"].components["page"] == 1.0
    assert hits["newsletter/2021_06_22.md"].components["page"] == 0.0
    off = {h.path: h for h in _files(setup, 0.0)}
    assert off["luks.md"].components["page"] is None  # the part is off: not reported as 0
