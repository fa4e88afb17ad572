"""Run evaluation sets against several configurations of one opened Engine.

Configurations differ only in settings overrides and request flags, so they all run on the same
index with the models loaded once: each configuration runs on ``engine.with_settings(...)``
(the settings rebuilt with ``with_overrides``; ``engine`` itself is never changed), which shares
the models, the views and the query-embedding cache. A configuration that overrides the
embedding model or chunking is an ``IndexMismatchError``: it needs an index of its own.

Leakage in link prediction: the related pipeline blocks the query note's own chunks from the
candidates and from relaying heat, so no graph edge touching the note is ever used; link heat
(which starts from the note's links and backlinks) reads a link graph without the note. Strict
(all edges touching the note removed) and lenient (only outgoing edges removed) are therefore
the same run; ``--mode`` is accepted and reported. Link votes read only links between other
notes (the query note never votes). ``canary`` checks both empirically.
"""

from __future__ import annotations

import dataclasses
import math
import random
import shutil
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vaultheat.config import Settings
from vaultheat.core.query.related import run_related
from vaultheat.core.query.votes import NoteLinks
from vaultheat.core.requests import RelatedRequest, SearchRequest
from vaultheat.core.vault.resolve import LinkResolver
from vaultheat.engine import Engine
from vaultheat.errors import InputError
from vaultheat.evaluation.metrics import mean_scores, paired_difference, percentile, ranks_of
from vaultheat.evaluation.sets import LinkItem, SearchItem, is_holdout, render_note
from vaultheat.paths import IndexPaths
from vaultheat.storage.store import Store

TOP = 50  # ranks beyond this count as "not retrieved"
BUILTIN = ("lexical", "vector", "hybrid", "graph", "full", "no-votes", "votes", "default")
HUB_SHARE = 0.02  # hub-free link prediction: the top 2% of notes by in-degree leave the sets
SUBSET = (3, 30)  # link-prediction subset 3 <= |relevant| <= 30
GRAPH_HOPS = 2  # `graph` and `full` propagate heat whatever the default (0 since 2026-11-30)


@dataclass(frozen=True)
class EvalConfig:
    name: str
    overrides: dict[str, Any] = field(default_factory=dict)
    lexical: bool = True
    graph: bool = True  # heat (when hops > 0)
    rerank: bool | None = None  # None = the settings decide (product default)
    note: str = ""
    votes: bool = True  # link votes (related notes; when related.votes is on)


@dataclass
class ConfigResult:
    name: str
    task: str  # "search" | "related"
    ranks: list[list[int | None]] = field(default_factory=list)
    latency_ms: list[float] = field(default_factory=list)
    note: str = ""
    rankings: list[list[str]] = field(default_factory=list)  # related: for the hub-free variant

    def row(self, keep: Callable[[int], bool] | None = None) -> dict[str, Any]:
        idx = [i for i in range(len(self.ranks)) if keep is None or keep(i)]
        scores = mean_scores([self.ranks[i] for i in idx])
        lat = [self.latency_ms[i] for i in idx]
        return {
            "name": self.name,
            "task": self.task,
            **{k: round(v, 4) for k, v in scores.items()},
            "latency_ms_p50": round(percentile(lat, 50), 2),
            "latency_ms_p95": round(percentile(lat, 95), 2),
            "n": len(idx),
            "note": self.note,
        }


