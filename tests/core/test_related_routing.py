"""Related notes over a second vector space (issue #40 slice 3, ``core/query/routing.py``): a note
is read in its own language's space. An English note's vectors read English chunks in the English
space and the others in the multilingual one; a German note's read every chunk in the
multilingual space; unsaved text routes as its saved note does; without a second space the
results are exactly what they were."""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np
import pytest

from tests.core.fakes import ROUTED, FakeModels, fake_view, second_model, with_second_space
from vaultheat.config import Settings
from vaultheat.core.query.related import run_related
from vaultheat.core.query.results import RelatedResults
from vaultheat.core.query.routing import note_language
from vaultheat.core.query.view import text_key
from vaultheat.core.requests import RelatedRequest
from vaultheat.core.vault.parsing import parse_note
from vaultheat.core.vault.sizing import chunk_for
from vaultheat.documents import related_document

ENGLISH = "Coffee/Espresso.md"
GERMAN = "Kaffee/Maschine.md"
GERMAN_TEXT = ("Die Espresso Maschine baut den Druck mit einer Pumpe auf und braucht heißes "
               "Wasser für guten Kaffee.\n\nDer Siebträger hält das gemahlene Kaffeepulver "
               "fest, und die Pumpe drückt das Wasser hindurch.")  # fmt: skip
NOTES = [
    (ENGLISH, "The espresso machine builds pressure with a pump and hot water.\n\n"
     "The portafilter holds the ground coffee while the pump pushes water through.",
     ["Coffee/Grinders.md"]),
    ("Coffee/Grinders.md", "Burr grinders give an even grind for the espresso machine.",
     ["Coffee/Beans.md"]),
    ("Coffee/Beans.md", "Fresh beans roasted a week ago make the best espresso.", []),
    (GERMAN, GERMAN_TEXT, ["Coffee/Grinders.md"]),
    ("Kaffee/Bohnen.md", "Frische Bohnen, vor einer Woche geröstet, ergeben den besten "
     "Espresso aus der Maschine.", []),
    ("Garden/Tomatoes.md", "Tomatoes need calcium against blossom end rot.", []),
]  # fmt: skip
# one chunk per paragraph, in order: the German notes' chunks
GERMAN_CHUNKS = {4: "de", 5: "de", 6: "de"}
COPY = "Kopie/Maschine.md"
S = Settings()


def routed_view(models: FakeModels, **kw: Any) -> Any:
    return with_second_space(fake_view(NOTES, models), second_model(), GERMAN_CHUNKS, **kw)


def same_document(a: Any, b: Any, where: str = "") -> None:
    """Two documents equal, floats at abs 1e-9 (the timing left out)."""
    if isinstance(a, dict):
        assert isinstance(b, dict) and set(a) == set(b), where
        for k in a:
            if k != "took_ms":
                same_document(a[k], b[k], f"{where}.{k}")
    elif isinstance(a, list | tuple):
        assert isinstance(b, list | tuple) and len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            same_document(x, y, f"{where}[{i}]")
    elif isinstance(a, float) and not isinstance(a, bool):
        assert isinstance(b, float) and math.isclose(a, b, rel_tol=0, abs_tol=1e-9), where
    else:
        assert a == b, where


def spaces(res: RelatedResults) -> dict[str, tuple[str, str, str]]:
    """path -> (space, the query's language, the chunk's) from each result's trace."""
    out = {}
    for h in res.results:
        assert h.explain is not None and h.explain.space is not None, h.path
        sp = h.explain.space
        out[h.path] = (sp.space, sp.query_language, sp.chunk_language)
    return out


def test_a_note_is_in_its_chunks_majority_language() -> None:
    assert note_language(["de", "de", "en"]) == "de"
    assert note_language(["de", "und", "en"]) == "en"  # und counts as English
    assert note_language(["de", "en"]) == "en"  # a tie goes to English
    assert note_language(["fr", "de"]) == "de"
    assert note_language([]) == "en"


def test_without_a_second_space_related_notes_are_unchanged() -> None:
    plain = FakeModels()
    view = fake_view(NOTES, plain)
    for path in (ENGLISH, GERMAN):
        req = RelatedRequest(path, top=10, explain=True)
        before = related_document(run_related(view, plain, S, req))
        assert before["results"]
        # the setting on and a second model at hand, but the index has no second space
        routed_models = FakeModels(second_model=second_model())
        same_document(before, related_document(run_related(view, routed_models, ROUTED, req)))
        # a second space in the index, but the setting off
        spaced = with_second_space(view, second_model(), GERMAN_CHUNKS)
        same_document(before, related_document(run_related(spaced, routed_models, S, req)))
        # unsaved text likewise
        text = next(t for p, t, _ in NOTES if p == path)
        unsaved = dataclasses.replace(req, text=text)
        before_text = related_document(run_related(view, plain, S, unsaved))
        same_document(before_text,
                      related_document(run_related(spaced, routed_models, S, unsaved)))  # fmt: skip
        for hit in before["results"]:
            assert hit["explain"].get("space") is None


