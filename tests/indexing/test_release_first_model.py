"""Issue #40 item 6: before the second pass loads the multilingual model, the run gives back
the first model's session (made again on its next use) and the language detector, so the two
models never sit in one process side by side. Fakes only; the onnx embedder's own ``release``
is checked in tests/providers/test_onnx_release.py."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from vaultheat.config import EmbeddingSettings, Settings, save_settings
from vaultheat.core import language
from vaultheat.indexing.run import Indexer
from vaultheat.paths import IndexPaths, index_paths
from vaultheat.providers.base import Embedder
from vaultheat.providers.fake import FakeEmbedder
from vaultheat.providers.memory import release_model, trim_heap
from vaultheat.providers.registry import make_embedder

TOPICS = ["coffee", "tea", "bread", "cheese"]


class Releasing(FakeEmbedder):
    """A fake that, like the onnx embedder, drops its "session" on ``release`` and makes it
    again on its next embed; ``events`` logs both, shared with the second model's embeds."""

    def __init__(self, events: list[str], name: str = "first", **kw: object) -> None:
        super().__init__(**kw)  # type: ignore[arg-type]
        self.events, self.label, self.loaded, self.loads = events, name, False, 0

    def release(self) -> None:
        self.loaded = False
        self.events.append(f"{self.label} released")

    def _load(self) -> None:
        if not self.loaded:
            self.loaded, self.loads = True, self.loads + 1
            self.events.append(f"{self.label} loaded")

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        self._load()
        return super().embed_documents(texts)

    def embed_query(self, text: str) -> np.ndarray:
        self._load()
        return super().embed_query(text)


def settings(on: bool = True) -> Settings:
    s = Settings().with_value("embeddings.provider", "fake")
    return s.with_value("embeddings.second_space", "multilingual" if on else "")


@pytest.fixture
def paths(tmp_path: Path) -> IndexPaths:
    vault = tmp_path / "vault"
    vault.mkdir()
    for t in TOPICS:
        (vault / f"{t}.md").write_text(f"# {t}\n\nAll about {t}, how it is made and kept.\n")
    p = index_paths(vault)
    p.root.mkdir()
    save_settings(p.config, settings())
    return p


def run(paths: IndexPaths, first: Releasing, events: list[str], on: bool = True) -> None:
    def second(e: EmbeddingSettings) -> Embedder:
        assert isinstance(make_embedder(e), FakeEmbedder)  # the second space's stand-in
        return Releasing(events, "second", tag="multilingual")

    Indexer(paths, settings(on), first, make_second=second).run()


def test_the_first_model_goes_before_the_second_loads_and_comes_back_on_use(
    paths: IndexPaths,
) -> None:
    events: list[str] = []
    first = Releasing(events)
    run(paths, first, events)
    assert events == ["first loaded", "first released", "second loaded", "second released"]
    assert not first.loaded
    # a later query (the engine that lent its model) or run makes it again
    before = FakeEmbedder().embed_query("coffee beans")
    assert np.array_equal(first.embed_query("coffee beans"), before)
    assert first.loaded and first.loads == 2


def test_a_run_with_nothing_to_embed_releases_nothing(paths: IndexPaths) -> None:
    events: list[str] = []
    run(paths, Releasing(events), events)
    events.clear()
    first = Releasing(events)
    run(paths, first, events)  # no change: neither model loads, nothing is released
    assert events == []


def test_without_a_second_space_the_first_model_stays(paths: IndexPaths) -> None:
    events: list[str] = []
    first = Releasing(events)
    run(paths, first, events, on=False)
    assert events == ["first loaded"] and first.loaded


def test_an_edit_after_the_pass_embeds_with_the_first_model_again(paths: IndexPaths) -> None:
    events: list[str] = []
    first = Releasing(events)
    run(paths, first, events)
    (paths.vault / "honey.md").write_text("# honey\n\nAll about honey and bees.\n")
    events.clear()
    run(paths, first, events)  # the same embedder object, as the server's index child keeps
    assert events == ["first loaded", "first released", "second loaded", "second released"]


def test_release_model_and_trim_heap_never_fail() -> None:
    assert release_model(FakeEmbedder()) is False  # nothing to release
    events: list[str] = []
    assert release_model(Releasing(events)) is True and events == ["first released"]
    trim_heap()  # on any platform and C library


def test_the_language_detector_loads_again_after_it_is_forgotten() -> None:
    text = "Dies ist ein deutscher Satz über Kaffee und Tee, lang genug für die Erkennung."
    code = language.detect(text).code
    language.forget_identifier()
    assert language._IDENTIFIER is None
    assert language.detect(text).code == code
