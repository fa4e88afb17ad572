"""Retired config keys (config.RETIRED): an old config file that sets one still loads, says it
is ignored, and an unknown key is still an error. Moved keys (config.MOVED) load into their new
place under [experimental]."""

from __future__ import annotations

import dataclasses
import json
import logging
from pathlib import Path

import pytest

from vaultheat.cli import main
from vaultheat.config import (
    MOVED,
    RETIRED,
    ExperimentalSettings,
    Settings,
    load_settings,
    settings_from_dict,
    settings_to_dict,
)
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


@pytest.mark.parametrize("old", sorted(MOVED))
def test_a_moved_key_loads_into_its_new_place_with_a_warning(
    old: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A key that serves only experiments moved under [experimental] (config.MOVED): an old
    config file that sets it still loads, the value lands on the new key, and the warning names
    it; ``--set`` and eval overrides with the old name set the new key the same way."""
    new = MOVED[old]
    section, name = old.split(".")
    default = Settings().get(new)
    value = (not default) if isinstance(default, bool) else default + type(default)(1)
    cfg = tmp_path / "config.toml"
    cfg.write_text(f"[{section}]\n{name} = {json.dumps(value)}\n", encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="vaultheat.config"):
        s = load_settings(cfg)
    assert s.get(new) == value and s.get(old) == value
    assert not hasattr(getattr(s, section), name)
    assert any(old in r.getMessage() and new in r.getMessage() for r in caplog.records)
    assert Settings().with_value(old, str(value)) == s  # --set / overrides, old name
    assert Settings().with_overrides({old: value}) == s
    dumped = settings_to_dict(s, only_changed=True)
    assert dumped == {"experimental": {new.split(".")[1]: value}}  # written under the new name
    assert settings_from_dict(dumped) == s


def test_moved_keys_keep_their_defaults_and_the_rest_is_unchanged() -> None:
    """Every moved key is a field of [experimental]; nothing else moved."""
    fields = {f"experimental.{f.name}" for f in dataclasses.fields(ExperimentalSettings)}
    assert set(MOVED.values()) == fields
    dotted = {f"{sect}.{k}" for sect, vals in settings_to_dict(Settings()).items() for k in vals}
    assert fields <= dotted and not set(MOVED) & dotted


def test_config_set_with_an_old_name_writes_the_new_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    vault = tmp_path / "v"
    vault.mkdir()
    (vault / "a.md").write_text("# a\n", encoding="utf-8")
    assert main(["init", str(vault)]) == 0
    capsys.readouterr()
    assert main(["config", "set", "search.hops", "2", "--vault", str(vault)]) == 0
    assert capsys.readouterr()[0].strip() == "experimental.search_hops = 2"
    s = load_settings(vault / ".vaultheat" / "config.toml")
    assert s.experimental.search_hops == 2
    text = (vault / ".vaultheat" / "config.toml").read_text(encoding="utf-8")
    assert "[experimental]" in text and "[search]" not in text
