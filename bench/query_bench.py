"""Query benchmark: p50/p95 of ``engine.search`` and ``engine.related``, plus a profile.

    .venv/bin/python bench/query_bench.py --vault PATH [--index-dir DIR] [--fake]
        [--queries eval.jsonl] [--n 200] [--cold-start N] [--serve-cold-start]
        [--out results.json]

On an indexed vault (the index is built first when missing; a vault under /work/shared is never
written: its index then goes to a temporary folder unless ``--index-dir`` is given):

- 200 searches: the queries of ``--queries`` (a JSONL file with a ``query`` field) repeated,
  topped up with note titles. With the real model the query cache is cleared before every call,
  so each search pays its query embedding, as a freshly typed query does;
- 200 related requests for random notes (fixed seed): half by path (the saved note), half with
  unsaved text = the file text plus one extra sentence (different per request, so the changed
  chunk is embedded every time) and a cursor at the end of the text;
- rerank off (the default) and expansion off; the model is loaded and warmed first.

``--fake`` swaps the model for ``FakeEmbedder(dimension=384)`` (a hashed bag of words: well under
1 ms per query, shown in the profile as "query embedding"), so the numbers are the HNSW + SQLite
+ graph + pipeline stages, WITHOUT the model's cost: use it on synthetic vaults of different
sizes to see how the index-side stages scale.

Then the same workload runs once more under cProfile, and the cumulative time per call of the
pipeline stages (and the top functions by own time) are reported. ``peak_rss_query_mib`` is
this process's peak RSS after the timed requests (model, vectors, graph, caches).

Cold start, in fresh processes and before this process loads anything (``--cold-start N``):
N times ``vaultheat search QUERY --vault V --json``, timed from spawn to the first line of its
answer on stdout (and to its exit), with the child's peak RSS (``wait4``); with
``--serve-cold-start``, once ``vaultheat serve --port 0`` from spawn to the first 200 answer
of ``POST /v1/search`` (polled), and the server's VmHWM at that moment. With ``--fake`` the
child is the same CLI code with the registry's fake embedder set to 384 dimensions (the index
was built with ``FakeEmbedder(384)``), so it measures opening the index, not loading a model.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import random
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from vaultheat.config import Settings, save_settings
from vaultheat.core.requests import RelatedRequest, SearchRequest
from vaultheat.engine import Engine
from vaultheat.paths import index_paths

TARGET_SEARCH_P95_MS = 50.0
TARGET_RELATED_P95_MS = 30.0
EXTRA = " I am still writing this note and just added sentence number {i} about syncing files."

# (label, file suffix, function name) of the stages whose cumulative time is reported
STAGES: list[tuple[str, str, str]] = [
    ("search total", "core/query/search.py", "run_search"),
    ("related total", "core/query/related.py", "run_related"),
    ("query embedding (model)", "core/query/search.py", "embed_query"),
    ("unsaved text: parse+chunk+embed", "core/query/query_note.py", "_text_chunks"),
    ("  chunk_note", "core/vault/chunking.py", "chunk_note"),
    ("  embed_documents (model)", "providers/local.py", "embed_documents"),
    ("related: LinkResolver build", "core/vault/resolve.py", "__init__"),
    ("related: distinctive_terms", "core/query/related.py", "distinctive_terms"),
    ("retrieve (pipeline)", "core/query/pipeline.py", "retrieve"),
    ("  hnswlib search", "storage/vectors.py", "search"),
    ("  FTS5 lexical search", "storage/chunks.py", "lexical_search"),
    ("  heat propagation", "core/query/heat.py", "propagate_heat"),
    ("  graph neighbours", "core/query/pipeline.py", "neighbors"),
    ("  vectors.get_vectors", "storage/vectors.py", "get_vectors"),
    ("  combine scores", "core/query/scoring.py", "combine"),
    ("note_scores (files)", "core/query/search.py", "note_scores"),
    ("store.chunks (rows)", "storage/chunks.py", "chunks"),
    ("view build (per generation)", "vaultheat/views.py", "current"),
]


def pct(xs: list[float]) -> dict[str, float]:
    """n, p50, p95, max and mean in milliseconds (inputs in seconds)."""
    s = sorted(xs)

    def q(p: float) -> float:
        return round(s[min(len(s) - 1, int(p * len(s)))] * 1000, 2)

    return {"n": len(s), "p50": q(0.50), "p95": q(0.95), "max": round(s[-1] * 1000, 2),
            "mean": round(statistics.fmean(s) * 1000, 2)}  # fmt: skip


def make_fake() -> Any:
    from vaultheat.providers.fake import FakeEmbedder

    return FakeEmbedder(dimension=384)


def ensure_index(vault: Path, index_dir: Path | None, fake: bool) -> Engine:
    paths = index_paths(vault, index_dir)
    embedder = make_fake() if fake else None
    if not paths.db.exists():
        paths.root.mkdir(parents=True, exist_ok=True)
        if not paths.config.exists():
            st = Settings()
            if fake:
                st = st.with_value("embeddings.provider", "fake")
            save_settings(paths.config, st)
        print(f"building the index of {vault} in {paths.root} ...", file=sys.stderr)
        t0 = time.perf_counter()
        Engine.open(vault, index_dir, embedder=embedder).index()
        print(f"indexed in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    return Engine.open(vault, index_dir, embedder=embedder)


def workload(
    engine: Engine, queries_file: Path | None, n: int, seed: int
) -> tuple[list[SearchRequest], list[RelatedRequest]]:
    store = engine.views.store()
    rows = [(n.path, n.title) for n in store.notes_with_chunks()]
    rng = random.Random(seed)
    texts: list[str] = []
    if queries_file is not None and queries_file.is_file():
        qs = [json.loads(line)["query"] for line in queries_file.read_text().splitlines() if line]
        while len(texts) + len(qs) <= n // 2:
            texts += qs  # the eval queries repeated ...
    titles = [str(t) or str(p) for p, t in rows]
    while len(texts) < n:
        texts.append(rng.choice(titles))  # ... topped up with note titles
    searches = [SearchRequest(query=q) for q in texts[:n]]
    related: list[RelatedRequest] = []
    for i in range(n):
        path = str(rng.choice(rows)[0])
        if i % 2 == 0:
            related.append(RelatedRequest(path=path))
        else:
            text = (engine.paths.vault / path).read_text(encoding="utf-8") + EXTRA.format(i=i)
            cursor = len(text.encode("utf-8"))
            related.append(RelatedRequest(path=path, text=text, cursor=cursor))
    return searches, related


# the CLI in a fresh process with the fake embedder at the benchmark's 384 dimensions
FAKE_CLI = (
    "import sys\n"
    "import vaultheat.providers.registry as registry\n"
    "registry.FAKE_DIMENSION = 384\n"
    "from vaultheat.cli import main\n"
    "sys.exit(main(sys.argv[1:]))\n"
)


def peak_rss_mib() -> float:
    """This process's peak resident memory (``ru_maxrss`` is KiB on Linux)."""
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def cli_command(fake: bool) -> list[str]:
    """How a user starts ``vaultheat``: the console script beside this interpreter."""
    if fake:
        return [sys.executable, "-c", FAKE_CLI]
    script = Path(sys.executable).with_name("vaultheat")
    return [str(script)] if script.exists() else [sys.executable, "-m", "vaultheat"]


