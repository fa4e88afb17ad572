"""The Engine's public surface stays small (issue 42: one sanctioned read path).

Queries read through ``Engine.read(fn)``, the evaluation, benchmarks and tests through
``Engine.index_view()``; the models and the store connections are two grouped attributes
(``models``, ``views``) instead of one accessor each.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from vaultheat.config import Settings
from vaultheat.engine import Engine
from vaultheat.paths import IndexPaths
from vaultheat.providers.fake import FakeEmbedder

MAX_MEMBERS = 15
REMOVED = {
    "store", "snapshot", "view", "graph_view", "dense_vectors", "note_links", "title_index",
    "resolver", "use_similar_edges", "text_key", "query_cache", "embedder", "reranker",
    "generator", "embedder_injected", "freshness", "note_status", "refresh", "reopen",
    "explain_search", "explain_related",
}  # fmt: skip


def public_members(engine: Engine) -> set[str]:
    """Public methods, properties and class attributes, and the public instance attributes."""
    names = {n for n in vars(Engine) if not n.startswith("_")}
    return names | {n for n in vars(engine) if not n.startswith("_")}


def test_engine_public_surface_is_small(tmp_path: Path) -> None:
    paths = IndexPaths(vault=tmp_path, root=tmp_path / "index")
    engine = Engine(paths, Settings(), embedder=FakeEmbedder())
    members = public_members(engine)
    assert len(members) <= MAX_MEMBERS, sorted(members)
    assert not members & REMOVED, sorted(members & REMOVED)
    assert {"read", "index_view", "with_settings", "models", "views"} <= members
    derived = engine.with_settings(engine.settings)
    assert public_members(derived) == members  # a derived engine carries no extra attribute


def test_no_caller_assigns_the_engines_settings(tmp_path: Path) -> None:
    """Other settings on the same index are another engine (``Engine.with_settings``)."""
    paths = IndexPaths(vault=tmp_path, root=tmp_path / "index")
    engine = Engine(paths, Settings(), embedder=FakeEmbedder())
    with pytest.raises(AttributeError):
        engine.settings = Settings()  # type: ignore[misc]
    other = engine.with_settings(Settings().with_value("search.top", 3))
    assert other.settings.search.top == 3 and engine.settings == Settings()
