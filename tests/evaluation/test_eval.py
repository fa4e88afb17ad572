"""vaultheat eval: metrics, set loading, link rendering, split, the command end to end, canary."""

from __future__ import annotations

import contextlib
import dataclasses
import io
import json
import math
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import search_doc
from vaultheat.errors import InputError
from vaultheat.evaluation.harness import canary, same_folder_ranking
from vaultheat.evaluation.metrics import (
    hit_at,
    mean_scores,
    ndcg_at,
    paired_difference,
    percentile,
    ranks_of,
    recall_at,
    reciprocal_rank,
)
from vaultheat.evaluation.sets import (
    LinkItem,
    SearchItem,
    filter_split,
    is_holdout,
    load_linkpred_set,
    load_search_set,
    render_note,
    sample_items,
)

REPO = Path(__file__).resolve().parents[2]
L2 = math.log2


@pytest.mark.parametrize(
    ("ranks", "hit1", "r5", "r10", "rr", "ndcg"),
    [
        ([1, 3], 1.0, 1.0, 1.0, 1.0, (1 + 1 / L2(4)) / (1 + 1 / L2(3))),
        ([2, None], 0.0, 0.5, 0.5, 0.5, (1 / L2(3)) / (1 + 1 / L2(3))),
        ([7, 12], 0.0, 0.0, 0.5, 1 / 7, (1 / L2(8)) / (1 + 1 / L2(3))),
        ([None, None], 0.0, 0.0, 0.0, 0.0, 0.0),
        ([4], 0.0, 1.0, 1.0, 0.25, 1 / L2(5)),
    ],
    ids=["both-top", "one-missing", "beyond-5", "none-found", "single"],
)
def test_metrics_by_hand(
    ranks: list[int | None], hit1: float, r5: float, r10: float, rr: float, ndcg: float
) -> None:
    assert hit_at(ranks, 1) == hit1
    assert recall_at(ranks, 5) == r5
    assert recall_at(ranks, 10) == r10
    assert reciprocal_rank(ranks) == pytest.approx(rr)
    assert ndcg_at(ranks, 10) == pytest.approx(ndcg)


def test_ranks_and_means() -> None:
    assert ranks_of(["a", "b", "c", "a"], ["c", "a", "z"]) == [3, 1, None]
    means = mean_scores([[1], [None]])
    assert means["hit_at_1"] == 0.5 and means["mrr"] == 0.5
    assert percentile([10.0, 20.0, 30.0, 40.0], 50) == 25.0
    assert percentile([5.0], 95) == 5.0


def test_paired_difference() -> None:
    better = [[1], [1], [1], [1], [None]]
    worse = [[None], [None], [None], [None], [1]]
    up = paired_difference(better, worse)
    assert (up["better"], up["worse"], up["equal"], up["n"]) == (4, 1, 0, 5)
    assert up["delta"] == pytest.approx(0.6)
    assert up["ci_low"] <= up["delta"] <= up["ci_high"]
    down = paired_difference(worse, better)
    assert down["delta"] == pytest.approx(-0.6) and down["ci_high"] <= 0.6
    same = paired_difference(better, better)
    assert (same["delta"], same["ci_low"], same["ci_high"], same["equal"]) == (0, 0, 0, 5)
    # a tie: half better, half worse -- the interval spans 0
    mixed = paired_difference([[1], [None]] * 10, [[None], [1]] * 10)
    assert mixed["ci_low"] < 0 < mixed["ci_high"]
    with pytest.raises(ValueError):
        paired_difference([[1]], [])


def test_search_set_loading_and_malformed_line(tmp_path: Path) -> None:
    good = tmp_path / "q.jsonl"
    good.write_text(
        '{"query": "a", "relevant_files": ["x.md"]}\n\n{"query": "b", '
        '"relevant_files": ["y.md", "z.md"]}\n'
    )
    assert load_search_set(good) == [SearchItem("a", ("x.md",)), SearchItem("b", ("y.md", "z.md"))]
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"query": "a", "relevant_files": ["x.md"]}\n\n{"query": "b", oops}\n')
    with pytest.raises(InputError, match=r"bad\.jsonl:3"):
        load_search_set(bad)
    wrong = tmp_path / "wrong.jsonl"
    wrong.write_text('{"note": "a.md", "relevant": "b.md"}\n')
    with pytest.raises(InputError, match=r":1: 'relevant'"):
        load_linkpred_set(wrong)


NOTE = (
    '---\nrelated: "[[Prop]]"\ntags: [x]\n---\n'
    "See [[Alpha]] and [[Beta|the beta]], also [[Gamma#Setup]].\n"
    "![[Delta]] and [docs](Folder/Epsilon.md) and [web](https://example.com).\n"
    "```\ncode [[Kept]] here\n```\n"
    "Inline `[[AlsoKept]]` end.\n"
)


