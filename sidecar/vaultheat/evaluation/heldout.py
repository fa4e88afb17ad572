"""Held-out link prediction: hide a random share of the vault's links, recover them.

The protocol the best published peer uses (Smart Related Notes: held-out link recall@10 over
6-8 random splits), so our numbers compare with theirs:

1. The vault's note links, read as undirected pairs (A links to B, or B to A), are shuffled
   with a seed and ``share`` of them hidden. Nothing is re-indexed: every configuration reads
   the same index with a *masked* link graph (``NoteLinks`` without the hidden pairs), which is
   what link votes and link heat read.
2. Each note with a hidden pair is a query. Its text is the note's body (frontmatter dropped, as
   in the strict mode) with the links to hidden partners cut out and its other links kept: the
   note as it stood before those links were written. Its own chunks are blocked as always.
3. The relevant notes are its hidden partners; its visible partners are already linked, so they
   leave the ranking before ranks are read (they are not predictions).
4. Over ``seeds`` splits: recall@10 and nDCG@10 per configuration as mean ± sd over the seeds,
   and every configuration against the first one: per-seed differences (mean ± sd) and a 95%
   paired bootstrap interval over all (seed, query) pairs.
5. Label precision: each result a sidebar shows (the first ``SIDEBAR``, visible partners left
   out) gets the relevance label the sidebar would show ("strong", "good", "weak"), and per
   label the share of those results that are hidden partners. A lower bound (a note can be
   related without a link), but one read the same way on every vault: "Strong" should mean
   the same share of true links everywhere (issue #38). The labels come from the curve an
   index run would fit on the seed's visible links (``core/query/calibration.py``, when
   ``related.fit_labels`` is on), and again from the model's curve (``labels_model_curve``).

Heat propagation (``experimental.search_hops`` > 0) reads the chunk graph's link edges, which
this protocol does not mask: such configurations are refused rather than measured with a leak.
"""

from __future__ import annotations

import dataclasses
import random
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from vaultheat.config import Settings
from vaultheat.core.query.calibration import fit_vault_curve
from vaultheat.core.query.related import run_related
from vaultheat.core.query.relevance import Curve, curve_for
from vaultheat.core.query.results import relevance_of
from vaultheat.core.query.view import IndexView
from vaultheat.core.query.votes import NoteLinks
from vaultheat.core.requests import RelatedRequest
from vaultheat.core.vault.parsing import parse_note
from vaultheat.core.vault.resolve import LinkResolver
from vaultheat.engine import Engine
from vaultheat.errors import InputError
from vaultheat.evaluation.harness import TOP, EvalConfig, apply_config
from vaultheat.evaluation.metrics import mean_scores, paired_difference, ranks_of

SCHEMA = "vaultheat.heldout.v1"
METRICS = ("recall_at_10", "ndcg_at_10")
SeedRanks = list[list[list[int | None]]]  # per seed, per query, the relevant notes' ranks
LABELS = ("strong", "good", "weak")
SIDEBAR = 10  # results whose labels are read: what the sidebar shows (related.top's default)


@dataclass(frozen=True)
class HeldItem:
    note: str
    relevant: tuple[str, ...]  # its hidden partners
    known: frozenset[str]  # its visible partners: linked already, not predictions


@dataclass(frozen=True)
class Split:
    seed: int
    hidden: frozenset[tuple[str, str]]  # (a, b) with a < b
    links: NoteLinks  # the vault's links without the hidden pairs
    items: tuple[HeldItem, ...]


def link_pairs(links: NoteLinks) -> list[tuple[str, str]]:
    """The vault's links as undirected pairs (a < b), sorted."""
    return sorted({(min(s, t), max(s, t)) for s, ts in links.out_links.items() for t in ts
                   if s != t})  # fmt: skip


def hold_out(links: NoteLinks, share: float, seed: int) -> Split:
    """Hide ``share`` of the link pairs (a seeded shuffle) and list the queries it makes."""
    if not 0 < share < 1:
        raise InputError(f"the held-out share must be between 0 and 1, not {share}")
    pairs = link_pairs(links)
    hidden = frozenset(random.Random(seed).sample(pairs, round(share * len(pairs))))
    visible = [(s, t) for s, ts in links.out_links.items() for t in ts
               if (min(s, t), max(s, t)) not in hidden]  # fmt: skip
    masked = NoteLinks.from_pairs(visible, links.chunks)
    partners: dict[str, set[str]] = {}
    for a, b in hidden:
        partners.setdefault(a, set()).add(b)
        partners.setdefault(b, set()).add(a)
    items = tuple(
        HeldItem(note, tuple(sorted(rel)), frozenset(masked.graph.neighbours(note)))
        for note, rel in sorted(partners.items())
        if note in links.chunks
    )
    return Split(seed, hidden, masked, items)


