"""Cross-encoder reranking on a tiny on-the-fly model; make_reranker never raises."""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from vaultheat.config import RerankSettings
from vaultheat.providers.base import Reranker
from vaultheat.providers.rerank import (
    CrossEncoderReranker,
    activate_logits,
    make_reranker,
    sigmoid,
)


def reference_logits(model_dir: Path, query: str, texts: list[str]) -> np.ndarray:
    """Raw logits straight from transformers, bypassing sentence-transformers."""
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(str(model_dir))
    model = AutoModelForSequenceClassification.from_pretrained(str(model_dir)).eval()
    batch = tok([query] * len(texts), texts, padding=True, truncation=True, return_tensors="pt")
    with torch.no_grad():
        return model(**batch).logits[:, 0].numpy().astype(np.float64)


@pytest.mark.parametrize(
    ("logits", "expected"),
    [
        ([0.0, 2.0, -2.0], [0.5, 1 / (1 + np.exp(-2.0)), 1 / (1 + np.exp(2.0))]),
        ([[0.0], [1.0]], [0.5, 1 / (1 + np.exp(-1.0))]),
        ([[0.0, 0.0], [0.0, np.log(3.0)]], [0.5, 0.75]),
        ([1000.0, -1000.0], [1.0, 0.0]),
    ],
    ids=["1d-sigmoid", "column-sigmoid", "two-class-softmax", "no-overflow"],
)
def test_activate_logits(logits: list, expected: list[float]) -> None:
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        np.testing.assert_allclose(activate_logits(np.array(logits)), expected, atol=1e-12)


@given(st.lists(st.floats(-50, 50), min_size=1, max_size=30))
def test_sigmoid_matches_reference_and_keeps_order(xs: list[float]) -> None:
    arr = np.array(xs)
    out = sigmoid(arr)
    np.testing.assert_allclose(out, 1.0 / (1.0 + np.exp(-arr)), rtol=1e-12, atol=1e-300)
    order = np.argsort(arr, kind="stable")
    assert np.all(np.diff(out[order]) >= 0)


def test_scores_are_sigmoid_of_raw_logits(tiny_ce_dir: Path) -> None:
    rr = CrossEncoderReranker(RerankSettings(enabled=True, model=str(tiny_ce_dir), device="cpu"))
    assert not rr.loaded
    assert rr.score("cat", []) == [] and not rr.loaded
    texts = ["the cat sat on the mat", "quarterly tax filing", "a dog"]
    scores = rr.score("cat on a mat", texts)
    assert rr.loaded and isinstance(rr, Reranker)
    assert all(isinstance(s, float) and 0.0 < s < 1.0 for s in scores)
    expected = sigmoid(reference_logits(tiny_ce_dir, "cat on a mat", texts))
    np.testing.assert_allclose(scores, expected, atol=1e-5)


def test_make_reranker_disabled_is_quiet(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    assert make_reranker(RerankSettings(enabled=False, model="whatever")) is None
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


@pytest.mark.parametrize(
    ("model", "reason"),
    [
        ("", "rerank: off (no reranker configured)"),
        ("/no/such/reranker", "rerank: off (reranker directory not found"),
        ("no-such-org/no-such-reranker-vaultheat", "rerank: off (cannot load"),
    ],
    ids=["unconfigured", "missing-dir", "hub-id-offline-uncached"],
)
def test_make_reranker_unavailable_logs_one_warning(
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    model: str,
    reason: str,
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path))
    assert make_reranker(RerankSettings(enabled=True, model=model)) is None
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1
    assert warnings[0].getMessage().startswith(reason)


def test_make_reranker_loads_eagerly_or_lazily(tiny_ce_dir: Path) -> None:
    settings = RerankSettings(enabled=True, model=str(tiny_ce_dir), device="cpu")
    eager = make_reranker(settings)
    assert isinstance(eager, CrossEncoderReranker) and eager.loaded
    lazy = make_reranker(settings, eager=False)
    assert isinstance(lazy, CrossEncoderReranker) and not lazy.loaded
    assert lazy.name == str(tiny_ce_dir)
