"""Search, related notes, link votes and explain on an in-memory view (``tests/core/fakes.py``):
core reads only the view and the models it is handed, no SQLite, no hnswlib, no engine."""

from __future__ import annotations

import dataclasses
import math

import pytest

from tests.core.fakes import FakeModels, fake_view
from vaultheat.config import Settings
from vaultheat.core.query.explain import recompute_final, recompute_heat
from vaultheat.core.query.related import run_related
from vaultheat.core.query.results import ChunkHit, NoteHit, explanation
from vaultheat.core.query.search import run_search
from vaultheat.core.query.votes import recompute_bonus
from vaultheat.core.requests import RelatedRequest, SearchRequest
from vaultheat.documents import explain_document, related_document, search_document

GRINDERS = "Coffee/Grinders.md"
NOTES = [
    ("Coffee/Roasting.md", "Roasting coffee beans at home in a pan.\n\n"
     "First crack arrives after nine minutes of roasting the beans.",
     [GRINDERS, "Coffee/Brewing.md"]),
    ("Coffee/Brewing.md", "Brewing coffee with a pour over cone.\n\n"
     "Water temperature matters for coffee extraction.", [GRINDERS]),
    (GRINDERS, "Burr grinders give an even grind for brewing espresso.", []),
    ("Garden/Tomatoes.md", "Tomatoes need calcium against blossom end rot.\n\n"
     "Water the tomatoes deeply once a week.", ["Garden/Compost.md"]),
    ("Garden/Compost.md", "Coffee grounds go into the compost with autumn leaves.", []),
    ("Notes/Espresso.md", "Espresso coffee is brewed under pressure from fine coffee.",
     [GRINDERS, "Coffee/Brewing.md"]),
    ("Notes/Beans.md", "Coffee beans from Ethiopia taste of berries when roasted light.",
     [GRINDERS]),
]  # fmt: skip
S = Settings()


@pytest.fixture
def models() -> FakeModels:
    return FakeModels()


def test_search_ranks_the_note_and_slices_exact_text(models: FakeModels) -> None:
    view = fake_view(NOTES, models)
    res = run_search(view, models, S, SearchRequest("roasting coffee beans first crack", top=5))
    assert res.results and isinstance(res.results[0], ChunkHit)
    assert res.results[0].path == "Coffee/Roasting.md"
    assert [h.rank for h in res.results] == list(range(1, len(res.results) + 1))
    texts = dict((p, t) for p, t, _ in NOTES)
    for h in res.results:
        assert isinstance(h, ChunkHit)
        raw = texts[h.path].encode()
        assert raw[h.byte_start : h.byte_end].decode() == h.text
        assert h.components["heat"] is None  # hops = 0: no heat part, not a relabelled seed
    assert view.store.reads > 0  # type: ignore[attr-defined]


def test_files_only_gives_each_note_once(models: FakeModels) -> None:
    view = fake_view(NOTES, models)
    res = run_search(view, models, S, SearchRequest("coffee", top=10, files_only=True))
    paths = [h.path for h in res.results]
    assert len(paths) == len(set(paths)) >= 4
    assert all(isinstance(h, NoteHit) for h in res.results)


def test_search_explain_adds_up_with_and_without_heat(models: FakeModels) -> None:
    for hops in (0, 2):
        s = S.with_overrides(
            {"experimental.search_hops": hops, "experimental.search_score_heat": 0.2}
        )
        view = fake_view(NOTES, models, graph=s.graph)
        res = run_search(view, models, s, SearchRequest("coffee grinders", top=20, explain=True))
        heat = []
        for h in res.results:
            assert isinstance(h, ChunkHit)
            ex = search_document(dataclasses.replace(res, results=(h,)))["results"][0]["explain"]
            assert math.isclose(recompute_final(ex["components"]), h.score, abs_tol=1e-9)
            heat.append(ex["components"]["raw"]["heat"])
            if ex["components"]["raw"]["heat"] is not None:
                assert math.isclose(recompute_heat(ex), ex["components"]["raw"]["heat"],
                                    rel_tol=1e-9)  # fmt: skip
        assert all(x is None for x in heat) == (hops == 0)


def test_a_chunk_missing_from_the_store_is_left_out(models: FakeModels) -> None:
    view = fake_view(NOTES, models)
    req = SearchRequest("roasting coffee beans first crack", top=5)
    first = run_search(view, models, S, req).results[0]
    assert isinstance(first, ChunkHit)
    store = view.store
    rows = {k: v for k, v in store.chunk_rows.items() if k != first.chunk_id}  # type: ignore[attr-defined]
    lossy = view.reading(dataclasses.replace(store, chunk_rows=rows))  # type: ignore[type-var]
    after = run_search(lossy, models, S, req).results
    assert first.chunk_id not in [h.chunk_id for h in after]  # type: ignore[union-attr]
    assert [h.rank for h in after] == list(range(1, len(after) + 1))


