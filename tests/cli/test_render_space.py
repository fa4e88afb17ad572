"""The text output says which vector space scored a result when an index has a second space
(issue #40): a ``space:`` line under a trace scored in the multilingual space, a trailing
"· multilingual" on a search or related result line read there, and one notice when the search
or the related notes read a space that is still being filled. Without a second space nothing
changes (the golden text in ``test_text_golden.py`` pins that)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from vaultheat import commands
from vaultheat.cli import main
from vaultheat.config import Settings
from vaultheat.core.query.results import (
    ChunkHit,
    ChunkRef,
    NoteHit,
    RelatedHit,
    RelatedResults,
    ScoreParts,
    SearchResults,
    SeedTrace,
    SpaceTrace,
    Trace,
)
from vaultheat.documents import space_doc
from vaultheat.render import (
    PARTIAL_SPACE,
    render_explain,
    space_line,
    space_mark,
    trace_lines,
)

COMP = {
    "raw": {"vector": 0.8125},
    "normalized": {"vector": 1.0},
    "weights": {"vector": 1.0},
    "final": 1.0,
}
JA_REASON = "the chunk is in ja: read in the multilingual space"


def _space(space: str, chunk: str, reason: str, partial: bool = False) -> dict[str, Any]:
    return space_doc(SpaceTrace(space, "en", chunk, reason, partial))


def test_the_multilingual_space_gets_a_line() -> None:
    doc = {"components": COMP, "space": _space("multilingual", "ja", JA_REASON)}
    assert trace_lines(doc)[-1] == f"space: multilingual ({JA_REASON})"


def test_english_chunks_in_the_english_space_get_none() -> None:
    english = _space("english", "en", "the query (en) and the chunk (en) are in English")
    assert space_line(english) == ""
    assert space_line(None) == ""
    # an English-only index has no space object: the trace is as before
    assert trace_lines({"components": COMP}) == trace_lines({"components": COMP, "space": None})
    assert trace_lines({"components": COMP, "space": english}) == trace_lines(
        {"components": COMP}
    )


def test_a_chunk_waiting_for_its_multilingual_vector_says_so() -> None:
    why = "the chunk has no multilingual vector yet (the second pass is filling it)"
    assert space_line(_space("english", "ru", why, partial=True)) == f"space: english ({why})"


def test_explain_says_the_space_and_that_it_is_partial() -> None:
    base = {"path": "A.md", "score": 1.0, "query": "q", "components": COMP}
    assert PARTIAL_SPACE not in render_explain(base)
    full = render_explain({**base, "space": _space("multilingual", "ja", JA_REASON)})
    assert full.splitlines()[-1] == f"space: multilingual ({JA_REASON})"
    partial = render_explain({**base, "space": _space("multilingual", "ja", JA_REASON, True)})
    assert partial.splitlines()[-2:] == [f"space: multilingual ({JA_REASON})", PARTIAL_SPACE]


def _hit(rank: int, path: str, space: SpaceTrace | None) -> ChunkHit:
    seed = SeedTrace(rank, path, (), "text", "vector", 0.8)
    parts = ScoreParts({"vector": 0.8}, {"vector": 1.0}, {"vector": 1.0}, 1.0)
    trace = Trace(seed, (), parts, space=space)
    return ChunkHit(rank, rank, path, path, (), 1, 2, 0, 10, "some text", False, 1.0 / rank,
                    "vector", {"vector": 0.8}, explain=trace, relevance=0.9,
                    relevance_label="strong")  # fmt: skip


class FakeEngine:
    def __init__(self, results: SearchResults) -> None:
        self.results = results
        self.settings = Settings()

    def search(self, req: Any) -> SearchResults:
        return self.results


def _search_text(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    vault: Path,
    results: SearchResults,
    *flags: str,
) -> str:
    monkeypatch.setattr(commands, "_engine", lambda args, **kw: FakeEngine(results))
    monkeypatch.setattr(commands, "warn_if_not_ready", lambda engine: None)
    main(["search", "q", "--vault", str(vault), *flags])
    return capsys.readouterr().out


def test_search_marks_the_multilingual_space_and_a_partial_search(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    ja = SpaceTrace("multilingual", "en", "ja", JA_REASON, True)
    en = SpaceTrace("english", "en", "en", "the query (en) and the chunk (en) are in English", True)
    res = SearchResults("q", 1.0, False, (_hit(1, "ja.md", ja), _hit(2, "en.md", en)),
                        partial_space=True)  # fmt: skip
    out = _search_text(monkeypatch, capsys, tmp_path, res, "--explain").splitlines()
    assert out.count(f"      space: multilingual ({JA_REASON})") == 1
    assert not any("space: english" in line for line in out)
    assert out[-1] == PARTIAL_SPACE and out.count(PARTIAL_SPACE) == 1
    plain = _search_text(monkeypatch, capsys, tmp_path, res).splitlines()
    assert plain[-1] == PARTIAL_SPACE
    empty = SearchResults("q", 1.0, False, (), partial_space=True)
    assert _search_text(monkeypatch, capsys, tmp_path, empty).splitlines() == [
        "no results",
        PARTIAL_SPACE,
    ]


def test_search_without_a_second_space_prints_no_space_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    res = SearchResults("q", 1.0, False, (_hit(1, "a.md", None),))
    for flags in ((), ("--explain",)):
        out = _search_text(monkeypatch, capsys, tmp_path, res, *flags)
        assert "space" not in out and "multilingual" not in out


def test_plain_search_lines_mark_the_multilingual_space(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    ja = dataclasses.replace(_hit(1, "ja.md", None), explain=None, space="multilingual")
    en = dataclasses.replace(_hit(2, "en.md", None), explain=None, space="english")
    res = SearchResults("q", 1.0, False, (ja, en))
    out = _search_text(monkeypatch, capsys, tmp_path, res).splitlines()
    assert out[0].endswith("[vector]  · multilingual") and "ja.md" in out[0]
    assert out[2].endswith("[vector]") and "en.md" in out[2]
    assert PARTIAL_SPACE not in out
    assert space_mark({"space": "english"}) == space_mark({}) == ""
    files = SearchResults("q", 1.0, True, (
        NoteHit(1, "ja.md", "ja", 1.0, _ref(), {"vector": 0.8}, 0.9, "strong",
                space="multilingual"),
        NoteHit(2, "en.md", "en", 0.5, _ref(), {"vector": 0.7}, 0.9, "strong", space="english"),
    ))  # fmt: skip
    lines = _search_text(monkeypatch, capsys, tmp_path, files).splitlines()
    assert lines[0].endswith("ja.md  · multilingual") and lines[1].endswith("en.md")


def _ref() -> ChunkRef:
    return ChunkRef(1, (), 1, 2, 0, 10, "some text")


def _related(rank: int, path: str, space: str | None) -> RelatedHit:
    return RelatedHit(rank, path, path, "", 1.0 / rank, "unlinked", _ref(), (),
                      {"vector": 0.8}, None, {}, relevance=0.9, relevance_label="strong",
                      space=space)  # fmt: skip


class FakeRelatedEngine:
    def __init__(self, results: RelatedResults) -> None:
        self.results = results
        self.settings = Settings()

    def related(self, req: Any) -> RelatedResults:
        return self.results


def _related_text(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    vault: Path,
    results: RelatedResults,
) -> list[str]:
    monkeypatch.setattr(commands, "_engine", lambda args, **kw: FakeRelatedEngine(results))
    monkeypatch.setattr(commands, "warn_if_not_ready", lambda engine: None)
    main(["related", "a.md", "--vault", str(vault)])
    return capsys.readouterr().out.splitlines()


def test_related_marks_the_multilingual_space_and_says_partial(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    hits = (_related(1, "ja.md", "multilingual"), _related(2, "en.md", "english"))
    out = _related_text(monkeypatch, capsys, tmp_path, RelatedResults("a.md", 1.0, hits))
    assert out[0].endswith("ja.md  (unlinked)  · multilingual")
    assert out[1].endswith("en.md  (unlinked)")
    assert PARTIAL_SPACE not in out
    partial = RelatedResults("a.md", 1.0, hits, partial_space=True)
    out = _related_text(monkeypatch, capsys, tmp_path, partial)
    assert out[-1] == PARTIAL_SPACE and out.count(PARTIAL_SPACE) == 1
    empty = RelatedResults("a.md", 1.0, (), partial_space=True)
    assert _related_text(monkeypatch, capsys, tmp_path, empty) == [
        "no related notes",
        PARTIAL_SPACE,
    ]


def test_related_without_a_second_space_prints_no_space_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    res = RelatedResults("a.md", 1.0, (_related(1, "a2.md", None),))
    out = "\n".join(_related_text(monkeypatch, capsys, tmp_path, res))
    assert "space" not in out and "multilingual" not in out
