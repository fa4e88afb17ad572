"""Parameter sweeps: evaluate a grid of settings points on one opened Engine, cheaply.

A point is a set of ``"section.key" = value`` overrides on the index's own settings. Most knobs
(``search.*``, ``related.*``, tag edges) only change how queries are answered, so every point
runs on the same opened index with the models loaded once. What would otherwise make a sweep
slow is handled like this:

* Query embeddings: search queries and the chunks of each rendered link-prediction note are
  embedded at the first point and cached by their text (``engine.models.cache``; the text alone
  decides the vector, so the cache is valid at every point and is shared with the temporary
  indexes below). The cache's size cap clears it only on a miss, and after the first point
  there are none (same texts), so later points embed nothing;
  ``tests/evaluation/test_sweep.py`` checks this with a counting embedder.
* kNN ``similar`` edges (``graph.knn_k``, ``graph.knn_min_sim``, ``graph.same_note``): the
  neighbour lists are computed once from the stored vectors with the largest k and the lowest
  floor of the grid, and each point's edges are cut from them in memory (exact: a top-k list
  above a floor is a prefix of the wider list) and handed to ``Engine.use_similar_edges``.
  When the grid has such keys, every point of the sweep uses derived edges, the baseline too,
  so the rows compare like with like; the report says how far those differ from the stored
  edges (the indexer updates lists incrementally, which can leave small differences).
* Chunking (``chunking.*``) changes the chunks themselves: each distinct chunking setting gets
  a temporary index of the same vault in a temporary folder, built with the main index's
  embedding cache copied in (so only chunks whose text changed are embedded: up to a full
  embed of the vault), evaluated, and deleted. The vault is only read.
* ``embeddings.*`` cannot be swept (another model is another index); other sections that
  change nothing at query time (vault, server, expansion) are refused too.

Every point runs every item; rows carry tune and holdout metrics per task. The objective that
ranks the rows is the mean tune nDCG@10 over the tasks given (search and/or related notes), so
the holdout columns stay an honest check of what the ranking picked.
"""

from __future__ import annotations

import itertools
import math
import shutil
import tempfile
import time
import tomllib
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vaultheat.config import GraphSettings, Settings
from vaultheat.core.vault.knn import Neighbours, knn_lists
from vaultheat.engine import Engine
from vaultheat.errors import InputError
from vaultheat.evaluation.harness import (
    ConfigResult,
    EvalConfig,
    LinkQuery,
    related_ranking,
    rerank_available,
    run_search_eval,
    split_of,
)
from vaultheat.evaluation.metrics import ranks_of
from vaultheat.evaluation.sets import SearchItem
from vaultheat.indexing.run import Indexer
from vaultheat.paths import IndexPaths
from vaultheat.storage.store import Store

MODES = ("one-at-a-time", "product")
MAX_POINTS = 500
SWEEPABLE = ("search", "related", "graph", "chunking", "experimental")
SWEEPABLE_KEYS = ("rerank.enabled", "rerank.shortlist")
KNN_KEYS = ("graph.knn_k", "graph.knn_min_sim", "graph.same_note")
ROW_METRICS = ("ndcg_at_10", "mrr", "hit_at_1", "recall_at_10")
SPLITS = ("tune", "holdout")
OBJECTIVE = "mean of the tune-split nDCG@10 of the tasks given (search, related notes)"

Log = Callable[[str], None]


@dataclass(frozen=True)
class Grid:
    mode: str
    keys: dict[str, tuple[Any, ...]]  # key -> coerced values, in file order


@dataclass(frozen=True)
class Point:
    label: str
    overrides: dict[str, Any]  # only the keys that differ from the base settings

    @property
    def chunking(self) -> tuple[tuple[str, Any], ...]:
        return tuple(sorted((k, v) for k, v in self.overrides.items() if k.startswith("chunking.")))


@dataclass
class SweepReport:
    rows: list[dict[str, Any]]  # sorted by objective, best first
    similar_edges: dict[str, Any]
    temp_indexes: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0


# -- the grid ---------------------------------------------------------------------------------


