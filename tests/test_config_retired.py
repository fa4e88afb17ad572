"""Retired config keys (config.RETIRED): an old config file that sets one still loads, says it
is ignored, and an unknown key is still an error."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from vaultheat.config import RETIRED, Settings, load_settings
from vaultheat.errors import ConfigError


def test_a_retired_key_loads_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    cfg = tmp_path / "config.toml"
    cfg.write_text("[chunking]\nreader_text = true\nmin_chars = 77\n", encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="vaultheat.config"):
        s = load_settings(cfg)
    assert s.chunking.min_chars == 77  # the rest of the section still reads
    assert "chunking.reader_text" in RETIRED
    assert any("chunking.reader_text" in r.getMessage() for r in caplog.records)
    assert not hasattr(s.chunking, "reader_text")


def test_an_unknown_key_is_still_an_error(tmp_path: Path) -> None:
    cfg = tmp_path / "config.toml"
    cfg.write_text("[chunking]\nreader_txt = true\n", encoding="utf-8")
    with pytest.raises(ConfigError):
        load_settings(cfg)
    with pytest.raises(ConfigError):
        Settings().with_value("chunking.reader_text", True)  # not a key to set any more
