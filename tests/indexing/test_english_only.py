"""Issue #40: with a second space configured, the chunks in other languages get no English
vector (the meaning phase detects each input's language first and embeds only English and
undetermined ones); they are read in the second space, which holds every chunk. Without a
second space every chunk gets its English vector, and turning the space off gives them theirs.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from vaultheat.config import Settings, save_settings
from vaultheat.indexing.report import IndexReport
from vaultheat.indexing.run import Indexer
from vaultheat.paths import IndexPaths, index_paths
from vaultheat.providers.fake import FakeEmbedder
from vaultheat.providers.registry import make_embedder, second_space_settings
from vaultheat.storage.store import Store
from vaultheat.storage.vectors import VectorIndex
from vaultheat.storage.vectorsync import MULTILINGUAL, english_only, open_space

TOPICS = ["coffee", "tea", "bread", "cheese", "wine", "beer"]
JAPANESE = (
    "# コーヒーの淹れ方\n\n"
    "コーヒー豆 は 焙煎 の 後 に 挽きます。お湯 の 温度 は 九十度 くらい が よい です。"
    "ドリップ で ゆっくり 注ぎ、香り を 楽しみます。エスプレッソ も 美味しい です。"
    "豆 は 冷暗所 に 保存 します。毎朝 コーヒー を 飲む のが 楽しみ です。espresso\n"
)
JA_QUERY = "コーヒー豆 焙煎 ドリップ"

# the English file is read as written (hnswlib), not rebuilt from the cache
pytestmark = pytest.mark.usefixtures("hnsw_files")


def note(topic: str) -> str:
    return (
        f"# About {topic}\n\nEverything worth knowing about {topic} and how {topic} is made, "
        f"stored and enjoyed at home.\n\n## Buying {topic}\n\nWhere to buy good "
        f"{topic}, what it costs and how to tell a good {topic} from a poor one.\n"
    )


def settings(on: bool) -> Settings:
    s = Settings().with_value("embeddings.provider", "fake")
    return s.with_value("embeddings.second_space", "multilingual" if on else "")


@pytest.fixture
def paths(tmp_path: Path) -> IndexPaths:
    vault = tmp_path / "vault"
    vault.mkdir()
    for t in TOPICS:
        (vault / f"{t}.md").write_text(note(t))
    (vault / "kohi.md").write_text(JAPANESE)
    p = index_paths(vault)
    p.root.mkdir()
    save_settings(p.config, settings(True))
    return p


def index(
    paths: IndexPaths, on: bool, first: FakeEmbedder | None = None, **kw: object
) -> IndexReport:
    save_settings(paths.config, settings(on))
    return Indexer(paths, settings(on), first or FakeEmbedder(), make_second=make_embedder,
                   **kw).run()  # type: ignore[arg-type]  # fmt: skip


def japanese_ids(paths: IndexPaths) -> list[int]:
    store = Store(paths.db)
    try:
        row = store.note_by_path("kohi.md")
        assert row is not None
        return [c.id for c in store.note_chunks(row.id)]
    finally:
        store.close()


def english_file(paths: IndexPaths) -> VectorIndex:
    store = Store(paths.db)
    try:
        dim = int(store.manifest()["dimension"])
    finally:
        store.close()
    return VectorIndex.load(paths.vectors, dim)


def second_labels(paths: IndexPaths) -> set[int]:
    store = Store(paths.db)
    try:
        vectors = open_space(store, paths.space_vectors(MULTILINGUAL), MULTILINGUAL)
        assert vectors is not None
        return set(vectors.labels())
    finally:
        store.close()


def test_japanese_chunks_get_no_english_vector(paths: IndexPaths) -> None:
    first = FakeEmbedder()
    report = index(paths, True, first)
    ja = japanese_ids(paths)
    assert ja
    labels = english_file(paths).labels()
    assert not labels & set(ja)  # no English vector for the Japanese chunks
    store = Store(paths.db)
    try:
        chunks = store.chunk_count()
        assert len(labels) == chunks - len(ja)
        assert first.embedded_count == chunks - len(ja)  # the English model never saw them
        fp = first.fingerprint
        assert english_only(store.manifest())
        # they await nothing in the English space: they live only in the second one
        assert store.unembedded_count(fp, english_only=True) == 0
        assert store.unembedded_count(fp) == len(ja)
        assert store.second_only_count(fp) == len(ja)
        assert store.language_counts()["ja"] == len(ja)
        assert store.language_counts()["pending"] == 0
        assert (store.manifest()["meaning"] or {}).get("done") == chunks
    finally:
        store.close()
    assert report.chunks["second_only"] == len(ja)
    assert second_labels(paths) == labels | set(ja)  # the second space has every chunk


def test_an_unchanged_rerun_embeds_nothing(paths: IndexPaths) -> None:
    index(paths, True)
    again = FakeEmbedder()
    report = index(paths, True, again)
    assert again.embedded_count == 0
    assert not report.model_loaded


def test_status_and_check_are_clean(paths: IndexPaths) -> None:
    from vaultheat.check import check_index
    from vaultheat.documents import status_document
    from vaultheat.engine import Engine
    from vaultheat.index_status import status
    from vaultheat.status_lines import spaces_line

    index(paths, True)
    n_ja = len(japanese_ids(paths))
    engine = Engine(paths, settings(True))
    try:
        report = check_index(engine)
        doc = status_document(status(engine))
    finally:
        engine.close()
    assert report["state"] == "clean", report
    assert report["vectors_ok"] is True
    assert report["spaces"][MULTILINGUAL] == {"vectors": report["chunks"], "vectors_ok": True,
                                              "only": n_ja}  # fmt: skip
    meaning = doc["phases"]["meaning"]
    assert meaning["state"] == "done" and meaning["done"] == meaning["total"]
    assert doc["spaces"]["multilingual"] == {"state": "done", "vectors": doc["chunks"],
                                             "only": n_ja}  # fmt: skip
    line = spaces_line(doc["spaces"], doc["chunks"])
    assert f"{n_ja} in other languages" in line


def test_search_finds_the_japanese_note_in_the_second_space(paths: IndexPaths) -> None:
    from vaultheat.core.query.results import ChunkHit
    from vaultheat.core.requests import SearchRequest
    from vaultheat.engine import Engine

    index(paths, True)
    engine = Engine.open(paths.vault, embedder=FakeEmbedder())
    try:
        for query in ("espresso", JA_QUERY):
            res = engine.search(SearchRequest(query, top=10, explain=True))
            hits = [h for h in res.results if isinstance(h, ChunkHit) and h.path == "kohi.md"]
            assert hits, query
            assert hits[0].explain is not None and hits[0].explain.space is not None
            assert hits[0].explain.space.space == "multilingual", query
            assert (hits[0].explain.components.raw.get("vector") or 0) > 0, query  # by meaning
            assert not res.partial_space
        # every chunk has its vector in the space it is read in: not a partial index, whose
        # words would decide
        assert res.ranked_by == "meaning"
    finally:
        engine.close()


def test_the_japanese_note_has_a_note_part_through_the_second_space(paths: IndexPaths) -> None:
    """A note without English vectors has no English note vector: its chunks read in the
    second space get the ``note`` part from its note vector there (a long query turns that part
    on; the engine's view builds the second space's note vectors)."""
    from vaultheat.core.query.results import ChunkHit
    from vaultheat.core.requests import SearchRequest
    from vaultheat.engine import Engine

    index(paths, True)
    engine = Engine.open(paths.vault, embedder=FakeEmbedder())
    try:
        res = engine.search(SearchRequest(f"{JA_QUERY} お湯 温度 香り 保存 毎朝", top=10,
                                          explain=True))  # fmt: skip
    finally:
        engine.close()
    hits = [h for h in res.results if isinstance(h, ChunkHit) and h.path == "kohi.md"]
    assert hits and hits[0].explain is not None
    raw = hits[0].explain.components.raw
    assert raw.get("note") is not None and raw["note"] > 0
    # one chunk: its note vector there is the chunk's own vector, up to the float16 copy the
    # note vectors are built from
    assert raw["note"] == pytest.approx(raw["vector"] or 0.0, abs=1e-3)
    assert raw["note"] != raw["vector"]  # built from the note vectors, not the chunk's cosine


def test_explain_missing_reads_the_japanese_note_in_the_second_space(paths: IndexPaths) -> None:
    from vaultheat.core.requests import SearchRequest
    from vaultheat.engine import Engine

    index(paths, True)
    engine = Engine.open(paths.vault, embedder=FakeEmbedder())
    try:
        why = engine.explain_missing(SearchRequest("bread", top=3), "kohi.md")
        found = engine.explain_missing(SearchRequest(JA_QUERY, top=3), "kohi.md")
    finally:
        engine.close()
    assert why.status != "no_vectors", why.reason
    assert found.status == "shown", found.reason
    place = next(p for p in found.retrievers if p.stage == "vector")
    assert place.rank == 1 and (place.score or 0) > 0  # its cosine in the second space


def test_before_the_second_pass_reaches_it_the_note_is_found_by_words(
    paths: IndexPaths, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Japanese chunk the second pass has not reached has a vector in neither space: it is
    found by its words only, as a chunk awaiting its vector is, and explain says why."""
    from vaultheat.core.requests import SearchRequest
    from vaultheat.engine import Engine
    from vaultheat.indexing import limits
    from vaultheat.providers.base import Embedder

    os.utime(paths.vault / "kohi.md", (1_000_000, 1_000_000))  # the oldest: the pass's last
    monkeypatch.setattr(limits, "EMBED_BATCH", 2)
    made: list[FakeEmbedder] = []

    def second(e: object) -> Embedder:
        emb = make_embedder(e)  # type: ignore[arg-type]
        assert isinstance(emb, FakeEmbedder)
        made.append(emb)
        return emb

    Indexer(paths, settings(True), FakeEmbedder(), make_second=second,
            should_stop=lambda: sum(m.embedded_count for m in made) > 0).run()  # fmt: skip
    assert not set(japanese_ids(paths)) & second_labels(paths)
    engine = Engine.open(paths.vault, embedder=FakeEmbedder())
    try:
        res = engine.search(SearchRequest(JA_QUERY, top=10))
        why = engine.explain_missing(SearchRequest(JA_QUERY, top=10), "kohi.md")
    finally:
        engine.close()
    assert "kohi.md" in [h.path for h in res.results]
    assert res.ranked_by == "words"
    assert why.status == "no_vectors" and "multilingual space" in why.reason


