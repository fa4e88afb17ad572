"""Benchmark of the HTTP server against the engine called in-process.

    .venv/bin/python bench/server_bench.py [--vault PATH] [--provider local|fake]
        [--samples 200] [--requests 2000] [--clients 8] [--json out.json]

What it measures (targets from the server issue):
1. p50/p95 of /v1/search and /v1/related over HTTP vs the same calls on an in-process Engine:
   server-side time (``Server-Timing``), what the server adds to the engine's own ``took_ms``
   per request (target: < 5 ms at p95), and the client's round trip for reference.
2. ``--clients`` concurrent clients sending ``--requests`` mixed requests: errors (target: 0),
   throughput and latency.
3. query latency while a full re-index runs vs idle (target: p95 within 2x of idle), and the
   status codes seen meanwhile; idle is measured right before the re-index, in the same run,
   so both see the same machine load. The server indexes in a child process: peak RSS of the
   server and of its index child (which loads its own model) during the re-index.

The vault is never written: the index lives in a temporary folder (``--index-dir``), and the
server is a real ``python -m vaultheat.server`` subprocess, so client and server do not share a
GIL. Queries are note titles (search) and note paths (related), sampled with a fixed seed.
"""

from __future__ import annotations

import argparse
import json
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx

from vaultheat.core.requests import RelatedRequest, SearchRequest
from vaultheat.engine import Engine
from vaultheat.server.discovery import read_discovery

REPO = Path(__file__).resolve().parents[1]
Call = tuple[str, dict[str, Any]]
KINDS = ("search", "related")


def quantiles(xs: list[float]) -> dict[str, float]:
    """p50/p95/max in milliseconds (inputs in seconds)."""
    if not xs:
        return {"n": 0}
    s = sorted(xs)

    def q(p: float) -> float:
        return round(s[min(len(s) - 1, int(p * len(s)))] * 1000, 2)

    return {"n": len(s), "p50": q(0.50), "p95": q(0.95), "max": round(s[-1] * 1000, 2)}


def make_calls(engine: Engine, n: int, seed: int = 7) -> tuple[list[Call], list[Call]]:
    store = engine.views.store()
    rows = [(n.path, n.title) for n in store.notes_with_chunks()]
    rng = random.Random(seed)
    picks = [rng.choice(rows) for _ in range(n)]
    search = [("/v1/search", {"query": str(title) or str(path)}) for path, title in picks]
    related = [("/v1/related", {"path": str(path)}) for path, _ in picks]
    return search, related


def in_process(engine: Engine, calls: list[Call]) -> list[float]:
    out = []
    for route, body in calls:
        t0 = time.perf_counter()
        if route == "/v1/search":
            engine.search(SearchRequest.from_dict(body))
        else:
            engine.related(RelatedRequest.from_dict(body))
        out.append(time.perf_counter() - t0)
    return out


def server_ms(resp: httpx.Response) -> float:
    """The server's own time from its ``Server-Timing: app;dur=MS`` header, in seconds."""
    value = resp.headers.get("server-timing", "")
    return float(value.split("dur=")[1]) / 1000 if "dur=" in value else float("nan")


def over_http(client: httpx.Client, calls: list[Call]) -> dict[str, Any]:
    """Client round trip, time in the server, and the server's cost beyond the engine's."""
    rtt: list[float] = []
    server: list[float] = []
    added: list[float] = []
    codes: Counter[int] = Counter()
    for route, body in calls:
        t0 = time.perf_counter()
        resp = client.post(route, json=body)
        rtt.append(time.perf_counter() - t0)
        codes[resp.status_code] += 1
        server.append(server_ms(resp))
        if resp.status_code == 200:
            added.append(server[-1] - resp.json()["took_ms"] / 1000)
    return {
        "client_round_trip": quantiles(rtt),
        "server_side": quantiles(server),
        "server_minus_engine": quantiles(added),
        "codes": dict(codes),
    }


