"""``table_sizes`` (bench/index_size.py's report): every table's pages counted once, FTS5's
shadow tables under ``chunks_fts``, which holds no copy of the text (m008)."""

from __future__ import annotations

from typing import Any

from vaultheat.storage.dbsize import table_sizes


def test_table_sizes_of_an_index(fake_engine: Any) -> None:
    fake_engine.close()
    out = table_sizes(fake_engine.paths.db)
    assert out["chunks"] > 0 and out["fts_rows"] == out["chunks"]
    assert set(out["chunks_fts_shadows_mib"]) == {
        "chunks_fts_config", "chunks_fts_data", "chunks_fts_docsize", "chunks_fts_idx",
    }  # fmt: skip
    assert "chunks_fts_data" not in out["tables_mib"] and "chunks_fts" in out["tables_mib"]
    assert sum(out["tables_mib"].values()) <= out["file_mib"] + 0.1