def test_without_heat_the_seed_score_is_the_fusion_part(models: FakeModels) -> None:
    """hops = 0: no heat part; related notes weigh the seeds' rank-fusion score as ``fusion``
    (related.score_fusion), search leaves it out (search.score_fusion 0); with hops > 0 heat
    carries the seeds' scores and there is no fusion part."""
    view = fake_view(NOTES, models)
    rel = run_related(view, models, S, RelatedRequest("Notes/Espresso.md", top=6, explain=True))
    assert rel.results and all(h.components["heat"] is None for h in rel.results)
    assert any(h.components["fusion"] for h in rel.results)
    found = [h for h in rel.results if h.explain is not None and h.explain.seed.stage != "votes"]
    for h in found:
        assert h.explain is not None
        assert h.explain.components.raw["fusion"] == h.explain.seed.seed_score
    res = run_search(view, models, S, SearchRequest("coffee grinders", top=5))
    assert all(h.components["fusion"] is None for h in res.results)
    hot = S.with_value("experimental.search_hops", 2)
    rel2 = run_related(fake_view(NOTES, models, graph=hot.graph), models, hot,
                       RelatedRequest("Notes/Espresso.md", top=6))  # fmt: skip
    assert all(h.components["fusion"] is None for h in rel2.results)
    assert any(h.components["heat"] is not None for h in rel2.results)


def test_related_leaves_out_the_note_and_reads_link_status(models: FakeModels) -> None:
    view = fake_view(NOTES, models)
    res = run_related(view, models, S, RelatedRequest("Notes/Espresso.md", top=6))
    paths = [h.path for h in res.results]
    assert "Notes/Espresso.md" not in paths and paths
    status = {h.path: h.link_status for h in res.results}
    assert status.get(GRINDERS) == "linked"
    assert all(s in ("linked", "backlinked", "both", "unlinked") for s in status.values())


def test_votes_follow_the_formula_and_have_their_own_switch(models: FakeModels) -> None:
    """Votes alone (link heat off: tests/core/test_related_link_heat.py covers it): the trace adds
    up, ``votes=False`` drops them and ``graph=False`` leaves them."""
    view = fake_view(NOTES, models)
    S = Settings().with_value("related.link_heat", "off")
    req = RelatedRequest("Coffee/Roasting.md", top=6, explain=True)
    on = related_document(run_related(view, models, S, req))
    voted = [r for r in on["results"] if r["votes"]]
    assert voted, "the closest notes link to Grinders: it gets votes"
    for r in on["results"]:
        bonus = recompute_bonus(r["votes"]) if r["votes"] else 0.0
        if r["votes"]:
            assert r["votes"]["bonus"] == bonus
            assert all(v["path"] != "Coffee/Roasting.md" for v in r["votes"]["voters"])
        assert r["explain"]["content_score"] + bonus == r["explain"]["score"]
    off = related_document(run_related(view, models, S, dataclasses.replace(req, votes=False)))
    assert all(r["votes"] is None for r in off["results"])
    no_heat = run_related(view, models, S, dataclasses.replace(req, graph=False))
    assert related_document(no_heat)["results"] == on["results"]  # --no-graph: heat only


def test_unsaved_text_is_embedded_once_then_read_from_the_models_cache(
    models: FakeModels,
) -> None:
    view = fake_view(NOTES, models)
    text = "Grinding coffee for espresso.\n\nA burr grinder and fresh beans."
    req = RelatedRequest("Drafts/New.md", text=text, top=5)
    first = run_related(view, models, S, req)
    count, cached = models.embedder.embedded_count, len(models.cache)
    assert cached >= 1  # a vector per chunk of the unsaved text (short text: one chunk)
    again = run_related(view, models, S, req)
    assert models.embedder.embedded_count == count and len(models.cache) == cached
    assert [h.path for h in again.results] == [h.path for h in first.results]
    assert GRINDERS in [h.path for h in first.results]


def test_explain_of_a_related_result_adds_up(models: FakeModels) -> None:
    view = fake_view(NOTES, models)
    res = run_related(view, models, S, RelatedRequest("Notes/Beans.md", top=5, explain=True))
    for hit in res.results:
        doc = explain_document(explanation("related to Notes/Beans.md", hit))
        assert math.isclose(recompute_final(doc["components"]), doc["components"]["final"],
                            abs_tol=1e-12)  # fmt: skip


@pytest.mark.parametrize("files_only", [True, False], ids=["notes", "chunks"])
def test_quote_folding_reads_the_rows_in_one_go(models: FakeModels, files_only: bool) -> None:
    """The shown window's rows and the candidate text of the notes likely kept are read
    together (``search.fold_ranked``), not one store read per note compared."""
    view = fake_view(NOTES, models)
    store = view.store
    before = store.reads  # type: ignore[attr-defined]
    res = run_search(view, models, S, SearchRequest("coffee beans", top=3, files_only=files_only))
    assert len(res.results) == 3
    assert store.reads - before == 1  # type: ignore[attr-defined]
    off = S.with_overrides({"search.fold_quotes": 0.0})
    req = SearchRequest("coffee beans", top=3, files_only=files_only)
    assert [h.path for h in run_search(view, models, off, req).results] == [
        h.path for h in res.results
    ]


def test_the_chunk_count_is_read_once_per_view(models: FakeModels) -> None:
    """A view is one index generation: its chunk count (whether every chunk has its vector,
    ``search.search_retrieval``) is read on the first search, then kept, also by the views
    ``reading`` makes for the queries' snapshots."""
    view = fake_view(NOTES, models)
    calls = []
    store = view.store
    count = store.chunk_count

    def counting() -> int:
        calls.append(1)
        return count()

    store.chunk_count = counting  # type: ignore[method-assign]
    for q in ("coffee", "tomatoes water"):
        run_search(view.reading(store), models, S, SearchRequest(q))
    assert len(calls) == 1
    assert view.chunk_count() == len(store.chunk_rows)  # type: ignore[attr-defined]
