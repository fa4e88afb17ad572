"""Related-notes latency with link votes on and off, alternating request by request.

    .venv/bin/python bench/votes_latency.py --vault PATH --index-dir DIR [--fake] [--n 200]
        [--rounds 2] [--out results.json]

One process, one index, one warm engine: every request of ``query_bench``'s related workload
(half saved notes, half unsaved text with a cursor) runs once with ``related.votes`` on and once
off, the order alternating from request to request, so both sides see the same load. Reports
wall and process-CPU p50 / p95 of each side and of the per-request difference (on − off), and
the machine's load average before and after. ``--fake`` uses ``FakeEmbedder(384)`` (the index
must have been built with it, as ``query_bench.py --fake`` does).

numpy's OpenBLAS wakes its worker threads for every matrix product and lets them spin a while
after; on a busy machine that spinning slows whatever runs next. ``import vaultheat`` therefore
sets ``OPENBLAS_NUM_THREADS=1`` unless the environment already has it; to see the difference, run
this script again with ``OPENBLAS_NUM_THREADS=2`` (a separate process: within one process the
spinning of one request would leak into the next).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from query_bench import make_fake, workload

from vaultheat.engine import Engine


def pct(xs: list[float]) -> dict[str, float]:
    s = sorted(xs)
    return {
        "p50": round(statistics.median(s) * 1000, 2),
        "p95": round(s[min(len(s) - 1, int(0.95 * len(s)))] * 1000, 2),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vault", type=Path, required=True)
    ap.add_argument("--index-dir", type=Path)
    ap.add_argument("--fake", action="store_true")
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    engine = Engine.open(args.vault, args.index_dir, embedder=make_fake() if args.fake else None)
    base = engine.settings
    side = {
        name: engine.with_settings(
            dataclasses.replace(base, related=dataclasses.replace(base.related, votes=votes))
        )
        for name, votes in (("on", True), ("off", False))
    }
    _, related = workload(engine, None, args.n, args.seed)
    for req in related[:10]:  # warm: graph, note links, dense vectors, caches
        for e in side.values():
            e.related(req)
    load0 = os.getloadavg()
    wall: dict[str, list[float]] = {"on": [], "off": []}
    cpu: dict[str, list[float]] = {"on": [], "off": []}
    for rnd in range(args.rounds):
        for i, req in enumerate(related):
            order = ("on", "off") if (i + rnd) % 2 == 0 else ("off", "on")
            for name in order:
                c0, t0 = time.process_time(), time.perf_counter()
                side[name].related(req)
                wall[name].append(time.perf_counter() - t0)
                cpu[name].append(time.process_time() - c0)
    res: dict[str, Any] = {
        "vault": str(args.vault),
        "requests_per_side": len(wall["on"]),
        "loadavg_before": [round(x, 2) for x in load0],
        "loadavg_after": [round(x, 2) for x in os.getloadavg()],
    }
    for kind, d in (("wall_ms", wall), ("cpu_ms", cpu)):
        diff = [a - b for a, b in zip(d["on"], d["off"], strict=True)]
        res[kind] = {
            "off": pct(d["off"]),
            "on": pct(d["on"]),
            "p50_on_minus_off": round(pct(d["on"])["p50"] - pct(d["off"])["p50"], 2),
            "p95_on_minus_off": round(pct(d["on"])["p95"] - pct(d["off"])["p95"], 2),
            "median_paired_diff": round(statistics.median(diff) * 1000, 2),
        }
    text = json.dumps(res, indent=1)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")


if __name__ == "__main__":
    main()
