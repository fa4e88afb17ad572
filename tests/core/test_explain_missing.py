"""``explain QUERY --path NOTE``: where a note the user expected landed and what kept it down.

The rank it reports must be the rank the search gives (chunks, or notes with --files-only); a
note outside the candidates gets the retrievers' reason and the rank its score would give it
(scored as retrieval scores a chunk only the graph found); an unknown path is an error.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import open_fake_index
from vaultheat.cli import main
from vaultheat.core.query.explain import recompute_final
from vaultheat.core.requests import SearchRequest
from vaultheat.documents import missing_document, search_document
from vaultheat.engine import Engine
from vaultheat.errors import NotFoundError

QUERIES = ["espresso grind", "compost for tomatoes", "index funds and budget"]


@pytest.fixture
def engine(vault: Path) -> Iterator[Engine]:
    e = open_fake_index(vault)
    yield e
    e.close()


def _paths(engine: Engine) -> list[str]:
    store = engine.index_view().store
    return sorted(p for p, row in store.notes().items() if not row.excluded)


def _missing(engine: Engine, query: str, path: str, **kw: Any) -> dict[str, Any]:
    return missing_document(engine.explain_missing(SearchRequest(query=query, **kw), path))


@pytest.mark.parametrize("files_only", [False, True], ids=["chunks", "notes"])
@pytest.mark.parametrize("query", QUERIES)
def test_reported_rank_is_the_rank_in_a_full_search(
    engine: Engine, query: str, files_only: bool
) -> None:
    full = search_document(
        engine.search(SearchRequest(query=query, top=500, files_only=files_only))
    )["results"]
    first: dict[str, dict[str, Any]] = {}
    for r in full:
        first.setdefault(r["path"], r)
    checked = 0
    for path in _paths(engine):
        doc = _missing(engine, query, path, top=5, files_only=files_only)
        if path in first:
            hit = first[path]
            assert doc["rank"] == hit["rank"], path
            assert doc["status"] == ("shown" if hit["rank"] <= 5 else "ranked")
            assert doc["score"] == pytest.approx(hit["score"], abs=1e-6)
            chunk = hit["best_chunk"]["chunk_id"] if files_only else hit["chunk_id"]
            assert doc["best_chunk"]["chunk_id"] == chunk
            assert doc["relevance_label"] == hit["relevance_label"]
            if hit["rank"] > 1:
                assert doc["to_beat"]["rank"] == min(5, hit["rank"] - 1)
                assert doc["to_beat"]["path"] == full[doc["to_beat"]["rank"] - 1]["path"]
            checked += 1
        else:
            assert doc["rank"] is None and doc["status"] != "shown"
    assert checked >= 5


def test_a_note_outside_the_candidates_says_why_and_where_it_would_land(
    engine: Engine,
) -> None:
    engine = engine.with_settings(
        engine.settings.with_value("search.vector_top", 3)
        .with_value("search.lexical_top", 3)
        .with_value("search.score_lexical_weak", 0)
        # plain score order: with the per-note rule a note's 4th chunk ranks behind the others
        .with_value("search.chunks_per_note", 0)
    )
    query = "espresso grind"
    full = search_document(engine.search(SearchRequest(query=query, top=500)))["results"]
    shown = {r["path"] for r in full}
    outside = [p for p in _paths(engine) if p not in shown]
    assert outside
    checked = 0
    for path in outside:
        doc = _missing(engine, query, path, top=3)
        if doc["status"] in ("no_chunks", "no_vectors"):
            continue
        checked += 1
        assert doc["status"] == "not_retrieved", path
        assert doc["rank"] is None
        assert doc["reason"].startswith(f"not among the {len(full)} candidate chunks")
        vector, lexical = doc["retrievers"]
        assert vector["stage"] == "vector" and vector["rank"] > 3  # outside the vector top 3
        assert lexical["rank"] is None or lexical["rank"] > 3  # and outside the lexical top 3
        assert "vector retriever keeps the top 3" in doc["reason"]
        # the score is retrieval's for a chunk only the graph found, exactly recomputable
        assert recompute_final(doc["components"]) == pytest.approx(doc["components"]["final"])
        assert doc["components"]["final"] == pytest.approx(doc["score"], abs=1e-6)
        assert doc["components"]["raw"]["lexical"] == 0.0
        # ... and the rank it would get is where that score falls among the results
        above = sum(1 for r in full if r["score"] > doc["score"] + 1e-9)
        assert doc["would_rank"] == above + 1
        assert doc["to_beat"]["rank"] == 3 and doc["to_beat"]["path"] == full[2]["path"]
    assert checked >= 5


def test_a_filter_that_leaves_the_note_out_is_the_reason(engine: Engine) -> None:
    doc = _missing(engine, "espresso grind", "Finance/Budget.md", folder="Coffee")
    assert doc["status"] == "filtered" and "folder Coffee" in doc["reason"]
    assert doc["rank"] is None and doc["best_chunk"] is None


def test_a_note_the_index_skipped_gets_its_reason(engine: Engine, vault: Path) -> None:
    (vault / "New note.md").write_text("# New\n\nEspresso grind settings I have not indexed.\n")
    doc = _missing(engine, "espresso grind", "New note.md")
    assert doc["status"] == "not_indexed" and "not indexed yet" in doc["reason"]


def test_an_unknown_path_is_a_not_found_error(engine: Engine) -> None:
    with pytest.raises(NotFoundError, match="not in the vault"):
        engine.explain_missing(SearchRequest(query="espresso"), "No such note.md")


def _cli(vault: Path, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, Any, str]:
    code = main([*argv, "--vault", str(vault)])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if "--json" in argv and out.strip() else out), err


def test_cli_explain_path(vault: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["init", str(vault)]) == 0
    assert main(["config", "set", "embeddings.provider", "fake", "--vault", str(vault)]) == 0
    assert main(["index", "--vault", str(vault)]) == 0
    capsys.readouterr()
    code, search, _ = _cli(vault, capsys, "search", "espresso grind", "--top", "50", "--json")
    first: dict[str, Any] = {}
    for r in search["results"]:
        first.setdefault(r["path"], r)
    target = next(r for r in first.values() if r["rank"] > 3)  # below the top 3
    code, doc, _ = _cli(vault, capsys, "explain", "espresso grind", "--path", target["path"],
                        "--top", "3", "--json")  # fmt: skip
    assert code == 0 and doc["schema"] == "vaultheat.missing.v1"
    assert doc["rank"] == target["rank"] and doc["status"] == "ranked"
    code, text, _ = _cli(vault, capsys, "explain", "espresso grind", "--path", target["path"],
                         "--top", "3")  # fmt: skip
    assert code == 0 and f"#{target['rank']}" in text and "to beat: #" in text
    code, out, err = _cli(vault, capsys, "explain", "espresso", "--path", "Nope.md", "--json")
    assert code == 2 and out["error"]["code"] == "not_found"
    code, _, err = _cli(vault, capsys, "explain", "espresso", "--path", "Home.md", "--rank", "2")
    assert code == 2 and "--path" in err
    code, _, err = _cli(vault, capsys, "explain", "espresso", "--top", "3")
    assert code == 2 and "--top goes with --path" in err
