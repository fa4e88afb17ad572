"""``open`` bounds, ``neighbors`` hops and ``research``'s one expansion, checked directly."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from vaultheat.agents.backend import AutoBackend
from vaultheat.agents.notes import OpenRequest, neighbors, open_note, render_open
from vaultheat.agents.research import research
from vaultheat.errors import InputError, NotFoundError


def _open(auto: AutoBackend, **kw: Any) -> dict[str, Any]:
    b = auto.current()
    return open_note(b.paths, b.settings, b.store(), OpenRequest(**kw))


@pytest.fixture
def long_note(agent_vault: Path) -> str:
    lines = [f"line {i} " + "é" * 30 for i in range(1, 101)]
    (agent_vault / "Long.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return "Long.md"


def test_open_line_range_is_exact(auto: AutoBackend, long_note: str, agent_vault: Path) -> None:
    doc = _open(auto, path=long_note, line_start=10, line_end=12)
    raw = (agent_vault / long_note).read_bytes()
    assert (doc["line_start"], doc["line_end"], doc["total_lines"]) == (10, 12, 100)
    assert doc["text"].splitlines() == [f"line {i} " + "é" * 30 for i in (10, 11, 12)]
    assert raw[doc["byte_start"] : doc["byte_end"]].decode() == doc["text"]
    assert not doc["truncated"] and doc["next_line"] is None
    assert render_open(doc).splitlines()[1].startswith("10| line 10")


def test_open_is_bounded_in_lines_and_bytes(auto: AutoBackend, long_note: str) -> None:
    by_lines = _open(auto, path=long_note, max_lines=7)
    assert (by_lines["line_end"], by_lines["truncated"], by_lines["next_line"]) == (7, True, 8)
    by_bytes = _open(auto, path=long_note, max_bytes=300)
    assert by_bytes["byte_end"] - by_bytes["byte_start"] <= 300
    assert by_bytes["truncated"] and by_bytes["text"].endswith("\n")
    assert by_bytes["next_line"] == by_bytes["line_end"] + 1
    rest = _open(auto, path=long_note, line_start=by_bytes["next_line"], max_bytes=300)
    assert rest["byte_start"] == by_bytes["byte_end"]  # continuing loses and repeats nothing


def test_open_cuts_a_huge_line_on_a_character_boundary(auto: AutoBackend,
                                                       agent_vault: Path) -> None:  # fmt: skip
    (agent_vault / "Wide.md").write_text("é" * 2000 + "\n", encoding="utf-8")
    doc = _open(auto, path="Wide.md", max_bytes=301)
    assert doc["truncated"] and doc["byte_end"] == 300 and set(doc["text"]) == {"é"}


def test_open_frontmatter_and_opt_out(auto: AutoBackend, agent_vault: Path) -> None:
    doc = _open(auto, path="Coffee/Brewing/V60 Pour Over.md", max_lines=1)
    assert doc["frontmatter"]["brew_ratio"] == "1:16"
    (agent_vault / "Private.md").write_text("---\nvaultheat: exclude\n---\nsecret\n", "utf-8")
    with pytest.raises(NotFoundError):
        _open(auto, path="Private.md")
    with pytest.raises(InputError):
        _open(auto, path="Coffee")


def test_neighbors_two_hops_go_through_a_first_hop_note(auto: AutoBackend) -> None:
    store = auto.current().store()
    assert store is not None
    one = neighbors(store, path="Coffee/Index.md", hops=1, limit=200)
    two = neighbors(store, path="Coffee/Index.md", hops=2, limit=200)
    first = {n["path"] for n in one["neighbors"]}
    assert first and "Coffee/Index.md" not in first
    second = [n for n in two["neighbors"] if n["hop"] == 2]
    assert second and all(n["via"] in first and n["path"] not in first for n in second)
    assert all(0 < n["weight"] <= 1 for n in two["neighbors"])
    chunk = neighbors(store, chunk_id=8)
    assert chunk["node"] == {"path": "Coffee/Brewing/V60 Pour Over.md", "chunk_id": 8}


class StubBackend:
    """Search answers weak (or strong) hits; related answers known notes."""

    kind = "engine"

    def __init__(self, cosine: float) -> None:
        self.cosine = cosine
        self.related_calls: list[str] = []

    def search(self, body: dict[str, Any]) -> dict[str, Any]:
        hit = {"rank": 1, "path": "A.md", "title": "A", "score": 1.0,
               "components": {"vector": self.cosine}}  # fmt: skip
        return {"results": [hit]}

    def related(self, body: dict[str, Any]) -> dict[str, Any]:
        self.related_calls.append(body["path"])
        return {"results": [
            {"rank": 1, "path": "A.md", "score": 1.0, "relevance": 0.3, "relevance_label": "weak"},
            {"rank": 2, "path": "B.md", "score": 0.9, "relevance": 0.7,
             "relevance_label": "strong"},
        ]}  # fmt: skip


def test_research_expands_once_only_when_weak() -> None:
    weak = StubBackend(0.1)
    doc = research(weak, "q")  # type: ignore[arg-type]
    assert [s["step"] for s in doc["steps"]] == ["search", "expand"]
    assert weak.related_calls == ["A.md"]
    assert [(r["path"], r["found_by"], r["via"]) for r in doc["results"]] == [
        ("A.md", "search", None), ("B.md", "expansion", "A.md")]  # fmt: skip
    strong = StubBackend(0.9)
    doc = research(strong, "q")  # type: ignore[arg-type]
    assert [s["step"] for s in doc["steps"]] == ["search"] and strong.related_calls == []
    assert "no expansion" in doc["stopped"]
