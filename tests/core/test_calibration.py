"""Related notes' labels fitted on the vault's own links (core/query/calibration.py), on an
in-memory view: the fit reads linked pairs as the evidence rises, keeps the model curve's vote
weight, needs enough links, and its stored form says when it is stale."""

from __future__ import annotations

import pytest

from tests.core.fakes import FakeModels, fake_view
from vaultheat.config import Settings
from vaultheat.core.query import calibration
from vaultheat.core.query.calibration import VaultCurve, fit_vault_curve
from vaultheat.core.query.relevance import Curve

TOPICS = [
    ("espresso", "espresso crema portafilter tamping pressure shot"),
    ("tomatoes", "tomatoes blossom calcium watering seedlings trellis"),
    ("kyoto", "kyoto temples shrines maple autumn trains"),
    ("sourdough", "sourdough starter levain crumb proofing flour"),
    ("chess", "chess openings gambit endgame rook bishop"),
    ("cycling", "cycling saddle gears cadence climbing wheels"),
    ("knitting", "knitting yarn needles purl stitches scarf"),
    ("astronomy", "astronomy telescope nebula galaxy orbit comet"),
    ("pottery", "pottery clay wheel glaze kiln firing"),
    ("birding", "birding warbler binoculars migration heron nests"),
    ("guitar", "guitar chords frets strings capo strumming"),
    ("beekeeping", "beekeeping hive queen honey frames swarm"),
    ("sailing", "sailing jib mainsail tacking harbour knots"),
    ("origami", "origami crane folds paper crease models"),
    ("fermenting", "fermenting kimchi brine jars cabbage lactobacillus"),
    ("climbing", "climbing belay crimps harness boulder chalk"),
]
BASE = Curve((0.4, 0.9), (0.0, 0.8), share_weight=0.75)


def vault_of_pairs(linked: bool = True) -> list[tuple[str, str, list[str]]]:
    """Two notes per topic sharing its words; with ``linked`` each links its twin, so a
    close note is a linked one and a far note is not."""
    notes = []
    for name, words in TOPICS:
        a, b = f"{name}/one.md", f"{name}/two.md"
        notes.append((a, f"Notes on {words}.\n\nMore about {words} today.", [b] if linked else []))
        notes.append((b, f"{words.title()} again.\n\nA second look at {words}.", []))
    return notes


def test_fit_reads_the_vaults_own_links() -> None:
    models = FakeModels()
    view = fake_view(vault_of_pairs(), models)
    fit = fit_vault_curve(view, models, Settings(), BASE, model="fake", notes=32, links=16,
                          sample=32)  # fmt: skip
    assert fit.sampled == 32 and fit.points > 0
    assert fit.linked == 32  # every note's twin is among its related notes, and linked
    assert fit.curve is not None
    assert fit.curve.share_weight == BASE.share_weight  # the evidence reads as the model's does
    assert list(fit.curve.ps) == sorted(fit.curve.ps)  # monotone
    # a close, linked twin reads far likelier than the farthest unrelated note
    assert fit.curve(fit.curve.xs[-1]) > fit.curve(fit.curve.xs[0]) + 0.3
    assert (fit.model, fit.notes, fit.links) == ("fake", 32, 16)


def test_fit_samples_by_seed() -> None:
    models = FakeModels()
    view = fake_view(vault_of_pairs(), models)
    a = fit_vault_curve(view, models, Settings(), BASE, model="m", notes=32, links=16, sample=6)
    b = fit_vault_curve(view, models, Settings(), BASE, model="m", notes=32, links=16, sample=6)
    assert a == b  # the same seed, the same sample
    assert a.sampled == 6


def test_too_few_links_keep_the_models_curve(monkeypatch: pytest.MonkeyPatch) -> None:
    models = FakeModels()
    unlinked = fake_view(vault_of_pairs(linked=False), models)
    fit = fit_vault_curve(unlinked, models, Settings(), BASE, model="m", notes=32, links=0)
    assert fit.sampled == 0 and fit.curve is None  # no note has a link to learn from
    linked = fake_view(vault_of_pairs(), models)
    monkeypatch.setattr(calibration, "MIN_LINKED", 33)  # one more than the vault holds
    fit = fit_vault_curve(linked, models, Settings(), BASE, model="m", notes=32, links=16)
    assert fit.linked == 32 and fit.curve is None


def test_stored_form_round_trips_and_says_when_stale() -> None:
    fit = VaultCurve(Curve((0.5, 0.9), (0.1, 0.6), 0.75), "m", 200, 400, 150, 1500, 300)
    back = VaultCurve.from_doc(fit.to_doc())
    assert back == fit
    none = VaultCurve(None, "m", 10, 2, 5, 50, 3)
    assert VaultCurve.from_doc(none.to_doc()) == none
    for bad in (None, {}, {"model": "m"}, {**fit.to_doc(), "curve": {"xs": [1]}}, "x"):
        assert VaultCurve.from_doc(bad) is None
    assert not fit.stale("m", 200, 400)
    assert not fit.stale("m", 219, 361)  # within a tenth
    assert fit.stale("other", 200, 400)
    assert fit.stale("m", 221, 400)
    assert fit.stale("m", 200, 359)
