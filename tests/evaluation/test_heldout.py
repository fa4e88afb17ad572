"""Held-out link prediction (evaluation/heldout.py): the split, the query text, the run on a
tiny indexed vault (fake embedder) and the CLI. Metric means compare at abs 1e-3 (the document
rounds to 4 places)."""

from __future__ import annotations

import contextlib
import io
import json
import statistics
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.conftest import open_fake_index
from vaultheat.core.query.votes import NoteLinks
from vaultheat.core.vault.parsing import parse_note
from vaultheat.core.vault.resolve import LinkResolver
from vaultheat.errors import InputError
from vaultheat.evaluation import heldout
from vaultheat.evaluation.harness import TOP, EvalConfig, builtin_configs
from vaultheat.evaluation.heldout import (
    SCHEMA,
    format_heldout,
    hold_out,
    link_pairs,
    query_text,
    run_heldout,
)

TOL = 1e-3

# directed links; A <-> B is one pair, and "Orphan" has no chunks (not a query)
DIRECTED = [
    ("A", "B"), ("B", "A"), ("A", "C"), ("A", "D"), ("B", "C"), ("C", "D"), ("D", "E"),
    ("E", "F"), ("F", "A"), ("G", "H"), ("H", "Orphan"), ("E", "G"),
]  # fmt: skip
CHUNKED = ["A", "B", "C", "D", "E", "F", "G", "H"]


def _links() -> NoteLinks:
    chunks = {p: np.array([i], dtype=np.int64) for i, p in enumerate(CHUNKED)}
    return NoteLinks.from_pairs(DIRECTED, chunks)


def _undirected(pairs: list[tuple[str, str]]) -> set[tuple[str, str]]:
    return {(min(a, b), max(a, b)) for a, b in pairs}


def test_link_pairs_are_undirected_sorted_and_distinct() -> None:
    pairs = link_pairs(_links())
    assert pairs == sorted(_undirected(DIRECTED))
    assert len(pairs) == 11  # A -> B and B -> A are one pair


@pytest.mark.parametrize("share", [0.1, 0.2, 0.3, 0.5, 0.75, 0.9])
def test_hold_out_hides_round_share_of_the_pairs(share: float) -> None:
    links = _links()
    split = hold_out(links, share, seed=3)
    pairs = set(link_pairs(links))
    assert len(split.hidden) == round(share * len(pairs))
    assert split.hidden <= pairs
    assert all(a < b for a, b in split.hidden)
    assert split.seed == 3


def test_hold_out_is_seeded() -> None:
    links = _links()
    first = hold_out(links, 0.3, seed=0)
    assert hold_out(links, 0.3, seed=0).hidden == first.hidden
    assert hold_out(links, 0.3, seed=0).items == first.items
    others = {hold_out(links, 0.3, seed=s).hidden for s in range(1, 6)}
    assert others - {first.hidden}, "other seeds must give other splits"


@pytest.mark.parametrize("seed", range(6))
def test_the_masked_links_lack_every_hidden_pair_both_ways(seed: int) -> None:
    links = _links()
    split = hold_out(links, 0.4, seed)
    masked = split.links
    for a, b in split.hidden:
        assert b not in masked.out_links.get(a, frozenset())
        assert a not in masked.out_links.get(b, frozenset())
        assert b not in masked.graph.neighbours(a) and a not in masked.graph.neighbours(b)
    # every visible directed link is kept, and nothing else
    kept = {(s, t) for s, t in DIRECTED if (min(s, t), max(s, t)) not in split.hidden}
    got = {(s, t) for s, ts in masked.out_links.items() for t in ts}
    assert got == kept
    assert set(link_pairs(masked)) == set(link_pairs(links)) - split.hidden
    assert dict(masked.in_degree) == {
        t: sum(1 for _, d in kept if d == t) for t in {d for _, d in kept}
    }
    assert masked.chunks is links.chunks


@pytest.mark.parametrize("seed", range(6))
def test_items_relevant_are_hidden_partners_known_are_visible_ones(seed: int) -> None:
    links = _links()
    split = hold_out(links, 0.4, seed)
    all_pairs = set(link_pairs(links))
    visible = all_pairs - split.hidden

    def partners(note: str, pairs: set[tuple[str, str]]) -> set[str]:
        return {b if a == note else a for a, b in pairs if note in (a, b)}

    expected_queries = sorted(
        {x for pair in split.hidden for x in pair} & set(CHUNKED)
    )  # "Orphan" has no chunks: never a query
    assert [it.note for it in split.items] == expected_queries
    for it in split.items:
        assert set(it.relevant) == partners(it.note, set(split.hidden))
        assert list(it.relevant) == sorted(it.relevant)
        assert it.known == partners(it.note, visible)
        assert not set(it.relevant) & it.known


