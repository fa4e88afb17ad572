"""bench/eval_messy.py: graded metrics, junk share, paired intervals and the BM25 floor."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


def load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up here
    spec.loader.exec_module(module)
    return module


em = load("eval_messy")


def item(**kw: object) -> object:
    base: dict[str, object] = {
        "id": "q",
        "query": "q",
        "category": "keyword",
        "relevant": ("a.md",),
    }
    base.update(kw)
    return em.GradedItem(**base)


def test_relevant_first_scores_one_and_partial_counts_half() -> None:
    it = item(partial=("p.md",), ruled_out=("junk.md",))
    s = em.score(it, ["a.md", "p.md"])
    assert s["ndcg_at_5"] == pytest.approx(1.0)
    assert s["mrr"] == 1.0 and s["hit_at_1"] == 1.0 and s["recall_at_10"] == 1.0
    # a partial note first is not a hit, but still earns graded gain
    s2 = em.score(it, ["p.md", "a.md"])
    assert s2["hit_at_1"] == 0.0 and s2["mrr"] == 0.5
    assert 0.0 < s2["ndcg_at_5"] < 1.0


def test_junk_share_counts_ruled_out_slots_of_the_top_ten() -> None:
    it = item(ruled_out=("j1.md", "j2.md"))
    ranking = ["j1.md", "x.md", "j2.md", "a.md"] + [f"n{i}.md" for i in range(10)]
    assert em.score(it, ranking)["junk_share"] == pytest.approx(0.2)
    # a ruled-out note below rank 10 does not count
    assert em.score(it, [f"n{i}.md" for i in range(10)] + ["j1.md"])["junk_share"] == 0.0


def test_paired_interval_excludes_zero_only_for_a_consistent_gain() -> None:
    better = [{"mrr": 1.0}] * 20
    worse = [{"mrr": 0.0}] * 20
    d = em.paired(better, worse, "mrr")
    assert d["delta"] == 1.0 and d["ci_low"] > 0
    mixed = [{"mrr": float(i % 2)} for i in range(20)]
    t = em.paired(mixed, [{"mrr": 0.5}] * 20, "mrr")
    assert t["ci_low"] <= 0 <= t["ci_high"]


def test_bm25_floor_weights_titles_and_skips_frontmatter(tmp_path: Path) -> None:
    (tmp_path / "kanban.md").write_text("---\ntags: [excalidraw]\n---\nboards with columns\n")
    (tmp_path / "other.md").write_text("kanban mentioned once among many other words here\n")
    (tmp_path / "draw.md").write_text("excalidraw sketches\n")
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "kanban.md").write_text("kanban kanban kanban\n")
    idx = em.bm25_of_vault(tmp_path)
    assert idx.rank("kanban")[0] == "kanban.md"  # title x2 beats one body mention
    assert ".hidden/kanban.md" not in idx.rank("kanban")
    assert idx.rank("excalidraw") == ["draw.md"]  # frontmatter is not body text


def test_eval_corpus_runs_the_messy_vault_with_its_search_set() -> None:
    ec = load("eval_corpus")
    vault, queries, linkpred = ec.vault_sets()["waylonwalker"]
    assert vault.name == "waylonwalker"
    assert queries is not None and queries.name == "waylonwalker.queries.jsonl"
    assert linkpred.name == "waylonwalker.linkpred.jsonl"


def test_exact_titles_keeps_only_names_one_note_holds(tmp_path: Path) -> None:
    et = load("exact_titles")
    (tmp_path / "Kanban.md").write_text("---\naliases: [Boards]\n---\nbody\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "kanban.md").write_text("another note with the same name\n")
    (tmp_path / "Excalidraw.md").write_text("---\naliases: [boards]\n---\ndrawing\n")
    (tmp_path / "2024.md").write_text("a name without letters\n")
    names = et.unique_names(tmp_path)
    assert names == [("Excalidraw", "Excalidraw.md")]  # kanban x2 and boards x2 are shared


def test_a_drop_in_junk_share_reads_better() -> None:
    lower = {"delta": -0.03, "ci_low": -0.05, "ci_high": -0.01}
    assert em.fmt(lower, "junk_share").endswith("better")
    assert em.fmt(lower, "mrr").endswith("worse")
