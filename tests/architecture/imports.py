"""The package's import graph, read from the source (ast, nothing imported).

Every ``import`` and ``from ... import`` counts, wherever it sits (module level, inside a
function, under ``if TYPE_CHECKING``): a function-level import is still a dependency, it is only
paid for later. ``from a import b`` points at the module ``a.b`` when there is one, else at
``a``. Parent packages are not added as edges (importing ``a.b`` runs ``a/__init__`` first,
but that is Python's loading order, not a dependency the code chose). ``importlib.import_module``
is not read: the one use by name (providers/registry loading providers/onnx_embedder) closes no
cycle, since onnx_embedder never imports registry.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2] / "sidecar"
PACKAGE = "vaultheat"
# the sub-packages that are one node each in the package graph; other modules are their own node
PACKAGES = ("core", "storage", "providers", "indexing", "server", "agents", "evaluation")


@dataclass(frozen=True)
class Import:
    source: str  # importing module
    target: str  # imported module (internal) or top-level name (external)
    line: int
    internal: bool


def module_files(root: Path = ROOT) -> dict[str, Path]:
    """Dotted module name -> file, for every .py under the package."""
    out: dict[str, Path] = {}
    for path in sorted((root / PACKAGE).rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _resolve(name: str, modules: Mapping[str, Path]) -> str | None:
    """The longest prefix of ``name`` that is one of our modules."""
    parts = name.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in modules:
            return candidate
        parts.pop()
    return None


def _base(module: str, is_package: bool, level: int, name: str | None) -> str:
    """Absolute module named by a (possibly relative) ``from`` clause."""
    if level == 0:
        return name or ""
    parts = module.split(".")
    if not is_package:
        parts = parts[:-1]
    if level > 1:
        parts = parts[: len(parts) - (level - 1)]
    return ".".join([*parts, name] if name else parts)


def imports_of(module: str, path: Path, modules: Mapping[str, Path]) -> list[Import]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    is_package = path.name == "__init__.py"
    out: list[Import] = []

    def add(name: str, line: int) -> None:
        target = _resolve(name, modules) if name.split(".")[0] == PACKAGE else None
        if target is not None:
            if target != module:
                out.append(Import(module, target, line, True))
        else:
            out.append(Import(module, name.split(".")[0], line, False))

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            base = _base(module, is_package, node.level, node.module)
            for alias in node.names:
                full = f"{base}.{alias.name}"
                add(full if full in modules else base, node.lineno)
    return out


def all_imports(root: Path = ROOT) -> list[Import]:
    modules = module_files(root)
    return [imp for name, path in modules.items() for imp in imports_of(name, path, modules)]


def package_of(module: str) -> str:
    """The package-graph node of a module: its sub-package, or the module itself."""
    parts = module.split(".")
    if len(parts) >= 2 and parts[1] in PACKAGES:
        return parts[1]
    return parts[-1] if len(parts) > 1 else PACKAGE


def cycles(edges: Iterable[tuple[str, str]]) -> list[list[str]]:
    """Strongly connected components with more than one node (Tarjan), each sorted."""
    graph: dict[str, set[str]] = {}
    for a, b in edges:
        if a != b:
            graph.setdefault(a, set()).add(b)
            graph.setdefault(b, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def visit(v: str) -> None:  # recursion depth is bounded by the module count (~100)
        nonlocal counter
        index[v] = low[v] = counter
        counter += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found)


def cycle_path(component: list[str], edges: Iterable[tuple[str, str]]) -> list[str]:
    """One concrete loop inside a component, for a readable failure message."""
    members = set(component)
    graph: dict[str, list[str]] = {}
    for a, b in edges:
        if a in members and b in members and a != b:
            graph.setdefault(a, []).append(b)
    start = component[0]
    prev: dict[str, str] = {}
    frontier = [start]
    while frontier:
        nxt = []
        for v in frontier:
            for w in sorted(graph.get(v, ())):
                if w == start:
                    path = [v]
                    while path[-1] != start:
                        path.append(prev[path[-1]])
                    return [*reversed(path), start]
                if w not in prev:
                    prev[w] = v
                    nxt.append(w)
        frontier = nxt
    return component