def builtin_configs(rerank_available: bool) -> dict[str, EvalConfig]:
    lexical_only = {
        "search.vector_weight": 0.0,
        "search.score_vector": 0.0,
        "experimental.search_score_heat": 0.0,
        "search.files_top_chunks": 1,
        "related.score_fusion": 0.0,
        "search.score_title": 0.0,
        "search.score_page": 0.0,
    }
    return {
        "lexical": EvalConfig(
            "lexical",
            lexical_only,
            lexical=True,
            graph=False,
            rerank=False,
            votes=False,
            note="FTS5 BM25 only; note = best chunk",
        ),
        "vector": EvalConfig(
            "vector",
            {"search.files_top_chunks": 1, "related.score_fusion": 0.0, "search.score_page": 0.0},
            lexical=False,
            graph=False,
            rerank=False,
            votes=False,
            note="note = best chunk",
        ),
        "hybrid": EvalConfig(
            "hybrid",
            {"related.score_fusion": 0.0},
            lexical=True,
            graph=False,
            rerank=False,
            votes=False,
            note="no heat, no fusion part, no votes",
        ),
        "graph": EvalConfig(
            "graph",
            {"experimental.search_hops": GRAPH_HOPS, "related.votes": False},
            lexical=True,
            graph=True,
            rerank=False,
            note=f"heat propagation on ({GRAPH_HOPS} hops), link votes off",
        ),
        "full": EvalConfig(
            "full",
            {"experimental.search_hops": GRAPH_HOPS},
            lexical=True,
            graph=True,
            rerank=True,
            note="" if rerank_available else "rerank unavailable: same as graph",
        ),
        "no-votes": EvalConfig(
            "no-votes", {"related.votes": False}, note="defaults with link votes off"
        ),
        "votes": EvalConfig(
            "votes", {"related.votes": True}, note="defaults with link votes on (related notes)"
        ),
        "default": EvalConfig("default", note="product defaults"),
    }


def resolve_configs(
    names: Sequence[str] | None, settings: Settings, rerank_available: bool
) -> list[EvalConfig]:
    """Built-ins plus ``settings.eval_configs`` (name -> {"section.key": value}), by name."""
    known: dict[str, EvalConfig] = builtin_configs(rerank_available)
    for name, overrides in settings.eval_configs.items():
        if not isinstance(overrides, dict):
            raise InputError(f"eval config {name!r} must be a table of 'section.key' = value")
        settings.with_overrides(overrides)  # validate now, not halfway through a run
        known[name] = EvalConfig(name, dict(overrides), note="from eval_configs")
    wanted = list(names) if names else [*BUILTIN, *settings.eval_configs]
    unknown = [n for n in wanted if n not in known]
    if unknown:
        raise InputError(
            f"unknown configuration(s): {', '.join(unknown)}; known: {', '.join(known)}"
        )
    return [known[n] for n in dict.fromkeys(wanted)]


def rerank_available(engine: Engine) -> bool:
    try:
        return engine.models.reranker(engine.settings.rerank) is not None
    except Exception:  # a reranker that cannot load is simply not available for eval
        return False


def apply_config(engine: Engine, base: Settings, cfg: EvalConfig) -> Engine:
    """An engine answering with ``base`` plus ``cfg``'s overrides (``Engine.with_settings``:
    ``engine`` is untouched); a config naming another embedding model or chunking is an
    ``IndexMismatchError``, not a number measured with this index's vectors."""
    return engine.with_settings(base.with_overrides(cfg.overrides) if cfg.overrides else base)


def run_search_eval(
    engine: Engine, items: Sequence[SearchItem], configs: Sequence[EvalConfig]
) -> list[ConfigResult]:
    base = engine.settings
    out = []
    engines = [apply_config(engine, base, cfg) for cfg in configs]  # a mismatch fails first
    for cfg, config_engine in zip(configs, engines, strict=True):
        res = ConfigResult(cfg.name, "search", note=cfg.note)
        for item in items:
            req = SearchRequest(
                query=item.query,
                top=TOP,
                files_only=True,
                lexical=cfg.lexical,
                graph=cfg.graph,
                rerank=cfg.rerank,
            )
            t0 = time.perf_counter()
            doc = config_engine.search(req)
            res.latency_ms.append((time.perf_counter() - t0) * 1000)
            res.ranks.append(ranks_of([r.path for r in doc.results], item.relevant))
        out.append(res)
    return out


@dataclass
class LinkQuery:
    item: LinkItem
    text: str


