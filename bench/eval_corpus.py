"""Run every evaluation set of ../shared/eval against its vault: one `vaultheat eval` per vault
and link-prediction variant, with the product defaults; collect one JSON and a markdown table.

    .venv/bin/python bench/eval_corpus.py [--vaults help-en dendron-site ...]
        [--variants links-removed links-as-text] [--collect-only] [--model multilingual]
        [--configs default,vector,lexical]

Each vault is copied to bench/out/eval-work/<name>/vault (the sidecar never writes a vault; the
copy keeps indexes out of the shared corpus), indexed with the defaults (`vaultheat init` +
`vaultheat index`, an index that is already there is only brought up to date), then evaluated
with every built-in configuration. Outputs: bench/out/eval-<name>-<variant>.json per run,
bench/out/eval-corpus.{json,md}.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
OUT = HERE / "out"
WORK = OUT / "eval-work"
REPO = HERE.parent
SHARED = Path(os.environ.get("VAULTHEAT_SHARED", REPO.parent / "shared"))
LANGS = ("en", "de", "es", "fr", "ja", "pt-br", "ru", "zh")
MIN_PAIRED = 10  # below this many queries a bootstrap interval means nothing
METRICS = ("hit_at_1", "recall_at_5", "recall_at_10", "mrr", "ndcg_at_10")


def vault_sets() -> dict[str, tuple[Path, Path | None, Path]]:
    """name -> (vault, search set or None, link-prediction set)."""
    corpus, ev = SHARED / "corpus", SHARED / "eval"
    out: dict[str, tuple[Path, Path | None, Path]] = {}
    for lang in LANGS:
        out[f"help-{lang}"] = (
            corpus / "obsidian-help" / lang,
            ev / f"obsidian-help-{lang}.queries.jsonl",
            ev / f"obsidian-help-{lang}.linkpred.jsonl",
        )
    # questions in de/fr/es/ru/zh/ja over the ENGLISH help vault (this repo's own set)
    out["help-en-crosslingual"] = (
        corpus / "obsidian-help" / "en",
        HERE / "data" / "crosslingual.queries.jsonl",
        ev / "obsidian-help-en.linkpred.jsonl",
    )
    out["vaultofknowledge"] = (
        corpus / "vaultofknowledge",
        None,
        ev / "vaultofknowledge.linkpred.jsonl",
    )
    out["dendron-site"] = (corpus / "dendron-site", None, ev / "dendron-site.linkpred.jsonl")
    # the messy real vault (#22): binary relevance here; graded scoring (partial 0.5), junk
    # share and the BM25 floor are in bench/eval_messy.py
    out["waylonwalker"] = (
        corpus / "waylonwalker",
        ev / "waylonwalker.queries.jsonl",
        ev / "waylonwalker.linkpred.jsonl",
    )
    return out


def vaultheat() -> str:
    exe = Path(sys.executable).with_name("vaultheat")
    return str(exe) if exe.exists() else "vaultheat"


def prepare(name: str, source: Path, model: str = "") -> tuple[Path, float | None]:
    """The vault copy, indexed; returns (vault, index wall seconds or None when reused).

    ``model`` (e.g. the preset "multilingual") is set as embeddings.model after init."""
    vault = WORK / name / "vault"
    if not vault.is_dir():
        shutil.copytree(source, vault, symlinks=True)
        for root, dirs, files in os.walk(vault):
            for entry in (*dirs, *files):
                path = Path(root) / entry
                if not path.is_symlink():
                    path.chmod(path.stat().st_mode | 0o200)
    if not (vault / ".vaultheat" / "config.toml").is_file():
        # the default set-up (init: the English model and the routed second space); a named
        # model is measured on its own, one space
        extra = ["--no-second-space"] if model else []
        subprocess.run([vaultheat(), "init", str(vault), *extra], check=True, capture_output=True)
        if model:
            cmd = [vaultheat(), "config", "set", "embeddings.model", model, "--vault", str(vault)]
            subprocess.run(cmd, check=True, capture_output=True)
    t0 = time.perf_counter()
    subprocess.run([vaultheat(), "index", "--vault", str(vault)], check=True)
    return vault, round(time.perf_counter() - t0, 1)


def run_eval(
    name: str, vault: Path, queries: Path | None, linkpred: Path, variant: str, configs: str = ""
) -> Path:
    out = OUT / f"eval-{name}-{variant}.json"
    cmd = [vaultheat(), "eval", "--vault", str(vault), "--json", "--linkpred", str(linkpred)]
    cmd += ["--variant", variant]
    if configs:
        cmd += ["--configs", configs]
    if queries is not None and queries.is_file() and variant == "links-removed":
        cmd += ["--queries", str(queries)]  # the search set once per vault
    print("$", " ".join(cmd), file=sys.stderr)
    with out.open("w") as fh:
        subprocess.run(cmd, check=True, stdout=fh)
    return out


def collect() -> dict[str, Any]:
    runs = []
    for file in sorted(OUT.glob("eval-*-links-*.json")):
        try:
            doc = json.loads(file.read_text())
        except ValueError:  # a run still writing, or one that failed
            print(f"skipping {file.name}: not a finished JSON document", file=sys.stderr)
            continue
        name, variant = file.stem[len("eval-") :].rsplit("-links-", 1)
        runs.append({"vault": name, "variant": "links-" + variant, "doc": doc})
    return {
        "schema": "vaultheat.eval-corpus.v1",
        "date": dt.datetime.now().isoformat(timespec="minutes"),
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "runs": runs,
    }


def cell(rows: dict[tuple[str, str], dict[str, Any]], task: str, config: str) -> str:
    c = rows.get((task, config))
    if c is None:
        return "–"
    return f"{c['ndcg_at_10']:.3f} / {c['recall_at_10']:.3f} / {c['mrr']:.3f}"


def versus(doc: dict[str, Any], task: str, baseline: str) -> str:
    """default minus ``baseline`` query by query, with a paired bootstrap interval."""
    from vaultheat.evaluation.metrics import paired_difference

    queries = [q for q in doc["queries"] if q["task"] == task]
    if not queries or baseline not in queries[0]["ranks"]:
        return "–"
    d = paired_difference(
        [q["ranks"]["default"] for q in queries], [q["ranks"][baseline] for q in queries]
    )
    if len(queries) < MIN_PAIRED:
        return f"{d['delta']:+.3f} (n={len(queries)}: too few to test)"
    return verdict(d)


def verdict(d: dict[str, Any]) -> str:
    word = (
        "tie" if d["ci_low"] <= 0 <= d["ci_high"] else ("**better**" if d["delta"] > 0 else "worse")
    )
    return f"{d['delta']:+.3f} [{d['ci_low']:+.3f}, {d['ci_high']:+.3f}] {word}"


def hub_free(doc: dict[str, Any]) -> str:
    """Hub-free link prediction (top 2% in-degree out of rankings and labels): nDCG@10 of
    default / no-votes and their paired difference."""
    rows = {r["name"]: r for r in doc.get("related_hub_free", [])}
    pair = next((p for p in doc.get("paired_hub_free", []) if p["baseline"] == "no-votes"), None)
    if "default" not in rows or "no-votes" not in rows or pair is None:
        return "–"
    return (
        f"{rows['default']['ndcg_at_10']:.3f} / {rows['no-votes']['ndcg_at_10']:.3f}, "
        + verdict(pair)
    )


def markdown(results: dict[str, Any]) -> str:
    lines = [
        f"Every set of `../shared/eval`, product defaults vs the built-in baselines "
        f"({results['date']}, {results['cpus']} CPUs). nDCG@10 / R@10 / MRR; "
        "related = link prediction, strict (the note's own links hidden).",
        "",
        "| vault | task | n | default | no-votes | vector | lexical | hybrid | graph "
        "| same-folder | default − no-votes, nDCG@10 [95% CI] | hub-free: default / no-votes, "
        "default − no-votes | default − vector | default − lexical |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    order = list(vault_sets())
    runs = sorted(
        results["runs"],
        key=lambda r: (order.index(r["vault"]) if r["vault"] in order else 99, r["variant"]),
    )
    for run in runs:
        rows = {(c["task"], c["name"]): c for c in run["doc"]["configs"]}
        for task in ("search", "related"):
            if (task, "default") not in rows:
                continue
            label = task if task == "search" else f"related ({run['variant']})"

            best = max(
                (c["ndcg_at_10"] for (t, n), c in rows.items() if t == task and n != "same-folder"),
                default=0.0,
            )
            default = cell(rows, task, "default")
            if rows[(task, "default")]["ndcg_at_10"] >= best:
                default = f"**{default}**"
            lines.append(
                f"| {run['vault']} | {label} | {rows[(task, 'default')]['n']} | {default} | "
                + " | ".join(
                    cell(rows, task, c)
                    for c in ("no-votes", "vector", "lexical", "hybrid", "graph", "same-folder")
                )
                + f" | {versus(run['doc'], task, 'no-votes')}"
                + f" | {hub_free(run['doc']) if task == 'related' else '–'}"
                + "".join(f" | {versus(run['doc'], task, b)}" for b in ("vector", "lexical"))
                + " |"
            )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    sets = vault_sets()
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--vaults", nargs="*", default=list(sets), choices=list(sets))
    p.add_argument("--variants", nargs="*", default=["links-removed", "links-as-text"])
    p.add_argument("--collect-only", action="store_true")
    p.add_argument("--model", default="", help='embeddings.model, e.g. "multilingual"')
    p.add_argument("--configs", default="", help="only these configurations (e.g. default,vector)")
    a = p.parse_args(argv)
    OUT.mkdir(parents=True, exist_ok=True)
    timings: dict[str, float | None] = {}
    if not a.collect_only:
        for name in a.vaults:
            source, queries, linkpred = sets[name]
            if not source.is_dir() or not linkpred.is_file():
                print(f"skipping {name}: {source} or {linkpred} is absent", file=sys.stderr)
                continue
            run = f"{name}@{a.model}" if a.model else name
            vault, timings[run] = prepare(run, source, a.model)
            for variant in a.variants:
                run_eval(run, vault, queries, linkpred, variant, a.configs)
    results = collect()
    results["index_wall_s"] = timings
    (OUT / "eval-corpus.json").write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    md = markdown(results)
    (OUT / "eval-corpus.md").write_text(md, encoding="utf-8")
    print(md)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