def parse_grid(text: str, base: Settings, source: str = "grid") -> Grid:
    """A grid from TOML: ``mode`` (one-at-a-time | product) and a ``[grid]`` table of
    ``"section.key" = [values]``. Every value is validated against ``base`` now, so a typo
    fails before the first point runs."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"cannot parse {source}: {exc}", path=source) from exc
    extra = sorted(set(data) - {"mode", "grid"})
    if extra:
        raise InputError(f"{source}: unknown top-level key(s) {', '.join(extra)}; use mode, [grid]")
    mode = data.get("mode", "one-at-a-time")
    if mode not in MODES:
        raise InputError(f"{source}: unknown mode {mode!r}; use one of {', '.join(MODES)}")
    table = data.get("grid")
    if not isinstance(table, dict) or not table:
        raise InputError(f'{source}: needs a [grid] table of "section.key" = [values]')
    keys: dict[str, tuple[Any, ...]] = {}
    for key, values in table.items():
        if isinstance(values, dict):
            raise InputError(f'{source}: quote dotted keys in [grid]: "{key}.…" = [values]')
        check_sweepable(key, source)
        if not isinstance(values, list) or not values:
            raise InputError(f"{source}: {key} must be a non-empty list of values")
        coerced = [base.with_value(key, v).get(key) for v in values]  # ConfigError if bad
        keys[key] = tuple(dict.fromkeys(coerced))
    return Grid(mode, keys)


def load_grid(path: Path, base: Settings) -> Grid:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read sweep grid {path}: {exc}", path=str(path)) from exc
    return parse_grid(text, base, str(path))


def check_sweepable(key: str, source: str = "grid") -> None:
    section = key.split(".", 1)[0]
    if section == "embeddings":
        raise InputError(
            f"{source}: {key} cannot be swept: another embedding model needs its own index "
            "(`vaultheat index --full`); compare models with separate indexes"
        )
    Settings().get(key)  # unknown key -> ConfigError naming the known ones
    if section not in SWEEPABLE and key not in SWEEPABLE_KEYS:
        raise InputError(
            f"{source}: {key} cannot be swept; sweepable: {', '.join(SWEEPABLE)} sections "
            f"and {', '.join(SWEEPABLE_KEYS)}"
        )


def grid_points(grid: Grid, base: Settings) -> list[Point]:
    """The baseline (``base`` itself) first, then the grid's points without duplicates.

    one-at-a-time: each value of each key alone on top of ``base``. product: every combination
    (refused above ``MAX_POINTS``). A value equal to the base value adds no point."""
    sizes = [len(v) for v in grid.keys.values()]
    count = sum(sizes) if grid.mode == "one-at-a-time" else math.prod(sizes)
    if count > MAX_POINTS:
        raise InputError(
            f"the grid has {count} points ({grid.mode}); at most {MAX_POINTS} are allowed: "
            "use fewer values, or one-at-a-time"
        )
    combos: list[dict[str, Any]]
    if grid.mode == "one-at-a-time":
        combos = [{k: v} for k, values in grid.keys.items() for v in values]
    else:
        combos = [
            dict(zip(grid.keys, c, strict=True)) for c in itertools.product(*grid.keys.values())
        ]
    points = [Point("defaults", {})]
    seen: set[tuple[tuple[str, Any], ...]] = {()}
    for combo in combos:
        changed = {k: v for k, v in combo.items() if v != base.get(k)}
        ident = tuple(sorted(changed.items()))
        if ident in seen:
            continue
        seen.add(ident)
        points.append(Point(", ".join(f"{k}={fmt_value(v)}" for k, v in changed.items()), changed))
    return points


def fmt_value(v: Any) -> str:
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, tuple):
        return "[" + ",".join(v) + "]"
    return str(v)


# -- kNN variants -----------------------------------------------------------------------------


class KnnVariants:
    """Similarity lists of one index computed once (largest k, lowest floor) and cut per point.

    Cutting is exact: ``knn_lists`` returns the top ``k`` above the floor, best first, so the
    top ``k' <= k`` above a floor ``f' >= f`` is a prefix of the filtered wide list."""

    def __init__(self, engine: Engine, grid: Grid, base: Settings) -> None:
        g = base.graph
        self.k_max = max([g.knn_k, *grid.keys.get("graph.knn_k", ())])
        self.floor_min = min([g.knn_min_sim, *grid.keys.get("graph.knn_min_sim", ())])
        view = engine.index_view()
        store, vectors = view.store, view.vectors
        assert isinstance(store, Store)
        note_of = store.chunk_notes()
        ids = sorted(note_of)
        self._wide: dict[bool, dict[int, Neighbours]] = {}
        for same_note in sorted({g.same_note, *grid.keys.get("graph.same_note", ())}):
            exclude = None if same_note else (lambda a, b: note_of.get(a) == note_of.get(b))
            self._wide[same_note] = knn_lists(
                vectors, ids, k=self.k_max, min_sim=self.floor_min, exclude=exclude
            )
        self._cut: dict[tuple[int, float, bool], dict[int, Neighbours]] = {}
        self.stored = store.similar_pairs()

    def lists(self, g: GraphSettings) -> dict[int, Neighbours]:
        key = (g.knn_k, g.knn_min_sim, g.same_note)
        if key not in self._cut:
            self._cut[key] = {
                u: [(v, s) for v, s in nbrs if s >= g.knn_min_sim][: g.knn_k]
                for u, nbrs in self._wide[g.same_note].items()
            }
        return self._cut[key]

    def compare_stored(self, g: GraphSettings) -> dict[str, Any]:
        derived = {(u, v) for u, nbrs in self.lists(g).items() for v, _ in nbrs}
        return {
            "mode": "derived in memory",
            "k_max": self.k_max,
            "floor_min": self.floor_min,
            "base_edges_derived": len(derived),
            "base_edges_stored": len(self.stored),
            "base_edges_differing": len(derived ^ self.stored),
        }


# -- running ----------------------------------------------------------------------------------


def run_sweep(
    engine: Engine,
    search_items: Sequence[SearchItem],
    link_queries: Sequence[LinkQuery],
    grid: Grid,
    *,
    log: Log | None = None,
    tmp_parent: Path | None = None,
) -> SweepReport:
    """Evaluate every point of ``grid`` (on top of ``engine.settings``); rows best first.

    Every point runs on ``engine.with_settings(...)`` (the engine's settings are never
    changed); afterwards the engine answers from the stored similarity edges again; the stored
    index is only read. Chunking points run on temporary indexes under ``tmp_parent`` (default:
    the system temp folder), each removed when its points are done."""
    say = log or (lambda msg: None)
    t0 = time.perf_counter()
    base = engine.settings
    points = grid_points(grid, base)
    groups: dict[tuple[tuple[str, Any], ...], list[int]] = {}
    for i, p in enumerate(points):
        groups.setdefault(p.chunking, []).append(i)
    knn_swept = any(k in grid.keys for k in KNN_KEYS)
    say(
        f"{len(points)} points ({grid.mode}), {len(search_items)} search queries, "
        f"{len(link_queries)} link queries"
    )
    rows: list[dict[str, Any] | None] = [None] * len(points)
    report = SweepReport(rows=[], similar_edges={"mode": "stored"})
    done = 0
    try:
        for chunking, members in groups.items():
            with _target(engine, dict(chunking), tmp_parent, say) as (target, info):
                if info:
                    report.temp_indexes.append(info)
                target.models.cache = engine.models.cache
                target_base = target.settings
                knn = KnnVariants(target, grid, target_base) if knn_swept else None
                if knn is not None and not chunking:
                    report.similar_edges = knn.compare_stored(target_base.graph)
                for i in members:
                    p = points[i]
                    rest = {k: v for k, v in p.overrides.items() if not k.startswith("chunking.")}
                    settings = target_base.with_overrides(rest)
                    tp = time.perf_counter()
                    point_engine = target.with_settings(settings)
                    if knn is not None:  # the views are shared: the point reads these edges
                        target.views.use_similar_edges(knn.lists(settings.graph))
                    row = evaluate_point(point_engine, p, i, search_items, link_queries)
                    row["seconds"] = round(time.perf_counter() - tp, 2)
                    rows[i] = row
                    done += 1
                    say(f"point {done}/{len(points)}: {p.label} ({row['seconds']:.1f} s)")
    finally:
        engine.views.use_similar_edges(None)
    ranked = sorted(
        (r for r in rows if r is not None),
        key=lambda r: (-(r["objective"] if r["objective"] is not None else -1.0), r["point"]),
    )
    for n, r in enumerate(ranked, start=1):
        r["rank"] = n
    report.rows = ranked
    report.seconds = round(time.perf_counter() - t0, 2)
    return report


def evaluate_point(
    engine: Engine,
    point: Point,
    index: int,
    search_items: Sequence[SearchItem],
    link_queries: Sequence[LinkQuery],
) -> dict[str, Any]:
    """One row: the point's metrics per task and split, with the objective."""
    cfg = EvalConfig(point.label)  # default request flags: the settings decide
    row: dict[str, Any] = {
        "rank": 0,
        "point": index,
        "label": point.label,
        "overrides": {
            k: list(v) if isinstance(v, tuple) else v for k, v in point.overrides.items()
        },
        "objective": None,
    }
    if search_items:
        res = run_search_eval(engine, search_items, [cfg])[0]
        row["search"] = split_scores(res, [it.key for it in search_items])
    if link_queries:
        res = ConfigResult(point.label, "related")
        for q in link_queries:
            t = time.perf_counter()
            ranking = related_ranking(engine, q, cfg, engine.index_view().resolver)
            res.latency_ms.append((time.perf_counter() - t) * 1000)
            res.ranks.append(ranks_of(ranking, q.item.relevant))
        row["related"] = split_scores(res, [q.item.key for q in link_queries])
    tune = [
        row[t]["tune"]["ndcg_at_10"]
        for t in ("search", "related")
        if t in row and row[t]["tune"]["n"]
    ]
    row["objective"] = round(sum(tune) / len(tune), 4) if tune else None
    return row