def test_related_notes_of_the_japanese_note(paths: IndexPaths) -> None:
    from vaultheat.core.requests import RelatedRequest
    from vaultheat.engine import Engine

    (paths.vault / "kohi2.md").write_text(JAPANESE.replace("コーヒーの淹れ方", "朝のコーヒー"))
    index(paths, True)
    engine = Engine.open(paths.vault, embedder=FakeEmbedder())
    try:
        res = engine.related(RelatedRequest("kohi.md", top=5, explain=True))
        paths_found = [h.path for h in res.results]
        assert paths_found and paths_found[0] == "kohi2.md"
        h = res.results[0]
        assert h.explain is not None and h.explain.space is not None
        assert h.explain.space.space == "multilingual"
        # an English note's sidebar still reads the Japanese notes in the second space
        res = engine.related(RelatedRequest("coffee.md", top=10, explain=True))
        assert all(h.explain is not None for h in res.results)
    finally:
        engine.close()


def test_turning_the_space_off_gives_them_english_vectors(paths: IndexPaths) -> None:
    from vaultheat.check import check_index
    from vaultheat.engine import Engine

    index(paths, True)
    ja = japanese_ids(paths)
    first = FakeEmbedder()
    index(paths, False, first)  # nothing changed on disk: a run that scans for them anyway
    assert first.embedded_count == len(ja)
    assert set(ja) <= english_file(paths).labels()
    store = Store(paths.db)
    try:
        assert not english_only(store.manifest())
        assert store.unembedded_count(first.fingerprint) == 0
    finally:
        store.close()
    engine = Engine(paths, settings(False))
    try:
        report = check_index(engine)
    finally:
        engine.close()
    assert report["state"] == "clean", report
    assert "only" not in report["spaces"][MULTILINGUAL]


def test_without_a_second_space_every_chunk_gets_an_english_vector(paths: IndexPaths) -> None:
    first = FakeEmbedder()
    index(paths, False, first)
    store = Store(paths.db)
    try:
        chunks = store.chunk_count()
        assert not english_only(store.manifest())
    finally:
        store.close()
    assert first.embedded_count == chunks
    assert set(japanese_ids(paths)) <= english_file(paths).labels()


def test_the_second_model_is_another(paths: IndexPaths) -> None:
    e = second_space_settings(settings(True).embeddings)
    assert e is not None
    assert make_embedder(e).fingerprint != FakeEmbedder().fingerprint