def test_an_english_note_finds_a_german_note_through_the_second_space() -> None:
    models = FakeModels(second_model=second_model())
    res = run_related(routed_view(models), models, ROUTED,
                      RelatedRequest(ENGLISH, top=10, explain=True))  # fmt: skip
    found = spaces(res)
    assert GERMAN in found
    assert found[GERMAN] == ("multilingual", "en", "de")
    assert found["Coffee/Grinders.md"] == ("english", "en", "en")
    german = next(h for h in res.results if h.path == GERMAN)
    assert german.explain is not None and german.explain.space is not None
    assert "multilingual space" in german.explain.space.reason


def test_a_german_note_reads_every_chunk_in_the_second_space() -> None:
    models = FakeModels(second_model=second_model())
    res = run_related(routed_view(models), models, ROUTED,
                      RelatedRequest(GERMAN, top=10, explain=True))  # fmt: skip
    found = spaces(res)
    assert found and ENGLISH in found
    for space, query_language, _ in found.values():
        assert (space, query_language) == ("multilingual", "de")


def test_unsaved_text_of_a_german_note_routes_as_the_saved_note() -> None:
    models = FakeModels(second_model=second_model())
    view = routed_view(models)
    saved = run_related(view, models, ROUTED, RelatedRequest(GERMAN, top=10, explain=True))
    req = RelatedRequest(GERMAN, text=GERMAN_TEXT, top=10, explain=True)
    unsaved = run_related(view, models, ROUTED, req)
    assert spaces(unsaved)
    assert set(spaces(unsaved).values()) == set(spaces(saved).values())
    assert {h.path for h in unsaved.results} == {h.path for h in saved.results}
    # the second model's vectors of the unsaved chunks are cached under its own keys
    count = models.second_model.embedded_count  # type: ignore[union-attr]
    run_related(view, models, ROUTED, req)
    assert models.second_model.embedded_count == count  # type: ignore[union-attr]
    fp = second_model().fingerprint
    drafts = chunk_for(parse_note(GERMAN, GERMAN_TEXT.encode()), ROUTED, models.embedder)
    assert drafts and all(f"d:{fp}:" + text_key(d.embed_input) in models.cache for d in drafts)


def test_a_note_whose_chunks_lack_second_vectors_stays_in_the_english_space() -> None:
    models = FakeModels(second_model=second_model())
    view = routed_view(models, missing=[4])  # one of the German note's chunks
    req = RelatedRequest(GERMAN, top=10, explain=True)
    res = run_related(view, models, ROUTED, req)
    plain = run_related(fake_view(NOTES, models), models, S, req)
    # the same rows; the document says the second space is partial, and no hit was read there
    assert res.partial_space and {h.space for h in res.results} == {None}
    same_document(related_document(plain), related_document(dataclasses.replace(
        res, partial_space=False, results=tuple(dataclasses.replace(
            h, explain=dataclasses.replace(h.explain, space=None) if h.explain else None)
            for h in res.results))))  # fmt: skip


def test_near_duplicates_in_different_spaces_are_compared_in_the_second_space() -> None:
    models = FakeModels(second_model=second_model())
    # the German note's text again (the same title: the same vectors), its chunks recorded in
    # no language: read in the English space, the original's in the second space
    notes = [*NOTES, (COPY, GERMAN_TEXT, [])]
    view = with_second_space(fake_view(notes, models), second_model(), GERMAN_CHUNKS)
    res = run_related(view, models, ROUTED, RelatedRequest(ENGLISH, top=10))
    paths = [h.path for h in res.results]
    hit = next(h for h in res.results if h.path in (GERMAN, COPY))
    # both have second-space vectors, so they are compared there and fold together
    assert [p for p in (GERMAN, COPY) if p in paths] == [hit.path]
    assert set(hit.duplicates) & {GERMAN, COPY}