@pytest.mark.parametrize("share", [0.0, 1.0, -0.1, 1.5])
def test_share_outside_zero_one_is_an_input_error(share: float) -> None:
    with pytest.raises(InputError):
        hold_out(_links(), share, seed=0)


BODY = (
    "Café [[A]] and [[B|bee]], also [c](C.md).\nAgain [[B#Part]] and ![[D]].\n"
    "```\ncode [[B]] here\n```\n"
)
RAW = ('---\nrelated: "[[B]]"\ntags: [x]\n---\n' + BODY).encode()


def _cut(*links: str) -> str:
    out = BODY
    for raw in links:
        assert out.count(raw) == 1
        out = out.replace(raw, "")
    return out


@pytest.mark.parametrize(
    ("hide", "expected"),
    [
        (set(), BODY),
        ({"B.md"}, _cut("[[B|bee]]", "[[B#Part]]")),  # the code block's [[B]] is no link
        ({"D.md"}, _cut("![[D]]")),
        ({"A.md", "C.md"}, _cut("[[A]]", "[c](C.md)")),
        ({"Elsewhere.md"}, BODY),
    ],
    ids=["nothing", "every-link-to-B", "embed", "wikilink-and-markdown", "not-linked"],
)
def test_query_text_cuts_exactly_the_hidden_links(hide: set[str], expected: str) -> None:
    resolver = LinkResolver(["N.md", "A.md", "B.md", "C.md", "D.md", "Elsewhere.md"])
    text = query_text("N.md", RAW, hide, resolver)
    assert text == expected
    assert "---" not in text and "tags:" not in text  # the frontmatter is dropped
    left = {resolver.resolve_link(lk, "N.md") for lk in parse_note("N.md", text.encode()).links}
    assert not left & hide
    assert left == {"A.md", "B.md", "C.md", "D.md"} - hide


def test_query_text_without_frontmatter_keeps_the_whole_body() -> None:
    resolver = LinkResolver(["N.md", "A.md"])
    raw = b"# Title\nSee [[A]].\n"
    assert query_text("N.md", raw, set(), resolver) == "# Title\nSee [[A]].\n"
    assert query_text("N.md", raw, {"A.md"}, resolver) == "# Title\nSee .\n"


# A tiny vault: coffee notes linked in a web, a separate pair on money.
VAULT = {
    "Home.md": "---\ntags: [index]\n---\n# Home\n\nStart at [[Roasting]], [[Grinding]] and "
    "[[Brewing]].\n",
    "Roasting.md": "# Roasting\n\nRoasting coffee beans: first crack, development time. "
    "Green [[Beans]] matter; so does [[Grinding]].\n",
    "Grinding.md": "# Grinding\n\nBurr grinders give an even grind for coffee brewing. "
    "Then [[Brewing]].\n",
    "Brewing.md": "# Brewing\n\nBrewing coffee: pour over, espresso, water temperature. "
    "See [[Water]].\n",
    "Beans.md": "# Beans\n\nCoffee beans from Ethiopia and Colombia, washed or natural. "
    "Back to [[Roasting]].\n",
    "Water.md": "# Water\n\nWater hardness and minerals change how coffee tastes.\n",
    "Taxes.md": "# Taxes\n\nTax returns, deductions and the budget. See [[Budget]].\n",
    "Budget.md": "# Budget\n\nMonthly budget: rent, groceries, savings.\n",
}
PAIRS = 8  # Home-Roasting/Grinding/Brewing, Roasting-Beans/Grinding, Grinding-Brewing,
# Brewing-Water, Taxes-Budget (Beans -> Roasting is the Roasting-Beans pair again)


@pytest.fixture
def tiny_engine(tmp_path: Path) -> Iterator[Any]:
    vault = tmp_path / "vault"
    vault.mkdir()
    for name, text in VAULT.items():
        (vault / name).write_text(text, encoding="utf-8")
    engine = open_fake_index(vault)
    yield engine
    engine.close()


def test_the_tiny_vault_has_the_pairs_it_should(tiny_engine: Any) -> None:
    assert len(link_pairs(tiny_engine.index_view().links)) == PAIRS


