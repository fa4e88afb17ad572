"""Graded search evaluation on a messy vault (issue #22, item 7): waylonwalker by default.

    .venv/bin/python bench/eval_messy.py --vault /tmp/real-waylonwalker/vault \
        [--queries ../shared/eval/waylonwalker.queries.jsonl] [--bm25-only] \
        [--previous bench/out/messy-waylonwalker.json] [--out bench/out/messy-waylonwalker.json]

Scoring follows ../shared/eval/README.md: a note in ``relevant_files`` gains 1.0, one in
``partial_files`` 0.5, everything else 0 (``ruled_out_files`` are labelled 0 on purpose).
Metrics per query: nDCG@5 (graded, ideal = the labelled gains sorted), MRR and Hit@1 (first
note with gain 1.0), Recall@10 (share of relevant notes in the top 10).

Junk share: the share of top-10 slots held by the set's ruled-out notes (digests, list pages,
star stubs, template shells); the target is below 10%.

The BM25 floor is the README's: title x2 + body, frontmatter stripped, whole notes; it is
computed here from the vault itself (no index) so it can be reproduced anywhere. Vaultheat's
side runs the product defaults (``Engine.search``, files only, top 10). Paired bootstrap
intervals (2000 resamples, 95%) compare vaultheat with BM25 and with a previous run's JSON.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import re
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
SHARED = Path(os.environ.get("VAULTHEAT_SHARED", REPO.parent / "shared"))
DEFAULT_QUERIES = SHARED / "eval" / "waylonwalker.queries.jsonl"
TOP = 10
METRICS = ("ndcg_at_5", "mrr", "hit_at_1", "recall_at_10")


@dataclass(frozen=True)
class GradedItem:
    id: str
    query: str
    category: str
    relevant: tuple[str, ...]
    partial: tuple[str, ...] = ()
    ruled_out: tuple[str, ...] = ()

    def gain(self, path: str) -> float:
        if path in self.relevant:
            return 1.0
        if path in self.partial:
            return 0.5
        return 0.0


def load_items(path: Path) -> list[GradedItem]:
    items = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        o = json.loads(line)
        items.append(
            GradedItem(
                id=str(o.get("id", n)),
                query=o["query"],
                category=str(o.get("category", "")),
                relevant=tuple(o["relevant_files"]),
                partial=tuple(o.get("partial_files", ())),
                ruled_out=tuple(o.get("ruled_out_files", ())),
            )
        )
    return items


def score(item: GradedItem, ranking: Sequence[str]) -> dict[str, float]:
    """The four graded metrics and the junk share of one ranking (paths, best first)."""
    top = list(ranking[:TOP])
    gains = [item.gain(p) for p in top]
    ideal = sorted((item.gain(p) for p in (*item.relevant, *item.partial)), reverse=True)
    dcg = sum(g / math.log2(i + 2) for i, g in enumerate(gains[:5]))
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal[:5]))
    first = next((i for i, p in enumerate(ranking) if p in item.relevant), None)
    found = sum(p in item.relevant for p in top)
    return {
        "ndcg_at_5": dcg / idcg if idcg else 0.0,
        "mrr": 1.0 / (first + 1) if first is not None else 0.0,
        "hit_at_1": 1.0 if first == 0 else 0.0,
        "recall_at_10": found / len(item.relevant) if item.relevant else 0.0,
        "junk_share": sum(p in item.ruled_out for p in top) / TOP,
    }


def mean(rows: Sequence[dict[str, float]], key: str) -> float:
    return sum(r[key] for r in rows) / len(rows) if rows else 0.0


def summary(items: Sequence[GradedItem], rows: Sequence[dict[str, float]]) -> dict[str, Any]:
    out: dict[str, Any] = {"all": {k: round(mean(rows, k), 3) for k in (*METRICS, "junk_share")}}
    out["all"]["n"] = len(rows)
    cats: dict[str, list[dict[str, float]]] = {}
    for it, r in zip(items, rows, strict=True):
        cats.setdefault(it.category, []).append(r)
    for cat, rs in sorted(cats.items()):
        out[cat] = {k: round(mean(rs, k), 3) for k in (*METRICS, "junk_share")}
        out[cat]["n"] = len(rs)
    return out


def paired(
    a: Sequence[dict[str, float]], b: Sequence[dict[str, float]], key: str, *, seed: int = 0
) -> dict[str, float | int]:
    """``a`` minus ``b`` on ``key``, query by query: mean and a 95% paired bootstrap interval."""
    diffs = [x[key] - y[key] for x, y in zip(a, b, strict=True)]
    n = len(diffs)
    if not n:
        return {"delta": 0.0, "ci_low": 0.0, "ci_high": 0.0, "n": 0}
    rng = random.Random(seed)
    means = sorted(sum(diffs[rng.randrange(n)] for _ in range(n)) / n for _ in range(2000))
    return {
        "delta": round(sum(diffs) / n, 4),
        "ci_low": round(means[int(0.025 * 1999)], 4),
        "ci_high": round(means[int(0.975 * 1999)], 4),
        "n": n,
    }


# --- BM25 floor: title x2 + body, frontmatter stripped, whole notes --------------------------

TOKEN = re.compile(r"\w+", re.UNICODE)


def tokens(text: str) -> list[str]:
    return [t.lower() for t in TOKEN.findall(text)]


def strip_frontmatter(text: str) -> str:
    if text.startswith("---"):
        end = re.search(r"^(---|\.\.\.)\s*$", text[3:], re.MULTILINE)
        if end is not None:
            return text[3 + end.end() :]
    return text


@dataclass
class BM25:
    k1: float = 1.2
    b: float = 0.75
    docs: list[str] = field(default_factory=list)
    tf: list[Counter[str]] = field(default_factory=list)
    lengths: list[int] = field(default_factory=list)
    df: Counter[str] = field(default_factory=Counter)

    def add(self, path: str, title: str, body: str) -> None:
        toks = tokens(title) * 2 + tokens(body)
        c = Counter(toks)
        self.docs.append(path)
        self.tf.append(c)
        self.lengths.append(len(toks))
        self.df.update(c.keys())

    def rank(self, query: str, top: int = 1000) -> list[str]:
        n = len(self.docs)
        avg = sum(self.lengths) / n if n else 0.0
        q = set(tokens(query))
        idf = {t: math.log(1 + (n - self.df[t] + 0.5) / (self.df[t] + 0.5)) for t in q}
        scores = []
        for i, c in enumerate(self.tf):
            s = 0.0
            norm = self.k1 * (1 - self.b + self.b * self.lengths[i] / avg) if avg else self.k1
            for t in q:
                f = c.get(t)
                if f:
                    s += idf[t] * f * (self.k1 + 1) / (f + norm)
            if s > 0:
                scores.append((-s, self.docs[i]))
        scores.sort()
        return [p for _, p in scores[:top]]


def bm25_of_vault(vault: Path) -> BM25:
    idx = BM25()
    for path in sorted(vault.rglob("*.md")):
        rel = path.relative_to(vault).as_posix()
        if any(part.startswith(".") for part in Path(rel).parts):
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        idx.add(rel, path.stem, strip_frontmatter(text))
    return idx


def vaultheat_rankings(vault: Path, items: Sequence[GradedItem]) -> list[list[str]]:
    from vaultheat.core.requests import SearchRequest
    from vaultheat.engine import Engine

    engine = Engine.open(vault)
    try:
        return [
            [
                r.path
                for r in engine.search(
                    SearchRequest(query=it.query, top=TOP, files_only=True)
                ).results
            ]
            for it in items
        ]
    finally:
        engine.close()


LOWER_IS_BETTER = frozenset({"junk_share"})


def fmt(d: dict[str, float | int], metric: str = "") -> str:
    up = (d["delta"] > 0) != (metric in LOWER_IS_BETTER)
    word = "tie" if d["ci_low"] <= 0 <= d["ci_high"] else ("better" if up else "worse")
    return f"{d['delta']:+.3f} [{d['ci_low']:+.3f}, {d['ci_high']:+.3f}] {word}"


def report(doc: dict[str, Any]) -> str:
    lines = [
        "| system | subset | n | nDCG@5 | MRR | Hit@1 | R@10 | junk share |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for system in ("bm25", "vaultheat"):
        for subset, s in doc.get(system, {}).get("summary", {}).items():
            lines.append(
                f"| {system} | {subset} | {s['n']} | {s['ndcg_at_5']:.3f} | {s['mrr']:.3f} | "
                f"{s['hit_at_1']:.3f} | {s['recall_at_10']:.3f} | {s['junk_share']:.3f} |"
            )
    for name in ("vs_bm25", "vs_previous"):
        if name in doc:
            lines.append("")
            lines.append(
                f"vaultheat {name.replace('_', ' ')}: "
                + "; ".join(f"{k} {fmt(v, k)}" for k, v in doc[name].items())
            )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--vault", type=Path, required=True)
    p.add_argument("--queries", type=Path, default=DEFAULT_QUERIES)
    p.add_argument("--bm25-only", action="store_true")
    p.add_argument("--previous", type=Path, help="an earlier run's JSON to pair against")
    p.add_argument("--out", type=Path, default=HERE / "out" / "messy-waylonwalker.json")
    a = p.parse_args(argv)
    items = load_items(a.queries)
    bm25 = bm25_of_vault(a.vault)
    b_rank = [bm25.rank(it.query) for it in items]
    b_rows = [score(it, r) for it, r in zip(items, b_rank, strict=True)]
    doc: dict[str, Any] = {
        "schema": "vaultheat.eval-messy.v1",
        "queries": str(a.queries),
        "bm25": {"summary": summary(items, b_rows), "rows": b_rows, "rankings": b_rank},
        "load": os.getloadavg(),
    }
    if not a.bm25_only:
        v_rank = vaultheat_rankings(a.vault, items)
        v_rows = [score(it, r) for it, r in zip(items, v_rank, strict=True)]
        doc["vaultheat"] = {"summary": summary(items, v_rows), "rows": v_rows, "rankings": v_rank}
        doc["vs_bm25"] = {k: paired(v_rows, b_rows, k) for k in (*METRICS, "junk_share")}
        if a.previous and a.previous.is_file():
            prev = json.loads(a.previous.read_text())["vaultheat"]["rows"]
            doc["vs_previous"] = {k: paired(v_rows, prev, k) for k in (*METRICS, "junk_share")}
    doc["ids"] = [it.id for it in items]
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    sys.stdout.write(report(doc))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