def split_scores(res: ConfigResult, keys: Sequence[str]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for split in SPLITS:
        members = {i for i, key in enumerate(keys) if split_of(key) == split}
        r = res.row(members.__contains__)
        out[split] = {m: r[m] for m in ROW_METRICS} | {"n": r["n"]}
    return out


@contextmanager
def _target(
    engine: Engine, chunking: Mapping[str, Any], tmp_parent: Path | None, say: Log
) -> Iterator[tuple[Engine, dict[str, Any]]]:
    """The engine to run points on: ``engine`` itself, or for chunking overrides a temporary
    index of the same vault (removed on exit, whatever happens)."""
    if not chunking:
        yield engine, {}
        return
    settings = engine.settings.with_overrides(dict(chunking))
    label = ", ".join(f"{k}={fmt_value(v)}" for k, v in chunking.items())
    tmp = Path(tempfile.mkdtemp(prefix="vaultheat-sweep-", dir=tmp_parent))
    try:
        paths = IndexPaths(vault=engine.paths.vault, root=tmp / "index")
        paths.root.mkdir()
        seed_embeddings(engine, paths)
        say(f"building a temporary index for {label} ...")
        t0 = time.perf_counter()
        built = Indexer(paths, settings, engine.models.embedder).run()
        info = {
            "chunking": dict(chunking),
            "chunks": built.chunks["embedded"] + built.chunks["reused"],
            "embedded": built.chunks["embedded"],
            "seconds": round(time.perf_counter() - t0, 2),
        }
        say(
            f"temporary index: {info['chunks']} chunks, {info['embedded']} embedded, "
            f"{info['seconds']} s"
        )
        available = rerank_available(engine)
        reranker = engine.models.reranker(engine.settings.rerank) if available else None
        temp = Engine(paths, settings, embedder=engine.models.embedder, reranker=reranker)
        try:
            yield temp, info
        finally:
            temp.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def seed_embeddings(engine: Engine, paths: IndexPaths) -> None:
    """Copy the main index's embedding cache (same model) into a new index at ``paths``: chunks
    whose embedding input is unchanged by the new chunking are not embedded again."""
    source = engine.index_view().store
    assert isinstance(source, Store)
    fp = engine.models.embedder.fingerprint
    cached = source.all_cached_vectors(fp)
    dest = Store(paths.db)
    try:
        with dest.transaction():
            dest.put_vectors(fp, cached)
    finally:
        dest.close()