def test_run_heldout_rows_summaries_and_pairing(tiny_engine: Any) -> None:
    configs = [
        EvalConfig("default"),
        EvalConfig("ra", {"related.link_heat": "ra"}),
        builtin_configs(False)["lexical"],
    ]
    settings = tiny_engine.settings
    doc = run_heldout(tiny_engine, configs, share=0.3, seeds=3, first_seed=4)
    assert tiny_engine.settings is settings  # restored
    assert doc["schema"] == SCHEMA and doc["share"] == 0.3
    assert doc["seeds"] == [4, 5, 6] and doc["pairs"] == PAIRS
    assert [r["seed"] for r in doc["per_seed"]] == [4, 5, 6]
    names = [c.name for c in configs]
    for row in doc["per_seed"]:
        split = hold_out(tiny_engine.index_view().links, 0.3, row["seed"])
        assert row["hidden"] == round(0.3 * PAIRS) == len(split.hidden)
        assert row["queries"] == len(split.items) > 0
        for n in names:
            assert set(row[n]) == {"recall_at_10", "ndcg_at_10"}
            assert all(0.0 <= v <= 1.0 for v in row[n].values())
    assert [c["name"] for c in doc["configs"]] == names
    for c in doc["configs"]:
        assert c["n"] == sum(r["queries"] for r in doc["per_seed"])
        for m in ("recall_at_10", "ndcg_at_10"):
            vals = [r[c["name"]][m] for r in doc["per_seed"]]
            assert c[m] == pytest.approx(statistics.fmean(vals), abs=TOL)
            assert c[f"{m}_sd"] == pytest.approx(statistics.stdev(vals), abs=TOL)
        assert c["latency_ms_p95"] >= 0.0
        labels = c["labels"]
        assert set(labels) == {"strong", "good", "weak"}
        # what a sidebar shows is labelled once: at most 10 results per query
        assert 0 < sum(d["n"] for d in labels.values()) <= 10 * c["n"]
        for d in labels.values():
            assert 0 <= d["linked"] <= d["n"]
            if d["n"]:
                assert d["precision"] == pytest.approx(d["linked"] / d["n"], abs=1e-4)
            else:
                assert d["precision"] is None
    assert [(p["config"], p["baseline"]) for p in doc["paired"]] == [
        ("ra", "default"),
        ("lexical", "default"),
    ]
    for p in doc["paired"]:
        for m in ("recall_at_10", "ndcg_at_10"):
            diffs = [r[p["config"]][m] - r["default"][m] for r in doc["per_seed"]]
            d = p[m]
            assert d["per_seed_mean"] == pytest.approx(statistics.fmean(diffs), abs=TOL)
            assert d["per_seed_sd"] == pytest.approx(statistics.stdev(diffs), abs=TOL)
            assert 0 <= d["seeds_better"] <= 3
            assert d["ci_low"] <= d["ci_high"]
    text = format_heldout(doc)
    assert text.startswith("held-out links: ") and "30% of 8 link pairs hidden, seeds 4..6" in text
    assert "ra - default: R@10" in text and "lexical - default: R@10" in text
    assert "labels, share linked: strong " in text


def test_a_single_seed_has_zero_sd_and_no_pairs_with_one_config(tiny_engine: Any) -> None:
    doc = run_heldout(tiny_engine, [EvalConfig("default")], share=0.5, seeds=1)
    assert doc["seeds"] == [0] and doc["paired"] == []
    c = doc["configs"][0]
    assert c["recall_at_10_sd"] == 0.0 and c["ndcg_at_10_sd"] == 0.0
    assert c["recall_at_10"] == pytest.approx(doc["per_seed"][0]["default"]["recall_at_10"])
    assert doc["per_seed"][0]["hidden"] == round(0.5 * PAIRS)


