"""Compare PDF text backends (pypdfium2, pypdf) on generated PDFs: speed, peak memory, text quality.

Cases: a 12-page two-column paper, a page without a text layer, a 500-page manual, a Flate stream
that inflates to 256 MiB. Each extraction runs in the same bounded child process the indexer uses
(``vaultheat.core.vault.pdftext``); wall time and the child's peak RSS (wait4) are reported.
Quality: word recall against the words drawn, and whether the left column comes out before the
right.

    PYTHONPATH=sidecar nice -n 10 .venv/bin/python bench/pdf_extract.py
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from pdf_fixtures import (
    IMAGE_ONLY,
    bomb_stream,
    build_pdf,
    text_page,
    two_column_page,
)

WORDS = "heat vault index search related note canvas page column paper manual chapter".split()


def _line(seed: int, n: int = 7) -> str:
    return " ".join(f"{WORDS[(seed * 7 + k) % len(WORDS)]}{seed}x{k}" for k in range(n))


def cases(tmp: Path) -> dict[str, tuple[Path, list[list[str]]]]:
    out: dict[str, tuple[Path, list[list[str]]]] = {}
    streams, expect = [], []
    for p in range(12):
        left = [_line(p * 100 + i, 4) for i in range(45)]
        right = [_line(p * 100 + 50 + i, 4) for i in range(45)]
        streams.append(two_column_page(left, right))
        expect.append([*left, *right])
    out["two-column paper (12 p.)"] = (tmp / "paper.pdf", expect)
    (tmp / "paper.pdf").write_bytes(build_pdf(streams))
    (tmp / "scan.pdf").write_bytes(build_pdf([IMAGE_ONLY]))
    out["page without text layer"] = (tmp / "scan.pdf", [[]])
    streams, expect = [], []
    for p in range(500):
        lines = [_line(p * 1000 + i) for i in range(48)]
        streams.append(text_page(lines))
        expect.append(lines)
    (tmp / "manual.pdf").write_bytes(build_pdf(streams))
    out["manual (500 p.)"] = (tmp / "manual.pdf", expect)
    (tmp / "bomb.pdf").write_bytes(build_pdf([], raw_streams=[bomb_stream(256 << 20)]))
    out["bomb (256 MiB inflated)"] = (tmp / "bomb.pdf", [[]])
    return out


def run(backend: str, path: Path) -> tuple[float, float, dict[str, object]]:
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1] / "sidecar"))
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "vaultheat.core.vault.pdftext", backend, "5000", str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    assert proc.stdout is not None
    data = proc.stdout.read()
    _, _, ru = os.wait4(proc.pid, 0)
    proc.returncode = 0
    wall = time.perf_counter() - t0
    try:
        result = json.loads(data)
    except ValueError:
        result = {"skipped": "child failed"}
    return wall, ru.ru_maxrss / 1024, result


def quality(pages: list[str], expect: list[list[str]]) -> tuple[float, float]:
    words = [w for page in expect for line in page for w in line.split()]
    if not words:
        return 1.0, 1.0
    got = " ".join(pages).split()
    got_set = set(got)
    recall = sum(w in got_set for w in words) / len(words)
    order_ok = 0
    for page, exp in zip(pages, expect, strict=False):
        half = len(exp) // 2
        left_last = page.find(exp[half - 1].split()[-1])
        right_first = page.find(exp[half].split()[0])
        order_ok += int(0 <= left_last < right_first)
    return recall, order_ok / len(expect)


def main() -> None:
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        for name, (path, expect) in cases(tmp).items():
            for backend in ("pypdfium2", "pypdf"):
                wall, rss, res = run(backend, path)
                pages = res.get("pages")
                if isinstance(pages, list):
                    rec, order = quality(pages, expect)
                    chars = sum(len(p) for p in pages)
                    what = f"recall {rec:.3f} column order {order:.2f} chars {chars}"
                else:
                    what = f"skipped: {res.get('skipped')}"
                size = path.stat().st_size
                print(
                    f"{name:28} {backend:10} {wall:7.2f} s  peak RSS {rss:7.1f} MiB "
                    f" ({size} B)  {what}"
                )


if __name__ == "__main__":
    main()
