"""Query benchmark: p50/p95 of ``engine.search`` and ``engine.related``, plus a profile.

    .venv/bin/python bench/query_bench.py --vault PATH [--index-dir DIR] [--fake]
        [--queries eval.jsonl] [--n 200] [--out results.json]

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
pipeline stages (and the top functions by own time) are reported.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import pstats
import random
import shutil
import statistics
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
    ("search total", "core/search.py", "run_search"),
    ("related total", "core/related.py", "run_related"),
    ("query embedding (model)", "core/search.py", "embed_query"),
    ("unsaved text: parse+chunk+embed", "core/related.py", "_text_chunks"),
    ("  chunk_note", "core/chunking.py", "chunk_note"),
    ("  embed_documents (model)", "providers/local.py", "embed_documents"),
    ("related: LinkResolver build", "core/resolve.py", "__init__"),
    ("related: distinctive_terms", "core/related.py", "distinctive_terms"),
    ("retrieve (pipeline)", "core/pipeline.py", "retrieve"),
    ("  hnswlib search", "storage/vectors.py", "search"),
    ("  FTS5 lexical search", "storage/store.py", "lexical_search"),
    ("  heat propagation", "core/heat.py", "propagate_heat"),
    ("  graph neighbours (SQL)", "core/pipeline.py", "neighbors"),
    ("  tag neighbours setup", "core/pipeline.py", "make_tag_neighbors"),
    ("  vectors.get_vectors", "storage/vectors.py", "get_vectors"),
    ("  combine scores", "core/scoring.py", "combine"),
    ("note_scores (files)", "core/search.py", "note_scores"),
    ("store.chunks (rows)", "storage/store.py", "chunks"),
    ("engine.view", "vaultheat/engine.py", "view"),
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
    store = engine.store()
    rows = store.db.execute(
        "SELECT n.path, n.title FROM notes n WHERE n.excluded = 0 AND EXISTS "
        "(SELECT 1 FROM chunks c WHERE c.note_id = n.id) ORDER BY n.path"
    ).fetchall()
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
            engine.query_cache.clear()  # every search embeds its query, like a new one would
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
) -> dict[str, Any]:
    engine = ensure_index(vault, index_dir, fake)
    status = engine.status()
    searches, related = workload(engine, queries, n, seed)
    t0 = time.perf_counter()
    engine.embedder.embed_query("load the model")
    load_s = time.perf_counter() - t0
    for req in searches[:10]:  # warm-up: model, SQLite page cache, hnswlib
        engine.search(req)
    for rreq in related[:10]:
        engine.related(rreq)
    CPU.clear()
    times = run_all(engine, searches, related, fake)
    cpu = list(CPU)
    res: dict[str, Any] = {
        "vault": str(vault),
        "embedder": "fake-384 (model excluded)" if fake else engine.embedder.name,
        "notes": status["notes"],
        "chunks": status["chunks"],
        "edges": status.get("edges"),
        "model_load_s": round(load_s, 3),
        "latency_ms": {k: pct(v) for k, v in times.items()},
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
        res = bench(vault, index_dir, a.fake, a.queries, a.n, a.seed, a.profile_n)
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