def render_items(
    engine: Engine, items: Sequence[LinkItem], variant: str | None
) -> tuple[list[LinkQuery], list[dict[str, str]]]:
    """Rendered queries (variant: the flag, else each line's own, else links-removed) and the
    items skipped with a reason (note missing from the vault or from the index)."""
    store = engine.index_view().store
    indexed = set(store.notes())
    queries: list[LinkQuery] = []
    skipped: list[dict[str, str]] = []
    for it in items:
        path = engine.paths.vault / it.note
        if it.note not in indexed or not path.is_file():
            skipped.append({"note": it.note, "reason": "not in the vault or not indexed"})
            continue
        v = variant or it.variant or "links-removed"
        queries.append(LinkQuery(it, render_note(it.note, path.read_bytes(), v)))
    return queries, skipped


def run_related_eval(
    engine: Engine, queries: Sequence[LinkQuery], configs: Sequence[EvalConfig]
) -> list[ConfigResult]:
    store = engine.index_view().store
    resolver = LinkResolver(list(store.notes()), store.attachments(), store.note_aliases())
    base = engine.settings
    out = []
    engines = [apply_config(engine, base, cfg) for cfg in configs]  # a mismatch fails first
    for cfg, config_engine in zip(configs, engines, strict=True):
        res = ConfigResult(cfg.name, "related", note=cfg.note)
        for q in queries:
            t0 = time.perf_counter()
            ranking = related_ranking(config_engine, q, cfg, resolver)
            res.latency_ms.append((time.perf_counter() - t0) * 1000)
            res.ranks.append(ranks_of(ranking, q.item.relevant))
            res.rankings.append(ranking)
        out.append(res)
    out.append(same_folder_baseline(engine, queries))
    return out


def related_ranking(
    engine: Engine,
    q: LinkQuery,
    cfg: EvalConfig,
    resolver: LinkResolver | None,
    top: int = TOP,
    *,
    blind: bool = True,
) -> list[str]:
    """The related notes of ``q`` by ``cfg``. ``blind``: link heat reads a link graph without
    the note (strict mode); the canary passes False to test the product's own path, which
    reads more (the note's backlinks) and so is the stronger test of a leak."""
    req = RelatedRequest(
        path=q.item.note,
        text=q.text,
        top=top,
        lexical=cfg.lexical,
        graph=cfg.graph,
        rerank=cfg.rerank,
        votes=cfg.votes,
    )
    if blind and engine.settings.related.link_heat != "off":
        # link heat starts from the note's backlinks too: edges touching the note, which this
        # mode hides, so it reads a link graph without them (votes never read them anyway)
        view = engine.index_view()
        masked = dataclasses.replace(view, links=without_note(view.links, q.item.note))
        res = run_related(masked, engine.models, engine.settings, req, resolver=resolver)
        return [r.path for r in res.results]
    return [r.path for r in engine.related(req, resolver=resolver).results]


def without_note(links: NoteLinks, path: str) -> NoteLinks:
    """``links`` without any link from or to ``path``."""
    pairs = [(s, t) for s, ts in links.out_links.items() if s != path for t in ts if t != path]
    return NoteLinks.from_pairs(pairs, links.chunks)


def same_folder_ranking(note: str, all_paths: Sequence[str]) -> list[str]:
    """Notes in the query note's folder first, then the rest, each in path order."""
    folder = note.rsplit("/", 1)[0] if "/" in note else ""

    def folder_of(p: str) -> str:
        return p.rsplit("/", 1)[0] if "/" in p else ""

    others = sorted(p for p in all_paths if p != note)
    return [p for p in others if folder_of(p) == folder] + [
        p for p in others if folder_of(p) != folder
    ]


def same_folder_baseline(engine: Engine, queries: Sequence[LinkQuery]) -> ConfigResult:
    store = engine.index_view().store
    paths = sorted(store.notes())
    res = ConfigResult("same-folder", "related", note="baseline: same folder first, path order")
    for q in queries:
        t0 = time.perf_counter()
        ranking = same_folder_ranking(q.item.note, paths)[:TOP]
        res.latency_ms.append((time.perf_counter() - t0) * 1000)
        res.ranks.append(ranks_of(ranking, q.item.relevant))
        res.rankings.append(ranking)
    return res


