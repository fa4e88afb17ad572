"""Scale benchmark: a synthetic vault at 1k / 10k / 50k notes, or any real vault by path.

    PYTHONPATH=sidecar nice -n 10 .venv/bin/python bench/scale_bench.py --notes 1000
    PYTHONPATH=sidecar nice -n 10 .venv/bin/python bench/scale_bench.py --vault PATH
        [--fake] [--queries 50] [--out results.json] [--workdir DIR]

Synthetic vaults come from bench/synth_vault.py (cached under /tmp/scale-synth-<n>). The vault is
copied to a writable work folder, an index is created like ``vaultheat init`` does and, in one
process, the script measures:

- time to first answer: the index runs in a thread; once its words phase has committed (the
  meaning phase's first progress tick) a second Engine, a reader as the plugin's server would
  be, opens the index and searches while the writer embeds. Reported: the words phase's end,
  the first answer (with its ``ranked_by``), and a check that every note is findable by words
  then (lexical rows per chunk, and a sample of notes found in the top 10 by their title);
- time to full vectors (= full index wall time), chunks/s over it and over the meaning phase;
- peak RSS (``ru_maxrss``) after the full index, and at the end;
- index size on disk (every file under the index folder);
- search and related p50/p95 over ``--queries`` queries (words drawn from the notes' titles,
  related of as many notes); the model's query embedding is included unless ``--fake``;
- one-note edit latency (a paragraph appended, re-indexed with the model loaded);
- no-op re-index on a fresh Engine.

``--fake`` uses FakeEmbedder(384): the pipeline without the model ("model excluded").
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from index_bench import (
    EDIT_PARAGRAPH,
    copy_vault,
    cpu_s,
    init_index,
    open_engine,
    pick_edit_note,
    rss_mib,
)

from vaultheat.core.requests import RelatedRequest, SearchRequest


def synth(n: int) -> Path:
    out = Path(f"/tmp/scale-synth-{n}")
    if not (out / ".synth").exists():
        script = Path(__file__).resolve().parent / "synth_vault.py"
        subprocess.run([sys.executable, str(script), str(out), "--notes", str(n)], check=True)
    return out


def dir_size(path: Path) -> int:
    total = 0
    for folder, _dirs, files in os.walk(path):
        for f in files:
            with contextlib.suppress(OSError):
                total += Path(folder, f).stat().st_size
    return total


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, round(q * (len(s) - 1)))]


def findable(engine: Any, notes: list[str], rng: random.Random, n: int) -> dict[str, Any]:
    """Every note has its lexical rows (one per chunk, the words phase writes them with the
    chunk), and a sample of ``n`` notes is found in the top 10 by its own title."""
    store = engine.views.store()
    db = store.integrity()
    sample = rng.sample(notes, n)
    found = 0
    for path in sample:
        title = store.note_by_path(path).title
        hits = engine.search(SearchRequest(query=title, files_only=True, top=10)).results
        found += any(h.path == path for h in hits)
    return {"notes_with_lexical_rows": len(notes), "lexical_rows": db.lexical_rows,
            "chunks": len(db.chunk_ids), "title_sample": n, "title_found_top10": found}  # fmt: skip


def machine() -> dict[str, Any]:
    load = os.getloadavg()
    cpu = "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"cpus": os.cpu_count(), "cpu": cpu, "loadavg": [round(x, 2) for x in load],
            "python": platform.python_version(), "nice": os.nice(0)}  # fmt: skip


def run(vault_src: Path, workdir: Path, fake: bool, n_queries: int) -> dict[str, Any]:
    res: dict[str, Any] = {"vault": str(vault_src), "embedder": "fake-384" if fake else "default"}
    res["machine_start"] = machine()
    vault = copy_vault(vault_src, workdir / "vault")
    init_index(vault, "fake" if fake else "local")
    engine = open_engine(vault, fake)
    res["model"] = engine.models.embedder.name
    words_done = threading.Event()
    stamps: dict[str, float] = {}

    def progress(stage: str, done: int, total: int) -> None:
        if stage == "meaning" and not words_done.is_set():
            stamps["words"] = time.perf_counter()
            stamps["words_cpu"] = cpu_s()
            words_done.set()

    outcome: dict[str, Any] = {}

    def index() -> None:
        try:
            outcome["report"] = engine.index(progress=progress)
        finally:
            stamps["full"] = time.perf_counter()
            words_done.set()  # nothing to embed: the words were the whole run

    t0, c0 = time.perf_counter(), cpu_s()
    writer = threading.Thread(target=index, name="index")
    writer.start()
    words_done.wait()
    # a reader asks while the writer embeds, as the plugin would: the first answer is by words
    reader = open_engine(vault, fake)
    notes = sorted(r.path for r in reader.views.store().notes_with_chunks())
    rng = random.Random(7)
    words = [w for p in notes for w in Path(p).stem.replace("-", " ").split() if len(w) > 3]
    queries = [" ".join(rng.sample(words, 2)) for _ in range(n_queries)] if words else []
    first = reader.search(SearchRequest(query=queries[0] if queries else "note"))
    res["first_answer_s"] = time.perf_counter() - t0
    res["words_phase_s"] = stamps.get("words", stamps.get("full", 0.0)) - t0
    # CPU of the whole process (the writer thread only, until the reader starts): on a busy
    # machine the wall time says more about the neighbours than about the words phase
    res["words_phase_cpu_s"] = stamps.get("words_cpu", cpu_s()) - c0
    res["first_answer_hits"] = len(first.results)
    res["first_answer_ranked_by"] = first.ranked_by
    res["findable_at_first_answer"] = findable(reader, notes, rng, min(50, len(notes)))
    reader.close()
    writer.join()
    if "report" not in outcome:
        raise RuntimeError("the index run failed")
    report = outcome["report"]
    res["full_index_s"] = stamps["full"] - t0
    res["full_index_cpu_s"] = cpu_s() - c0
    res["full_index_report"] = report.to_dict()
    res["rss_after_index"] = rss_mib()
    st = engine.status()
    res["notes"], res["chunks"] = st.notes, st.chunks
    res["vectors"] = st.vectors
    res["chunks_per_s"] = st.chunks / max(res["full_index_s"], 1e-9)
    embed_s = report.timings.get("embed", 0.0)
    res["embed_chunks_per_s"] = report.chunks["embedded"] / embed_s if embed_s else None
    res["index_bytes"] = dir_size(engine.paths.root)
    res["vault_bytes"] = dir_size(vault) - res["index_bytes"]

    search_ms: list[float] = []
    for q in queries:
        t = time.perf_counter()
        engine.search(SearchRequest(query=q))
        search_ms.append((time.perf_counter() - t) * 1000)
    related_ms: list[float] = []
    for p in rng.sample(notes, min(n_queries, len(notes))):
        t = time.perf_counter()
        engine.related(RelatedRequest(path=p))
        related_ms.append((time.perf_counter() - t) * 1000)
    res["search_ms"] = {"p50": pct(search_ms, 0.5), "p95": pct(search_ms, 0.95),
                        "mean": statistics.fmean(search_ms) if search_ms else None}  # fmt: skip
    res["related_ms"] = {"p50": pct(related_ms, 0.5), "p95": pct(related_ms, 0.95),
                         "mean": statistics.fmean(related_ms) if related_ms else None}  # fmt: skip

    edit_path = pick_edit_note(engine)
    with (vault / edit_path).open("a", encoding="utf-8") as fh:
        fh.write(EDIT_PARAGRAPH)
    t = time.perf_counter()
    edit = engine.index()
    res["edit_s"] = time.perf_counter() - t
    res["edit_chunks"] = edit.to_dict()["chunks"]
    engine.close()

    fresh = open_engine(vault, fake)
    t = time.perf_counter()
    fresh.index()
    res["noop_s"] = time.perf_counter() - t
    fresh.close()
    res["rss_end"] = rss_mib()
    res["machine_end"] = machine()
    return res


def markdown(res: dict[str, Any]) -> str:
    mib = 1024 * 1024
    m0, m1 = res["machine_start"], res["machine_end"]
    s, r = res["search_ms"], res["related_ms"]
    f = res["findable_at_first_answer"]
    rows = [
        ("notes / chunks", f"{res['notes']} / {res['chunks']}"),
        ("vault / index on disk", f"{res['vault_bytes'] / mib:.1f} / "
         f"{res['index_bytes'] / mib:.1f} MiB"),
        ("words phase (every note findable by words)", f"{res['words_phase_s']:.1f} s "
         f"(CPU {res['words_phase_cpu_s']:.1f} s)"),
        ("time to first answer", f"{res['first_answer_s']:.1f} s "
         f"({res['first_answer_hits']} hits, ranked by {res['first_answer_ranked_by']}; "
         f"titles found in top 10: {f['title_found_top10']}/{f['title_sample']}; "
         f"lexical rows {f['lexical_rows']} for {f['chunks']} chunks)"),
        ("time to full vectors", f"{res['full_index_s']:.1f} s "
         f"(CPU {res['full_index_cpu_s']:.1f} s)"),
        ("chunks/s (whole run / meaning phase)", f"{res['chunks_per_s']:.1f} / "
         f"{res['embed_chunks_per_s'] or 0:.1f}"),
        ("peak RSS after index / at end", f"{res['rss_after_index']['peak_mib']:.0f} / "
         f"{res['rss_end']['peak_mib']:.0f} MiB"),
        ("search p50 / p95", f"{s['p50']:.1f} / {s['p95']:.1f} ms"),
        ("related p50 / p95", f"{r['p50']:.1f} / {r['p95']:.1f} ms"),
        ("one-note edit", f"{res['edit_s'] * 1000:.0f} ms"),
        ("no-op re-index (fresh Engine)", f"{res['noop_s'] * 1000:.0f} ms"),
        ("machine", f"{m0['cpus']} × {m0['cpu']}; load {m0['loadavg']} → {m1['loadavg']}; "
         f"nice {m0['nice']}"),
    ]  # fmt: skip
    out = [f"Scale benchmark: {res['vault']} (embedder: {res['model']})", "",
           "| measure | value |", "|---|---|"]  # fmt: skip
    out += [f"| {a} | {b} |" for a, b in rows]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--notes", type=int, help="synthetic vault of this many notes")
    src.add_argument("--vault", type=Path, help="a real vault (copied, never written)")
    p.add_argument("--fake", action="store_true", help="FakeEmbedder(384): model excluded")
    p.add_argument("--queries", type=int, default=50)
    p.add_argument("--out", type=Path, default=None, help="write the results as JSON here")
    p.add_argument("--workdir", type=Path, default=None, help="work folder (default: temporary)")
    a = p.parse_args(argv)
    vault = synth(a.notes) if a.notes else a.vault
    if not vault.is_dir():
        print(f"no vault at {vault}", file=sys.stderr)
        return 2
    if a.workdir is not None:
        shutil.rmtree(a.workdir, ignore_errors=True)
        a.workdir.mkdir(parents=True)
        res = run(vault, a.workdir, a.fake, a.queries)
    else:
        with tempfile.TemporaryDirectory(prefix="scale-bench-") as tmp:
            res = run(vault, Path(tmp), a.fake, a.queries)
    res["markdown"] = markdown(res)
    print(res["markdown"])
    if a.out is not None:
        a.out.parent.mkdir(parents=True, exist_ok=True)
        a.out.write_text(json.dumps(res, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
