"""bench/page_kinds.py: kinds of a vault on disk and precision/recall against a path prefix."""

from __future__ import annotations

from pathlib import Path

from tests.bench.bench_scripts import load_bench

pk = load_bench("page_kinds")


def test_vault_kinds_and_scores(tmp_path: Path) -> None:
    (tmp_path / "newsletter").mkdir()
    (tmp_path / ".obsidian").mkdir()
    (tmp_path / "newsletter" / "2021_04_10.md").write_text("### [A](a.md)\n\n* New: a.\n")
    (tmp_path / "newsletter" / "2021_04_11.md").write_text("# Other\n\n* Added a logo.\n")
    (tmp_path / "a.md").write_text("---\ntitle: A\n---\nA note about a.\n")
    (tmp_path / ".obsidian" / "2021_04_12.md").write_text("### [A](a.md)\n")  # hidden: skipped
    kinds = pk.vault_kinds(tmp_path)
    assert kinds == {"newsletter/2021_04_10.md": "digest", "newsletter/2021_04_11.md": "note",
                     "a.md": "note"}  # fmt: skip
    s = pk.scores(kinds, "digest", "newsletter/")
    assert (s["true"], s["found"], s["precision"], s["recall"]) == (2, 1, 1.0, 0.5)
    assert s["missed"] == ["newsletter/2021_04_11.md"] and s["extra"] == []
