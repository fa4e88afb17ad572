"""The second pass (issue #40 slice 2): with ``embeddings.second_space = "multilingual"`` an
index run fills the second vector space after the English index is complete, in batches,
resumable; off, no second model is ever built and a space filled before is cleared."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from vaultheat.config import EmbeddingSettings, Settings, save_settings
from vaultheat.indexing import limits
from vaultheat.indexing.report import IndexReport
from vaultheat.indexing.run import Indexer
from vaultheat.paths import IndexPaths, index_paths
from vaultheat.providers.base import Embedder
from vaultheat.providers.fake import FakeEmbedder
from vaultheat.providers.registry import make_embedder, second_space_settings
from vaultheat.storage.store import Store
from vaultheat.storage.vectors import VectorIndex
from vaultheat.storage.vectorsync import MULTILINGUAL, open_space, space_state

TOPICS = ["coffee", "tea", "bread", "cheese", "wine", "beer", "honey", "olives"]


def note(topic: str, extra: str = "") -> str:
    return (
        f"# About {topic}\n\nEverything worth knowing about {topic} and how {topic} is made, "
        f"stored and enjoyed at home. {extra}\n\n## Buying {topic}\n\nWhere to buy good "
        f"{topic}, what it costs and how to tell a good {topic} from a poor one.\n"
    )


@pytest.fixture
def paths(tmp_path: Path) -> IndexPaths:
    vault = tmp_path / "vault"
    vault.mkdir()
    for t in TOPICS:
        (vault / f"{t}.md").write_text(note(t))
    p = index_paths(vault)
    p.root.mkdir()
    save_settings(p.config, settings(True))
    return p


def settings(on: bool) -> Settings:
    s = Settings().with_value("embeddings.provider", "fake")
    return s.with_value("embeddings.second_space", "multilingual" if on else "")


class Factory:
    """An embedder factory that counts the second models it builds."""

    def __init__(self) -> None:
        self.made: list[FakeEmbedder] = []

    def __call__(self, e: EmbeddingSettings) -> Embedder:
        emb = make_embedder(e)
        assert isinstance(emb, FakeEmbedder)
        self.made.append(emb)
        return emb

    @property
    def embedded(self) -> int:
        return sum(e.embedded_count for e in self.made)


def index(
    paths: IndexPaths, on: bool, factory: Factory, first: FakeEmbedder | None = None, **kw: object
) -> IndexReport:
    return Indexer(paths, settings(on), first or FakeEmbedder(), make_second=factory,
                   **kw).run()  # type: ignore[arg-type]  # fmt: skip


def second_fp() -> str:
    e = second_space_settings(settings(True).embeddings)
    assert e is not None
    return make_embedder(e).fingerprint


def space(paths: IndexPaths) -> tuple[int, int, VectorIndex | None, dict[str, object] | None]:
    """(chunks, chunks with a second-space vector, the space's file, its record)."""
    store = Store(paths.db)
    try:
        chunks = store.chunk_count()
        state = space_state(store.manifest(), MULTILINGUAL)
        have = chunks - store.unembedded_count(second_fp())
        vectors = open_space(store, paths.space_vectors(MULTILINGUAL), MULTILINGUAL)
        return chunks, have, vectors, state
    finally:
        store.close()


def test_the_fake_second_model_has_its_own_fingerprint() -> None:
    first = make_embedder(settings(True).embeddings)
    assert second_fp() != first.fingerprint
    assert second_space_settings(settings(False).embeddings) is None


def test_on_every_chunk_gets_a_vector_in_the_second_space(paths: IndexPaths) -> None:
    factory = Factory()
    report = index(paths, True, factory)
    chunks, have, vectors, state = space(paths)
    assert chunks >= len(TOPICS) and have == chunks
    assert vectors is not None and len(vectors.labels()) == chunks
    assert state is not None and state["fingerprint"] == second_fp()
    assert factory.embedded == chunks == report.chunks["second_space"]
    # a run with nothing to do embeds nothing (the model is built, never loaded)
    again = Factory()
    index(paths, True, again)
    assert again.embedded == 0


def test_the_pass_resumes_after_a_stop(paths: IndexPaths, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "EMBED_BATCH", 2)
    factory = Factory()
    index(paths, True, factory, should_stop=lambda: factory.embedded > 0)
    chunks, have, vectors, state = space(paths)
    assert 0 < have < chunks  # the committed batch stays
    assert vectors is not None and len(vectors.labels()) == have
    assert state is not None and "synced" not in state
    stopped = factory.embedded
    rest = Factory()
    index(paths, True, rest)
    chunks, have, vectors, _ = space(paths)
    assert have == chunks and vectors is not None and len(vectors.labels()) == chunks
    assert stopped + rest.embedded == chunks  # nothing embedded twice


def test_off_never_builds_a_second_model(paths: IndexPaths) -> None:
    factory = Factory()
    index(paths, False, factory)
    assert factory.made == []
    _, _, vectors, state = space(paths)
    assert vectors is None and state is None


@pytest.mark.usefixtures("hnsw_files")
def test_turning_it_off_clears_the_space(paths: IndexPaths) -> None:
    index(paths, True, Factory())
    assert paths.space_vectors(MULTILINGUAL).exists()
    factory = Factory()
    index(paths, False, factory)
    assert factory.made == []
    _, _, vectors, state = space(paths)
    assert vectors is None and state is None
    assert not paths.space_vectors(MULTILINGUAL).exists()
    # on again: the cached vectors are still there, nothing is embedded again
    again = Factory()
    index(paths, True, again)
    chunks, have, vectors, _ = space(paths)
    assert have == chunks and vectors is not None and len(vectors.labels()) == chunks
    assert again.embedded == 0


def test_an_edit_re_embeds_only_its_chunks_in_both_spaces(paths: IndexPaths) -> None:
    index(paths, True, Factory())
    (paths.vault / "tea.md").write_text(note("tea", "Green tea wants cooler water."))
    first, factory = FakeEmbedder(), Factory()
    index(paths, True, factory, first=first)
    assert first.embedded_count == 1  # the edited section's chunk
    assert factory.embedded == 1
    chunks, have, vectors, _ = space(paths)
    assert have == chunks and vectors is not None and len(vectors.labels()) == chunks


def test_a_deleted_note_leaves_the_space(paths: IndexPaths) -> None:
    index(paths, True, Factory())
    (paths.vault / "tea.md").unlink()
    factory = Factory()
    index(paths, True, factory)
    assert factory.embedded == 0
    chunks, have, vectors, _ = space(paths)
    assert have == chunks and vectors is not None
    assert len(vectors.labels()) == chunks  # the deleted note's vectors left the file


def test_another_second_model_starts_the_space_again(paths: IndexPaths) -> None:
    index(paths, True, Factory())

    class Other(Factory):
        def __call__(self, e: EmbeddingSettings) -> Embedder:
            emb = FakeEmbedder(tag="other")
            self.made.append(emb)
            return emb

    other = Other()
    index(paths, True, other)
    store = Store(paths.db)
    try:
        state = space_state(store.manifest(), MULTILINGUAL)
        assert state is not None and state["fingerprint"] == FakeEmbedder(tag="other").fingerprint
        assert store.unembedded_count(FakeEmbedder(tag="other").fingerprint) == 0
        assert other.embedded == store.chunk_count()
    finally:
        store.close()


def test_status_says_how_far_the_pass_is(
    paths: IndexPaths, monkeypatch: pytest.MonkeyPatch
) -> None:
    from vaultheat.engine import Engine
    from vaultheat.index_status import status
    from vaultheat.status_lines import spaces_line

    def space_status() -> tuple[str, int, int]:
        engine = Engine(paths, settings(True))
        try:
            m = status(engine).multilingual
            assert m is not None
            return m.state, m.vectors, m.chunks
        finally:
            engine.close()

    monkeypatch.setattr(limits, "EMBED_BATCH", 2)
    factory = Factory()
    index(paths, True, factory, should_stop=lambda: factory.embedded > 0)
    state, vectors, chunks = space_status()
    assert state == "filling" and 0 < vectors < chunks
    line = spaces_line({"multilingual": {"state": state, "vectors": vectors}}, chunks)
    assert line == f"multilingual vectors: {vectors} of {chunks} chunks"
    index(paths, True, Factory())
    assert space_status() == ("done", chunks, chunks)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread niceness: Linux")
def test_the_second_model_runs_at_low_priority(paths: IndexPaths) -> None:
    seen: list[int] = []

    class Niceness(Factory):
        def __call__(self, e: EmbeddingSettings) -> Embedder:
            emb = super().__call__(e)
            embed = emb.embed_documents

            def recording(texts: Sequence[str]) -> np.ndarray:
                seen.append(os.nice(0))
                return embed(texts)

            emb.embed_documents = recording  # type: ignore[method-assign]
            return emb

    before = os.nice(0)
    index(paths, True, Niceness())
    assert seen and min(seen) >= max(before, limits.SECOND_PASS_NICE)
    assert os.nice(0) == before  # the indexing thread keeps its priority


def test_a_full_rebuild_refills_the_space_from_the_cache(paths: IndexPaths) -> None:
    index(paths, True, Factory())
    factory = Factory()
    Indexer(paths, settings(True), FakeEmbedder(), make_second=factory).run(full=True)
    assert factory.embedded == 0
    chunks, have, vectors, _ = space(paths)
    assert have == chunks and vectors is not None and len(vectors.labels()) == chunks


def test_check_finds_the_filled_space_consistent(paths: IndexPaths) -> None:
    from vaultheat.check import check_index
    from vaultheat.engine import Engine

    index(paths, True, Factory())
    (paths.vault / "tea.md").unlink()  # a deleted note: its vectors leave the space's file
    (paths.vault / "bread.md").write_text(note("bread", "Sourdough needs a starter."))
    index(paths, True, Factory())
    engine = Engine(paths, settings(True))
    try:
        report = check_index(engine)
    finally:
        engine.close()
    assert report["state"] == "clean", report
    assert report["spaces"][MULTILINGUAL] == {"vectors": report["chunks"], "vectors_ok": True}


def test_search_reads_a_german_chunk_in_the_filled_space(paths: IndexPaths) -> None:
    """Slice 3: once the space is filled, an English query reads the German note's chunks in
    it (the languages come from the index) and the English notes' in the English space."""
    from vaultheat.core.query.results import ChunkHit
    from vaultheat.core.requests import SearchRequest
    from vaultheat.engine import Engine

    (paths.vault / "kaffee.md").write_text(
        "# Über Kaffee\n\nAlles, was man über Kaffee wissen muss: wie er geröstet, gelagert "
        "und zu Hause zubereitet wird. Die Bohnen werden frisch gemahlen und mit heißem "
        "Wasser aufgegossen.\n"
    )
    index(paths, True, Factory())
    engine = Engine.open(paths.vault, embedder=FakeEmbedder())
    try:
        res = engine.search(SearchRequest("about coffee and how coffee is made", top=20,
                                          explain=True))  # fmt: skip
        spaces = {}
        ids = {}
        for h in res.results:
            assert isinstance(h, ChunkHit) and h.explain is not None
            assert h.explain.space is not None
            spaces[h.path] = h.explain.space.space
            ids.setdefault(h.path, h.chunk_id)
        assert spaces.get("kaffee.md") == "multilingual"
        assert spaces.get("coffee.md") == "english"
        assert not res.partial_space
        # explain of one result (POST /v1/explain) says the same
        from vaultheat.documents import explain_document

        doc = explain_document(engine.explain(SearchRequest("about coffee and how coffee is made",
                                                            top=20), ids["kaffee.md"]))  # fmt: skip
        assert doc["space"]["space"] == "multilingual"
        assert doc["space"]["chunk_language"] == "de"
    finally:
        engine.close()


def test_related_reads_a_german_note_in_the_filled_space(paths: IndexPaths) -> None:
    """Slice 3, related notes: an English note reads the German note's chunks in the filled
    space; the German note (saved or unsaved) reads every chunk there."""
    from vaultheat.core.requests import RelatedRequest
    from vaultheat.engine import Engine

    german = (
        "# Über Kaffee\n\nAlles, was man über Kaffee wissen muss: wie er geröstet, gelagert "
        "und zu Hause zubereitet wird. Die Bohnen werden frisch gemahlen und mit heißem "
        "Wasser aufgegossen.\n"
    )
    (paths.vault / "kaffee.md").write_text(german)
    index(paths, True, Factory())
    engine = Engine.open(paths.vault, embedder=FakeEmbedder())
    try:
        res = engine.related(RelatedRequest("coffee.md", top=20, explain=True))
        spaces = {}
        for h in res.results:
            assert h.explain is not None and h.explain.space is not None
            spaces[h.path] = (h.explain.space.space, h.explain.space.query_language)
        assert spaces.get("kaffee.md") == ("multilingual", "en")
        assert spaces.get("tea.md") == ("english", "en")
        for req in (RelatedRequest("kaffee.md", top=20, explain=True),
                    RelatedRequest("kaffee.md", text=german, top=20, explain=True)):  # fmt: skip
            res = engine.related(req)
            assert res.results
            for h in res.results:
                assert h.explain is not None and h.explain.space is not None
                assert (h.explain.space.space, h.explain.space.query_language) == (
                    "multilingual", "de")  # fmt: skip
    finally:
        engine.close()
