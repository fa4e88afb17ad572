"""Benchmark of the agent interfaces: MCP over stdio against HTTP and the engine itself.

    .venv/bin/python bench/agent_bench.py --vault PATH --index-dir DIR [--samples 100]
        [--json out.json]

The index in ``--index-dir`` must exist (``vaultheat init``/``index``); nothing is written to
the vault. What it measures (targets from issue #16):
1. per-call latency of search, related and open over ``vaultheat mcp`` (the SDK's stdio
   client; each result validated against the tool's output schema, as a real client does),
   p50/p95, and what MCP adds per call: the round trip minus the tool handler's own time,
   which the server reports in ``_meta["vaultheat/call_ms"]`` (also: minus the engine's
   ``took_ms``, and quantiles against the same calls made in this process). Target: < 5 ms
   at p95.
2. the same search and related over HTTP to a running ``vaultheat serve`` (round trip and
   what HTTP adds over ``took_ms``), and over MCP while that server runs (MCP → HTTP → engine).
3. start-up to first answer: spawning ``vaultheat mcp`` until its first search result, with
   no server (it loads the model itself) and with a server already running. Target: < 2 s
   with a server.
Queries are the help vault's labelled questions when ``--queries`` is given, else note titles;
related and open take note paths; sampled with a fixed seed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
from mcp import ClientSession, StdioServerParameters, stdio_client

from vaultheat.agents.backend import AutoBackend
from vaultheat.agents.mcp_server import CALL_MS
from vaultheat.agents.tools import call_tool
from vaultheat.paths import index_paths
from vaultheat.server.discovery import running_server
from vaultheat.storage.store import Store

REPO = Path(__file__).resolve().parents[1]


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def summary(values: list[float]) -> dict[str, float]:
    return {"p50": round(pct(values, 0.5), 2), "p95": round(pct(values, 0.95), 2),
            "mean": round(statistics.fmean(values), 2), "n": len(values)}  # fmt: skip


def env() -> dict[str, str]:
    out = dict(os.environ)
    out["PYTHONPATH"] = str(REPO / "sidecar") + os.pathsep + out.get("PYTHONPATH", "")
    return out


def mcp_params(vault: Path, index_dir: Path, *extra: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "vaultheat", "mcp", "--vault", str(vault), "--index-dir", str(index_dir),
              *extra],
        env=env(),
    )  # fmt: skip


async def mcp_run(params: StdioServerParameters, work: dict[str, list[dict[str, Any]]],
                  warm: int) -> dict[str, Any]:  # fmt: skip
    """Round trips (ms) and the engine's took_ms per tool, plus start-up to first answer."""
    t0 = time.perf_counter()
    out: dict[str, Any] = {"rt": {}, "took": {}, "mcp_adds": {}}
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        await session.list_tools()
        first = work["search"][0]
        res = await session.call_tool("search", first)
        out["first_answer_s"] = time.perf_counter() - t0
        assert not res.is_error, res.content
        for name, calls in work.items():
            for args in calls[:warm]:
                await session.call_tool(name, args)
            rts, took, calls_ms = [], [], []
            for args in calls:
                t = time.perf_counter()
                res = await session.call_tool(name, args)
                rts.append((time.perf_counter() - t) * 1000)
                assert not res.is_error, (name, args, res.content)
                doc = res.structured_content or {}
                if "took_ms" in doc:
                    took.append(float(doc["took_ms"]))
                calls_ms.append(float((res.meta or {})[CALL_MS]))
            out["rt"][name], out["took"][name] = rts, took
            out["mcp_adds"][name] = [rt - c for rt, c in zip(rts, calls_ms, strict=True)]
        status = await session.call_tool("status", {})
        out["backend"] = (status.structured_content or {}).get("agent", {}).get("backend")
    return out


def http_run(url: str, token: str, work: dict[str, list[dict[str, Any]]],
             warm: int) -> dict[str, Any]:  # fmt: skip
    out: dict[str, Any] = {"rt": {}, "took": {}}
    routes = {"search": "/v1/search", "related": "/v1/related"}
    with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {token}"},
                      timeout=60) as client:  # fmt: skip
        for name, route in routes.items():
            for body in work[name][:warm]:
                client.post(route, json=body).raise_for_status()
            rts, took = [], []
            for body in work[name]:
                t = time.perf_counter()
                resp = client.post(route, json=body)
                rts.append((time.perf_counter() - t) * 1000)
                resp.raise_for_status()
                took.append(float(resp.json()["took_ms"]))
            out["rt"][name], out["took"][name] = rts, took
    return out


def in_process(paths: Any, work: dict[str, list[dict[str, Any]]],
               warm: int) -> dict[str, list[float]]:  # fmt: skip
    """The baseline: the very function the MCP server runs per call, in this process."""
    auto = AutoBackend(paths, prefer_server=False)
    out: dict[str, list[float]] = {}
    try:
        for name, calls in work.items():
            for body in calls[:warm]:
                call_tool(auto, name, body)
            times = []
            for body in calls:
                t = time.perf_counter()
                ok, doc = call_tool(auto, name, body)
                times.append((time.perf_counter() - t) * 1000)
                assert ok, doc
            out[name] = times
    finally:
        auto.close()
    return out


