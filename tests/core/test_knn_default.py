"""kNN ``similar`` edges are off by default (only heat propagation reads them, and heat is off):
``graph.knn_k = 8`` still builds them, and an index built with them stays valid at the
default: nothing is re-indexed, its similar edges go unread, and results do not change."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import related_doc, search_doc, status_doc
from vaultheat.check import check_index
from vaultheat.config import Settings, save_settings
from vaultheat.core.requests import RelatedRequest, SearchRequest
from vaultheat.engine import Engine
from vaultheat.paths import index_paths
from vaultheat.providers.fake import FakeEmbedder


def _similar_edges(engine: Engine) -> int:
    graph = engine.index_view().graph
    return sum(1 for u in range(len(graph.chunk_note)) for e in graph.edges(u) if e[2] == "similar")


def _answers(engine: Engine) -> list[object]:
    docs: list[object] = []
    for q in ("espresso grind size", "compost bins"):
        docs.append(search_doc(engine, SearchRequest(query=q, files_only=True))["results"])
    note = "Coffee/Roasting/Roasting Basics.md"
    docs.append(related_doc(engine, RelatedRequest(path=note))["results"])
    return docs


def test_the_default_builds_no_similarity_edges(fake_engine: Engine) -> None:
    assert Settings().graph.knn_k == 0
    assert status_doc(fake_engine)["edges"]["similar"] == 0
    assert _similar_edges(fake_engine) == 0


def test_an_index_built_with_knn_edges_stays_valid_at_the_default(vault: Path) -> None:
    paths = index_paths(vault)
    paths.root.mkdir()
    old = Settings().with_value("embeddings.provider", "fake").with_value("graph.knn_k", 8)
    save_settings(paths.config, old)
    engine = Engine.open(vault, embedder=FakeEmbedder())
    engine.index()
    stored = status_doc(engine)["edges"]["similar"]
    assert stored > 0 and _similar_edges(engine) > 0  # knn_k = 8: built and read by heat
    before = _answers(engine)
    engine.close()

    save_settings(paths.config, old.with_value("graph.knn_k", 0))  # upgrade to the default
    embedder = FakeEmbedder()
    engine = Engine.open(vault, embedder=embedder)
    report = engine.index()
    assert embedder.embedded_count == 0 and report.notes["modified"] == 0  # no rebuild
    assert check_index(engine)["state"] == "clean"
    assert status_doc(engine)["edges"]["similar"] == stored  # kept on disk ...
    assert _similar_edges(engine) == 0  # ... but not read
    assert _answers(engine) == before  # heat off: the similar edges never mattered
    engine.close()
