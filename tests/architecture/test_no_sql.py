"""SQL lives only in ``vaultheat/storage/``: no other module, nor a benchmark script in
``bench/``, runs a statement or holds one.

Read from the source (ast): ``.execute`` / ``.executemany`` / ``.executescript`` (called or
aliased), or a string literal (f-string pieces included) holding a SQL statement, outside storage
fails the test with its file and line. Everything else reads the index through named ``Store``
methods.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tests.architecture.imports import ROOT, module_files

STORAGE = "vaultheat.storage"
CALLS = {"execute", "executemany", "executescript"}
# a statement keyword with what must follow it; uppercase only, so prose ("select a model") passes
SQL = re.compile(
    r"\bSELECT\s+(?:\*|DISTINCT\s|count\(|\S[^\n]*?\sFROM\s)|\bSELECT\s*$"
    r"|\bFROM\s+\w+(?:\s+\w+)?\s+(?:WHERE|JOIN)\s|\bINSERT\s+(?:OR\s+\w+\s+)?INTO\s|\bDELETE\s+FROM\s"
    r"|\bUPDATE\s+\w+\s+SET\s|\b(?:CREATE|DROP)\s+(?:VIRTUAL\s+|TEMP\s+)?(?:TABLE|INDEX)\s"
)


def sql_sites(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    rel = path.relative_to(ROOT.parent)
    out: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in CALLS:  # a call or an alias of one
            out.append(f"{rel}:{node.lineno} uses .{node.attr}")
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and SQL.search(node.value)
        ):
            out.append(f"{rel}:{node.lineno} holds SQL {node.value[:60]!r}")
    return out


def test_the_pattern_knows_sql_from_prose() -> None:
    hits = [
        "SELECT c.id FROM chunks c",
        "SELECT count(*) FROM notes",
        "SELECT id, path FROM notes",
        "INSERT OR IGNORE INTO pending_knn(chunk_id) VALUES (?)",
        "DELETE FROM edges WHERE kind = 'similar'",
        "UPDATE notes SET mtime_ns = ?",
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.vh_vocab",
        "SELECT 1 FROM chunks c WHERE c.note_id = n.id",
        "SELECT ",  # the piece of f"SELECT {cols} FROM chunks" before the placeholder
        " FROM chunks c WHERE c.id IN (",
    ]
    prose = [
        "SELECT a model in the settings",
        "DELETE the index folder to start over",
        "UPDATE",
        "select id from the list",
    ]
    assert all(SQL.search(s) for s in hits)
    assert not any(SQL.search(s) for s in prose)


def test_storage_itself_is_found() -> None:
    """Guards the scan: storage's own SQL is seen (so an empty result elsewhere means none)."""
    files = module_files()
    assert sql_sites(files["vaultheat.storage.store"])


def test_no_sql_outside_storage() -> None:
    files = [
        path
        for name, path in module_files().items()
        if not (name == STORAGE or name.startswith(STORAGE + "."))
    ]
    files += sorted((ROOT.parent / "bench").glob("*.py"))  # the benchmarks read through Store too
    found = [site for path in files for site in sql_sites(path)]
    assert not found, "SQL outside storage/ (add a named Store method):\n" + "\n".join(found)