def hub_notes(in_degree: dict[str, int], notes: int, share: float = HUB_SHARE) -> set[str]:
    """The ``share`` most-linked notes (at least one; ties at the cut by path)."""
    n = max(1, math.ceil(share * notes))
    ranked = sorted(in_degree.items(), key=lambda x: (-x[1], x[0]))
    return {p for p, d in ranked[:n] if d > 0}


def hub_free(
    results: Sequence[ConfigResult], queries: Sequence[LinkQuery], hubs: set[str]
) -> tuple[list[ConfigResult], list[int]]:
    """Link prediction with the hubs removed from every ranking and every label set; queries
    left with no relevant note are dropped. Returns the results and the queries kept."""
    keep = [i for i, q in enumerate(queries) if set(q.item.relevant) - hubs]
    out = []
    for r in results:
        free = ConfigResult(r.name, r.task, note=r.note)
        for i in keep:
            ranking = [p for p in r.rankings[i] if p not in hubs]
            relevant = [p for p in queries[i].item.relevant if p not in hubs]
            free.ranks.append(ranks_of(ranking, relevant))
            free.latency_ms.append(r.latency_ms[i])
            free.rankings.append(ranking)
        out.append(free)
    return out, keep


def in_subset(item: LinkItem) -> bool:
    return SUBSET[0] <= len(item.relevant) <= SUBSET[1]


def split_of(key: str) -> str:
    return "holdout" if is_holdout(key) else "tune"


# -- canary -----------------------------------------------------------------------------------


def canary(
    engine: Engine,
    linkpred_items: Sequence[LinkItem],
    n: int = 50,
    seed: int = 0,
    variant: str = "links-removed",
    top: int = 100,
) -> dict[str, Any]:
    """Rewrite the stored links of ~n evaluated notes (in a COPY of the index, one note at a
    time, restored after its query) to point at random notes, keep the rendered query
    identical, and measure how far those random notes rise in the related ranking. A mean rise
    above ~0 means the system reads links or edges of the query note that it must not see.
    One note at a time: link votes legitimately read the links of *other* notes, so planting
    every note at once would move rankings for a reason that is not a leak. Ranks beyond
    ``top`` count as ``top + 1``."""
    queries, _ = render_items(engine, linkpred_items, variant)
    rng = random.Random(seed)
    if len(queries) > n:
        queries = rng.sample(queries, n)
    store = engine.index_view().store
    all_paths = sorted(store.notes())
    tmp, copy_paths = _index_copy(engine)
    cfg = _canary_config(engine)
    base = engine.settings
    rises: list[int] = []
    planted_notes = changed = before_top10 = after_top10 = 0
    w = Store(copy_paths.db)
    copy_base = Engine(copy_paths, base, embedder=engine.models.embedder)
    try:
        orig_engine = apply_config(engine, base, cfg)
        copy = apply_config(copy_base, base, cfg)
        for q in queries:
            row = w.note_by_path(q.item.note)
            if row is None:
                continue
            saved = w.link_resolutions(row.id)
            chunk_ids = [c.id for c in w.note_chunks(row.id)]
            saved_edges = [(c, d, wt) for c in chunk_ids
                           for d, kind, wt in w.edges_from(c) if kind == "link"]  # fmt: skip
            with w.transaction():
                targets = plant_random_links(w, q.item, all_paths, rng)
                w.bump_generation()
            if targets:
                planted_notes += 1
                orig = related_ranking(orig_engine, q, cfg, None, top, blind=False)
                new = related_ranking(copy, q, cfg, None, top, blind=False)
                changed += orig != new
                r0 = [r or top + 1 for r in ranks_of(orig, targets)]
                r1 = [r or top + 1 for r in ranks_of(new, targets)]
                rises += [a - b for a, b in zip(r0, r1, strict=True)]
                before_top10 += sum(1 for r in r0 if r <= 10)
                after_top10 += sum(1 for r in r1 if r <= 10)
            _restore_links(w, saved, chunk_ids, saved_edges)
    finally:
        copy_base.close()
        w.close()
        shutil.rmtree(tmp, ignore_errors=True)
    mean_rise = sum(rises) / len(rises) if rises else 0.0
    return {
        "notes": planted_notes,
        "targets": len(rises),
        "rankings_changed": changed,
        "mean_rank_rise": round(mean_rise, 4),
        "max_rank_rise": max(rises, default=0),
        "targets_in_top10_before": before_top10,
        "targets_in_top10_after": after_top10,
        "passed": mean_rise <= 0.5 and after_top10 <= before_top10,
    }


