"""Leave one vault out: a weight chosen on one messy vault, judged on the other (issue #37 item 3).

Reads ``bench/name_variants.py --out`` documents, one per vault, all made with the same variants
and the same ``--base`` (the product's defaults). For every messy vault V, the variant with the
best ``--metric`` on the *other* messy vaults (their mean; ties go to the base, then by name) is
the one V would get had it not been looked at; the table gives that variant's figures on V and
its paired difference against the base there (the interval name_variants computed). Curated
documents (``--curated``) are reported for the same chosen variants, never used to choose:

    .venv/bin/python bench/name_variants.py --vault /tmp/bb --messy bluebook.queries.jsonl \\
        --variant base='{}' --variant note0='{"search.score_note": 0}' ... --base base \\
        --out /tmp/bb.json     (and the same for waylonwalker, and --curated for help-en)
    .venv/bin/python bench/leave_one_out.py --messy /tmp/bb.json /tmp/ww.json \\
        --curated /tmp/help-en.json [--metric mrr]

A variant that wins only on the vault it was chosen on shows here as a tie or a loss.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

MESSY_METRICS = ("ndcg_at_5", "mrr", "hit_at_1", "junk_share")
CURATED_METRICS = ("ndcg_at_10", "mrr", "hit_at_1")


def vault_name(doc: dict[str, Any]) -> str:
    return Path(doc["vault"]).name or doc["vault"]


def score(doc: dict[str, Any], variant: str, metric: str) -> float:
    return float(doc["messy"][variant]["summary"]["all"][metric])


def choose(docs: list[dict[str, Any]], metric: str) -> str:
    """The variant with the best mean ``metric`` over ``docs`` (lower is better for the junk
    share); ties go to the base, then to the first name in sorted order."""
    base = docs[0]["base"]
    names = sorted(docs[0]["messy"])
    sign = -1.0 if metric == "junk_share" else 1.0

    def key(name: str) -> tuple[float, bool, str]:
        mean = sum(score(d, name, metric) for d in docs) / len(docs)
        return (-sign * round(mean, 6), name != base, name)

    return min(names, key=key)


def interval(d: dict[str, Any]) -> str:
    return f"{d['delta']:+.3f} [{d['ci_low']:+.3f}, {d['ci_high']:+.3f}]"


def table(
    messy: list[dict[str, Any]], curated: list[dict[str, Any]], metric: str
) -> dict[str, Any]:
    """Per messy vault: the variant chosen on the others, its figures and paired difference
    there; per curated document: each chosen variant's paired difference."""
    if len(messy) < 2:
        raise SystemExit("leave one out needs at least two messy vaults")
    bases = {d["base"] for d in messy + curated}
    if len(bases) != 1:
        raise SystemExit(f"the documents name different bases: {sorted(bases)}")
    rows = []
    for i, doc in enumerate(messy):
        others = messy[:i] + messy[i + 1 :]
        chosen = choose(others, metric)
        entry = doc["messy"][chosen]
        rows.append(
            {
                "vault": vault_name(doc),
                "chosen_on": [vault_name(o) for o in others],
                "variant": chosen,
                "scores": {m: entry["summary"]["all"][m] for m in MESSY_METRICS},
                "base_scores": {
                    m: doc["messy"][doc["base"]]["summary"]["all"][m] for m in MESSY_METRICS
                },
                "vs_base": {m: entry["vs_base"][m] for m in MESSY_METRICS},
                "vs_bm25": {m: entry["vs_bm25"][m] for m in MESSY_METRICS},
            }
        )
    chosen_all = sorted({r["variant"] for r in rows})
    cur = [
        {
            "vault": vault_name(doc),
            "variant": name,
            "scores": {m: doc["curated"][name]["scores"][m] for m in CURATED_METRICS},
            "vs_base": {m: doc["curated"][name]["vs_base"][m] for m in CURATED_METRICS},
        }
        for doc in curated
        for name in chosen_all
        if name in doc.get("curated", {})
    ]
    return {"metric": metric, "base": messy[0]["base"], "messy": rows, "curated": cur}


def render(t: dict[str, Any]) -> str:
    lines = [f"leave one vault out: chosen by {t['metric']} on the other vaults, "
             f"paired against {t['base']!r} on the vault itself"]  # fmt: skip
    for r in t["messy"]:
        lines.append(f"{r['vault']}: {r['variant']!r} (chosen on {', '.join(r['chosen_on'])})")
        for m in MESSY_METRICS:
            lines.append(f"   {m:<10} {r['base_scores'][m]:.3f} -> {r['scores'][m]:.3f}  "
                         f"vs base {interval(r['vs_base'][m])}  "
                         f"vs BM25 {interval(r['vs_bm25'][m])}")  # fmt: skip
    for c in t["curated"]:
        cells = "; ".join(f"{m} {c['scores'][m]:.3f} ({interval(c['vs_base'][m])})"
                          for m in CURATED_METRICS)  # fmt: skip
        lines.append(f"{c['vault']} (curated): {c['variant']!r}: {cells}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--messy", type=Path, nargs="+", required=True)
    ap.add_argument("--curated", type=Path, nargs="*", default=[])
    ap.add_argument("--metric", default="mrr", choices=MESSY_METRICS)
    ap.add_argument("--json", type=Path, default=None)
    a = ap.parse_args(argv)
    load = [json.loads(p.read_text(encoding="utf-8")) for p in a.messy]
    cur = [json.loads(p.read_text(encoding="utf-8")) for p in a.curated]
    t = table(load, cur, a.metric)
    print(render(t))
    if a.json:
        a.json.write_text(json.dumps(t, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
