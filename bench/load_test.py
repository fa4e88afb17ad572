"""Load test: concurrent clients against a real ``vaultheat serve`` while re-indexes run.

Why a separate server process: its peak RSS (VmHWM) is what a user's machine sees, and a crash
is visible as a dead pid. Loopback only; every loop is bounded by --seconds / --soak.

Two kinds of index runs: ``--full`` rebuilds of an unchanged vault (the default), or with
``--churn`` incremental runs over a vault whose notes are deleted and re-created between runs
(half of the generated notes go, the next run they come back with new text), so chunk ids die
and are born while the clients query: the case where one query reading two index generations
would fail. Related-notes requests name a note that always exists, or send a churned note's
text (a note being written need not be indexed).

    python bench/load_test.py --clients 16 --seconds 60
    python bench/load_test.py --clients 8 --seconds 30 --churn
    python bench/load_test.py --clients 4 --seconds 10 --soak 3   # RSS sampled every 10 s
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "sidecar")]

from tests.reliability.reliability_helpers import (  # noqa: E402
    CHILD_ENV,
    init_fake_index,
    write_bulk_notes,
)

QUERIES = ["coffee brewing", "compost tomatoes", "travel plans", "music practice", "sleep"]


@dataclass
class Tally:
    latencies: dict[str, list[float]] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    reindexes: int = 0
    churned: dict[str, str] = field(default_factory=dict)  # path -> its text, for related
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, kind: str, seconds: float, error: str | None) -> None:
        with self.lock:
            self.latencies.setdefault(kind, []).append(seconds)
            if error:
                self.errors.append(f"{kind}: {error}")


def rss_bytes(pid: int) -> tuple[int, int]:
    """(current RSS, peak RSS) of ``pid`` from /proc (Linux), else psutil's RSS twice."""
    try:
        fields = dict(
            line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
        )
        return int(fields["VmRSS"].split()[0]) * 1024, int(fields["VmHWM"].split()[0]) * 1024
    except (OSError, KeyError):
        import psutil

        rss = psutil.Process(pid).memory_info().rss
        return rss, rss


def start_server(vault: Path) -> tuple[subprocess.Popen[bytes], str, str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "vaultheat", "serve", "--vault", str(vault), "--port", "0"],
        env=CHILD_ENV,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    discovery = vault / ".vaultheat" / "server.json"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if discovery.exists():
            try:
                info = json.loads(discovery.read_text())
                if info.get("pid") == proc.pid:
                    return proc, info["url"], info["token"]
            except ValueError:
                pass
        if proc.poll() is not None:
            raise RuntimeError(f"vaultheat serve exited with {proc.returncode}")
        time.sleep(0.05)
    proc.kill()
    raise RuntimeError("vaultheat serve did not write its discovery file")