def _index_copy(engine: Engine) -> tuple[Path, IndexPaths]:
    """A copy of ``engine``'s index in a temporary folder (the folder, and the copy's paths)."""
    tmp = Path(tempfile.mkdtemp(prefix="vaultheat-canary-"))
    copy_root = tmp / "index"
    shutil.copytree(
        engine.paths.root, copy_root, ignore=shutil.ignore_patterns("writer.lock", "server.json")
    )
    return tmp, IndexPaths(vault=engine.paths.vault, root=copy_root)


def _canary_config(engine: Engine) -> EvalConfig:
    """Heat propagation, link votes and link heat on, even when the defaults have them off:
    edges and stored links are the paths a leak would take, so the canary must exercise them."""
    hops = max(engine.settings.experimental.search_hops, GRAPH_HOPS)
    heat = engine.settings.related.link_heat
    return EvalConfig("default+graph+votes", {"experimental.search_hops": hops,
                      "related.votes": True,
                      "related.link_heat": "ppr" if heat == "off" else heat})  # fmt: skip


def _restore_links(
    w: Store,
    saved: Sequence[tuple[int, str | None]],
    chunk_ids: list[int],
    saved_edges: list[tuple[int, int, float]],
) -> None:
    """Put back a note's link resolutions and link edges as they were before the planting."""
    with w.transaction():
        for rowid, resolved in saved:
            w.set_link_resolution(rowid, resolved)
        w.replace_link_edges(chunk_ids, saved_edges)
        w.bump_generation()


def plant_random_links(
    store: Store, item: LinkItem, all_paths: Sequence[str], rng: random.Random
) -> list[str]:
    """Point every resolved link of ``item.note`` at a random other note and rebuild its link
    edges accordingly (link chunk -> first chunk of the random note). Returns the targets."""
    row = store.note_by_path(item.note)
    if row is None:
        return []
    chunks = store.note_chunks(row.id)
    links = store.resolved_link_offsets(row.id)
    pool = [p for p in all_paths if p != item.note and p not in item.relevant]
    if not chunks or not links or not pool:
        return []
    targets = rng.sample(pool, min(len(pool), max(3, len({*item.relevant}))))
    first_chunk: dict[str, int] = {}
    for t in targets:
        trow = store.note_by_path(t)
        tch = store.note_chunks(trow.id) if trow else []
        if tch:
            first_chunk[t] = tch[0].id
    targets = [t for t in targets if t in first_chunk][: len(links)]
    if not targets:
        return []
    edges: dict[tuple[int, int], float] = {}
    for i, (rowid, b0) in enumerate(links):
        t = targets[i % len(targets)]
        store.set_link_resolution(rowid, t)
        src = chunks[0]
        for c in chunks:
            if c.byte_start <= b0:
                src = c
        edges[(src.id, first_chunk[t])] = 1.0
    store.replace_link_edges([c.id for c in chunks], [(s, d, w) for (s, d), w in edges.items()])
    return targets


BASELINES = ("vector", "lexical", "hybrid", "no-votes")


def paired_rows(results: Sequence[ConfigResult]) -> list[dict[str, Any]]:
    """``default`` against each baseline run alongside it, query by query (nDCG@10): the mean
    difference with a 95% paired bootstrap interval and the better/worse/equal counts."""
    by_name = {r.name: r for r in results}
    default = by_name.get("default")
    if default is None:
        return []
    return [
        {
            "task": default.task,
            "config": "default",
            "baseline": name,
            "metric": "ndcg_at_10",
            **paired_difference(default.ranks, by_name[name].ranks),
        }
        for name in BASELINES
        if name in by_name
    ]
