"""Search, related notes and explain on the example vault (fake embedder)."""

from __future__ import annotations

import math

import pytest

from tests.conftest import related_doc, search_doc
from vaultheat.core.query.explain import recompute_final, recompute_heat
from vaultheat.core.requests import RelatedRequest, SearchRequest
from vaultheat.engine import Engine
from vaultheat.errors import InputError


def test_search_finds_the_note_and_carries_exact_ranges(fake_engine: Engine) -> None:
    doc = search_doc(fake_engine, SearchRequest(query="blossom end rot tomatoes calcium", top=5))
    paths = [r["path"] for r in doc["results"]]
    assert "Garden/Vegetables/Tomatoes.md" in paths[:3]
    vault = fake_engine.paths.vault
    for r in doc["results"]:
        raw = (vault / r["path"]).read_bytes()
        chunk = raw[r["byte_start"] : r["byte_end"]].decode("utf-8", "replace")
        assert r["text"].rstrip("…").strip()[:40] in chunk
        line_start = raw[: r["byte_start"]].count(b"\n") + 1
        assert r["line_start"] == line_start


def test_explain_trace_recomputes_the_score(fake_engine: Engine) -> None:
    engine = fake_engine.with_settings(
        fake_engine.settings.with_value("experimental.search_hops", 2)
    )  # graph on
    doc = search_doc(engine, SearchRequest(query="coffee grounds in the compost", top=100,
                                           explain=True))  # fmt: skip
    assert doc["results"]
    hopped = 0
    for r in doc["results"]:
        ex = r["explain"]
        assert math.isclose(recompute_final(ex["components"]), r["score"], abs_tol=1e-5)
        if ex["components"]["raw"]["heat"] is not None:
            assert math.isclose(recompute_heat(ex), ex["components"]["raw"]["heat"], rel_tol=1e-9)
        hopped += bool(ex["hops"])
        if ex["hops"]:
            assert ex["hops"][-1]["to_chunk"] == r["chunk_id"]
            assert ex["hops"][0]["from_chunk"] == ex["seed"]["chunk_id"]
    assert hopped > 0, "some results should come through the graph"


def test_stage_switches_change_components(fake_engine: Engine) -> None:
    hot = fake_engine.settings.with_value("experimental.search_hops", 2)  # heat
    engine = fake_engine.with_settings(hot)
    base = search_doc(engine, SearchRequest(query="roasting first crack", top=5))
    plain = search_doc(engine, SearchRequest(query="roasting first crack", top=5, graph=False,
                                             lexical=False))  # fmt: skip
    assert all(r["components"]["heat"] is None for r in plain["results"])
    assert all(r["components"]["lexical"] is None for r in plain["results"])
    assert all(r["components"]["heat"] is not None for r in base["results"])


def test_no_heat_part_without_hops(fake_engine: Engine) -> None:
    """With experimental.search_hops = 0 (the default) nothing propagates: no "heat" part is
    reported (it was the seeds' fusion score under another name); search, whose weight for it
    was 0, ranks as before, and related notes weigh it as the "fusion" part (golden documents:
    the same scores, the value moved from "heat" to "fusion")."""
    assert fake_engine.settings.experimental.search_hops == 0
    req = SearchRequest(query="roasting first crack", top=8)
    doc = search_doc(fake_engine, req)
    assert doc["results"] and all(r["components"]["heat"] is None for r in doc["results"])
    off = search_doc(fake_engine, SearchRequest(**{**req.__dict__, "graph": False}))
    assert [(r["chunk_id"], r["score"]) for r in doc["results"]] == [
        (r["chunk_id"], r["score"]) for r in off["results"]
    ]
    related = related_doc(fake_engine, RelatedRequest(path="Garden/Composting.md", top=5))
    assert related["results"] and all(r["components"]["heat"] is None for r in related["results"])
    assert any(r["components"]["fusion"] for r in related["results"])  # related.score_fusion


@pytest.mark.parametrize(
    ("filters", "check"),
    [
        ({"folder": "Garden"}, lambda p: p.startswith("Garden/")),
        ({"tag": "garden"}, lambda p: p.startswith(("Garden/", "Daily/", "Home"))),
        ({"folder": "Coffee/Brewing"}, lambda p: p.startswith("Coffee/Brewing/")),
    ],
    ids=["folder", "tag", "nested-folder"],
)
def test_filters(fake_engine: Engine, filters: dict, check) -> None:  # type: ignore[no-untyped-def]
    doc = search_doc(fake_engine, SearchRequest(query="coffee", top=10, **filters))
    assert doc["results"]
    assert all(check(r["path"]) for r in doc["results"])


def test_related_from_saved_note_marks_link_status(fake_engine: Engine) -> None:
    req = RelatedRequest(path="Coffee/Roasting/Roasting Basics.md", top=10)
    doc = related_doc(fake_engine, req)
    paths = {r["path"]: r["link_status"] for r in doc["results"]}
    assert "Coffee/Roasting/Roasting Basics.md" not in paths
    assert paths, "related notes found"
    assert set(paths.values()) <= {"linked", "backlinked", "both", "unlinked"}
    store = fake_engine.views.store()
    note = store.note_by_path("Coffee/Roasting/Roasting Basics.md")
    assert note is not None
    out, back = store.linked_paths(note.id), store.backlinking_paths(note.path)
    assert out and back
    for path, status in paths.items():
        expected = {(True, True): "both", (True, False): "linked", (False, True): "backlinked",
                    (False, False): "unlinked"}[(path in out, path in back)]  # fmt: skip
        assert status == expected, path
    unlinked = related_doc(fake_engine, RelatedRequest(path="Coffee/Roasting/Roasting Basics.md",
                                                  unlinked_only=True))  # fmt: skip
    assert all(r["link_status"] == "unlinked" for r in unlinked["results"])


