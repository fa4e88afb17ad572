"""Load: clients against a real server process while re-indexes run (full rebuilds, or notes
deleted and re-created between incremental runs).

A same-model ``--full`` rebuilds in place, so queries must keep answering 200 throughout (no
409 index_missing), and the server must be alive at the end. The long run and the soak are
``bench/load_test.py``; figures in docs/reliability.md.
"""

from __future__ import annotations

import pytest
from bench.load_test import run_load

pytestmark = pytest.mark.slow  # the reliability suite: `pytest -m "not slow"` skips it


def test_four_clients_ten_seconds_during_full_reindex_have_no_errors() -> None:
    doc = run_load(clients=4, seconds=10, notes=150)
    assert doc["server_alive"]
    assert doc["errors"] == 0, doc["error_samples"]
    assert doc["requests"] > 40
    assert doc["full_reindexes"] >= 1
    assert doc["server_peak_rss_mib"] < 1536


def test_eight_clients_while_notes_are_deleted_and_recreated_have_no_errors() -> None:
    """Chunk ids die and are born between index runs while 8 clients query: each query reads
    one index generation (one frozen view, one read transaction), so none fails."""
    doc = run_load(clients=8, seconds=10, notes=150, churn=True)
    assert doc["server_alive"]
    assert doc["errors"] == 0, doc["error_samples"]
    assert doc["churn_runs"] >= 2  # at least one deletion and one re-creation
    assert doc["per_kind"]["related"]["n"] > 10 and doc["per_kind"]["search"]["n"] > 10
