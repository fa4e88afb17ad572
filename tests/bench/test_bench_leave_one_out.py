"""bench/leave_one_out.py: a variant chosen on the other vaults, judged on the one left out."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.bench.bench_scripts import load_bench

loo = load_bench("leave_one_out")


def _pair(delta: float) -> dict[str, float]:
    return {"delta": delta, "ci_low": delta - 0.05, "ci_high": delta + 0.05, "n": 40}


def _messy(vault: str, mrr: dict[str, float]) -> dict[str, Any]:
    """A name_variants document: each variant's MRR as given, other metrics fixed."""
    out: dict[str, Any] = {"vault": f"/tmp/{vault}", "base": "base", "messy": {}}
    for name, value in mrr.items():
        scores = {"ndcg_at_5": 0.5, "mrr": value, "hit_at_1": 0.4, "junk_share": 0.1}
        out["messy"][name] = {
            "summary": {"all": scores},
            "vs_base": {
                m: _pair(value - mrr["base"] if m == "mrr" else 0.0) for m in loo.MESSY_METRICS
            },
            "vs_bm25": {m: _pair(0.1) for m in loo.MESSY_METRICS},
        }
    return out


def test_each_vault_gets_the_variant_the_other_vaults_chose() -> None:
    a = _messy("a", {"base": 0.70, "x": 0.90, "y": 0.60})  # x wins here
    b = _messy("b", {"base": 0.70, "x": 0.65, "y": 0.80})  # y wins here
    t = loo.table([a, b], [], "mrr")
    by = {r["vault"]: r for r in t["messy"]}
    # a is judged with b's winner (y), which loses on a; b with a's winner (x), which loses on b
    assert by["a"]["variant"] == "y" and by["a"]["chosen_on"] == ["b"]
    assert by["a"]["scores"]["mrr"] == pytest.approx(0.60)
    assert by["a"]["vs_base"]["mrr"]["delta"] == pytest.approx(-0.10)
    assert by["b"]["variant"] == "x" and by["b"]["base_scores"]["mrr"] == pytest.approx(0.70)
    text = loo.render(t)
    assert "a: 'y' (chosen on b)" in text and "mrr        0.700 -> 0.600" in text


def test_ties_go_to_the_base_and_junk_share_is_lower_better() -> None:
    a = _messy("a", {"base": 0.7, "x": 0.7})
    b = _messy("b", {"base": 0.7, "x": 0.7})
    assert [r["variant"] for r in loo.table([a, b], [], "mrr")["messy"]] == ["base", "base"]
    for doc, junk in ((a, {"base": 0.3, "x": 0.1}), (b, {"base": 0.3, "x": 0.2})):
        for name, v in junk.items():
            doc["messy"][name]["summary"]["all"]["junk_share"] = v
    assert loo.choose([a], "junk_share") == "x"


def test_curated_documents_report_the_chosen_variants_and_bases_must_agree(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = _messy("a", {"base": 0.7, "x": 0.9})
    b = _messy("b", {"base": 0.7, "x": 0.8})
    cur = {"vault": "/tmp/help", "base": "base", "curated": {
        name: {"scores": {"ndcg_at_10": 0.8, "mrr": 0.7, "hit_at_1": 0.6},
               "vs_base": {m: _pair(0.0) for m in loo.CURATED_METRICS}}
        for name in ("base", "x")}}  # fmt: skip
    paths = []
    for name, doc in (("a", a), ("b", b), ("c", cur)):
        paths.append(tmp_path / f"{name}.json")
        paths[-1].write_text(json.dumps(doc), encoding="utf-8")
    assert loo.main(["--messy", str(paths[0]), str(paths[1]), "--curated", str(paths[2])]) == 0
    out = capsys.readouterr().out
    assert "help (curated): 'x': ndcg_at_10 0.800" in out
    cur["base"] = "other"
    with pytest.raises(SystemExit):
        loo.table([a, b], [cur], "mrr")
    with pytest.raises(SystemExit):
        loo.table([a], [], "mrr")
