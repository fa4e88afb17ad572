"""The benchmark suite: one table, one row per vault, in bench/out/results.{md,json}.

    .venv/bin/python bench/run.py [--vaults ID,...] [--synth-model] [--quick]
        [--out DIR] [--shared DIR] [--collect-only]

Per vault, each step in its own process (so peak RSS and the model's load time are that step's
alone), logs and JSON beside the results:

1. synthetic vaults only: ``synth_vault.py`` (seed 1) writes the source vault, once;
2. ``index_bench.py``: copies the vault into ``<out>/work/<id>/vault`` (the source, e.g. the
   read-only /work/shared corpus, is never written), then full index, the same inputs embedded
   alone (the ratio), no-op re-index, one-note edit, peak RSS;
3. ``query_bench.py`` on that copy: cold starts first (fresh ``vaultheat search --json``
   processes, and ``vaultheat serve`` to its first /v1/search answer), then search and related
   p50/p95 and the query process's peak RSS.

Vaults (``--vaults``, comma-separated; ``default`` = the first five):

    help-en            /work/shared/corpus/obsidian-help/en, the default model, eval queries
    vaultofknowledge   the shared corpus, the default model, note titles as queries
    dendron-site       the shared corpus, the default model, note titles as queries
    synth-1000         synth_vault.py --notes 1000, FakeEmbedder(384): the model EXCLUDED
    synth-10000        synth_vault.py --notes 10000, FakeEmbedder(384): the model EXCLUDED
    synth-10000-model  the same 10,000 notes with the default model (slow: ~40 min to 2 h on
                       2 cores; only with --synth-model or when named)
    example            the repo's examples/vault, the default model (what --quick uses)

``--quick`` is a smoke run (about a minute): the example vault with the default model and
synth-1000, 20 requests per kind, one cold start; its results go to bench/out/quick unless
``--out`` says otherwise, so a smoke run never overwrites a full one.

``--collect-only`` rebuilds results.json/results.md from the JSON files already in ``--out``
(run-meta.json, index-<id>.json, query-<id>.json); a vault without them is listed as absent.
The table itself is made by bench/results_table.py.
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib.metadata
import json
import os
import platform
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from results_table import write_results

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
DEFAULT_OUT = HERE / "out"
SHARED = Path("/work/shared") if Path("/work/shared").is_dir() else REPO.parent / "shared"
VERSIONED = (
    "vaultheat",
    "torch",
    "onnxruntime",
    "sentence-transformers",
    "transformers",
    "hnswlib",
    "numpy",
)


@dataclass(frozen=True)
class Vault:
    id: str
    source: str = ""  # relative to --shared (corpus vaults) or to the repo ("example")
    notes: int = 0  # synthetic vaults: how many notes synth_vault.py writes
    fake: bool = False  # FakeEmbedder(384) instead of the configured model
    queries: str = ""  # eval set under --shared (search queries), else note titles
    in_repo: bool = False


VAULTS: dict[str, Vault] = {
    v.id: v
    for v in (
        Vault("help-en", "corpus/obsidian-help/en", queries="eval/obsidian-help-en.queries.jsonl"),
        Vault("vaultofknowledge", "corpus/vaultofknowledge"),
        Vault("dendron-site", "corpus/dendron-site"),
        Vault("synth-1000", notes=1000, fake=True),
        Vault("synth-10000", notes=10000, fake=True),
        Vault("synth-10000-model", notes=10000),
        Vault("example", "examples/vault", in_repo=True),
    )
}
DEFAULT_VAULTS = ["help-en", "vaultofknowledge", "dendron-site", "synth-1000", "synth-10000"]
QUICK_VAULTS = ["example", "synth-1000"]


@dataclass(frozen=True)
class Sizes:
    """Requests per kind and cold-start repeats; --quick makes them small."""

    n_corpus: int = 200
    n_synth: int = 100
    profile_n: int = 60
    cold_runs: int = 3


FULL, QUICK = Sizes(), Sizes(n_corpus=20, n_synth=20, profile_n=5, cold_runs=1)


# -- running ---------------------------------------------------------------------------------
def machine_info() -> dict[str, Any]:
    """What the numbers depend on, recorded when the run starts (not when collecting)."""
    ram = 0.0
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                ram = int(line.split()[1]) / 1024**2
    except OSError:
        pass
    versions = {}
    for name in VERSIONED:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = "absent"
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return {
        "platform": platform.platform(),
        "cpus_usable": usable,
        "cpus_online": os.cpu_count(),
        "ram_gib": round(ram, 1),
        "python": platform.python_version(),
        "versions": versions,
        "load_avg_1m": round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None,
        "commit": git_commit(),
    }


def git_commit() -> str | None:
    """The checked-out commit, read from .git (no git process), or None."""
    try:
        head = (REPO / ".git" / "HEAD").read_text().strip()
        if not head.startswith("ref: "):
            return head
        ref = head[5:]
        loose = REPO / ".git" / ref
        if loose.is_file():
            return loose.read_text().strip()
        for line in (REPO / ".git" / "packed-refs").read_text().splitlines():
            if line.endswith(" " + ref):
                return line.split()[0]
    except OSError:
        pass
    return None


def display_path(path: str) -> str:
    """``path`` relative to the working directory when it lies below it."""
    try:
        return str(Path(os.path.abspath(path)).relative_to(Path.cwd()))
    except ValueError:
        return path


class Runner:
    """Runs the steps and keeps run-meta.json current, so an interrupted run still collects."""

    def __init__(self, out: Path, meta: dict[str, Any]) -> None:
        self.out = out
        self.meta = meta
        self.save()

    def save(self) -> None:
        text = json.dumps(self.meta, indent=2) + "\n"
        (self.out / "run-meta.json").write_text(text, encoding="utf-8")

    def step(self, vault: str, kind: str, args: list[str]) -> bool:
        log = self.out / f"{kind}-{vault}.log"
        cmd = [sys.executable, *args]
        print(f"$ {shlex.join(cmd)}  > {log}", file=sys.stderr, flush=True)
        t0 = time.perf_counter()
        with log.open("w") as fh:
            rc = subprocess.run(cmd, stdout=fh, stderr=subprocess.STDOUT, check=False).returncode
        wall = round(time.perf_counter() - t0, 1)
        self.meta["steps"].append(
            {"vault": vault, "step": kind, "rc": rc, "wall_s": wall, "log": log.name}
        )
        self.save()
        print(f"  {kind} {vault}: rc {rc}, {wall} s", file=sys.stderr, flush=True)
        return rc == 0


def run_vault(r: Runner, v: Vault, shared: Path, sizes: Sizes) -> None:
    out, work = r.out, r.out / "work"
    for stale in (out / f"index-{v.id}.json", out / f"query-{v.id}.json"):
        stale.unlink(missing_ok=True)
    if v.notes:
        src = work / f"synth-{v.notes}-src"
        marker = src / ".synth"
        if not (marker.is_file() and marker.read_text() == f"notes={v.notes} seed=1\n"):
            synth = [str(HERE / "synth_vault.py"), str(src), "--notes", str(v.notes), "--seed", "1"]
            if not r.step(v.id, "synth", synth):
                return
    else:
        src = (REPO if v.in_repo else shared) / v.source
        if not src.is_dir():
            r.meta["skipped"][v.id] = f"{src} is absent"
            r.save()
            print(f"skipping {v.id}: {src} is absent", file=sys.stderr)
            return
    fake = ["--fake"] if v.fake else []
    index = [
        str(HERE / "index_bench.py"),
        "--vault",
        str(src),
        "--workdir",
        str(work / v.id),
        "--out",
        str(out / f"index-{v.id}.json"),
        *fake,
    ]
    if not r.step(v.id, "index", index):
        return
    n = sizes.n_synth if v.notes else sizes.n_corpus
    query = [
        str(HERE / "query_bench.py"),
        "--vault",
        str(work / v.id / "vault"),
        "--n",
        str(n),
        "--profile-n",
        str(sizes.profile_n),
        "--cold-start",
        str(sizes.cold_runs),
        "--serve-cold-start",
        "--out",
        str(out / f"query-{v.id}.json"),
        *fake,
    ]
    if v.queries and (shared / v.queries).is_file():
        query += ["--queries", str(shared / v.queries)]
    r.step(v.id, "query", query)


# -- command line ------------------------------------------------------------------------------
def parse_vaults(text: str, synth_model: bool) -> list[str]:
    ids: list[str] = []
    for item in (s.strip() for s in text.split(",")):
        for vid in DEFAULT_VAULTS if item == "default" else [item] if item else []:
            if vid not in VAULTS:
                raise SystemExit(f"unknown vault {vid!r}; known: default, {', '.join(VAULTS)}")
            if vid not in ids:
                ids.append(vid)
    if synth_model and "synth-10000-model" not in ids:
        ids.append("synth-10000-model")
    return ids


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--vaults", default=None, help="comma-separated ids (default: 'default')")
    p.add_argument("--synth-model", action="store_true", help="add synth-10000-model (slow)")
    p.add_argument("--quick", action="store_true", help="a ~2 minute smoke run")
    p.add_argument("--out", type=Path, default=None, help="results folder (default bench/out)")
    p.add_argument("--shared", type=Path, default=SHARED, help="folder holding corpus/ and eval/")
    p.add_argument("--collect-only", action="store_true")
    a = p.parse_args(argv)
    out = a.out or (DEFAULT_OUT / "quick" if a.quick else DEFAULT_OUT)
    out.mkdir(parents=True, exist_ok=True)
    if not a.collect_only:
        default = ",".join(QUICK_VAULTS) if a.quick else "default"
        vaults = parse_vaults(a.vaults or default, a.synth_model)
        command = shlex.join([display_path(sys.executable), display_path(__file__), *argv])
        meta: dict[str, Any] = {
            "command": command,
            "started": dt.datetime.now().astimezone().isoformat(timespec="seconds"),
            "quick": a.quick,
            "vaults": vaults,
            "machine": machine_info(),
            "steps": [],
            "skipped": {},
        }
        runner = Runner(out, meta)
        for vid in vaults:
            run_vault(runner, VAULTS[vid], a.shared, QUICK if a.quick else FULL)
        meta["finished"] = dt.datetime.now().astimezone().isoformat(timespec="seconds")
        runner.save()
    md = write_results(out, DEFAULT_VAULTS)
    print(md)
    print(f"wrote {out / 'results.md'} and {out / 'results.json'}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