def location_args(vault: Path, index_dir: Path | None) -> list[str]:
    return ["--vault", str(vault)] + (["--index-dir", str(index_dir)] if index_dir else [])


def time_child(cmd: list[str]) -> dict[str, Any]:
    """Spawn ``cmd``; seconds to its first stdout line and to its exit, its peak RSS."""
    with tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err, stdin=subprocess.DEVNULL)
        assert proc.stdout is not None
        first = proc.stdout.readline()
        answer_s = time.perf_counter() - t0
        proc.stdout.read()
        proc.stdout.close()
        _pid, status, usage = os.wait4(proc.pid, 0)  # reap it ourselves: its rusage alone
        exit_s = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        tail = err.read()[-2000:].decode("utf-8", "replace")
    out: dict[str, Any] = {"answer_s": round(answer_s, 3), "exit_s": round(exit_s, 3),
                           "peak_rss_mib": round(usage.ru_maxrss / 1024, 1),
                           "rc": proc.returncode}  # fmt: skip
    try:
        out["results"] = len(json.loads(first)["results"])
    except (ValueError, KeyError, TypeError):
        out["results"] = None
        out["stderr_tail"] = tail
    return out


def cold_start_cli(
    vault: Path, index_dir: Path | None, query: str, fake: bool, runs: int
) -> dict[str, Any]:
    cmd = [*cli_command(fake), "search", query, *location_args(vault, index_dir), "--json"]
    done = [time_child(cmd) for _ in range(runs)]
    ok = [r for r in done if r["rc"] == 0 and r["results"] is not None]
    return {
        "command": cmd if not fake else ["python", "-c", "<FAKE_CLI>", *cmd[3:]],
        "runs": done,
        "answer_s_median": round(statistics.median(r["answer_s"] for r in ok), 3) if ok else None,
        "peak_rss_mib_median": (
            round(statistics.median(r["peak_rss_mib"] for r in ok), 1) if ok else None
        ),
        "failed": len(done) - len(ok),
    }