@pytest.mark.parametrize(
    ("variant", "expected"),
    [
        (
            "links-removed",
            "See  and , also .\n and  and [web](https://example.com).\n"
            "```\ncode [[Kept]] here\n```\nInline `[[AlsoKept]]` end.\n",
        ),
        (
            "links-as-text",
            "See Alpha and the beta, also Gamma > Setup.\nDelta and docs and "
            "[web](https://example.com).\n```\ncode [[Kept]] here\n```\n"
            "Inline `[[AlsoKept]]` end.\n",
        ),
    ],
    ids=["removed", "as-text"],
)
def test_render_note_byte_exact(variant: str, expected: str) -> None:
    assert render_note("N.md", NOTE.encode(), variant) == expected


def test_render_unknown_variant() -> None:
    with pytest.raises(InputError):
        render_note("N.md", b"x", "links-everywhere")


def test_split_is_deterministic_and_partitions() -> None:
    items = [SearchItem(f"query {i}", ("a.md",)) for i in range(200)]
    tune, hold = filter_split(items, "tune"), filter_split(items, "holdout")
    assert len(tune) + len(hold) == 200 and not set(tune) & set(hold)
    assert 20 <= len(hold) <= 60  # ~1 in 5
    assert [is_holdout(i.query) for i in items] == [is_holdout(i.query) for i in items]
    assert filter_split(items, "holdout") == hold


def test_variant_filter_keeps_one_line_per_note() -> None:
    from vaultheat.evaluation.sets import filter_variant

    items = [
        LinkItem("a.md", ("b.md",), "links-removed"),
        LinkItem("a.md", ("b.md",), "links-as-text"),
        LinkItem("c.md", ("b.md",), None),
    ]
    assert filter_variant(items, "links-as-text") == items[1:]
    assert filter_variant(items, None) == items


def test_sample_is_reproducible() -> None:
    items = [LinkItem(f"n{i}.md", ("a.md",)) for i in range(30)]
    a, b = sample_items(items, 7, seed=3), sample_items(items, 7, seed=3)
    assert a == b and len(a) == 7
    assert sample_items(items, 100, seed=0) == items


def test_same_folder_baseline_order() -> None:
    paths = ["A/x.md", "B/y.md", "A/q.md", "A/b.md", "root.md"]
    assert same_folder_ranking("A/q.md", paths) == ["A/b.md", "A/x.md", "B/y.md", "root.md"]


def _run_cli(argv: list[str]) -> tuple[int, dict[str, Any]]:
    from vaultheat.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = main(argv)
    return rc, json.loads(out.getvalue())


def _linkpred_from_vault(engine: Any, path: Path) -> list[LinkItem]:
    store = engine.index_view().store
    items = []
    for p, row in sorted(store.notes().items()):
        rel = sorted(store.linked_paths(row.id) - {p})
        rel = [r for r in rel if r.endswith(".md")]
        if len(rel) >= 2:
            items.append(LinkItem(p, tuple(rel), "links-removed"))
    path.write_text(
        "".join(
            json.dumps({"note": i.note, "relevant": list(i.relevant), "variant": i.variant}) + "\n"
            for i in items
        )
    )
    return items


