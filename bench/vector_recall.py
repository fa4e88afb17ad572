"""How much of the exact top k the approximate vector index returns, and what a wider beam costs.

For an indexed vault it loads the vector file as search does (``VectorIndex.load``), takes every
live vector, and for each query compares ``VectorIndex.search`` (hnswlib at the given beams) with
the exact top k by cosine over all vectors. Queries are of two kinds, both what the product asks:
the labelled set's query texts embedded by the index's own model (search), and a random sample
of stored chunk vectors (related notes ask with a chunk's vector, excluding nothing here).

Prints one JSON object: the vault's vector count and, per beam (``ef``), mean and minimum recall
of the exact top k, the share of queries with full recall, and the median and p95 query time;
``exact`` is brute force over the in-memory matrix at the same k, for the latency comparison.

  python bench/vector_recall.py --vault /tmp/ww \\
      --queries ../shared/eval/waylonwalker.queries.jsonl [--index-dir DIR] [--k 40] \\
      [--sample 300] [--efs 64,128,256] [--seed 0]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from pathlib import Path

import numpy as np

from vaultheat.engine import Engine
from vaultheat.storage.store import Store
from vaultheat.storage.vectors import VectorIndex
from vaultheat.storage.vectorspace import HNSW, saved_kind
from vaultheat.storage.vectorsync import open_vectors


def recall_rows(approx: list[list[int]], exact: list[list[int]]) -> list[float]:
    """Per query: the share of the exact top k that the approximate answer holds."""
    return [len(set(a) & set(e)) / len(e) if e else 1.0 for a, e in zip(approx, exact, strict=True)]


def exact_top(matrix: np.ndarray, labels: np.ndarray, q: np.ndarray, k: int) -> list[int]:
    """The k labels nearest to ``q`` by cosine (rows of ``matrix`` are unit length)."""
    unit = q / (np.linalg.norm(q) or 1.0)
    sims = matrix @ unit
    k = min(k, len(labels))
    top = np.argpartition(-sims, k - 1)[:k]
    return [int(labels[i]) for i in top]


def summary(recalls: list[float], took: list[float]) -> dict[str, float]:
    ordered = sorted(took)
    return {
        "recall_mean": round(statistics.fmean(recalls), 4),
        "recall_min": round(min(recalls), 4),
        "full_recall_share": round(sum(r >= 1.0 for r in recalls) / len(recalls), 4),
        "ms_median": round(1000 * statistics.median(ordered), 3),
        "ms_p95": round(1000 * ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 3),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vault", type=Path, required=True)
    ap.add_argument("--index-dir", type=Path)
    ap.add_argument("--queries", type=Path, help="a labelled set (jsonl with 'query')")
    ap.add_argument("--k", type=int, default=40, help="search's vector_top")
    ap.add_argument("--sample", type=int, default=300, help="stored chunk vectors as queries")
    ap.add_argument("--efs", default="64,128,256", help="beams to try (64: today's)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    engine = Engine.open(args.vault, args.index_dir)
    store = Store(engine.paths.db, readonly=True)
    dim = int(store.manifest()["dimension"])
    if saved_kind(engine.paths.vectors) == HNSW:
        index = VectorIndex.load(engine.paths.vectors, dim)
    else:  # a small vault's space is searched exactly (no file): measure hnswlib as it would be
        space = open_vectors(store, engine.paths.vectors, dim, engine.models.embedder.fingerprint)
        index = VectorIndex.create(dim, capacity=len(space) + 256)
        ids = sorted(space.labels())
        index.add(ids, space.get_vectors(ids))
    store.close()
    labels = np.array(sorted(index.labels()), dtype=np.int64)
    matrix = index.get_vectors(labels.tolist())
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)

    queries: list[np.ndarray] = []
    kinds: list[str] = []
    if args.queries:
        texts = [json.loads(x)["query"] for x in args.queries.read_text("utf-8").splitlines() if x]
        queries += [
            np.asarray(engine.models.embedder.embed_query(t), dtype=np.float32) for t in texts
        ]
        kinds += ["query"] * len(texts)
    picked = random.Random(args.seed).sample(range(len(labels)), min(args.sample, len(labels)))
    queries += [matrix[i] for i in picked]
    kinds += ["chunk"] * len(picked)

    exact, exact_took = [], []
    for q in queries:
        t0 = time.perf_counter()
        exact.append(exact_top(matrix, labels, q, args.k))
        exact_took.append(time.perf_counter() - t0)

    out: dict[str, object] = {
        "vault": str(args.vault),
        "vectors": len(labels),
        "k": args.k,
        "queries": {k: kinds.count(k) for k in dict.fromkeys(kinds)},
        "exact": summary([1.0] * len(queries), exact_took),
    }
    for ef in (int(x) for x in args.efs.split(",")):
        index.ef_search = ef
        approx, took = [], []
        for q in queries:
            t0 = time.perf_counter()
            approx.append([label for label, _ in index.search(q, args.k)[0]])
            took.append(time.perf_counter() - t0)
        recalls = recall_rows(approx, exact)
        row: dict[str, object] = summary(recalls, took)
        for kind in dict.fromkeys(kinds):
            part = [r for r, k in zip(recalls, kinds, strict=True) if k == kind]
            row[f"{kind}_recall_mean"] = round(statistics.fmean(part), 4)
        out[f"ef{ef}"] = row
    engine.close()
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
