"""The chunk graph's edges are read on first use: only heat (``experimental.search_hops``)
reads them, so a view built for the default settings holds none."""

from __future__ import annotations

from typing import Any

from vaultheat.core.requests import RelatedRequest, SearchRequest


def test_edges_are_read_only_when_heat_runs(fake_engine: Any) -> None:
    fake_engine.search(SearchRequest(query="coffee roasting"))
    fake_engine.related(RelatedRequest(path="Coffee/Roasting/Roast Profiles.md"))
    graph = fake_engine.index_view().graph
    assert graph.fwd is None and graph.rev is None  # hops 0: never read

    hot = fake_engine.with_settings(fake_engine.settings.with_value("experimental.search_hops", 2))
    res = hot.search(SearchRequest(query="coffee roasting", explain=True))
    heated = hot.index_view().graph
    assert heated.fwd is not None and heated.rev is not None
    assert all(h.explain is not None and h.explain.components.raw.get("heat") is not None
               for h in res.results)  # fmt: skip
    assert res.results


def test_lazy_edges_equal_the_stored_edges(fake_engine: Any) -> None:
    store = fake_engine.index_view().store
    graph = fake_engine.index_view().graph
    links = {(u, v) for u in range(graph.size) for v, _, t in graph.edges(u) if t == "link"}
    stored = {(s, d) for s, d, kind, _ in store.edge_rows() if kind == "link"}
    assert links == stored and links