def test_run_heldout_masks_links_cuts_text_and_never_ranks_known_partners(
    tiny_engine: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Wrap ``run_related`` and ``ranks_of`` as the run calls them: every query reads the masked
    links, its text has no link to a hidden partner, and the ranking the ranks are read from is
    the results without the known partners (which do come back from related notes)."""
    calls: list[tuple[Any, Any, list[str]]] = []  # (view, request, result paths)
    rankings: list[tuple[list[str], tuple[str, ...]]] = []
    real_related, real_ranks = heldout.run_related, heldout.ranks_of

    def spy_related(view: Any, models: Any, s: Any, req: Any, **kw: Any) -> Any:
        res = real_related(view, models, s, req, **kw)
        calls.append((view, req, [h.path for h in res.results]))
        return res

    def spy_ranks(ranking: list[str], relevant: Any) -> list[int | None]:
        rankings.append((list(ranking), tuple(relevant)))
        return real_ranks(ranking, relevant)

    monkeypatch.setattr(heldout, "run_related", spy_related)
    monkeypatch.setattr(heldout, "ranks_of", spy_ranks)
    share, seeds = 0.5, 3
    run_heldout(tiny_engine, [EvalConfig("default")], share=share, seeds=seeds)
    links = tiny_engine.index_view().links
    resolver = tiny_engine.index_view().resolver
    items = []
    for seed in range(seeds):
        split = hold_out(links, share, seed)
        items += [(split, it) for it in split.items]
    assert len(calls) == len(rankings) == len(items) > 0
    known_seen = 0
    for (view, req, paths), (ranking, relevant), (split, it) in zip(
        calls, rankings, items, strict=True
    ):
        assert req.path == it.note and relevant == it.relevant
        assert req.top == TOP + len(it.known)
        # the masked graph: no hidden pair either way, in the links or the link graph
        for a, b in split.hidden:
            assert b not in view.links.out_links.get(a, ()) and a not in view.links.out_links.get(
                b, ()
            )
            assert a not in view.links.graph.neighbours(b)
        # the text: no link left to a hidden partner, the visible links still there
        note = parse_note(it.note, req.text.encode())
        targets = {resolver.resolve_link(lk, it.note) for lk in note.links}
        assert not targets & set(it.relevant)
        own = links.out_links.get(it.note, frozenset())
        assert own - set(it.relevant) <= targets
        # the ranking: the results without the known partners, in order
        assert ranking == [p for p in paths if p not in it.known][:TOP]
        assert not set(ranking) & it.known
        known_seen += len(set(paths) & it.known)
    assert known_seen > 0, "the case must have known partners among the raw results"


def test_a_known_partner_never_takes_a_rank(
    tiny_engine: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Constructed: related notes return each query's known partners first, then its hidden
    partners, then the rest. With the known partners out of the ranking the hidden partners
    that came back hold ranks 1..k exactly; were a known partner ranked, they would start lower."""
    from dataclasses import replace

    full = tiny_engine.index_view().links  # the unmasked links: the hidden pairs are in here
    real_related, real_ranks = heldout.run_related, heldout.ranks_of
    got: list[tuple[list[int | None], int, int]] = []  # (ranks, hidden back, known)

    def known_first(view: Any, models: Any, s: Any, req: Any, **kw: Any) -> Any:
        res = real_related(view, models, s, req, **kw)
        known = set(view.links.graph.neighbours(req.path))
        hidden = set(full.graph.neighbours(req.path)) - known
        hits = sorted(res.results, key=lambda h: (h.path not in known, h.path not in hidden))
        got.append(([], len(hidden & {h.path for h in hits}), len(known)))
        return replace(res, results=hits)

    def spy_ranks(ranking: list[str], relevant: Any) -> list[int | None]:
        r = real_ranks(ranking, relevant)
        got[-1][0].extend(r)
        return r

    monkeypatch.setattr(heldout, "run_related", known_first)
    monkeypatch.setattr(heldout, "ranks_of", spy_ranks)
    doc = run_heldout(tiny_engine, [EvalConfig("default")], share=0.5, seeds=2)
    assert got and doc["configs"][0]["n"] == len(got)
    assert any(known and back for _, back, known in got), "the case needs known partners"
    for ranks, back, _ in got:
        assert sorted(r for r in ranks if r is not None) == list(range(1, back + 1))


def test_heat_propagation_configs_are_refused(tiny_engine: Any) -> None:
    hops = EvalConfig("hops", {"experimental.search_hops": 1})
    with pytest.raises(InputError, match=r"experimental\.search_hops"):
        run_heldout(tiny_engine, [EvalConfig("default"), hops], share=0.3, seeds=1)
    with pytest.raises(InputError, match="propagates heat"):
        run_heldout(tiny_engine, [builtin_configs(False)["graph"]], share=0.3, seeds=1)
    # hops without the graph switch reads no link edges: allowed
    no_graph = EvalConfig("h", {"experimental.search_hops": 1}, graph=False)
    run_heldout(tiny_engine, [no_graph], share=0.3, seeds=1)


def test_bad_seeds_and_share_are_input_errors(tiny_engine: Any) -> None:
    with pytest.raises(InputError):
        run_heldout(tiny_engine, [EvalConfig("default")], share=0.3, seeds=0)
    with pytest.raises(InputError):
        run_heldout(tiny_engine, [EvalConfig("default")], share=1.0, seeds=1)


def _cli(argv: list[str]) -> tuple[int, str]:
    from vaultheat.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = main(argv)
    return rc, out.getvalue()


def test_cli_heldout_json(tiny_engine: Any) -> None:
    vault = str(tiny_engine.paths.vault)
    rc, out = _cli(["eval", "--vault", vault, "--heldout-links", "0.3", "--seeds", "2", "--json"])
    assert rc == 0
    doc = json.loads(out)
    assert doc["schema"] == "vaultheat.heldout.v1"
    assert doc["seeds"] == [0, 1] and doc["share"] == 0.3 and doc["pairs"] == PAIRS
    assert [c["name"] for c in doc["configs"]] == ["default"] and doc["paired"] == []
    assert len(doc["per_seed"]) == 2


def test_cli_heldout_configs_seed_and_text(tiny_engine: Any) -> None:
    vault = str(tiny_engine.paths.vault)
    argv = ["eval", "--vault", vault, "--heldout-links", "0.5", "--seeds", "2", "--seed", "7",
            "--configs", "default,lexical"]  # fmt: skip
    rc, out = _cli([*argv, "--json"])
    doc = json.loads(out)
    assert rc == 0 and doc["seeds"] == [7, 8]
    assert [c["name"] for c in doc["configs"]] == ["default", "lexical"]
    assert [(p["config"], p["baseline"]) for p in doc["paired"]] == [("lexical", "default")]
    rc, text = _cli(argv)
    assert rc == 0
    lines, want = text.splitlines(), format_heldout(doc).splitlines()
    # header, columns, two configs, their labels' precision (fitted and the model's curve), one
    # paired line
    assert len(lines) == len(want) == 9
    assert lines[:2] == want[:2] and lines[4:] == want[4:]  # all but the latency column
    assert lines[0].endswith("50% of 8 link pairs hidden, seeds 7..8")
    for got_line, want_line in zip(lines[2:4], want[2:4], strict=True):
        assert got_line.split()[:7] == want_line.split()[:7]  # name, R@10 ± sd, nDCG@10 ± sd


def test_cli_heldout_refuses_heat_and_bad_shares(
    tiny_engine: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    vault = str(tiny_engine.paths.vault)
    rc, _ = _cli(["eval", "--vault", vault, "--heldout-links", "0.3", "--configs", "graph"])
    assert rc != 0 and "experimental.search_hops" in capsys.readouterr().err
    rc, _ = _cli(["eval", "--vault", vault, "--heldout-links", "1.5"])
    assert rc != 0 and "between 0 and 1" in capsys.readouterr().err


def test_strict_link_prediction_hides_the_notes_backlinks_from_link_heat(
    tiny_engine: Any,
) -> None:
    """Strict mode hides every edge touching the query note: link heat, which starts from the
    note's backlinks too, must then add nothing (the ranking equals link heat off), although
    the same request through the product's path (backlinks known) does change it."""
    from vaultheat.core.requests import RelatedRequest
    from vaultheat.evaluation.harness import LinkQuery, apply_config, related_ranking
    from vaultheat.evaluation.sets import LinkItem, render_note

    engine = tiny_engine
    note = "Grinding.md"  # linked from Home and Roasting: its backlinks
    text = render_note(note, (engine.paths.vault / note).read_bytes(), "links-removed")
    q = LinkQuery(LinkItem(note, ("Brewing.md",), None), text)
    base = engine.settings
    overrides = {"related.link_heat": "ra", "related.link_heat_weight": 5.0}
    heat = EvalConfig("ra", overrides, votes=False)
    plain = EvalConfig("plain", votes=False)
    without = related_ranking(apply_config(engine, base, plain), q, plain, None)
    heated_engine = apply_config(engine, base, heat)
    strict = related_ranking(heated_engine, q, heat, None)
    req = RelatedRequest(path=note, text=text, top=TOP, votes=False)
    product = [h.path for h in heated_engine.related(req).results]
    heated = [h for h in heated_engine.related(req).results if h.link_heat is not None]
    assert strict == without
    assert heated, "with its backlinks known, link heat reaches notes next to Home and Roasting"
    assert product != without