def wait_ready(client: httpx.Client, url: str, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        doc = client.get(url + "/v1/status").json()
        if doc.get("state") == "ready" and doc.get("notes"):
            return
        time.sleep(0.2)
    raise RuntimeError("the server never became ready")


def client_loop(url: str, token: str, notes: list[str], until: float, seed: int, t: Tally) -> None:
    """Random search / related / status requests; a churned note is asked for with its text."""
    rng = random.Random(seed)
    headers = {"Authorization": f"Bearer {token}"}
    with httpx.Client(headers=headers, timeout=30) as client:
        while time.monotonic() < until:
            kind = rng.choice(["search", "related", "status"])
            t0 = time.perf_counter()
            error = None
            try:
                if kind == "search":
                    resp = client.post(url + "/v1/search", json={"query": rng.choice(QUERIES)})
                elif kind == "related":
                    path = rng.choice(notes)
                    body = {"path": path}
                    if path in t.churned:
                        body["text"] = t.churned[path]
                    resp = client.post(url + "/v1/related", json=body)
                else:
                    resp = client.get(url + "/v1/status")
                if resp.status_code != 200:
                    error = f"{resp.status_code} {resp.text[:200]}"
            except httpx.HTTPError as exc:
                error = f"{type(exc).__name__}: {exc}"
            t.add(kind, time.perf_counter() - t0, error)


def reindex_loop(url: str, token: str, until: float, t: Tally) -> None:
    """Ask for a full rebuild whenever the previous one has finished."""
    headers = {"Authorization": f"Bearer {token}"}
    with httpx.Client(headers=headers, timeout=30) as client:
        while time.monotonic() < until:
            status = client.get(url + "/v1/status").json()
            if status.get("state") == "ready":
                resp = client.post(url + "/v1/index", json={"full": True})
                if resp.status_code == 200:
                    t.reindexes += 1
                time.sleep(0.5)
            time.sleep(0.1)


def churn_loop(url: str, token: str, vault: Path, churn: list[str], until: float, t: Tally) -> None:
    """Whenever the index is ready: delete the churned notes (or re-create them with new text)
    and ask for an incremental run."""
    headers = {"Authorization": f"Bearer {token}"}
    present = True
    with httpx.Client(headers=headers, timeout=30) as client:
        while time.monotonic() < until:
            status = client.get(url + "/v1/status").json()
            if status.get("state") == "ready":
                for rel in churn:
                    f = vault / rel
                    if present:
                        f.unlink()
                    else:
                        f.write_text(t.churned[rel] + f"\nround {t.reindexes}\n", "utf-8")
                present = not present
                resp = client.post(url + "/v1/index", json={"full": False})
                if resp.status_code == 200:
                    t.reindexes += 1
                time.sleep(0.3)
            time.sleep(0.1)


def percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def run_load(
    *,
    clients: int,
    seconds: float,
    notes: int = 300,
    soak_minutes: float = 0.0,
    churn: bool = False,
) -> dict[str, Any]:
    root = Path(tempfile.mkdtemp(prefix="vaultheat-load-"))
    try:
        vault = root / "vault"
        example = REPO / "examples" / "vault"
        if example.is_dir():
            shutil.copytree(example, vault, ignore=shutil.ignore_patterns(".vaultheat"))
        paths = write_bulk_notes(vault, notes)
        init_fake_index(vault)
        proc, url, token = start_server(vault)
        try:
            with httpx.Client(headers={"Authorization": f"Bearer {token}"}, timeout=30) as c:
                wait_ready(c, url)
            _, base_peak = rss_bytes(proc.pid)
            tally = Tally()
            churned = paths[::2] if churn else []
            tally.churned = {p: (vault / p).read_text("utf-8") for p in churned}
            duration = seconds + soak_minutes * 60
            until = time.monotonic() + duration
            threads = [
                threading.Thread(target=client_loop, args=(url, token, paths, until, i, tally))
                for i in range(clients)
            ]
            if churn:
                args: tuple[Any, ...] = (url, token, vault, churned, until, tally)
                threads.append(threading.Thread(target=churn_loop, args=args))
            else:
                threads.append(
                    threading.Thread(target=reindex_loop, args=(url, token, until, tally))
                )
            for th in threads:
                th.start()
            samples: list[tuple[float, int]] = []
            start = time.monotonic()
            interval = 10.0 if soak_minutes else 1.0
            while time.monotonic() < until:
                samples.append((time.monotonic() - start, rss_bytes(proc.pid)[0]))
                time.sleep(min(interval, max(0.0, until - time.monotonic())))
            for th in threads:
                th.join(60)
            alive = proc.poll() is None
            _, peak = rss_bytes(proc.pid) if alive else (0, 0)
        finally:
            proc.terminate()
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
        all_lat = [x for v in tally.latencies.values() for x in v]
        per_kind = {
            k: {
                "n": len(v),
                "p50_ms": round(1000 * statistics.median(v), 2),
                "p95_ms": round(1000 * percentile(v, 0.95), 2),
            }
            for k, v in sorted(tally.latencies.items())
        }
        growth = (samples[-1][1] - samples[0][1]) if len(samples) > 1 else 0
        return {
            "clients": clients,
            "seconds": duration,
            "requests": len(all_lat),
            "rps": round(len(all_lat) / duration, 1),
            "errors": len(tally.errors),
            "error_samples": tally.errors[:10],
            "p50_ms": round(1000 * statistics.median(all_lat), 2) if all_lat else None,
            "p95_ms": round(1000 * percentile(all_lat, 0.95), 2),
            "per_kind": per_kind,
            "mode": "churn" if churn else "full",
            "full_reindexes": 0 if churn else tally.reindexes,
            "churn_runs": tally.reindexes if churn else 0,
            "server_alive": alive,
            "server_peak_rss_mib_before_load": round(base_peak / 2**20, 1),
            "server_peak_rss_mib": round(peak / 2**20, 1),
            "rss_samples_mib": [(round(s, 1), round(r / 2**20, 1)) for s, r in samples]
            if soak_minutes
            else [],
            "rss_growth_mib": round(growth / 2**20, 1),
        }
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument(
        "--notes", type=int, default=300, help="generated notes besides the example"
    )
    parser.add_argument("--soak", type=float, default=0.0, metavar="MINUTES")
    parser.add_argument(
        "--churn", action="store_true", help="delete and re-create notes between index runs"
    )
    args = parser.parse_args()
    doc = run_load(
        clients=args.clients,
        seconds=args.seconds,
        notes=args.notes,
        soak_minutes=args.soak,
        churn=args.churn,
    )
    print(json.dumps(doc, indent=2))
    return 0 if doc["errors"] == 0 and doc["server_alive"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