def test_eval_command_end_to_end(fake_engine: Any, tmp_path: Path) -> None:
    vault = str(fake_engine.paths.vault)
    lp = tmp_path / "lp.jsonl"
    items = _linkpred_from_vault(fake_engine, lp)
    assert items, "the example vault should have notes with links"
    rc, doc = _run_cli(
        [
            "eval",
            "--vault",
            vault,
            "--queries",
            str(REPO / "examples/eval/queries.jsonl"),
            "--linkpred",
            str(lp),
            "--variant",
            "links-removed",
            "--sample",
            "6",
            "--json",
        ]
    )
    assert rc == 0 and doc["schema"] == "vaultheat.eval.v1"
    names = {(c["task"], c["name"]) for c in doc["configs"]}
    for name in ("lexical", "vector", "hybrid", "graph", "full", "default"):
        assert ("search", name) in names and ("related", name) in names
    assert ("related", "same-folder") in names
    assert all(c["n"] == 6 for c in doc["configs"] if c["task"] == "related")
    n_q = sum(1 for line in (REPO / "examples/eval/queries.jsonl").read_text().splitlines() if line)
    search_rows = [c for c in doc["configs"] if c["task"] == "search"]
    assert all(c["n"] == n_q for c in search_rows)
    for c in doc["configs"]:
        for m in ("hit_at_1", "recall_at_5", "recall_at_10", "mrr", "ndcg_at_10"):
            assert 0.0 <= c[m] <= 1.0
        assert c["latency_ms_p95"] >= c["latency_ms_p50"] >= 0.0
    # the fake embedder is keyword-ish, but BM25 must find most of these hand-written queries
    lexical = next(c for c in search_rows if c["name"] == "lexical")
    assert lexical["recall_at_10"] >= 0.5
    q0 = next(q for q in doc["queries"] if q["task"] == "search")
    assert set(q0["ranks"]) >= {"lexical", "default"}
    assert len(q0["ranks"]["default"]) == len(q0["relevant"])
    assert any("strict == lenient" in n for n in doc["notes"])
    assert any("rerank unavailable" in n for n in doc["notes"])
    paired = {(p["task"], p["baseline"]): p for p in doc["paired"]}
    assert set(paired) == {
        (t, b) for t in ("search", "related") for b in ("vector", "lexical", "hybrid", "no-votes")
    }
    for p in paired.values():
        assert p["better"] + p["worse"] + p["equal"] == p["n"] > 0
        assert p["ci_low"] <= p["delta"] <= p["ci_high"]
    # votes touch related notes only: search with and without them is the same run
    assert paired[("search", "no-votes")]["equal"] == paired[("search", "no-votes")]["n"]
    # hub-free variant beside the plain one, over the same configurations
    assert {r["name"] for r in doc["related_hub_free"]} == {
        c["name"] for c in doc["configs"] if c["task"] == "related"
    }
    assert doc["hubs"]["notes"] and doc["hubs"]["queries_kept"] <= 6
    assert all(r["n"] == doc["hubs"]["queries_kept"] for r in doc["related_hub_free"])


def test_eval_split_and_configs_filter(fake_engine: Any) -> None:
    vault = str(fake_engine.paths.vault)
    qfile = str(REPO / "examples/eval/queries.jsonl")
    _, tune = _run_cli(
        [
            "eval",
            "--vault",
            vault,
            "--queries",
            qfile,
            "--configs",
            "lexical",
            "--split",
            "tune",
            "--json",
        ]
    )
    _, hold = _run_cli(
        [
            "eval",
            "--vault",
            vault,
            "--queries",
            qfile,
            "--configs",
            "lexical",
            "--split",
            "holdout",
            "--json",
        ]
    )
    assert [c["name"] for c in tune["configs"]] == ["lexical"]
    qs = {q["query"] for q in tune["queries"]} | {q["query"] for q in hold["queries"]}
    assert len(qs) == len(tune["queries"]) + len(hold["queries"])
    assert all(q["split"] == "holdout" for q in hold["queries"])


def test_eval_unknown_config_is_an_error(fake_engine: Any, capsys: pytest.CaptureFixture) -> None:
    from vaultheat.cli import main

    rc = main(
        [
            "eval",
            "--vault",
            str(fake_engine.paths.vault),
            "--queries",
            str(REPO / "examples/eval/queries.jsonl"),
            "--configs",
            "nope",
        ]
    )
    assert rc != 0 and "unknown configuration" in capsys.readouterr().err


def test_lexical_config_ranks_by_bm25(fake_engine: Any) -> None:
    """The lexical configuration's file order is the order of the best BM25 chunk per note."""
    from vaultheat.core.requests import SearchRequest
    from vaultheat.evaluation.harness import apply_config, builtin_configs

    base = fake_engine.settings
    cfg = builtin_configs(False)["lexical"]
    q = "espresso extraction sour"
    doc = search_doc(
        apply_config(fake_engine, base, cfg),
        SearchRequest(q, top=20, files_only=True, lexical=True, graph=False, rerank=False),
    )
    store = fake_engine.index_view().store
    best: dict[str, float] = {}
    for cid, s in store.lexical_search(q, 40):
        p = store.chunks([cid])[cid].path
        best[p] = max(best.get(p, 0.0), s)
    expected = sorted(best, key=lambda p: (-best[p], p))
    got = [r["path"] for r in doc["results"]][: len(expected)]
    assert got == expected


def test_canary_on_example_vault(fake_engine: Any, tmp_path: Path) -> None:
    items = _linkpred_from_vault(fake_engine, tmp_path / "lp.jsonl")
    before = fake_engine.paths.db.read_bytes()
    report = canary(fake_engine, items, n=12, seed=1)
    assert report["notes"] >= 1 and report["targets"] >= 3
    assert report["rankings_changed"] == 0  # one note planted at a time: nothing may move
    assert report["mean_rank_rise"] == 0.0
    assert report["passed"]
    assert fake_engine.paths.db.read_bytes() == before  # the real index is untouched


