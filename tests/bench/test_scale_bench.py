"""bench/scale_bench.py on a small synthetic vault with the fake embedder: every figure is filled
and the source vault is never written."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench"


def load(name: str):  # type: ignore[no-untyped-def]
    sys.path.insert(0, str(BENCH))
    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCH / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_scale_bench_fills_every_figure(tmp_path: Path) -> None:
    synth, scale = load("synth_vault"), load("scale_bench")
    src = tmp_path / "src"
    synth.generate(src, 40, seed=3)
    before = {p: p.read_bytes() for p in src.rglob("*") if p.is_file()}
    res = scale.run(src, tmp_path / "work", fake=True, n_queries=5)
    assert {p: p.read_bytes() for p in src.rglob("*") if p.is_file()} == before
    assert res["notes"] == 40 and res["chunks"] >= 40
    assert res["first_answer_hits"] > 0
    assert 0 < res["words_phase_s"] <= res["first_answer_s"]
    assert res["words_phase_s"] < res["full_index_s"]
    f = res["findable_at_first_answer"]
    assert f["lexical_rows"] == f["chunks"] == res["chunks"]
    assert f["title_found_top10"] >= f["title_sample"] - 1
    assert res["vectors"] == res["chunks"]
    assert res["index_bytes"] > 0 and res["vault_bytes"] > 0
    assert res["search_ms"]["p95"] >= res["search_ms"]["p50"] > 0
    assert res["related_ms"]["p95"] >= res["related_ms"]["p50"] > 0
    assert res["edit_chunks"]["embedded"] >= 1
    assert res["noop_s"] > 0 and res["rss_end"]["peak_mib"] > 0
    assert "time to first answer" in scale.markdown(res)
