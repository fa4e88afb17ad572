"""The results table of bench/run.py: per-step JSON files in, one markdown table out.

``collect(out)`` reads ``run-meta.json`` (the command, the machine, the step exit codes and
durations) and ``index-<id>.json`` / ``query-<id>.json`` for every vault of the run, and makes
one row per vault; ``markdown`` renders the header (date, machine, versions, embedding backend,
the command to reproduce), the table and the step durations. A vault with no results is a row
that says so (absent, skipped, failed) rather than a missing line. Standard library only, and
no measuring here: ``bench/run.py --collect-only`` and the tests use it on files alone.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def read_json(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def is_fake(idx: dict[str, Any] | None, qry: dict[str, Any] | None) -> bool:
    if idx is not None:
        emb = idx.get("embedding") or {}
        return emb.get("provider") == "fake" or str(idx.get("embedder", "")).startswith("fake")
    return qry is not None and str(qry.get("embedder", "")).startswith("fake")


def dig(doc: dict[str, Any] | None, *keys: str) -> Any:
    """``doc[k1][k2]...`` or None when any level is missing."""
    cur: Any = doc
    for k in keys:
        if not isinstance(cur, dict) or k not in cur:
            return None
        cur = cur[k]
    return cur


def make_row(
    vault: str,
    idx: dict[str, Any] | None,
    qry: dict[str, Any] | None,
    steps: list[dict[str, Any]],
    skipped: str | None = None,
) -> dict[str, Any]:
    """One table row from a vault's index and query results (either may be missing); ``steps``
    are the run's step records, ``skipped`` why the run left this vault out."""
    failed = [s for s in steps if s["vault"] == vault and s["rc"] != 0]
    if failed:
        f = failed[-1]
        status = f"failed: {f['step']} step, rc {f['rc']} (see {f['log']})"
    elif idx is None and qry is None:
        status = f"absent ({skipped})" if skipped else "absent"
    elif idx is None or qry is None:
        status = "partial: no " + ("index" if idx is None else "query") + " results"
    else:
        status = "ok"
    full, alone = dig(idx, "full_index_s"), dig(idx, "embed_alone_s")
    return {
        "vault": vault,
        "status": status,
        "fake": is_fake(idx, qry),
        "embedder": dig(idx, "embedding", "model") or dig(idx, "model") or dig(qry, "embedder"),
        "notes": dig(idx, "notes") if idx is not None else dig(qry, "notes"),
        "chunks": dig(idx, "chunks") if idx is not None else dig(qry, "chunks"),
        "full_index_s": full,
        "index_embed_ratio": full / alone if full is not None and alone else None,
        "noop_s": dig(idx, "noop_s"),
        "edit_s": dig(idx, "edit_s"),
        "search_p50_ms": dig(qry, "latency_ms", "search", "p50"),
        "search_p95_ms": dig(qry, "latency_ms", "search", "p95"),
        "related_p50_ms": dig(qry, "latency_ms", "related", "p50"),
        "related_p95_ms": dig(qry, "latency_ms", "related", "p95"),
        "peak_rss_index_mib": dig(idx, "peak_rss_index_mib")
        or dig(idx, "rss_after_index", "peak_mib"),
        "peak_rss_query_mib": dig(qry, "peak_rss_query_mib"),
        "cold_search_s": dig(qry, "cold_start", "cli", "answer_s_median"),
        "cold_serve_s": dig(qry, "cold_start", "serve", "answer_s"),
    }


def collect(out: Path, default_vaults: list[str]) -> dict[str, Any]:
    """Everything the table needs, from the JSON files in ``out``: the run's vaults (from
    run-meta.json, else ``default_vaults``) and any other vault with an index-<id>.json."""
    meta = read_json(out / "run-meta.json") or {}
    vaults = list(meta.get("vaults") or default_vaults)
    for file in sorted(out.glob("index-*.json")):  # results of vaults run by hand, too
        vid = file.stem.removeprefix("index-")
        if vid not in vaults:
            vaults.append(vid)
    runs: dict[str, Any] = {}
    rows = []
    for vid in vaults:
        idx, qry = read_json(out / f"index-{vid}.json"), read_json(out / f"query-{vid}.json")
        skipped = (meta.get("skipped") or {}).get(vid)
        rows.append(make_row(vid, idx, qry, meta.get("steps") or [], skipped))
        runs[vid] = {"index": idx, "query": qry}
    return {"meta": meta, "rows": rows, "runs": runs}


def fmt(x: Any, digits: int = 2) -> str:
    if x is None:
        return "–"
    if isinstance(x, float):
        return f"{x:,.{digits}f}"
    if isinstance(x, int):
        return f"{x:,}"
    return str(x)


def pair(a: Any, b: Any, digits: int = 1) -> str:
    return "–" if a is None and b is None else f"{fmt(a, digits)} / {fmt(b, digits)}"


COLUMNS = [
    "vault",
    "embedder",
    "notes",
    "chunks",
    "full index s",
    "index / embed alone",
    "no-op re-index s",
    "one-edit re-index s",
    "search p50 / p95 ms",
    "related p50 / p95 ms",
    "peak RSS MiB index / query",
    "cold start s search / serve",
]