def adds(run: dict[str, Any], base: dict[str, list[float]], name: str) -> dict[str, float]:
    """What a transport adds over the in-process call, quantile by quantile."""
    return {q: round(pct(run["rt"][name], f) - pct(base[name], f), 2)
            for q, f in (("p50", 0.5), ("p95", 0.95))}  # fmt: skip


def overhead(run: dict[str, Any], name: str) -> dict[str, float]:
    return summary([rt - took for rt, took in zip(run["rt"][name], run["took"][name],
                                                  strict=True)])  # fmt: skip


def start_server(vault: Path, index_dir: Path) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "vaultheat", "serve", "--vault", str(vault), "--index-dir",
         str(index_dir), "--port", "0"],
        env=env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    deadline = time.monotonic() + 300
    while running_server(index_dir / "server.json") is None:
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise SystemExit("vaultheat serve did not start")
        time.sleep(0.1)
    return proc


def wait_idle(url: str, token: str) -> None:
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        doc = httpx.get(url + "/v1/status", headers={"Authorization": f"Bearer {token}"}).json()
        if doc.get("state") != "indexing" and not doc.get("queue"):
            return
        time.sleep(0.5)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vault", type=Path, required=True)
    ap.add_argument("--index-dir", type=Path, required=True)
    ap.add_argument("--queries", type=Path, help="JSONL with a `query` per line")
    ap.add_argument("--samples", type=int, default=100)
    ap.add_argument("--warm", type=int, default=5)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    paths = index_paths(args.vault, args.index_dir)
    store = Store(paths.db, readonly=True)
    notes = sorted(p for p, r in store.notes().items() if not r.excluded)
    titles = sorted({r.title for r in store.notes().values()})
    rng = random.Random(16)
    if args.queries:
        queries = [json.loads(x)["query"] for x in args.queries.read_text().splitlines() if x]
    else:
        queries = titles
    n = args.samples
    work = {
        "search": [{"query": q, "top": 10} for q in rng.choices(queries, k=n)],
        "related": [{"path": p, "top": 10} for p in rng.choices(notes, k=n)],
        "open": [{"path": p, "max_lines": 200} for p in rng.choices(notes, k=n)],
    }
    if running_server(paths.server) is not None:
        raise SystemExit("a server already runs for this index; stop it first")
    engine = in_process(paths, work, args.warm)
    result: dict[str, Any] = {"vault": str(args.vault), "notes": len(notes), "samples": n,
                              "engine_ms": {k: summary(v) for k, v in engine.items()}}  # fmt: skip

    alone = asyncio.run(mcp_run(mcp_params(args.vault, args.index_dir), work, args.warm))
    assert alone["backend"] == "engine", alone["backend"]
    result["mcp_engine"] = {
        "first_answer_s": round(alone["first_answer_s"], 3),
        **{f"{k}_rt_ms": summary(v) for k, v in alone["rt"].items()},
        "mcp_adds_ms": {k: summary(v) for k, v in alone["mcp_adds"].items()},
        "adds_vs_in_process_ms": {k: adds(alone, engine, k) for k in work},
        "search_overhead_ms": overhead(alone, "search"),
        "related_overhead_ms": overhead(alone, "related"),
        "search_took_ms": summary(alone["took"]["search"]),
        "related_took_ms": summary(alone["took"]["related"]),
    }
    server = start_server(args.vault, args.index_dir)
    try:
        info = running_server(paths.server)
        assert info is not None
        wait_idle(info.url, info.token)
        http = http_run(info.url, info.token, work, args.warm)
        result["http"] = {
            **{f"{k}_rt_ms": summary(v) for k, v in http["rt"].items()},
            "adds_vs_in_process_ms": {k: adds(http, engine, k) for k in http["rt"]},
            "search_overhead_ms": overhead(http, "search"),
            "related_overhead_ms": overhead(http, "related"),
        }
        via = asyncio.run(mcp_run(mcp_params(args.vault, args.index_dir), work, args.warm))
        assert via["backend"] == "server", via["backend"]
        result["mcp_server"] = {
            "first_answer_s": round(via["first_answer_s"], 3),
            **{f"{k}_rt_ms": summary(v) for k, v in via["rt"].items()},
            "mcp_adds_ms": {k: summary(v) for k, v in via["mcp_adds"].items()},
            "adds_vs_in_process_ms": {k: adds(via, engine, k) for k in work},
            "search_overhead_ms": overhead(via, "search"),
            "related_overhead_ms": overhead(via, "related"),
        }
    finally:
        server.terminate()
        server.wait(60)
    text = json.dumps(result, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
