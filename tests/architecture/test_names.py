"""No vaultheat module shadows a standard-library module (``vaultheat/inspect.py`` did), and
the CLI's engine opener is typed, so mypy checks every command that uses it."""

from __future__ import annotations

import inspect
import sys
from pathlib import Path

import vaultheat
from vaultheat import commands

PACKAGE = Path(vaultheat.__file__).parent


def test_no_module_shadows_the_standard_library() -> None:
    names = {p.stem for p in PACKAGE.rglob("*.py") if p.stem != "__init__"}
    names |= {p.name for p in PACKAGE.rglob("*") if p.is_dir() and (p / "__init__.py").exists()}
    assert sorted(names & set(sys.stdlib_module_names)) == []


def test_the_cli_engine_opener_returns_an_engine_not_any() -> None:
    assert inspect.signature(commands._engine).return_annotation == "Engine"