def test_canary_catches_a_leaking_pipeline(
    fake_engine: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Positive control: if the pipeline let the query note's chunks relay heat, the planted
    random targets would rise, and the canary must say so."""
    import vaultheat.core.query.related as related

    real = related.retrieve

    def leaky(store: Any, vectors: Any, plan: Any) -> Any:
        return real(store, vectors, dataclasses.replace(plan, blocked=frozenset()))

    monkeypatch.setattr(related, "retrieve", leaky)
    # heat-heavy scoring so that a leak through link edges shows clearly in the ranks
    engine = fake_engine.with_settings(
        fake_engine.settings.with_overrides(
            {
                "experimental.related_score_heat": 1.0,
                "search.score_vector": 0.0,
                "search.score_lexical": 0.0,
                "related.vote_weight": 0.0,
            }
        )
    )
    items = _linkpred_from_vault(engine, tmp_path / "lp.jsonl")
    report = canary(engine, items, n=12, seed=1)
    assert report["mean_rank_rise"] > 0.5 and not report["passed"], report


def test_canary_catches_query_links_voting(
    fake_engine: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Positive control for link votes: if the query note itself voted (its own links read),
    the planted random targets would rise, and the canary must say so."""
    import vaultheat.core.query.related as related

    real = related.link_votes

    def leaky(note_scores: Any, out_links: Any, **kw: Any) -> Any:
        query = kw.pop("query")
        return real([(query, 10.0), *note_scores], out_links, query=None, **kw)

    monkeypatch.setattr(related, "link_votes", leaky)
    items = _linkpred_from_vault(fake_engine, tmp_path / "lp.jsonl")
    report = canary(fake_engine, items, n=12, seed=1)
    assert report["mean_rank_rise"] > 0.5 and not report["passed"], report


def test_hub_free_drops_hubs_from_rankings_and_labels() -> None:
    from vaultheat.evaluation.harness import ConfigResult, LinkQuery, hub_free, hub_notes
    from vaultheat.evaluation.sets import LinkItem

    assert hub_notes({"h": 9, "g": 9, "a": 1}, notes=50) == {"g"}  # 2% of 50 = 1, ties by path
    assert hub_notes({"h": 9, "a": 1, "b": 0}, notes=150) == {"h", "a"}  # ceil(3) ≥ notes linked
    queries = [
        LinkQuery(LinkItem(note="q1", relevant=("h", "x")), ""),
        LinkQuery(LinkItem(note="q2", relevant=("h",)), ""),
    ]
    res = ConfigResult("default", "related", ranks=[[1, 3], [1]], latency_ms=[1.0, 2.0],
                       rankings=[["h", "y", "x"], ["h"]])  # fmt: skip
    free, kept = hub_free([res], queries, {"h"})
    assert kept == [0]  # q2 had only the hub as a label
    assert free[0].ranks == [[2]]  # x moves up one place once h is gone


def test_eval_per_language_breakdown(fake_engine: Any, tmp_path: Path) -> None:
    lines = [
        json.loads(s) for s in (REPO / "examples/eval/queries.jsonl").read_text().splitlines() if s
    ][:4]
    lines[0]["lang"] = "xx"  # the set's field wins over detection
    lines.append(
        {
            "query": "Wie lange sollen die Bohnen nach dem Rösten ruhen, bevor ich sie brühe?",
            "relevant_files": lines[1]["relevant_files"],
        }
    )
    qfile = tmp_path / "q.jsonl"
    qfile.write_text("".join(json.dumps(o) + "\n" for o in lines))
    argv = ["eval", "--vault", str(fake_engine.paths.vault), "--queries", str(qfile)]
    rc, doc = _run_cli([*argv, "--configs", "lexical,default", "--json"])
    assert rc == 0
    assert [q["lang"] for q in doc["queries"]] == ["xx", "en", "en", "en", "de"]
    rows = {(r["lang"], r["name"]): r for r in doc["search_by_language"]}
    assert set(rows) == {(lang, n) for lang in ("de", "en", "xx") for n in ("lexical", "default")}
    assert [rows[(lang, "lexical")]["n"] for lang in ("de", "en", "xx")] == [1, 3, 1]
    overall = {r["name"]: r for r in doc["configs"]}
    for name in ("lexical", "default"):  # the language rows partition the queries
        mrr = sum(rows[(lg, name)]["mrr"] * rows[(lg, name)]["n"] for lg in ("de", "en", "xx"))
        assert abs(mrr / 5 - overall[name]["mrr"]) < 1e-3
    from vaultheat.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main([*argv, "--configs", "lexical"]) == 0
    text = out.getvalue()
    assert "search by query language" in text and "de: lexical" in text and "xx: lexical" in text