def test_graph_found_notes_take_their_best_chunk_in_its_routed_space() -> None:
    from vaultheat.core.query.pipeline import Retrieval
    from vaultheat.core.query.related import _best_chunks
    from vaultheat.core.query.relevance import curve_for
    from vaultheat.core.query.routing import route_language

    models = FakeModels(second_model=second_model())
    view = routed_view(models)
    assert view.second is not None
    curve = curve_for("fake", "fake", "related")
    routing = route_language(view.second, "en", curve, curve, second_model().fingerprint)
    assert routing is not None
    text = "espresso machine pump pressure"
    qmat = np.asarray([models.embedder.embed_query(text)], dtype=np.float32)
    second_q = np.asarray([second_model().embed_query(text)], dtype=np.float32)
    result = Retrieval({}, {}, {}, {}, {}, {}, None, qmat=qmat, routing=routing)
    chunks = {GERMAN: np.array([4, 5]), "Coffee/Beans.md": np.array([3])}
    best = _best_chunks(view, result, chunks, second_q)
    german = view.second.vectors.get_vectors([4, 5]) @ second_q[0]
    assert best[GERMAN] == (4 + int(np.argmax(german)), float(np.max(german)))
    beans = float(view.vectors.get_vectors([3])[0] @ qmat[0])
    assert best["Coffee/Beans.md"][0] == 3
    assert math.isclose(best["Coffee/Beans.md"][1], beans, abs_tol=1e-6)
    # without routing: every chunk in the English space, as before
    plain = dataclasses.replace(result, routing=None)
    english = view.vectors.get_vectors([4, 5]) @ qmat[0]
    assert math.isclose(_best_chunks(view, plain, chunks, None)[GERMAN][1],
                        float(np.max(english)), abs_tol=1e-6)  # fmt: skip


def test_chunks_in_different_spaces_are_near_duplicates_only_in_the_second_space() -> None:
    from vaultheat.core.query.related import _near

    a, b = np.array([1.0, 0.0]), np.array([0.0, 1.0])  # English vectors: far apart
    w = np.array([0.6, 0.8])  # the same second-space vector
    assert _near(a, (False, w), a, (False, None), 0.97)  # both English: compared there
    assert not _near(a, (False, w), b, (False, w), 0.97)  # ... even when the second agrees
    assert _near(a, (True, w), b, (False, w), 0.97)  # different spaces: the second decides
    assert not _near(a, (True, w), a, (False, None), 0.97)  # one lacks it: never duplicates
    assert _near(a, (True, w), b, (True, w), 0.97)  # both routed: the second space


def test_related_notes_read_a_routed_chunks_note_part_in_the_second_space() -> None:
    # the note part on (experimental.related_score_note): a German note's chunk, read in the
    # second space, is scored by its note's vector there against the query note's second-space
    # vector, through the related cosine map (a one-chunk query note: its chunk's vector)
    from vaultheat.core.query import search as search_mod
    from vaultheat.core.query.routing import CosineMap

    on = dataclasses.replace(
        ROUTED, experimental=dataclasses.replace(ROUTED.experimental, related_score_note=0.5)
    )
    models = FakeModels(second_model=second_model())
    view = routed_view(models)
    res = run_related(view, models, on, RelatedRequest("Kaffee/Bohnen.md", top=10, explain=True))
    hit = next(h for h in res.results if h.path == GERMAN)
    assert hit.explain is not None and hit.explain.space is not None
    assert hit.explain.space.space == "multilingual"
    raw = hit.explain.components.raw
    embedder, inputs = second_model(), view.store.embed_inputs
    q = np.asarray(embedder.embed_documents([inputs[6]])[0], dtype=np.float64)
    vecs = np.asarray(embedder.embed_documents([inputs[4], inputs[5]]), dtype=np.float64)
    mean = vecs.sum(axis=0)
    note = (vecs[0] + mean / np.linalg.norm(mean)) / 2  # its lead chunk is chunk 4
    found = search_mod.second_model(view, models, on, "related")
    assert found is not None
    expected = float(CosineMap.between(found[1], found[2])(np.array([note @ q]))[0])
    # up to the float16 copy the note vectors are built from
    assert raw["note"] == pytest.approx(expected, abs=5e-3)
    assert abs((raw["note"] or 0.0) - (raw["vector"] or 0.0)) > 0.05  # not its own cosine


def test_a_note_read_in_the_second_space_has_a_note_part_by_default() -> None:
    # related.second_space_score_note (0.5): a German note is read in the second space and its
    # results get the note part; an English note keeps experimental.related_score_note (0: off)
    models = FakeModels(second_model=second_model())
    view = routed_view(models)
    german = run_related(view, models, ROUTED, RelatedRequest("Kaffee/Bohnen.md", top=10,
                                                              explain=True))  # fmt: skip
    raws = [h.explain.components.raw for h in german.results if h.explain is not None]
    assert raws and all(r.get("note") is not None for r in raws)
    english = run_related(view, models, ROUTED, RelatedRequest(ENGLISH, top=10, explain=True))
    raws = [h.explain.components.raw for h in english.results if h.explain is not None]
    assert raws and all(r.get("note") is None for r in raws)
    off = dataclasses.replace(
        ROUTED, related=dataclasses.replace(ROUTED.related, second_space_score_note=0.0)
    )
    german = run_related(view, models, off, RelatedRequest("Kaffee/Bohnen.md", top=10,
                                                           explain=True))  # fmt: skip
    raws = [h.explain.components.raw for h in german.results if h.explain is not None]
    assert raws and all(r.get("note") is None for r in raws)
