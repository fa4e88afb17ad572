"""The dependency rule, checked on the source: no import cycle between modules or between
packages, and core, storage and providers stay below the shells.

README "Architecture": core owns its protocols (``core/ports.py``), storage implements them,
the CLI, HTTP server and agents are shells over core. A cycle or an upward import breaks that
silently (Python resolves most cycles at run time), so a test reads every import instead.
"""

from __future__ import annotations

import pytest

from tests.architecture.imports import PACKAGE, all_imports, cycle_path, cycles, package_of

SHELLS = {
    "server",
    "agents",
    "evaluation",
    "cli",
    "commands",
    "console",
    "render",
    "status_lines",
    "vault_setup",
    "__main__",
}
SHELL_LIBS = {"aiohttp", "mcp"}  # the HTTP server's and the agent protocol's libraries
STORAGE_LIBS = {"sqlite3", "hnswlib"}  # SQL and the vector file are storage's
# package-graph node -> the nodes and third-party modules it must never import
FORBIDDEN: dict[str, set[str]] = {
    "core": SHELLS
    | SHELL_LIBS
    | {"storage", "engine", "indexing", "check", "index_inspect"}
    | STORAGE_LIBS,
    "storage": SHELLS | SHELL_LIBS | {"engine", "indexing", "providers"},
    "providers": SHELLS | SHELL_LIBS | {"storage", "engine", "indexing"},
    # the shells reach the index through the engine and the Store: a failing read arrives as
    # the project's IndexChangedError, never as sqlite3's own error type
    **{shell: STORAGE_LIBS for shell in SHELLS},
}

IMPORTS = all_imports()
MODULE_EDGES = [(i.source, i.target) for i in IMPORTS if i.internal]
PACKAGE_EDGES = [(package_of(a), package_of(b)) for a, b in MODULE_EDGES]


def test_core_calls_models_only_through_their_protocols() -> None:
    bad = sorted(
        f"{imp.source}:{imp.line} imports {imp.target}"
        for imp in IMPORTS
        if package_of(imp.source) == "core"
        and imp.internal
        and package_of(imp.target) == "providers"
        and imp.target != "vaultheat.providers.base"
    )
    assert not bad, "core reaches past providers/base.py:\n" + "\n".join(bad)


def _describe(components: list[list[str]], edges: list[tuple[str, str]]) -> str:
    return "; ".join(" -> ".join(cycle_path(c, edges)) for c in components)


def test_the_walker_sees_every_kind_of_import() -> None:
    """Guards the test itself: relative, ``from`` and function-level imports are all read."""
    by_source: dict[str, set[str]] = {}
    for imp in IMPORTS:
        by_source.setdefault(imp.source, set()).add(imp.target)
    assert len(by_source) > 60
    # a function-level import (core/query/related.py imports core.vault.lexical inside _all_terms)
    assert "vaultheat.core.vault.lexical" in by_source["vaultheat.core.query.related"]
    # `from vaultheat.core import models`-style and plain `from x.y import name`
    assert "vaultheat.core.models" in by_source["vaultheat.storage.chunks"]
    assert "aiohttp" in by_source["vaultheat.server.app"]


def test_no_module_level_cycle() -> None:
    found = cycles(MODULE_EDGES)
    assert not found, f"import cycle between modules: {_describe(found, MODULE_EDGES)}"


def test_no_package_level_cycle() -> None:
    found = cycles(PACKAGE_EDGES)
    assert not found, f"import cycle between packages: {_describe(found, PACKAGE_EDGES)}"


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_lower_layers_do_not_import_upward(layer: str) -> None:
    bad = sorted(
        f"{imp.source}:{imp.line} imports {imp.target}"
        for imp in IMPORTS
        if package_of(imp.source) == layer
        and (package_of(imp.target) if imp.internal else imp.target) in FORBIDDEN[layer]
    )
    assert not bad, f"{PACKAGE}.{layer} reaches above itself:\n" + "\n".join(bad)


# core's rooms (``vaultheat/core/__init__.py``): the shared types at its top level, ``vault``
# (reading a vault into notes, chunks and links) and ``query`` (answering search, related notes
# and explain). Room -> the rooms it must never import: the shared types import neither room,
# reading a vault never reaches the queries, so no cycle runs between the rooms.
CORE_ROOMS = ("vault", "query")
ROOM_FORBIDDEN: dict[str, set[str]] = {
    "core": {"core.vault", "core.query"},
    "core.vault": {"core.query"},
}


def core_room(module: str) -> str | None:
    """The room of a core module: ``core.vault``, ``core.query`` or ``core`` (its top level)."""
    parts = module.split(".")
    if parts[:2] != [PACKAGE, "core"]:
        return None
    return f"core.{parts[2]}" if len(parts) > 3 and parts[2] in CORE_ROOMS else "core"


def test_every_core_module_lives_in_a_room_or_is_a_shared_type() -> None:
    """A new sub-package of core is a new room: name it here, with what it may import."""
    subs = {i.source.split(".")[2] for i in IMPORTS if i.source.count(".") > 2
            and i.source.startswith(f"{PACKAGE}.core.")}  # fmt: skip
    assert subs <= set(CORE_ROOMS), sorted(subs - set(CORE_ROOMS))


def test_no_cycle_between_core_rooms() -> None:
    edges = [(core_room(a), core_room(b)) for a, b in MODULE_EDGES]
    room_edges = [(a, b) for a, b in edges if a is not None and b is not None]
    found = cycles(room_edges)
    assert not found, f"import cycle between core's rooms: {_describe(found, room_edges)}"


@pytest.mark.parametrize("room", sorted(ROOM_FORBIDDEN))
def test_core_rooms_import_only_below_themselves(room: str) -> None:
    bad = sorted(
        f"{imp.source}:{imp.line} imports {imp.target}"
        for imp in IMPORTS
        if imp.internal and core_room(imp.source) == room
        and core_room(imp.target) in ROOM_FORBIDDEN[room]
    )  # fmt: skip
    assert not bad, f"{PACKAGE}.{room} imports a room above it:\n" + "\n".join(bad)
