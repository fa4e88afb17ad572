"""The link heat settings (related.link_heat, _weight, _alpha): defaults and validation."""

from __future__ import annotations

from pathlib import Path

import pytest

from vaultheat.config import CHOICES, Settings, load_settings
from vaultheat.core.query.linkheat import KINDS
from vaultheat.errors import ConfigError


def test_defaults_are_the_measured_ones() -> None:
    r = Settings().related
    assert r.link_heat == "ppr"  # docs/eval.md "Held-out links and link heat"
    assert r.link_heat_weight == 0.3 and r.link_heat_alpha == 0.3
    # votes hub-damped, the chance term kept ("Hubs out of the first place")
    assert r.link_heat_chance == 0.5
    assert r.vote_hub_degree == 10 and r.vote_linked_hub_degree == 4


def test_the_choices_are_the_kinds_link_heat_knows() -> None:
    assert set(CHOICES["related.link_heat"]) == set(KINDS)
    for kind in KINDS:
        assert Settings().with_value("related.link_heat", kind).related.link_heat == kind


@pytest.mark.parametrize("value", ["bogus", "PageRank", ""])
def test_an_unknown_kind_is_a_config_error(value: str) -> None:
    with pytest.raises(ConfigError, match=r"related\.link_heat"):
        Settings().with_value("related.link_heat", value)


@pytest.mark.parametrize("value", [0, 0.0, 1.5, -0.2, "0", "1.01"])
def test_alpha_outside_zero_one_is_a_config_error(value: object) -> None:
    with pytest.raises(ConfigError, match=r"related\.link_heat_alpha"):
        Settings().with_value("related.link_heat_alpha", value)


@pytest.mark.parametrize(("value", "expected"), [(1, 1.0), (1.0, 1.0), ("0.05", 0.05)])
def test_alpha_in_the_range_is_accepted(value: object, expected: float) -> None:
    alpha = Settings().with_value("related.link_heat_alpha", value).related.link_heat_alpha
    assert alpha == pytest.approx(expected, abs=1e-12)


def test_weight_must_not_be_negative() -> None:
    assert Settings().with_value("related.link_heat_weight", 0).related.link_heat_weight == 0
    with pytest.raises(ConfigError):
        Settings().with_value("related.link_heat_weight", -0.1)


def test_the_config_file_is_validated_too(tmp_path: Path) -> None:
    cfg = tmp_path / "config.toml"
    cfg.write_text('[related]\nlink_heat = "ra"\nlink_heat_alpha = 0.5\n')
    s = load_settings(cfg)
    assert (s.related.link_heat, s.related.link_heat_alpha) == ("ra", 0.5)
    cfg.write_text('[related]\nlink_heat = "bogus"\n')
    with pytest.raises(ConfigError):
        load_settings(cfg)
    cfg.write_text("[related]\nlink_heat_alpha = 0.0\n")
    with pytest.raises(ConfigError):
        load_settings(cfg)