def concurrent_load(
    make_client: Callable[[], httpx.Client], calls: list[Call], clients: int
) -> dict[str, Any]:
    lock = threading.Lock()
    lat: list[float] = []
    codes: Counter[int] = Counter()
    errors: list[str] = []
    shards = [calls[i::clients] for i in range(clients)]

    def run(shard: list[Call]) -> None:
        with make_client() as c:
            for route, body in shard:
                t0 = time.perf_counter()
                try:
                    resp = c.post(route, json=body)
                    status = resp.status_code
                except httpx.HTTPError as exc:
                    status = 0
                    with lock:
                        errors.append(repr(exc))
                with lock:
                    lat.append(time.perf_counter() - t0)
                    codes[status] += 1

    t0 = time.perf_counter()
    with ThreadPoolExecutor(clients) as pool:
        list(pool.map(run, shards))
    wall = time.perf_counter() - t0
    bad = sum(v for k, v in codes.items() if k != 200)
    return {
        "requests": len(calls),
        "clients": clients,
        "errors": bad,
        "codes": dict(codes),
        "wall_s": round(wall, 2),
        "rps": round(len(calls) / wall, 1),
        "latency_ms": quantiles(lat),
        "exceptions": errors[:5],
    }


def rss_mib(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def descendants(pid: int) -> list[int]:
    """Live processes below ``pid`` (the index child sits below a forkserver)."""
    parent: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = entry.joinpath("stat").read_text()
                parent[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
    out, frontier = [], [pid]
    while frontier:
        kids = [c for c, p in parent.items() if p in frontier]
        out.extend(kids)
        frontier = kids
    return out


class RssSampler:
    """Peak RSS of the server and of its largest descendant (the index child), every 0.2 s."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.server = 0.0
        self.child = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def _loop(self) -> None:
        while not self._stop.wait(0.2):
            self.server = max(self.server, rss_mib(self.pid))
            kids = [rss_mib(p) for p in descendants(self.pid)]
            self.child = max([self.child, *kids])

    def __enter__(self) -> RssSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        self._thread.join()


def during_full_reindex(client: httpx.Client, calls: list[Call]) -> dict[str, Any]:
    client.post("/v1/index", json={"full": True})
    lat: list[float] = []
    codes: Counter[int] = Counter()
    t0 = time.perf_counter()
    i = 0
    while True:
        if i % 10 == 0 and client.get("/v1/health").json()["state"] != "indexing":
            if i or time.perf_counter() - t0 > 5:
                break
            time.sleep(0.01)
            continue
        route, body = calls[i % len(calls)]
        s = time.perf_counter()
        resp = client.post(route, json=body)
        lat.append(time.perf_counter() - s)
        codes[resp.status_code] += 1
        i += 1
    return {
        "reindex_s": round(time.perf_counter() - t0, 2),
        "latency_ms": quantiles(lat),
        "codes": dict(codes),
        "samples_s": lat,
    }


def idle_vs_reindex(
    client: httpx.Client, calls: list[Call], pid: int, rounds: int
) -> dict[str, Any]:
    """``rounds`` times: the search calls idle, then searches during a full re-index; the
    latencies of all rounds pooled, so a load spike on a shared machine hits both sides."""
    idle: list[float] = []
    during: list[float] = []
    codes: Counter[int] = Counter()
    per_round = []
    with RssSampler(pid) as rss:
        for _ in range(max(1, rounds)):
            for route, body in calls:
                t0 = time.perf_counter()
                client.post(route, json=body)
                idle.append(time.perf_counter() - t0)
            doc = during_full_reindex(client, calls)
            during.extend(doc.pop("samples_s"))
            codes.update({int(k): v for k, v in doc["codes"].items()})
            per_round.append(doc)
            wait_ready(client)
    return {
        "idle_search": quantiles(idle),
        "during_full_reindex": {
            "rounds": per_round,
            "latency_ms": quantiles(during),
            "codes": dict(codes),
            "peak_rss_mib": {"server": round(rss.server, 1), "largest_child": round(rss.child, 1)},
        },
    }


def wait_ready(client: httpx.Client, timeout: float = 3600) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        doc = client.get("/v1/status").json()
        if doc["state"] == "ready" and not doc["queue"]:
            return doc
        time.sleep(0.2)
    raise SystemExit("the index never became ready")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--vault", type=Path, default=REPO / "examples" / "vault")
    p.add_argument("--provider", choices=["local", "fake"], default="local")
    p.add_argument("--samples", type=int, default=200, help="sequential calls per kind")
    p.add_argument("--requests", type=int, default=2000)
    p.add_argument("--clients", type=int, default=8)
    p.add_argument("--threads", type=int, default=0, help="model threads (0 = default)")
    p.add_argument("--rounds", type=int, default=1, help="idle-then-during-re-index rounds, pooled")
    p.add_argument("--low-priority", action="store_true", help="serve --low-priority")
    p.add_argument("--json", type=Path, default=None, help="also write the results here")
    a = p.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="vaultheat-bench-") as tmp:
        index_dir = Path(tmp) / "index"
        index_dir.mkdir()
        (index_dir / "config.toml").write_text(f'[embeddings]\nprovider = "{a.provider}"\n')
        print(f"indexing {a.vault} ({a.provider}) ...", file=sys.stderr)
        engine = Engine.open(a.vault, index_dir, require_index=False)
        t0 = time.perf_counter()
        engine.index()
        index_s = time.perf_counter() - t0
        search_calls, related_calls = make_calls(engine, a.samples)
        in_process(engine, search_calls[:10] + related_calls[:10])  # warm-up
        results: dict[str, Any] = {
            "vault": str(a.vault),
            "provider": a.provider,
            "low_priority": a.low_priority,
            "notes": engine.status().notes,
            "chunks": engine.status().chunks,
            "initial_index_s": round(index_s, 2),
            "in_process": {
                "search": quantiles(in_process(engine, search_calls)),
                "related": quantiles(in_process(engine, related_calls)),
            },
        }
        engine.close()

        cmd = [sys.executable, "-m", "vaultheat.server", "--vault", str(a.vault),
               "--index-dir", str(index_dir), "--port", "0"]  # fmt: skip
        if a.threads:
            cmd += ["--threads", str(a.threads)]
        if a.low_priority:
            cmd.append("--low-priority")
        server = subprocess.Popen(cmd, stderr=subprocess.DEVNULL)
        try:
            info = None
            deadline = time.monotonic() + 300
            while info is None or info.pid != server.pid:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit("the server did not start")
                time.sleep(0.05)
                info = read_discovery(index_dir / "server.json")

            def make_client() -> httpx.Client:
                assert info is not None
                return httpx.Client(
                    base_url=info.url,
                    headers={"Authorization": f"Bearer {info.token}"},
                    timeout=120,
                )

            with make_client() as c:
                wait_ready(c)
                over_http(c, search_calls[:10] + related_calls[:10])  # warm-up
                health = []
                for _ in range(a.samples):
                    t0 = time.perf_counter()
                    c.get("/v1/health")
                    health.append(time.perf_counter() - t0)
                http: dict[str, Any] = {"health_round_trip": quantiles(health)}
                for kind, calls in (("search", search_calls), ("related", related_calls)):
                    http[kind] = over_http(c, calls)
                    in_p95 = results["in_process"][kind]["p95"]
                    http[kind]["server_p95_minus_in_process_p95"] = round(
                        http[kind]["server_side"]["p95"] - in_p95, 2
                    )
                results["http"] = http
                mixed = [x for pair in zip(search_calls, related_calls, strict=True) for x in pair]
                load = (mixed * (a.requests // len(mixed) + 1))[: a.requests]
                results["concurrent"] = concurrent_load(make_client, load, a.clients)
                results.update(idle_vs_reindex(c, search_calls, server.pid, a.rounds))
                wait_ready(c)
            server.send_signal(signal.SIGTERM)
            t0 = time.perf_counter()
            results["shutdown"] = {"rc": server.wait(60), "s": round(time.perf_counter() - t0, 2)}
        finally:
            if server.poll() is None:
                server.kill()

    idle95 = results["idle_search"]["p95"]
    during95 = results["during_full_reindex"]["latency_ms"].get("p95", 0.0)
    results["verdict"] = {
        "http_adds_p95_ms": {k: results["http"][k]["server_minus_engine"]["p95"] for k in KINDS},
        "http_adds_p95_under_5ms": all(
            results["http"][k]["server_minus_engine"]["p95"] < 5 for k in KINDS
        ),
        "concurrent_zero_errors": results["concurrent"]["errors"] == 0,
        "reindex_p95_ratio": round(during95 / idle95, 2) if idle95 else None,
        "reindex_p95_within_2x": bool(idle95) and during95 <= 2 * idle95,
    }
    text = json.dumps(results, indent=2)
    print(text)
    if a.json:
        a.json.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