def vm_hwm_mib(pid: int) -> float | None:
    """Peak RSS of another live process (Linux /proc), None elsewhere."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    return None


def cold_start_serve(
    vault: Path, index_dir: Path | None, query: str, fake: bool, timeout_s: float = 600
) -> dict[str, Any]:
    """``vaultheat serve --port 0`` from spawn to the first 200 answer of /v1/search."""
    import httpx

    from vaultheat.server.discovery import read_discovery

    server_file = index_paths(vault, index_dir).server
    cmd = [*cli_command(fake), "serve", *location_args(vault, index_dir), "--port", "0"]
    res: dict[str, Any] = {"command": cmd if not fake else ["python", "-c", "<FAKE_CLI>", *cmd[3:]]}
    with tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err)
        deadline = time.monotonic() + timeout_s
        try:
            info = read_discovery(server_file)
            while info is None or info.pid != proc.pid:
                if proc.poll() is not None or time.monotonic() > deadline:
                    err.seek(0)
                    res["error"] = "the server did not start: " + err.read()[-1500:].decode(
                        "utf-8", "replace"
                    )
                    return res
                time.sleep(0.02)
                info = read_discovery(server_file)
            res["listening_s"] = round(time.perf_counter() - t0, 3)
            codes: dict[int, int] = {}
            headers = {"Authorization": f"Bearer {info.token}"}
            with httpx.Client(base_url=info.url, headers=headers, timeout=timeout_s) as client:
                while time.monotonic() < deadline:
                    resp = client.post("/v1/search", json={"query": query})
                    codes[resp.status_code] = codes.get(resp.status_code, 0) + 1
                    if resp.status_code == 200:
                        res["answer_s"] = round(time.perf_counter() - t0, 3)
                        res["results"] = len(resp.json()["results"])
                        break
                    time.sleep(0.05)
            res["codes_seen"] = codes
            res["peak_rss_mib_at_answer"] = vm_hwm_mib(proc.pid)
            if "answer_s" not in res:
                res["error"] = f"no 200 answer within {timeout_s} s"
        finally:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
                try:
                    proc.wait(60)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
    return res


CPU: list[float] = []  # process CPU seconds per timed call, in call order


def timed(fn: Callable[[], Any]) -> float:
    c0 = time.process_time()
    t0 = time.perf_counter()
    fn()
    dt = time.perf_counter() - t0
    CPU.append(time.process_time() - c0)
    return dt


def run_all(
    engine: Engine, searches: list[SearchRequest], related: list[RelatedRequest], fake: bool
) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {"search": [], "related_saved": [], "related_unsaved": []}
    for req in searches:
        if not fake:
            engine.models.cache.clear()  # every search embeds its query, like a new one would
        out["search"].append(timed(lambda r=req: engine.search(r)))  # type: ignore[misc]
    for req in related:
        key = "related_unsaved" if req.text is not None else "related_saved"
        out[key].append(timed(lambda r=req: engine.related(r)))  # type: ignore[misc]
    return out


def stage_costs(prof: cProfile.Profile, n_requests: int) -> list[dict[str, Any]]:
    stats = pstats.Stats(prof)
    raw: dict[Any, Any] = stats.stats  # type: ignore[attr-defined]
    rows = []
    for label, file, func in STAGES:
        calls = 0
        cum = 0.0
        for (fname, _line, name), (_cc, nc, _tt, ct, _callers) in raw.items():
            if name == func and fname.replace("\\", "/").endswith(file):
                calls += nc
                cum += ct
        if calls:
            rows.append({"stage": label, "calls": calls, "cum_s": round(cum, 4),
                         "ms_per_request": round(cum * 1000 / max(n_requests, 1), 3)})  # fmt: skip
    return rows


def top_functions(prof: cProfile.Profile, n: int = 25) -> str:
    buf = io.StringIO()
    st = pstats.Stats(prof, stream=buf)
    st.sort_stats("tottime").print_stats(n)
    text = buf.getvalue()
    start = text.find("   ncalls")
    return text[start:] if start >= 0 else text


def bench(
    vault: Path,
    index_dir: Path | None,
    fake: bool,
    queries: Path | None,
    n: int,
    seed: int,
    profile_n: int = 0,
    cold_runs: int = 0,
    serve_cold: bool = False,
) -> dict[str, Any]:
    engine = ensure_index(vault, index_dir, fake)
    searches, related = workload(engine, queries, n, seed)
    cold: dict[str, Any] = {}
    if cold_runs:  # before this process loads the model: nothing else competes for the CPU
        cold["cli"] = cold_start_cli(vault, index_dir, searches[0].query, fake, cold_runs)
    if serve_cold:
        cold["serve"] = cold_start_serve(vault, index_dir, searches[0].query, fake)
    status = engine.status()
    t0 = time.perf_counter()
    engine.models.embedder.embed_query("load the model")
    load_s = time.perf_counter() - t0
    for req in searches[:10]:  # warm-up: model, SQLite page cache, hnswlib
        engine.search(req)
    for rreq in related[:10]:
        engine.related(rreq)
    CPU.clear()
    times = run_all(engine, searches, related, fake)
    cpu = list(CPU)
    peak_rss = peak_rss_mib()
    res: dict[str, Any] = {
        "vault": str(vault),
        "embedder": "fake-384 (model excluded)" if fake else engine.models.embedder.name,
        "notes": status.notes,
        "chunks": status.chunks,
        "edges": dict(status.edges),
        "model_load_s": round(load_s, 3),
        "latency_ms": {k: pct(v) for k, v in times.items()},
        "peak_rss_query_mib": peak_rss,
        "cold_start": cold,
    }
    res["latency_ms"]["related"] = pct(times["related_saved"] + times["related_unsaved"])
    ns = len(searches)
    res["cpu_ms"] = {"search": pct(cpu[:ns]), "related": pct(cpu[ns:])}
    res["profile_stages"] = {}
    res["profile_top_tottime"] = {}
    pn = profile_n or len(searches)
    for kind, s_reqs, r_reqs in (("search", searches[:pn], []), ("related", [], related[:pn])):
        prof = cProfile.Profile()
        prof.enable()
        run_all(engine, s_reqs, r_reqs, fake)
        prof.disable()
        res["profile_stages"][kind] = stage_costs(prof, len(s_reqs) + len(r_reqs))
        res["profile_top_tottime"][kind] = top_functions(prof)
    lat = res["latency_ms"]
    res["targets"] = {
        "search_p95<50ms": lat["search"]["p95"] < TARGET_SEARCH_P95_MS,
        "related_p95<30ms": lat["related"]["p95"] < TARGET_RELATED_P95_MS,
    }
    engine.close()
    return res


def markdown(res: dict[str, Any]) -> str:
    lat = res["latency_ms"]
    out = [f"Query benchmark: {res['vault']} ({res['notes']} notes, {res['chunks']} chunks; "
           f"embedder: {res['embedder']})", "",
           "| request | n | p50 ms | p95 ms | max ms | target |",
           "|---|---|---|---|---|---|"]  # fmt: skip
    targets = {"search": "p95 < 50 ms", "related": "p95 < 30 ms"}
    for key in ("search", "related", "related_saved", "related_unsaved"):
        q = lat[key]
        tgt = ""
        if key in targets:
            met = res["targets"]["search_p95<50ms" if key == "search" else "related_p95<30ms"]
            tgt = f"{targets[key]}: {'met' if met else '**missed**'}"
        out.append(f"| {key} | {q['n']} | {q['p50']} | {q['p95']} | {q['max']} | {tgt} |")
    out += ["", f"Peak RSS of this process after the timed requests: "
            f"{res['peak_rss_query_mib']:.0f} MiB."]  # fmt: skip
    cli, srv = res["cold_start"].get("cli"), res["cold_start"].get("serve")
    if cli:
        out += [f"Cold start, `vaultheat search --json` in a fresh process (spawn to answer): "
                f"median {cli['answer_s_median']} s of {len(cli['runs'])} "
                f"({', '.join(str(r['answer_s']) for r in cli['runs'])} s); its peak RSS "
                f"{cli['peak_rss_mib_median']} MiB."]  # fmt: skip
    if srv:
        out += [f"Cold start, `vaultheat serve` to the first /v1/search answer: "
                f"{srv.get('answer_s', srv.get('error'))} s (listening after "
                f"{srv.get('listening_s')} s); server peak RSS then "
                f"{srv.get('peak_rss_mib_at_answer')} MiB."]  # fmt: skip
    cpu = res["cpu_ms"]
    out += ["", f"Process CPU time per call (less sensitive to other load): search p50 "
            f"{cpu['search']['p50']} / p95 {cpu['search']['p95']} ms; related p50 "
            f"{cpu['related']['p50']} / p95 {cpu['related']['p95']} ms."]  # fmt: skip
    for kind, rows in res["profile_stages"].items():
        out += ["", f"Profile of {kind} (cProfile; cumulative ms per request, profiler overhead "
                "included):", "", "| stage | calls | ms / request |", "|---|---|---|"]  # fmt: skip
        out += [f"| {r['stage']} | {r['calls']} | {r['ms_per_request']} |" for r in rows]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--vault", type=Path, required=True)
    p.add_argument("--index-dir", type=Path, default=None)
    p.add_argument("--fake", action="store_true", help="FakeEmbedder(384): excludes the model")
    p.add_argument("--queries", type=Path, default=None, help="JSONL with a 'query' field")
    p.add_argument("--n", type=int, default=200, help="requests per kind")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--profile-n", type=int, default=0, help="requests per kind to profile (0=n)")
    p.add_argument(
        "--cold-start",
        type=int,
        default=0,
        metavar="N",
        help="time N fresh `vaultheat search --json` processes first",
    )
    p.add_argument(
        "--serve-cold-start",
        action="store_true",
        help="time `vaultheat serve` from start to its first /v1/search answer",
    )
    p.add_argument("--out", type=Path, default=None)
    a = p.parse_args(argv)
    vault = a.vault.resolve()
    tmp: str | None = None
    index_dir = a.index_dir
    if (
        index_dir is None
        and not index_paths(vault, None).db.exists()
        and (str(vault).startswith("/work/shared") or not (vault / ".vaultheat").exists())
    ):
        tmp = tempfile.mkdtemp(prefix="vaultheat-query-bench-")
        index_dir = Path(tmp) / "index"
    try:
        res = bench(vault, index_dir, a.fake, a.queries, a.n, a.seed, a.profile_n,
                    a.cold_start, a.serve_cold_start)  # fmt: skip
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
    md = markdown(res)
    print(md)
    for kind, text in res["profile_top_tottime"].items():
        print(f"\nTop functions by own time ({kind}):\n" + text)
    if a.out is not None:
        a.out.parent.mkdir(parents=True, exist_ok=True)
        res["markdown"] = md
        a.out.write_text(json.dumps(res, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
