"""A query that names a note finds it first (issue #22, item 2), and the files-only further-chunk
bonus does not let a long note win by length (item 3). The fake embedder stands in for the
model: the point is the ranking arithmetic, not the vectors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.conftest import search_doc
from vaultheat.config import Settings, save_settings
from vaultheat.core.graphview import GraphView
from vaultheat.core.query.pipeline import Retrieval
from vaultheat.core.query.search import note_scores
from vaultheat.core.requests import SearchRequest
from vaultheat.engine import Engine
from vaultheat.paths import index_paths
from vaultheat.providers.fake import FakeEmbedder

NAMED = (
    "---\naliases: [Whiteboard]\n---\n# Excalidraw\n\n"
    "Sketch diagrams by hand, then embed the drawing.\n"
)
WEEK = (
    "## Week {i}\n\n- excalidraw excalidraw release {i}\n- excalidraw scripts, excalidraw libs\n\n"
)
DIGEST = "# Weekly digest 12\n\n" + "".join(WEEK.format(i=i) for i in range(6))


def _engine(tmp_path: Path, **values: object) -> Engine:
    vault = tmp_path / "vault"
    (vault / "tools").mkdir(parents=True)
    (vault / "news").mkdir()
    (vault / "tools" / "Excalidraw.md").write_text(NAMED, "utf-8")
    (vault / "news" / "Weekly digest 12.md").write_text(DIGEST, "utf-8")
    (vault / "Garden.md").write_text("# Garden\n\nTomatoes need sun and water.\n", "utf-8")
    paths = index_paths(vault)
    paths.root.mkdir()
    settings = Settings().with_value("embeddings.provider", "fake")
    for key, value in values.items():
        settings = settings.with_value(key, value)
    save_settings(paths.config, settings)
    engine = Engine.open(vault, embedder=FakeEmbedder())
    engine.index()
    return engine


@pytest.mark.parametrize("query", ["Excalidraw", "whiteboard"], ids=["title", "alias"])
@pytest.mark.parametrize("files_only", [True, False], ids=["files", "chunks"])
def test_the_named_note_comes_first(tmp_path: Path, query: str, files_only: bool) -> None:
    engine = _engine(tmp_path)
    try:
        doc = search_doc(engine, SearchRequest(query=query, files_only=files_only, explain=True))
        top = doc["results"][0]
        assert top["path"] == "tools/Excalidraw.md"
        assert top["components"]["title"] == 1.0
    finally:
        engine.close()


def test_off_the_dense_digest_wins(tmp_path: Path) -> None:
    engine = _engine(tmp_path, **{"search.score_title": 0.0})
    try:
        doc = search_doc(engine, SearchRequest(query="Excalidraw", files_only=True))
        assert doc["results"][0]["path"] == "news/Weekly digest 12.md"
        assert doc["results"][0]["components"]["title"] is None
    finally:
        engine.close()


def test_explain_shows_the_title_part_and_adds_up(tmp_path: Path) -> None:
    from vaultheat.documents import explain_document

    engine = _engine(tmp_path)
    try:
        res = engine.search(SearchRequest(query="Excalidraw", files_only=False))
        top = res.results[0]
        doc = explain_document(engine.explain(SearchRequest(query="Excalidraw"), top.chunk_id))  # type: ignore[union-attr]
        parts = doc["components"]
        assert doc["seed"]["stage"] in ("vector", "lexical", "title")
        assert parts["raw"]["title"] == 1.0 and parts["normalized"]["title"] == 1.0
        assert parts["weights"]["title"] > 0
        total = sum(parts["weights"][k] * (parts["normalized"][k] or 0.0) for k in parts["weights"])
        assert total == pytest.approx(parts["final"], abs=1e-6)
    finally:
        engine.close()


def test_the_name_stage_follows_the_lexical_stage(tmp_path: Path) -> None:
    engine = _engine(tmp_path)
    try:
        doc = search_doc(engine, SearchRequest(query="Excalidraw", files_only=True, lexical=False))
        assert all(r["components"]["title"] is None for r in doc["results"])
    finally:
        engine.close()


def _graph(chunk_note: list[int], paths: dict[int, str]) -> GraphView:
    empty = (np.zeros(len(chunk_note) + 1, dtype=np.int64), np.zeros(0, dtype=np.int64),
             np.zeros(0, dtype=np.float32), np.zeros(0, dtype=np.int8))  # fmt: skip
    return GraphView(size=len(chunk_note), fwd=empty, rev=empty,
                     chunk_note=np.array(chunk_note, dtype=np.int64), note_path=paths,
                     note_lead={})  # fmt: skip


def _retrieval(final: dict[int, float]) -> Retrieval:
    order = sorted(final, key=lambda c: (-final[c], c))
    return Retrieval(final=final, raw={}, normalized={}, weights={}, seeds={}, seed_stage={},
                     heat=None, order=order)  # fmt: skip


def test_a_long_note_does_not_win_by_volume() -> None:
    # note 1: a 3-chunk prose note; note 2: a 40-chunk list page whose best chunk is a hair
    # lower but whose further chunks are all dense
    chunk_note = [1, 1, 1] + [2] * 40
    graph = _graph(chunk_note, {1: "prose.md", 2: "list.md"})
    final = {0: 0.80, 1: 0.30, 2: 0.20} | {3 + i: 0.79 - i * 0.001 for i in range(40)}
    r = _retrieval(final)
    plain = note_scores(r, graph, 3)
    assert plain[0][0] == "list.md"  # best 0.79 + 5% of 0.789 + 0.788 beats 0.80 + 5% of 0.5
    assert note_scores(r, graph, 3, long_note=40)[0][0] == "list.md"  # not long enough
    scaled = note_scores(r, graph, 3, long_note=10)
    assert scaled[0][0] == "prose.md"
    # a note with no more chunks than counted keeps the whole bonus
    assert scaled[0][1] == pytest.approx(0.80 + 0.05 * (0.30 + 0.20))
    assert scaled[1][1] == pytest.approx(0.79 + 0.05 * (0.789 + 0.788) * 10 / 40)


def test_a_query_naming_no_note_scores_as_without_the_stage(tmp_path: Path) -> None:
    on = _engine(tmp_path / "on")
    off = _engine(tmp_path / "off", **{"search.score_title": 0.0})
    try:
        req = SearchRequest(query="tomatoes need sun", files_only=False)
        a, b = search_doc(on, req), search_doc(off, req)
        assert all(r["components"]["title"] is None for r in a["results"])
        assert [(r["path"], r["score"]) for r in a["results"]] == [
            (r["path"], r["score"]) for r in b["results"]
        ]
    finally:
        on.close()
        off.close()


def test_one_note_does_not_fill_the_chunk_results(tmp_path: Path) -> None:
    long_digest = "# Weekly digest 12\n\n" + "".join(
        WEEK.format(i=i) + "Release notes, scripts and libraries of the week, in short.\n\n"
        for i in range(40)
    )
    on = _engine(tmp_path / "on", **{"search.chunks_per_note": 1})
    off = _engine(tmp_path / "off", **{"search.chunks_per_note": 0})
    for engine in (on, off):
        (engine.paths.vault / "news" / "Weekly digest 12.md").write_text(long_digest, "utf-8")
        engine.index()
    try:
        req = SearchRequest(query="excalidraw release scripts", files_only=False, top=3)
        plain, spread = search_doc(off, req), search_doc(on, req)
        assert [r["path"] for r in plain["results"]].count("news/Weekly digest 12.md") >= 2
        paths = [r["path"] for r in spread["results"]]
        assert len(set(paths)) == len(paths) == 3  # one chunk per note first
        assert spread["per_note"] == 1 and plain["per_note"] == 0
        files = search_doc(on, SearchRequest(query="excalidraw", files_only=True))
        assert files["per_note"] == 0
    finally:
        on.close()
        off.close()
