"""Every result says which vector space scored its best chunk when the index has a second
space (issue #40 item 4): search chunk and note hits and related notes carry ``space``
("english" | "multilingual", the routing's own decision, the same the trace gives); with one
space they carry none and their documents have no such key. Related notes say a partial
second space as search does (``partial_space``)."""

from __future__ import annotations

from tests.core import test_related_routing as rel
from tests.core import test_routing as srch
from tests.core.fakes import FakeModels, fake_view, with_second_space
from vaultheat.core.query.related import run_related
from vaultheat.core.query.results import ChunkHit, NoteHit
from vaultheat.core.query.search import run_search
from vaultheat.core.requests import RelatedRequest, SearchRequest
from vaultheat.documents import related_document, search_document


def test_search_hits_say_the_space_their_trace_gives() -> None:
    models = FakeModels(second_model=srch.second_model())
    view = with_second_space(fake_view(srch.NOTES, models), srch.second_model(),
                             {srch.GERMAN_CHUNK: "de"})  # fmt: skip
    res = run_search(view, models, srch.ROUTED, SearchRequest(srch.EN_QUERY, top=10,
                                                              explain=True))  # fmt: skip
    hits = srch.chunk_hits(res)
    assert {h.chunk_id: h.space for h in hits}[srch.GERMAN_CHUNK] == "multilingual"
    assert {h.chunk_id: h.space for h in hits}[0] == "english"
    for h in hits:
        assert h.explain is not None and h.explain.space is not None
        assert h.space == h.explain.space.space
    doc = search_document(res)
    assert {r["chunk_id"]: r["space"] for r in doc["results"]}[srch.GERMAN_CHUNK] == "multilingual"
    assert "partial_space" not in doc
    files = run_search(view, models, srch.ROUTED,
                       SearchRequest(srch.EN_QUERY, top=10, files_only=True))  # fmt: skip
    notes = {h.path: h for h in files.results if isinstance(h, NoteHit)}
    assert notes["Kaffee/Maschine.md"].space == "multilingual"
    assert notes["Coffee/Espresso.md"].space == "english"
    assert {r["path"]: r["space"] for r in search_document(files)["results"]}[
        "Kaffee/Maschine.md"
    ] == "multilingual"


def test_one_space_search_hits_carry_no_space() -> None:
    plain = FakeModels()
    view = fake_view(srch.NOTES, plain)
    for files_only in (False, True):
        res = run_search(view, plain, srch.S,
                         SearchRequest(srch.EN_QUERY, top=10, files_only=files_only))  # fmt: skip
        assert res.results and all(h.space is None for h in res.results)
        assert all(isinstance(h, ChunkHit | NoteHit) for h in res.results)
        assert not any("space" in r for r in search_document(res)["results"])


def test_related_hits_say_their_space() -> None:
    models = FakeModels(second_model=rel.second_model())
    res = run_related(rel.routed_view(models), models, rel.ROUTED,
                      RelatedRequest(rel.ENGLISH, top=10, explain=True))  # fmt: skip
    got = {h.path: h.space for h in res.results}
    assert got[rel.GERMAN] == "multilingual" and got["Coffee/Grinders.md"] == "english"
    for h in res.results:
        assert h.explain is not None and h.explain.space is not None
        assert h.space == h.explain.space.space
    doc = related_document(res)
    assert {r["path"]: r["space"] for r in doc["results"]}[rel.GERMAN] == "multilingual"
    assert not res.partial_space and "partial_space" not in doc


def test_one_space_related_hits_carry_no_space() -> None:
    plain = FakeModels()
    res = run_related(fake_view(rel.NOTES, plain), plain, rel.S, RelatedRequest(rel.ENGLISH))
    assert res.results and all(h.space is None for h in res.results)
    doc = related_document(res)
    assert "partial_space" not in doc and not any("space" in r for r in doc["results"])


def test_related_says_a_partial_second_space() -> None:
    models = FakeModels(second_model=rel.second_model())
    view = rel.routed_view(models, missing=[4])
    res = run_related(view, models, rel.ROUTED, RelatedRequest(rel.ENGLISH, top=10))
    assert res.partial_space
    assert related_document(res)["partial_space"] is True