def table(rows: list[dict[str, Any]]) -> list[str]:
    out = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for r in rows:
        if r["status"].startswith(("absent", "failed")):
            cells = [r["vault"], r["status"]] + ["–"] * (len(COLUMNS) - 2)
        else:
            name = r["vault"] + (" †" if r["fake"] else "")
            emb = "fake (model excluded)" if r["fake"] else fmt(r["embedder"])
            ratio = "–" if r["fake"] else fmt(r["index_embed_ratio"])
            cells = [
                name,
                emb,
                fmt(r["notes"]),
                fmt(r["chunks"]),
                fmt(r["full_index_s"], 1),
                ratio,
                fmt(r["noop_s"], 3),
                fmt(r["edit_s"], 3),
                pair(r["search_p50_ms"], r["search_p95_ms"]),
                pair(r["related_p50_ms"], r["related_p95_ms"]),
                pair(r["peak_rss_index_mib"], r["peak_rss_query_mib"], 0),
                pair(r["cold_search_s"], r["cold_serve_s"], 2),
            ]
            if r["status"] != "ok":
                cells[1] += f" ({r['status']})"
        out.append("| " + " | ".join(cells) + " |")
    return out


def describe_embedding(emb: dict[str, Any]) -> str:
    how = ", ".join(str(emb[k]) for k in ("backend", "precision", "device") if emb.get(k))
    threads = emb.get("threads")
    configured = emb.get("configured_backend")
    if configured and configured != emb.get("backend"):
        how += f" (configured: {configured})"
    return (
        f"{emb.get('model')} ({emb.get('provider')}; {how}; threads "
        f"{threads or 'library default'}; {emb.get('dimension')}-d; fingerprint "
        f"`{emb.get('fingerprint')}`)"
    )


def header(results: dict[str, Any]) -> list[str]:
    meta = results["meta"]
    m = meta.get("machine")
    lines = ["# vaultheat benchmark results", ""]
    if meta.get("quick"):
        lines += [
            "**Quick smoke run** (small request counts, one cold start): not for quoting.",
            "",
        ]
    if not meta.get("started"):
        lines.append("- Date: not recorded")
    elif meta.get("finished"):
        lines.append(f"- Date: {meta['started']} to {meta['finished']}")
    else:
        lines.append(f"- Date: {meta['started']} (unfinished or interrupted)")
    if m:
        v = m["versions"]
        lines += [
            f"- Machine: {m['platform']}; {m['cpus_usable']} usable CPUs ({m['cpus_online']} "
            f"online), {m['ram_gib']} GiB RAM; load average {m['load_avg_1m']} at the start",
            f"- Python {m['python']}; vaultheat {v['vaultheat']} (commit "
            f"{(m.get('commit') or 'unknown')[:12]}); torch {v['torch']}, onnxruntime "
            f"{v['onnxruntime']}, sentence-transformers {v['sentence-transformers']}, "
            f"transformers {v['transformers']}, hnswlib {v['hnswlib']}, numpy {v['numpy']}",
        ]
    else:
        lines.append("- Machine: not recorded (run-meta.json is missing: steps were run by hand)")
    seen: dict[str, list[str]] = {}
    for vid, run in results["runs"].items():
        emb = dig(run["index"], "embedding")
        if emb and emb.get("provider") != "fake":
            seen.setdefault(describe_embedding(emb), []).append(vid)
    for desc, vids in seen.items():
        lines.append(f"- Embedding ({', '.join(vids)}): {desc}")
    lines.append(
        "- Embedding (rows marked †): FakeEmbedder(384), a hashed bag of words: **the "
        "model is excluded**; these rows measure parsing, SQLite, hnswlib, the graph and "
        "the query pipeline only"
    )
    if meta.get("command"):
        lines.append(f"- Reproduce (from the repo root): `{meta['command']}`")
    return [*lines, ""]


NOTES = """\
Columns: *full index s* is `engine.index()` on a fresh index with the model already loaded
(its load time is in index-<id>.json as `model_load_s`); *index / embed alone* divides it by the
time one `embed_documents` call takes on the same distinct inputs (target <= 1.15; not shown for
† rows, where hashing is nearly free); *no-op re-index* runs on a fresh Engine with nothing
changed; *one-edit* appends a paragraph to the median-sized note and re-indexes it (model
loaded), graph repair included; search and related latencies are wall times in one process,
model loaded, query cache cleared before each search (related: half saved notes, half unsaved
text); *peak RSS* is `ru_maxrss` of the index process after the full index and of the query
process after its timed requests; *cold start* is spawn to answer of a fresh
`vaultheat search --json` process (median of the runs) and of `vaultheat serve` to its first
`/v1/search` 200 answer. Details, CPU times and profiles: index-<id>.log/.json and
query-<id>.log/.json beside this file."""


def markdown(results: dict[str, Any]) -> str:
    parts = header(results) + table(results["rows"]) + ["", NOTES]
    meta = results["meta"]
    if meta.get("skipped"):
        parts += ["", "Skipped: " + "; ".join(f"{k}: {v}" for k, v in meta["skipped"].items())]
    steps = meta.get("steps") or []
    if steps:
        parts += [
            "",
            "Step durations (wall, this run):",
            "",
            "| vault | step | s | rc |",
            "|---|---|---|---|",
        ]
        parts += [f"| {s['vault']} | {s['step']} | {s['wall_s']} | {s['rc']} |" for s in steps]
    return "\n".join(parts) + "\n"


def write_results(out: Path, default_vaults: list[str]) -> str:
    """results.json and results.md in ``out``; returns the markdown."""
    results = collect(out, default_vaults)
    (out / "results.json").write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    md = markdown(results)
    (out / "results.md").write_text(md, encoding="utf-8")
    return md
