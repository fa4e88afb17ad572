"""bench/strict_configs.py: strict related notes under made configurations, and the pairing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.bench.bench_scripts import load_bench
from tests.bench.test_bench_heldout_links import VAULT
from tests.conftest import open_fake_index

sc = load_bench("strict_configs")

SET = [
    {"note": "A.md", "relevant": ["B.md", "C.md", "D.md"]},
    {"note": "C.md", "relevant": ["D.md"]},
    {"note": "D.md", "relevant": ["E.md"]},
]


def _indexed(tmp_path: Path) -> tuple[Path, Path]:
    vault = tmp_path / "vault"
    vault.mkdir()
    for name, text in VAULT.items():
        (vault / name).write_text(text, encoding="utf-8")
    open_fake_index(vault).close()
    linkpred = tmp_path / "set.jsonl"
    linkpred.write_text("".join(json.dumps(x) + "\n" for x in SET), encoding="utf-8")
    return vault, linkpred


def test_run_writes_the_ranks_of_each_config_built_in_or_made(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    vault, linkpred = _indexed(tmp_path)
    out = tmp_path / "out.json"
    rc = sc.main(["run", "--vault", str(vault), "--linkpred", str(linkpred), "--out", str(out),
                  "--configs", "default,lexical-only", "--set",
                  "lexical-only:search.score_vector=0"])  # fmt: skip
    assert rc == 0
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert list(doc) == ["default", "lexical-only"]
    assert [len(doc[name]) for name in doc] == [3, 3]  # one rank list per note of the set
    assert [len(r) for r in doc["default"]] == [3, 1, 1]  # a rank (or null) per relevant note
    printed = capsys.readouterr().out
    assert "default" in printed and "nDCG@10" in printed


def test_pair_prints_the_difference_and_refuses_two_sets(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b, c = tmp_path / "a.json", tmp_path / "b.json", tmp_path / "c.json"
    a.write_text(json.dumps({"default": [[1], [3], [None]]}), encoding="utf-8")
    b.write_text(json.dumps({"default": [[1], [1], [1]]}), encoding="utf-8")
    c.write_text(json.dumps({"default": [[1]]}), encoding="utf-8")
    assert sc.main(["pair", str(a), str(b)]) == 0
    lines = capsys.readouterr().out.splitlines()
    mrr = next(line for line in lines if " mrr " in line)
    # A's MRR (1 + 1/3 + 0) / 3 = 0.444, B's 1.000; two of three notes better, none worse
    assert "0.444 -> 1.000" in mrr and "better 2 worse 0 of 3" in mrr
    with pytest.raises(SystemExit):
        sc.main(["pair", str(a), str(c)])
