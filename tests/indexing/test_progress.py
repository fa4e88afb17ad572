"""Progress on stderr: steady lines without a terminal, no rate or ETA before they mean anything."""

from __future__ import annotations

import io
import logging
from pathlib import Path

import pytest

from vaultheat.console import ProgressBar


class Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def _bar(tty: bool) -> tuple[ProgressBar, io.StringIO, Clock]:
    out, clock = io.StringIO(), Clock()
    return ProgressBar(stream=out, tty=tty, clock=clock, interval_s=10.0), out, clock


def test_no_tty_prints_a_line_at_a_steady_interval() -> None:
    bar, out, clock = _bar(tty=False)
    bar("index", 0, 6571)
    for done in range(1, 601):  # 600 ticks, 1 s apart: 10 minutes
        clock.t += 1.0
        bar("index", done * 10, 6571)
    clock.t += 1.0
    bar("index", 6571, 6571)
    lines = out.getvalue().splitlines()
    assert lines[0] == "vaultheat: index: 6,571 to do"
    ticks = [line for line in lines[1:] if " of 6,571" in line]
    assert 55 <= len(ticks) <= 61  # about one per 10 s
    assert ticks[0] == "vaultheat: index: 100 of 6,571 (2%)  10.0/s  eta 10m47s"
    assert lines[-1].startswith("vaultheat: index: done 6,571 of 6,571")


def test_first_tick_has_no_rate_or_eta() -> None:
    for tty in (False, True):
        bar, out, clock = _bar(tty=tty)
        bar("index", 0, 100)
        clock.t += 0.0001
        bar("index", 1, 100)
        text = out.getvalue()
        assert "/s" not in text and "eta" not in text, text
        clock.t += 30
        bar("index", 50, 100)
        assert "eta" in out.getvalue()


def test_tty_redraws_in_place() -> None:
    bar, out, clock = _bar(tty=True)
    for done in range(0, 11):
        clock.t += 1.0
        bar("graph", done, 10)
    bar.close()
    text = out.getvalue()
    assert "\r" in text and text.endswith("\n")
    assert "10/10" in text


def test_first_model_export_says_what_it_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from vaultheat.providers import onnx_export

    monkeypatch.setattr(onnx_export, "publish", lambda out_dir, build: None)
    with caplog.at_level(logging.INFO, logger="vaultheat"):
        onnx_export.export_model(tmp_path / "model", tmp_path / "out", precision="int8")
    text = caplog.text
    assert "first use" in text and "once" in text
    assert "converted in" in text


def test_server_progress_has_no_rate_on_the_first_tick() -> None:
    from vaultheat.server.worker import progress_doc

    assert progress_doc("index", 1, 100, started=10.0, now=10.0001)["rate"] is None
    doc = progress_doc("index", 50, 100, started=10.0, now=20.0)
    assert doc["rate"] == 5.0 and doc["eta_s"] == 10.0