def query_text(path: str, raw: bytes, hide: set[str], resolver: LinkResolver) -> str:
    """The note's body with its links to ``hide`` cut out (other links kept as written)."""
    note = parse_note(path, raw)
    out = bytearray(raw)
    for lk in sorted(note.links, key=lambda lk: lk.byte_start, reverse=True):
        if lk.kind == "property" or lk.byte_start < note.body_byte_start:
            continue
        if resolver.resolve_link(lk, path) in hide:
            out[lk.byte_start : lk.byte_end] = b""
    del out[: note.body_byte_start]
    return bytes(out).decode("utf-8", "surrogateescape")


def run_heldout(
    engine: Engine,
    configs: Sequence[EvalConfig],
    *,
    share: float = 0.2,
    seeds: int = 5,
    first_seed: int = 0,
    sample: int | None = None,
) -> dict[str, Any]:
    """The protocol above on ``engine``'s index; ``sample`` caps the queries per seed."""
    if seeds < 1:
        raise InputError("--seeds must be at least 1")
    base = engine.settings
    _check_configs(base, configs)
    view = engine.index_view()
    store = view.store
    resolver = LinkResolver(list(store.notes()), store.attachments(), store.note_aliases())
    ranks: dict[str, SeedRanks] = {c.name: [] for c in configs}
    latency: dict[str, list[float]] = {c.name: [] for c in configs}
    labelled: dict[str, dict[str, list[int]]] = {
        c.name: {label: [0, 0] for label in LABELS} for c in configs
    }  # label -> [results, hidden partners among them]: the labels the product shows
    by_model = {c.name: {label: [0, 0] for label in LABELS} for c in configs}  # model's curve
    # one engine per config, made before any query: a config naming another embedding model
    # fails here (IndexMismatchError), and ``engine`` keeps its own settings
    config_engines = {c.name: apply_config(engine, base, c) for c in configs}
    per_seed: list[dict[str, Any]] = []
    for seed in range(first_seed, first_seed + seeds):
        split = hold_out(view.links, share, seed)
        items = _sampled(list(split.items), sample, seed)
        masked = dataclasses.replace(view, links=split.links)
        vault = engine.paths.vault
        texts = [
            query_text(it.note, (vault / it.note).read_bytes(), set(it.relevant), resolver)
            for it in items
        ]
        row: dict[str, Any] = {"seed": seed, "hidden": len(split.hidden), "queries": len(items)}
        for cfg in configs:
            config_engine = config_engines[cfg.name]
            model_curve, curve = _curves(config_engine, masked)
            seed_ranks: list[list[int | None]] = []
            for it, text in zip(items, texts, strict=True):
                req = RelatedRequest(path=it.note, text=text, top=TOP + len(it.known),
                                     lexical=cfg.lexical, graph=cfg.graph,
                                     rerank=cfg.rerank, votes=cfg.votes)  # fmt: skip
                t0 = time.perf_counter()
                res = run_related(masked, config_engine.models, config_engine.settings, req,
                                  resolver=resolver)  # fmt: skip
                latency[cfg.name].append((time.perf_counter() - t0) * 1000)
                shown = [h for h in res.results if h.path not in it.known][:TOP]
                for h in shown[:SIDEBAR]:
                    for tallies, c in ((labelled, curve), (by_model, model_curve)):
                        tally = tallies[cfg.name][relevance_of(h, c)[1]]
                        tally[0] += 1
                        tally[1] += h.path in it.relevant
                ranking = [h.path for h in shown]
                seed_ranks.append(ranks_of(ranking, it.relevant))
            ranks[cfg.name].append(seed_ranks)
            row[cfg.name] = {m: round(v, 4) for m, v in mean_scores(seed_ranks).items()
                             if m in METRICS}  # fmt: skip
        per_seed.append(row)
    return {
        "schema": SCHEMA,
        "vault": str(engine.paths.vault),
        "share": share,
        "seeds": list(range(first_seed, first_seed + seeds)),
        "pairs": len(link_pairs(view.links)),
        "per_seed": per_seed,
        "configs": [
            summary(c, ranks[c.name], latency[c.name], labelled[c.name], by_model[c.name])
            for c in configs
        ],
        "paired": [paired(configs[0].name, c.name, ranks) for c in configs[1:]],
    }


def _check_configs(base: Settings, configs: Sequence[EvalConfig]) -> None:
    """Refuse a configuration that propagates heat: it reads link edges held-out links cannot
    hide."""
    for cfg in configs:
        if base.with_overrides(cfg.overrides).experimental.search_hops > 0 and cfg.graph:
            raise InputError(
                f"configuration {cfg.name!r} propagates heat (experimental.search_hops > 0), "
                "which reads link edges held-out links cannot hide; measure it with "
                "experimental.search_hops = 0"
            )


def _sampled(items: list[HeldItem], sample: int | None, seed: int) -> list[HeldItem]:
    """At most ``sample`` of a seed's queries, drawn with that seed (all when None)."""
    if sample is not None and len(items) > sample:
        keep = set(random.Random(seed).sample(range(len(items)), sample))
        items = [it for i, it in enumerate(items) if i in keep]
    return items