def test_related_follows_the_cursor_in_unsaved_text(fake_engine: Engine) -> None:
    garden = "## Garden\n\n" + "Tomato seedlings, raised beds, compost and mulch. " * 8
    money = "## Money\n\n" + "Index funds, expense ratios, emergency fund savings. " * 8
    text = f"# Mixed draft\n\n{garden}\n\n{money}\n"
    at_garden = related_doc(fake_engine, RelatedRequest(path="Drafts/x.md", text=text, cursor=20))
    at_money = related_doc(
        fake_engine, RelatedRequest(path="Drafts/x.md", text=text, cursor=len(text.encode()) - 5)
    )
    top_g = [r["path"] for r in at_garden["results"][:3]]
    top_m = [r["path"] for r in at_money["results"][:3]]
    assert any(p.startswith("Garden/") for p in top_g)
    assert any(p.startswith("Finance/") for p in top_m)


def test_bad_requests_are_input_errors() -> None:
    with pytest.raises(InputError):
        SearchRequest.from_dict({"query": "x", "top": -1})
    with pytest.raises(InputError):
        SearchRequest.from_dict({"query": "x", "nope": 1})
    with pytest.raises(InputError):
        SearchRequest.from_dict({"query": 3})
    with pytest.raises(InputError):
        RelatedRequest.from_dict({"path": "a.md", "cursor": -2})
    with pytest.raises(InputError):
        SearchRequest.from_dict([1, 2])


def test_tag_neighbors_link_notes_sharing_a_rare_tag(fake_engine: Engine) -> None:
    from vaultheat.config import GraphSettings
    from vaultheat.core.graphview import GraphView

    store = fake_engine.views.store()
    counts = store.tag_counts()
    rare = next(t for t, n in sorted(counts.items()) if 2 <= n <= 5)
    notes = sorted(store.notes_with_tag(rare))
    first = store.note_chunks(notes[0])[0]
    view = GraphView.from_store(store, GraphSettings(tag_max_share=1.0, tag_max_notes=5))
    reached = {view.note_of(v) for v, _, t in view.edges(first.id) if t == "tag"}
    assert set(notes[1:]) <= reached
    assert notes[0] not in reached
    # tags on more notes than the limit make no edges at all
    narrow = GraphView.from_store(store, GraphSettings(tag_max_notes=1))
    assert not [t for _, _, t in narrow.edges(first.id) if t == "tag"]


def test_graph_view_matches_the_stored_edges(fake_engine: Engine) -> None:
    from vaultheat.core.graphview import GraphView

    store = fake_engine.views.store()
    view = GraphView.from_store(store, fake_engine.settings.graph)
    for (cid,) in store.db.execute("SELECT id FROM chunks ORDER BY id LIMIT 40").fetchall():
        stored = {(d, "similar" if k == "similar" else "link", round(w, 5))
                  for d, k, w in store.edges_from(cid)}  # fmt: skip
        stored |= {(s, "similar" if k == "similar" else "backlink", round(w, 5))
                   for s, k, w in store.edges_to(cid)}  # fmt: skip
        got = {(v, t, round(w, 5)) for v, w, t in view.edges(cid) if t != "tag"}
        assert got == stored, cid


def test_query_expansion_adds_variant_seeds_and_degrades_on_failure(fake_engine: Engine) -> None:
    import json as _json

    from vaultheat.modelset import ModelSet
    from vaultheat.providers.fake import FakeGenerator

    reply = _json.dumps({"queries": ["index funds expense ratio", "emergency savings"],
                         "hyde": "Keep three months of expenses as a safety net."})  # fmt: skip
    fake_engine.models = ModelSet(fake_engine.models.embedder, generator=FakeGenerator(reply))
    doc = search_doc(fake_engine, SearchRequest(query="money", top=30, expand=True, explain=True))
    stages = {r["explain"]["seed"]["stage"] for r in doc["results"]}
    assert stages & {"variant:1", "variant:2", "hyde"}
    fake_engine.models = ModelSet(
        fake_engine.models.embedder, generator=FakeGenerator(RuntimeError("model server down"))
    )
    doc = search_doc(fake_engine, SearchRequest(query="money", top=5, expand=True))
    assert doc["results"], "a failed expansion falls back to the plain query"


@pytest.mark.parametrize(("languages", "even"), [("en", True), ("multi", False)])
def test_non_latin_text_with_an_english_only_model_weights_lexical_evenly(
    fake_engine: Engine, languages: str, even: bool
) -> None:
    engine = fake_engine.with_settings(
        fake_engine.settings.with_value("embeddings.languages", languages)
    )
    latin = search_doc(engine, SearchRequest("coffee grounds compost", top=3, explain=True))
    cjk = search_doc(engine, SearchRequest(query="コーヒーの淹れ方", top=3, explain=True))
    related = related_doc(
        engine,
        RelatedRequest(
            path="Draft.md", text="# 下書き\n\nコーヒー豆の焙煎について。", top=3, explain=True
        ),
    )
    for doc in (latin, cjk, related):
        assert doc["results"]
    english_weights = latin["results"][0]["explain"]["components"]["weights"]
    assert english_weights["vector"] > 4 * english_weights["lexical"]  # the defaults: 0.8 / 0.05
    for r in cjk["results"]:
        w = r["explain"]["components"]["weights"]
        assert math.isclose(w["vector"], w["lexical"]) is even
    for r in related["results"]:
        w = r["explain"]["components"]["weights"]
        assert math.isclose(w["vector"], w["lexical"]) is even
