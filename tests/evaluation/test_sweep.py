"""vaultheat eval --sweep: grid parsing, point counts, kNN variants in memory, chunking variants
on a temporary index, the embedding cache across points, and the JSON report."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import search_doc, status_doc
from vaultheat.config import Settings
from vaultheat.core.graphview import GraphView
from vaultheat.core.requests import SearchRequest
from vaultheat.errors import ConfigError, InputError, VaultheatError
from vaultheat.evaluation.harness import LinkQuery, render_items
from vaultheat.evaluation.sets import LinkItem, load_search_set
from vaultheat.evaluation.sweep import (
    MAX_POINTS,
    KnnVariants,
    grid_points,
    parse_grid,
    run_sweep,
)

REPO = Path(__file__).resolve().parents[2]
QUERIES = REPO / "examples/eval/queries.jsonl"
BASE = Settings()


def _grid(body: str, mode: str = "one-at-a-time") -> str:
    return f'mode = "{mode}"\n[grid]\n{body}\n'


# -- grid parsing ------------------------------------------------------------------------------


def test_parse_grid_coerces_and_dedupes() -> None:
    grid = parse_grid(
        _grid(
            '"experimental.search_decay" = [0.5, 0.7, 0.70]\n"graph.knn_k" = [5, 10]\n'
            '"experimental.search_hops" = ["3"]'
        ),
        BASE,
    )
    assert grid.mode == "one-at-a-time"
    assert grid.keys == {
        "experimental.search_decay": (0.5, 0.7),
        "graph.knn_k": (5, 10),
        "experimental.search_hops": (3,),
    }


@pytest.mark.parametrize(
    ("text", "error", "match"),
    [
        (_grid('"search.nope" = [1]'), ConfigError, "unknown config key"),
        (_grid('"bogus.key" = [1]'), ConfigError, "unknown config key"),
        (_grid('"graph.knn_k" = ["many"]'), ConfigError, "bad value for graph.knn_k"),
        (_grid('"experimental.search_decay" = [-0.5]'), ConfigError, "must not be negative"),
        (_grid('"embeddings.model" = ["x"]'), InputError, "cannot be swept: another embedding"),
        (_grid('"server.port" = [1]'), InputError, "cannot be swept; sweepable"),
        (_grid('"experimental.search_decay" = []'), InputError, "non-empty list"),
        (_grid('"experimental.search_decay" = 0.5'), InputError, "non-empty list"),
        (_grid("search.decay = [0.5]"), InputError, "quote dotted keys"),
        (_grid('"experimental.search_decay" = [0.5]', mode="random"), InputError, "unknown mode"),
        ('mode = "product"\n', InputError, r"needs a \[grid\] table"),
        (
            'colour = "red"\n[grid]\n"experimental.search_decay" = [1]',
            InputError,
            "unknown top-level",
        ),
        ("[grid\n", InputError, "cannot parse"),
    ],
    ids=[
        "unknown-key",
        "unknown-section",
        "bad-int",
        "negative",
        "embeddings",
        "server",
        "empty-list",
        "scalar",
        "unquoted-dotted",
        "bad-mode",
        "no-grid",
        "extra-key",
        "bad-toml",
    ],
)
def test_parse_grid_refuses(text: str, error: type[VaultheatError], match: str) -> None:
    with pytest.raises(error, match=match):
        parse_grid(text, BASE)


def test_one_at_a_time_vs_product_point_counts() -> None:
    # 0.5 is the default
    body = '"experimental.search_decay" = [0.3, 0.5, 0.7]\n"graph.knn_k" = [4, 12]'
    one = grid_points(parse_grid(_grid(body), BASE), BASE)
    # the baseline, then each non-default value alone
    assert [p.label for p in one] == [
        "defaults",
        "experimental.search_decay=0.3",
        "experimental.search_decay=0.7",
        "graph.knn_k=4",
        "graph.knn_k=12",
    ]
    prod = grid_points(parse_grid(_grid(body, "product"), BASE), BASE)
    assert len(prod) == 1 + 3 * 2  # no combination equals the baseline (knn_k 8 not listed)
    assert len({tuple(sorted(p.overrides.items())) for p in prod}) == len(prod)
    assert {"experimental.search_decay": 0.3, "graph.knn_k": 12} in [p.overrides for p in prod]
    # the default decay (0.5) appears as "not overridden"
    assert {"graph.knn_k": 4} in [p.overrides for p in prod]


def test_product_over_the_limit_is_refused() -> None:
    values = ", ".join(str(i) for i in range(1, 9))
    keys = ("experimental.search_hops", "graph.knn_k", "search.top")
    body = "\n".join(f'"{k}" = [{values}]' for k in keys)
    assert MAX_POINTS < 8**3
    with pytest.raises(InputError, match=f"512 points .*at most {MAX_POINTS}"):
        grid_points(parse_grid(_grid(body, "product"), BASE), BASE)
    assert len(grid_points(parse_grid(_grid(body), BASE), BASE)) <= 1 + 3 * 8


# -- kNN variants without re-indexing ----------------------------------------------------------


def _similar_of(graph: GraphView) -> dict[int, set[int]]:
    offsets, nbr, _w, kind = graph.csr()[0]
    out: dict[int, set[int]] = {}
    for u in range(graph.size):
        a, b = offsets[u], offsets[u + 1]
        out[u] = {int(v) for v, k in zip(nbr[a:b], kind[a:b], strict=True) if k == 0}
    return out


def _index_digest(engine: Any) -> str:
    """The stored index: database, vector file and config (not SQLite's -shm / -wal files,
    which a read-only connection creates, nor the writer lock)."""
    h = hashlib.sha256()
    for p in sorted(engine.paths.root.iterdir()):
        if p.is_file() and not p.name.endswith(("-shm", "-wal", ".lock")):
            h.update(p.name.encode() + p.read_bytes())
    return h.hexdigest()


def test_knn_variants_change_the_similar_edges_in_memory_only(fake_engine: Any) -> None:
    before = _index_digest(fake_engine)
    # few seeds and no query floor, so that most results are found by heat over the graph
    base = fake_engine.settings.with_overrides(
        {
            "graph.knn_min_sim": 0.0,
            "search.vector_top": 2,
            "experimental.search_query_floor": 0.0,
            "experimental.search_hops": 2,
        }
    )
    grid = parse_grid(_grid('"graph.knn_k" = [1, 30]\n"graph.knn_min_sim" = [0.0]'), base)
    knn = KnnVariants(fake_engine, grid, base)
    assert knn.k_max == 30 and knn.floor_min == 0.0
    stored = _similar_of(fake_engine.index_view().graph)

    def apply(k: int) -> tuple[dict[int, set[int]], dict[int, float]]:
        point = fake_engine.with_settings(base.with_value("graph.knn_k", k))
        point.views.use_similar_edges(knn.lists(point.settings.graph))  # shared views
        edges = _similar_of(point.index_view().graph)
        req = SearchRequest("espresso grind too fine sour", top=100, lexical=False, graph=True)
        doc = search_doc(point, req)
        return edges, {r["chunk_id"]: r["components"]["heat"] for r in doc["results"]}

    try:
        one, heat_one = apply(1)
        wide, heat_wide = apply(30)
    finally:
        fake_engine.views.use_similar_edges(None)
    assert max(len(v) for v in one.values()) == 1
    assert max(len(v) for v in wide.values()) > 1
    assert all(one[u] <= wide[u] for u in one)  # k=1 is a prefix of k=30
    assert heat_one != heat_wide  # heat runs over the swapped edges
    # link edges are untouched by the swap, and None brings the stored edges back
    assert _similar_of(fake_engine.index_view().graph) == stored
    assert _index_digest(fake_engine) == before


def test_derived_lists_equal_a_direct_computation(fake_engine: Any) -> None:
    """Cutting the wide list equals computing k / floor directly (what the indexer does)."""
    from vaultheat.core.vault.knn import knn_lists

    base = fake_engine.settings
    grid = parse_grid(_grid('"graph.knn_k" = [2, 12]\n"graph.knn_min_sim" = [0.1, 0.4]'), base)
    knn = KnnVariants(fake_engine, grid, base)
    _view = fake_engine.index_view()
    store, vectors = _view.store, _view.vectors
    note_of = dict(store.db.execute("SELECT id, note_id FROM chunks").fetchall())
    for k, floor in ((2, 0.4), (12, 0.1), (5, 0.3)):
        g = base.with_overrides({"graph.knn_k": k, "graph.knn_min_sim": floor}).graph
        direct = knn_lists(
            vectors,
            sorted(note_of),
            k=k,
            min_sim=floor,
            exclude=lambda a, b: note_of[a] == note_of[b],
        )
        assert knn.lists(g) == direct


def test_graph_view_similar_override_keeps_link_edges(fake_engine: Any) -> None:
    store = fake_engine.index_view().store
    g = fake_engine.settings.graph
    stored = GraphView.from_store(store, g)
    some = next(u for u in range(stored.size) if stored.note_of(u) >= 0)
    swapped = GraphView.from_store(store, g, {some: [(some + 1, 0.5)]})
    kinds = {t for u in range(stored.size) for _, _, t in stored.edges(u)}
    assert "link" in kinds
    for u in range(stored.size):
        links = sorted(e for e in stored.edges(u) if e[2] != "similar")
        assert sorted(e for e in swapped.edges(u) if e[2] != "similar") == links
    assert [e for e in swapped.edges(some) if e[2] == "similar"] == [(some + 1, 0.5, "similar")]


def test_engine_graph_follows_graph_settings(fake_engine: Any) -> None:
    """A point that turns tag edges off gets a graph without them (no stale cached graph)."""
    base = fake_engine.settings
    assert fake_engine.index_view().graph.tag_notes
    off = fake_engine.with_settings(base.with_value("graph.tag_edges", False)).index_view().graph
    assert not off.tag_notes
    assert all(t != "tag" for u in range(off.size) for _, _, t in off.edges(u))
    assert fake_engine.index_view().graph.tag_notes


# -- running a sweep ---------------------------------------------------------------------------


def _link_queries(engine: Any) -> list[LinkQuery]:
    store = engine.index_view().store
    items = []
    for p, row in sorted(store.notes().items()):
        rel = sorted(r for r in store.linked_paths(row.id) - {p} if r.endswith(".md"))
        if len(rel) >= 2:
            items.append(LinkItem(p, tuple(rel), "links-removed"))
    queries, _ = render_items(engine, items, "links-removed")
    assert queries
    return queries


def test_points_reuse_the_query_embeddings(fake_engine: Any) -> None:
    """The first point embeds the queries and the rendered notes; later points embed nothing."""
    items = load_search_set(QUERIES)
    queries = _link_queries(fake_engine)
    emb = fake_engine.models.embedder
    one = parse_grid(_grid('"experimental.search_decay" = [0.5]'), fake_engine.settings)
    many = parse_grid(
        _grid(
            '"experimental.search_decay" = [0.3, 0.9]\n'
            '"experimental.related_score_heat" = [0.0, 0.4]'
        ),
        fake_engine.settings,
    )

    def embedded(grid: Any) -> int:
        fake_engine.models.cache.clear()
        n0 = emb.embedded_count
        report = run_sweep(fake_engine, items, queries, grid)
        assert len(report.rows) == len(grid_points(grid, fake_engine.settings))
        return int(emb.embedded_count - n0)

    first = embedded(one)
    assert first > 0
    assert embedded(many) == first


def test_chunking_variant_uses_a_temporary_index(fake_engine: Any, tmp_path: Path) -> None:
    vault = fake_engine.paths.vault

    def vault_files() -> dict[str, bytes]:
        return {
            str(p.relative_to(vault)): p.read_bytes()
            for p in sorted(vault.rglob("*"))
            if p.is_file() and ".vaultheat" not in p.parts
        }

    before_vault, before_index = vault_files(), _index_digest(fake_engine)
    work = tmp_path / "work"
    work.mkdir()
    seen: list[str] = []

    def log(msg: str) -> None:
        seen.append(msg)
        if msg.startswith("temporary index"):  # while the temp index exists
            seen.append("dirs:" + ",".join(p.name for p in work.iterdir()))

    items = load_search_set(QUERIES)
    body = '"chunking.max_tokens" = [48]\n"experimental.search_decay" = [0.8]'
    grid = parse_grid(_grid(body), BASE)
    report = run_sweep(fake_engine, items, [], grid, log=log, tmp_parent=work)
    assert any(m.startswith("dirs:vaultheat-sweep-") for m in seen)
    assert list(work.iterdir()) == []  # removed afterwards
    assert vault_files() == before_vault  # the vault is only read
    assert _index_digest(fake_engine) == before_index
    (temp,) = report.temp_indexes
    stored_chunks = status_doc(fake_engine)["chunks"]
    assert temp["chunking"] == {"chunking.max_tokens": 48}
    assert temp["chunks"] > stored_chunks  # smaller chunks: more of them
    assert 0 < temp["embedded"] <= temp["chunks"]
    labels = {r["label"] for r in report.rows}
    assert labels == {"defaults", "chunking.max_tokens=48", "experimental.search_decay=0.8"}


# -- the command -------------------------------------------------------------------------------


def _run_cli(argv: list[str]) -> tuple[int, str, str]:
    from vaultheat.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(argv)
    return rc, out.getvalue(), err.getvalue()


def test_sweep_command_json_and_table(fake_engine: Any, tmp_path: Path) -> None:
    lp = tmp_path / "lp.jsonl"
    lp.write_text(
        "".join(
            json.dumps({"note": q.item.note, "relevant": list(q.item.relevant)}) + "\n"
            for q in _link_queries(fake_engine)
        )
    )
    grid = tmp_path / "grid.toml"
    grid.write_text(
        _grid(
            '"experimental.search_decay" = [0.2, 0.9]\n'
            '"experimental.related_score_heat" = [0.0, 0.5]\n'
            '"graph.knn_k" = [2]\n"graph.tag_edges" = [false]'
        )
    )
    argv = [
        "eval",
        "--vault",
        str(fake_engine.paths.vault),
        "--queries",
        str(QUERIES),
        "--linkpred",
        str(lp),
        "--sweep",
        str(grid),
    ]
    fake_engine.close()  # the command opens its own engine
    rc, out, err = _run_cli([*argv, "--json"])
    assert rc == 0, err
    doc = json.loads(out)
    assert doc["schema"] == "vaultheat.sweep.v1"
    for key in ("vault", "grid", "objective", "tasks", "sets", "similar_edges", "rows", "points"):
        assert key in doc
    assert doc["tasks"] == ["search", "related"] and doc["points"] == 1 + 2 + 2 + 1 + 1
    assert doc["similar_edges"]["mode"] == "derived in memory"
    rows = doc["rows"]
    assert [r["rank"] for r in rows] == list(range(1, len(rows) + 1))
    objectives = [r["objective"] for r in rows]
    assert objectives == sorted(objectives, reverse=True)
    for r in rows:
        for task in ("search", "related"):
            for split in ("tune", "holdout"):
                m = r[task][split]
                assert set(m) == {"ndcg_at_10", "mrr", "hit_at_1", "recall_at_10", "n"}
        mean = (r["search"]["tune"]["ndcg_at_10"] + r["related"]["tune"]["ndcg_at_10"]) / 2
        assert r["objective"] == pytest.approx(mean, abs=1e-4)
    assert "point 7/7" in err  # progress goes to stderr

    rc, out, _ = _run_cli(argv)
    assert rc == 0
    lines = out.splitlines()
    assert "search tune" in out and "related holdout" in out
    first = next(line for line in lines if line.strip().startswith("1 "))
    assert rows[0]["label"] in first


def test_sweep_refuses_clashing_flags(fake_engine: Any, tmp_path: Path) -> None:
    grid = tmp_path / "grid.toml"
    grid.write_text(_grid('"experimental.search_decay" = [0.2]'))
    rc, _, err = _run_cli(
        [
            "eval",
            "--vault",
            str(fake_engine.paths.vault),
            "--queries",
            str(QUERIES),
            "--sweep",
            str(grid),
            "--split",
            "tune",
        ]
    )
    assert rc == 2 and "drop --split" in err