def _curves(config_engine: Engine, masked: IndexView) -> tuple[Curve, Curve]:
    """The model's related curve, and the curve the labels read: with ``fit_labels`` what the
    index run would fit on this seed's visible links (the model's when the fit fails)."""
    e = config_engine.settings.embeddings
    model_curve = curve = curve_for(e.provider, e.model, "related")
    if config_engine.settings.related.fit_labels:
        # what the index run would fit on this seed's visible links
        links = sum(map(len, masked.links.out_links.values()))
        fit = fit_vault_curve(masked, config_engine.models, config_engine.settings,
                              model_curve, model=e.model, notes=len(masked.links.chunks),
                              links=links)  # fmt: skip
        curve = fit.curve or model_curve
    return model_curve, curve


def summary(
    cfg: EvalConfig,
    ranks: list[list[list[int | None]]],
    lat: list[float],
    labelled: dict[str, list[int]] | None = None,
    by_model: dict[str, list[int]] | None = None,
) -> dict[str, Any]:
    out: dict[str, Any] = {"name": cfg.name, "note": cfg.note, "n": sum(len(r) for r in ranks)}
    for m in METRICS:
        vals = [mean_scores(r)[m] for r in ranks]
        out[m] = round(statistics.fmean(vals), 4)
        out[f"{m}_sd"] = round(statistics.stdev(vals), 4) if len(vals) > 1 else 0.0
    lat = sorted(lat)
    out["latency_ms_p95"] = round(lat[int(0.95 * (len(lat) - 1))], 2) if lat else 0.0
    out["labels"] = label_precision(labelled)
    if by_model is not None:
        out["labels_model_curve"] = label_precision(by_model)
    return out


def label_precision(labelled: dict[str, list[int]] | None) -> dict[str, Any]:
    return {
        label: {"n": n, "linked": hit, "precision": round(hit / n, 4) if n else None}
        for label, (n, hit) in (labelled or {}).items()
    }


def paired(base: str, name: str, ranks: dict[str, SeedRanks]) -> dict[str, Any]:
    """``name`` minus ``base``: per-seed differences (mean ± sd) and a paired bootstrap over
    every (seed, query) pair, for each metric."""
    out: dict[str, Any] = {"config": name, "baseline": base}
    for m in METRICS:
        diffs = [mean_scores(a)[m] - mean_scores(b)[m]
                 for a, b in zip(ranks[name], ranks[base], strict=True)]  # fmt: skip
        flat_a = [q for seed in ranks[name] for q in seed]
        flat_b = [q for seed in ranks[base] for q in seed]
        boot = paired_difference(flat_a, flat_b, m)
        out[m] = {
            "per_seed_mean": round(statistics.fmean(diffs), 4),
            "per_seed_sd": round(statistics.stdev(diffs), 4) if len(diffs) > 1 else 0.0,
            "seeds_better": sum(d > 1e-12 for d in diffs),
            "ci_low": boot["ci_low"],
            "ci_high": boot["ci_high"],
            "better": boot["better"],
            "worse": boot["worse"],
        }
    return out


def format_heldout(doc: dict[str, Any]) -> str:
    lines = [
        f"held-out links: {doc['vault']}  {doc['share']:.0%} of {doc['pairs']} link pairs hidden, "
        f"seeds {doc['seeds'][0]}..{doc['seeds'][-1]}",
        f"{'config':<16}  {'R@10':>15}  {'nDCG@10':>15}  {'p95 ms':>7}  {'n':>6}",
    ]
    for c in doc["configs"]:
        lines.append(
            f"{c['name']:<16}  {c['recall_at_10']:>7.3f} ± {c['recall_at_10_sd']:.3f}  "
            f"{c['ndcg_at_10']:>7.3f} ± {c['ndcg_at_10_sd']:.3f}  {c['latency_ms_p95']:>7.1f}  "
            f"{c['n']:>6}"
        )
    for c in doc["configs"]:
        for key, what in (("labels", "labels"), ("labels_model_curve", "model curve's")):
            cells = [f"{label} {d['precision']:.3f} of {d['n']}" if d["precision"] is not None
                     else f"{label} - of 0" for label, d in c.get(key, {}).items()]  # fmt: skip
            if cells:
                lines.append(f"{c['name']:<16}  {what}, share linked: " + ", ".join(cells))
    for p in doc["paired"]:
        cells = []
        for m, label in (("recall_at_10", "R@10"), ("ndcg_at_10", "nDCG@10")):
            d = p[m]
            cells.append(
                f"{label} {d['per_seed_mean']:+.4f} ± {d['per_seed_sd']:.4f} "
                f"(95% CI {d['ci_low']:+.4f}..{d['ci_high']:+.4f}, seeds better "
                f"{d['seeds_better']}/{len(doc['seeds'])})"
            )
        lines.append(f"{p['config']} - {p['baseline']}: " + "; ".join(cells))
    return "\n".join(lines)
