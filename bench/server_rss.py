"""What indexing in a child process costs in memory: the server builds a fresh index.

    .venv/bin/python bench/server_rss.py [--vault PATH] [--provider local|fake] [--json out.json]

Starts ``python -m vaultheat.server`` on a new index (temporary ``--index-dir``; the vault is
never written), samples the RSS of the server and of every process below it (the forkserver
and the index child) every 0.2 s until the index is ready, then once more after the child
has gone idle. The server loads its model for queries at warm-up and the child loads its own
to embed, so the child's peak is the second model's price.
"""

from __future__ import annotations

import argparse
import json
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from server_bench import descendants, rss_mib

from vaultheat.server.discovery import read_discovery

REPO = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--vault", type=Path, default=REPO / "examples" / "vault")
    p.add_argument("--provider", choices=["local", "fake"], default="local")
    p.add_argument("--json", type=Path, default=None)
    a = p.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="vaultheat-rss-") as tmp:
        index_dir = Path(tmp) / "index"
        index_dir.mkdir()
        (index_dir / "config.toml").write_text(f'[embeddings]\nprovider = "{a.provider}"\n')
        cmd = [sys.executable, "-m", "vaultheat.server", "--vault", str(a.vault),
               "--index-dir", str(index_dir), "--port", "0"]  # fmt: skip
        server = subprocess.Popen(cmd, stderr=subprocess.DEVNULL)
        peak = {"server": 0.0, "child": 0.0}
        t0 = time.monotonic()
        try:
            info = None
            while info is None or info.pid != server.pid:
                if server.poll() is not None or time.monotonic() - t0 > 300:
                    raise SystemExit("the server did not start")
                time.sleep(0.05)
                info = read_discovery(index_dir / "server.json")
            headers = {"Authorization": f"Bearer {info.token}"}
            with httpx.Client(base_url=info.url, headers=headers, timeout=60) as c:
                status: dict[str, Any] = {}
                while time.monotonic() - t0 < 3600:
                    peak["server"] = max(peak["server"], rss_mib(server.pid))
                    kids = [rss_mib(k) for k in descendants(server.pid)]
                    peak["child"] = max([peak["child"], *kids])
                    status = c.get("/v1/status").json()
                    if status["state"] == "ready" and not status["queue"]:
                        break
                    time.sleep(0.2)
                build_s = time.monotonic() - t0
                c.post("/v1/search", json={"query": "warm"})
                after = {
                    "server": round(rss_mib(server.pid), 1),
                    "others": sorted(round(rss_mib(k), 1) for k in descendants(server.pid)),
                }
            server.send_signal(signal.SIGTERM)
            server.wait(60)
        finally:
            if server.poll() is None:
                server.kill()
    doc = {
        "vault": str(a.vault),
        "provider": a.provider,
        "notes": status.get("notes"),
        "chunks": status.get("chunks"),
        "build_s": round(build_s, 1),
        "peak_rss_mib": {k: round(v, 1) for k, v in peak.items()},
        "after_ready_rss_mib": after,
    }
    text = json.dumps(doc, indent=2)
    print(text)
    if a.json:
        a.json.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
