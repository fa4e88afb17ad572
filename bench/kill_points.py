"""``kill -9`` a first index at several points, then ask ``check``, search, re-index, ask again.

For each point, on a fresh copy of the vault: ``vaultheat init``, ``vaultheat index`` killed
with SIGKILL at that point, then ``vaultheat check --json`` (its ``state`` and exit code: an
interrupted run must read *interrupted*, exit 0, not *inconsistent*), one search (does it
answer?), a second ``vaultheat index`` and ``check`` again (must be *clean*). Then two damaged
indexes that a run does not simply finish must read *inconsistent*, exit 2: a truncated vector
file and a deleted chunk row.

A point is a fraction of the full first index's wall time (``0.3``), ``index+S`` (S seconds
after the words phase starts printing progress), or ``meaning`` / ``meaning+S`` (when, or S
seconds after, the meaning phase prints its first progress line). Costs about (1 + points x
1.5) full first indexes; ``--full-s`` skips timing the full index.

    PYTHONPATH=$PWD/sidecar nice .venv/bin/python bench/kill_points.py \\
        ../shared/corpus/obsidian-help/en /tmp/killpoints \\
        --points 0.1,0.3,index+2,meaning,meaning+20 --query "sync settings" --json out.json
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

VH = [sys.executable, "-m", "vaultheat"]


def run(args: list[str], vault: Path, timeout: float = 3600) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*VH, *args, "--vault", str(vault)], capture_output=True, text=True,
                          timeout=timeout, env=os.environ.copy())  # fmt: skip


def fresh(src: Path, work: Path, name: str) -> Path:
    vault = work / name
    if vault.exists():
        shutil.rmtree(vault)
    shutil.copytree(src, vault, ignore=shutil.ignore_patterns(".vaultheat", ".obsidian"))
    cp = run(["init"], vault)
    if cp.returncode != 0:
        raise SystemExit(f"init failed: {cp.stderr}")
    return vault


def full_index_seconds(src: Path, work: Path) -> float:
    vault = fresh(src, work, "full")
    t0 = time.perf_counter()
    cp = run(["index"], vault)
    took = time.perf_counter() - t0
    if cp.returncode != 0:
        raise SystemExit(f"full index failed: {cp.stderr}")
    shutil.rmtree(vault)
    return took


def index_killed_at(vault: Path, point: str, full_s: float) -> dict[str, Any]:
    """Start ``vaultheat index``; SIGKILL it at ``point``. Returns when and in which phase."""
    proc = subprocess.Popen([*VH, "index", "--vault", str(vault)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, env=os.environ.copy())  # fmt: skip
    t0 = time.perf_counter()
    seen: dict[str, float] = {}
    fire = threading.Event()
    phase, _, extra = point.partition("+")
    delay = float(extra or 0)
    if phase not in ("index", "meaning"):
        delay, phase = float(point) * full_s, "start"
        seen["start"] = t0

    def read() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            for key in ("index", "meaning"):
                if line.startswith(f"vaultheat: {key}:") and key not in seen:
                    seen[key] = time.perf_counter()
            if phase in seen and time.perf_counter() - seen[phase] >= delay:
                fire.set()
        fire.set()  # the run ended on its own

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    while not fire.is_set():
        if phase in seen and time.perf_counter() - seen[phase] >= delay:
            break
        fire.wait(0.05)
    finished = proc.poll() is not None
    if not finished:
        proc.send_signal(signal.SIGKILL)
    proc.wait()
    reader.join(timeout=5)
    return {"point": point, "killed_after_s": round(time.perf_counter() - t0, 1),
            "finished_before_kill": finished,
            "phase_at_kill": "meaning" if "meaning" in seen else "index" if "index" in seen
            else "start"}  # fmt: skip


def check(vault: Path) -> dict[str, Any]:
    cp = run(["check", "--json"], vault)
    try:
        doc = json.loads(cp.stdout)
    except ValueError:
        doc = {}
    return {"exit": cp.returncode, "state": doc.get("state"), "pending": doc.get("pending"),
            "problems": doc.get("problems")}  # fmt: skip


def search(vault: Path, query: str) -> dict[str, Any]:
    cp = run(["search", query, "--json"], vault)
    try:
        n = len(json.loads(cp.stdout).get("results", []))
    except ValueError:
        n = None
    return {"exit": cp.returncode, "results": n}


def one_point(src: Path, work: Path, point: str, full_s: float, query: str) -> dict[str, Any]:
    vault = fresh(src, work, "p-" + point.replace("+", "_"))
    out = index_killed_at(vault, point, full_s)
    out["check_after_kill"] = check(vault)
    out["search_after_kill"] = search(vault, query)
    cp = run(["index"], vault)
    out["reindex_exit"] = cp.returncode
    out["check_after_reindex"] = check(vault)
    after = out["check_after_kill"]
    out["ok"] = (
        (out["finished_before_kill"] or (after["state"] == "interrupted" and after["exit"] == 0)
         or (after["state"] == "clean" and after["exit"] == 0))
        and out["search_after_kill"]["exit"] in (0, 1)
        and out["check_after_reindex"]["state"] == "clean"
        and out["check_after_reindex"]["exit"] == 0
    )  # fmt: skip
    shutil.rmtree(vault)
    return out


def damaged(src: Path, work: Path) -> list[dict[str, Any]]:
    """A clean index, then a truncated vector file; a clean index, then a deleted chunk row."""
    out = []
    vault = fresh(src, work, "damaged")
    run(["index"], vault)
    idx = vault / ".vaultheat"
    vec = idx / "vectors.hnsw"
    keep = vec.read_bytes()
    vec.write_bytes(keep[: len(keep) // 2])
    out.append({"damage": "vector file truncated to half", **check(vault)})
    vec.write_bytes(keep)
    from vaultheat.storage.store import Store

    store = Store(idx / "index.sqlite")
    with store.transaction():
        store.delete_chunks([min(store.integrity().chunk_ids)])  # its vector stays behind
    store.close()
    out.append({"damage": "one chunk row deleted", **check(vault)})
    for d in out:
        d["ok"] = d["state"] == "inconsistent" and d["exit"] == 2
    shutil.rmtree(vault)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("vault", type=Path)
    ap.add_argument("work", type=Path, help="scratch folder for the copies")
    ap.add_argument("--points", default="0.1,0.3,index+2,meaning,meaning+20")
    ap.add_argument("--query", default="sync settings")
    ap.add_argument("--full-s", type=float, default=0.0, help="skip timing the full index")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)
    full_s = args.full_s or full_index_seconds(args.vault, args.work)
    print(f"full first index: {full_s:.1f} s", flush=True)
    points = []
    for point in args.points.split(","):
        r = one_point(args.vault, args.work, point.strip(), full_s, args.query)
        points.append(r)
        k, s, c = r["check_after_kill"], r["search_after_kill"], r["check_after_reindex"]
        print(f"{r['point']:>12}: killed after {r['killed_after_s']:6.1f} s in {r['phase_at_kill']}"
              f"{' (had finished)' if r['finished_before_kill'] else ''}; check {k['state']} "
              f"exit {k['exit']}; search exit {s['exit']} ({s['results']} results); re-index "
              f"exit {r['reindex_exit']}; check {c['state']} exit {c['exit']}  "
              f"{'ok' if r['ok'] else 'FAIL'}", flush=True)  # fmt: skip
        if k["pending"]:
            print(f"{'':>14}pending: {k['pending']}", flush=True)
    damage = damaged(args.vault, args.work)
    for d in damage:
        print(f"{d['damage']:>30}: check {d['state']} exit {d['exit']}  "
              f"{'ok' if d['ok'] else 'FAIL'}", flush=True)  # fmt: skip
    doc = {"vault": str(args.vault), "full_index_s": round(full_s, 1), "points": points,
           "damaged": damage}  # fmt: skip
    if args.json:
        args.json.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    return 0 if all(p["ok"] for p in points) and all(d["ok"] for d in damage) else 1


if __name__ == "__main__":
    sys.exit(main())
