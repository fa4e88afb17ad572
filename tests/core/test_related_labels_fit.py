"""The index run fits related notes' labels on the vault's links (core/query/calibration.py) and the
engine labels with that fit: once per vault state, for its own model, off by a setting."""

from __future__ import annotations

import json
from typing import Any

import pytest

from vaultheat.core.query import calibration
from vaultheat.core.query.calibration import LABELS_KEY, VaultCurve
from vaultheat.core.query.relevance import curve_for, rate
from vaultheat.core.requests import RelatedRequest
from vaultheat.engine import Engine

NOTE = "Garden/Composting.md"


def stored_fit(engine: Engine) -> VaultCurve | None:
    raw = engine.views.store().manifest_raw(LABELS_KEY)
    return VaultCurve.from_doc(json.loads(raw)) if raw else None


def test_index_run_fits_and_related_reads_the_fit(fake_engine: Any) -> None:
    fit = stored_fit(fake_engine)
    assert fit is not None and fit.curve is not None
    assert fit.model == fake_engine.models.embedder.fingerprint
    assert (
        fit.notes == fake_engine.views.store().note_count() and fit.linked >= calibration.MIN_LINKED
    )
    res = fake_engine.related(RelatedRequest(path=NOTE, top=10))
    s = fake_engine.settings
    model = curve_for(s.embeddings.provider, s.embeddings.model, "related")
    moved = 0
    for h in res.results:
        share = h.votes.share * h.votes.hub_factor if h.votes is not None else 0.0
        cosine = h.components.get("vector")
        assert (h.relevance, h.relevance_label) == rate(cosine, share, fit.curve)
        moved += rate(cosine, share, model) != rate(cosine, share, fit.curve)
    assert moved  # the fit is not the model's curve under another name


def test_fit_is_kept_until_the_vault_moves_on(
    fake_engine: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    def must_not_fit(*a: Any, **kw: Any) -> Any:
        raise AssertionError("refitted a fit that is not stale")

    monkeypatch.setattr(calibration, "fit_vault_curve", must_not_fit)
    report = fake_engine.index()  # nothing changed: the stored fit stands
    assert report.timings["labels"] >= 0
    monkeypatch.undo()
    fit = stored_fit(fake_engine)
    assert fit is not None
    # a fit made for another model is stale: the next run fits again, for this one
    with _writer(fake_engine) as store:
        doc = {**fit.to_doc(), "model": "another model"}
        store.set_manifest(**{LABELS_KEY: doc})
    fake_engine.index()
    again = stored_fit(fake_engine)
    assert again is not None and again.model == fake_engine.models.embedder.fingerprint


def test_labels_off_reads_the_models_curve(fake_engine: Any) -> None:
    s = fake_engine.settings
    off = fake_engine.with_settings(s.with_value("related.fit_labels", False))
    model = curve_for(s.embeddings.provider, s.embeddings.model, "related")
    for h in off.related(RelatedRequest(path=NOTE, top=10)).results:
        share = h.votes.share * h.votes.hub_factor if h.votes is not None else 0.0
        assert (h.relevance, h.relevance_label) == rate(h.components.get("vector"), share, model)


def _writer(engine: Engine) -> Any:
    from contextlib import contextmanager

    from vaultheat.storage.store import Store

    @contextmanager
    def cm() -> Any:
        store = Store(engine.paths.db)
        try:
            with store.transaction():
                yield store
        finally:
            store.close()

    return cm()


def test_status_says_where_the_labels_come_from(
    fake_engine: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from vaultheat.documents import status_document
    from vaultheat.status_lines import labels_line

    fit = stored_fit(fake_engine)
    assert fit is not None
    st = fake_engine.status()
    assert st.labels is not None and st.labels.source == "vault"
    assert (st.labels.sampled, st.labels.linked) == (fit.sampled, fit.linked)
    doc = status_document(st)
    line = labels_line(doc["labels"])
    assert line.startswith("related labels: fitted on the links of this vault")
    off = fake_engine.with_settings(fake_engine.settings.with_value("related.fit_labels", False))
    assert off.status().labels is None
    # a vault that links too little: the fit is recorded, the model's curve applies
    monkeypatch.setattr(calibration, "MIN_LINKED", 10**6)
    with _writer(fake_engine) as store:
        store.set_manifest(**{LABELS_KEY: {**fit.to_doc(), "model": "another model"}})
    fake_engine.index()
    st = fake_engine.status()
    assert st.labels is not None and st.labels.source == "model"
    assert "the model curve" in labels_line(status_document(st)["labels"])
