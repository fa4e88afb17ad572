"""Run every benchmark and collect the results into bench/out/results.json + results.md.

    .venv/bin/python bench/run.py [--help-vault PATH] [--queries eval.jsonl]
        [--sizes 1000 10000] [--n 200] [--collect-only]

Steps (each in its own process, so memory and the model's load time are measured cleanly):

1. index_bench on the Obsidian help vault (en) with the default model;
2. query_bench on that index (the eval queries + titles; the default model);
3. for each ``--sizes`` N: synth_vault (seed 1), index_bench ``--fake`` and query_bench
   ``--fake`` on it (the model excluded: HNSW + graph + pipeline scaling).

Work folders (vault copies and their indexes) live in bench/out/work (git-ignored);
``--collect-only`` rebuilds results.json/results.md from the per-step JSON files already there.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import platform
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
OUT = HERE / "out"
WORK = OUT / "work"
HELP_VAULT = Path("/work/shared/corpus/obsidian-help/en")
HELP_QUERIES = Path("/work/shared/eval/obsidian-help-en.queries.jsonl")


def step(args: list[str], log: Path) -> None:
    print("$", " ".join(args), file=sys.stderr)
    with log.open("w") as fh:
        subprocess.run([sys.executable, *args], check=True, stdout=fh, stderr=subprocess.STDOUT)


def run_steps(a: argparse.Namespace) -> None:
    WORK.mkdir(parents=True, exist_ok=True)
    py = [str(HERE / name) for name in ("index_bench.py", "query_bench.py", "synth_vault.py")]
    index_py, query_py, synth_py = py
    if a.help_vault.is_dir():
        step([index_py, "--vault", str(a.help_vault), "--workdir", str(WORK / "help-en"),
              "--out", str(OUT / "index-help-en.json")], OUT / "index-help-en.log")  # fmt: skip
        step([query_py, "--vault", str(WORK / "help-en" / "vault"), "--queries", str(a.queries),
              "--n", str(a.n), "--profile-n", "60", "--out", str(OUT / "query-help-en.json")],
             OUT / "query-help-en.log")  # fmt: skip
    else:
        print(f"skipping the help vault: {a.help_vault} is absent", file=sys.stderr)
    for n in a.sizes:
        src = WORK / f"synth-{n}-src"
        step([synth_py, str(src), "--notes", str(n), "--seed", "1"], OUT / f"synth-{n}.log")
        step([index_py, "--vault", str(src), "--fake", "--workdir", str(WORK / f"synth-{n}"),
              "--out", str(OUT / f"index-synth-{n}.json")],
             OUT / f"index-synth-{n}.log")  # fmt: skip
        step([query_py, "--vault", str(WORK / f"synth-{n}" / "vault"), "--fake",
              "--n", str(a.synth_n), "--out", str(OUT / f"query-synth-{n}.json")],
             OUT / f"query-synth-{n}.log")  # fmt: skip


def collect() -> dict[str, Any]:
    results: dict[str, Any] = {
        "date": dt.date.today().isoformat(),
        "python": platform.python_version(),
        "machine": platform.machine(),
        "runs": {},
    }
    for file in sorted(OUT.glob("*.json")):
        if file.name == "results.json":
            continue
        results["runs"][file.stem] = json.loads(file.read_text())
    return results


def scaling_table(runs: dict[str, Any]) -> list[str]:
    rows = sorted(
        (r for k, r in runs.items() if k.startswith("query-synth-")), key=lambda r: r["notes"]
    )
    if len(rows) < 2:
        return []
    out = [
        "Scaling with vault size (FakeEmbedder: the model is EXCLUDED):",
        "",
        "| notes | chunks | search p50 / p95 ms | related p50 / p95 ms | "
        "search CPU p50 ms | related CPU p50 ms |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        lat, cpu = r["latency_ms"], r["cpu_ms"]
        out.append(
            f"| {r['notes']} | {r['chunks']} | {lat['search']['p50']} / {lat['search']['p95']} | "
            f"{lat['related']['p50']} / {lat['related']['p95']} | {cpu['search']['p50']} | "
            f"{cpu['related']['p50']} |"
        )
    return out


def write_markdown(results: dict[str, Any]) -> str:
    parts = [f"# vaultheat benchmark results ({results['date']})", ""]
    for name, run in results["runs"].items():
        if "markdown" in run:
            parts += [f"## {name}", "", run["markdown"], ""]
    parts += scaling_table(results["runs"])
    return "\n".join(parts) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--help-vault", type=Path, default=HELP_VAULT)
    p.add_argument("--queries", type=Path, default=HELP_QUERIES)
    p.add_argument("--sizes", type=int, nargs="*", default=[1000, 10000])
    p.add_argument("--n", type=int, default=200, help="requests per kind on the help vault")
    p.add_argument("--synth-n", type=int, default=100, help="requests per kind, synthetic vaults")
    p.add_argument("--collect-only", action="store_true")
    a = p.parse_args(argv)
    if not a.collect_only:
        run_steps(a)
    results = collect()
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "results.json").write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    md = write_markdown(results)
    (OUT / "results.md").write_text(md, encoding="utf-8")
    print(md)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
