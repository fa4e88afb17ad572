"""The CLI's text output, line by line: index, status, search (plain, files-only, explain,
filters), related (saved note, unsaved text, unlinked only, explain), explain, inspect, check,
config and an error, on the example vault with the fake embedder.

The JSON golden (``test_documents_golden.py``) pins the documents; nothing pinned what a person
reads, and the text is built separately from each document (``commands.py``, ``render.py``).
The golden file was written by the tree before the typed-results refactor (9d35f62, issue #18)
and the current tree reproduces it. Timings (``took 0.38s``, ``in 0s``) and the temporary
vault path are masked. Numbers printed inside the text are compared to one unit of their last
printed decimal (``tests/golden_compare.py``): on another CPU the float32 score sums run in another
order, and a score on a rounding boundary can print ``0.781`` instead of ``0.780``; every other
character, and every number printed without decimals, must be equal.
``VAULTHEAT_UPDATE_GOLDEN=1`` rewrites the file (only when a change is meant: say why in the
commit). Rewritten on purpose since: #27 added the ``by kind:`` line
to ``status`` (notes, PDFs and canvases indexed, and the skipped ones by kind).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import copy_vault
from tests.golden_compare import assert_matches
from vaultheat.cli import main
from vaultheat.config import Settings, save_settings
from vaultheat.paths import index_paths

GOLDEN = Path(__file__).parents[1] / "data" / "golden_text.json"
NOTE = "Coffee/Roasting/Roasting Basics.md"
DRAFT = "Drafts/Unsaved.md"
DRAFT_TEXT = "# Garden plan\n\nTomatoes need compost and calcium. See [[Roasting Basics]].\n"

CASES: dict[str, list[str]] = {
    "status": ["status"],
    "index-unchanged": ["index"],
    "search": ["search", "coffee roasting", "--top", "5"],
    "search-files-only": ["search", "compost garden", "--files-only", "--top", "5"],
    "search-explain": ["search", "roasting first crack", "--top", "3", "--explain"],
    "search-folder": ["search", "coffee roasting", "--folder", "Coffee/Roasting", "--top", "3"],
    "search-tag": ["search", "coffee roasting", "--tag", "coffee", "--top", "3"],
    "search-property-weak": ["search", "coffee roasting", "--property", "status=eingereicht"],
    "related": ["related", NOTE, "--top", "5"],
    "related-unlinked": ["related", NOTE, "--top", "3", "--unlinked-only"],
    "related-explain": ["related", NOTE, "--top", "3", "--explain"],
    "related-text": ["related", DRAFT, "--text", DRAFT_TEXT, "--top", "4", "--cursor", "20"],
    "related-missing": ["related", "No/Such.md"],
    "explain": ["explain", "coffee roasting", "--rank", "2"],
    "explain-files-only": ["explain", "compost garden", "--files-only", "--rank", "1"],
    "explain-related": ["explain", "--related", NOTE, "--rank", "1"],
    "explain-rank-too-far": ["explain", "coffee roasting", "--rank", "1000"],
    "inspect-note": ["inspect", "note", NOTE],
    "inspect-note-unresolved": ["inspect", "note", "Projects/Ideas.md"],
    "inspect-chunk": ["inspect", "chunk", "1"],
    "inspect-neighbors": ["inspect", "neighbors", "1"],
    "check": ["check"],
    "config-get": ["config", "get", "search.top"],
    "config-bad-key": ["config", "get", "search.top_k"],
}

_TIMINGS = [
    (re.compile(r"\btook \d+(\.\d+)?\s?m?s\b"), "took <t>"),
    (re.compile(r"\bin \d+(\.\d+)?\s?m?s\b"), "in <t>"),
]


def mask(out: str, vault: Path) -> list[str]:
    out = out.replace(str(vault), "<vault>")
    for pattern, repl in _TIMINGS:
        out = pattern.sub(repl, out)
    return out.splitlines()


def run(vault: Path, argv: list[str]) -> dict[str, Any]:
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        code = main([*argv, "--vault", str(vault)])
    return {"rc": code, "stdout": mask(stdout.getvalue(), vault),
            "stderr": mask(stderr.getvalue(), vault)}  # fmt: skip


@pytest.fixture(scope="module")
def outputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    vault = copy_vault(tmp_path_factory.mktemp("golden-text") / "vault")
    paths = index_paths(vault)
    paths.root.mkdir()
    save_settings(paths.config, Settings().with_value("embeddings.provider", "fake"))
    got = {"index-first": run(vault, ["index"])}
    for case, argv in CASES.items():
        got[case] = run(vault, argv)
    return got


@pytest.fixture(scope="module")
def golden() -> dict[str, Any]:
    if GOLDEN.is_file():
        loaded: dict[str, Any] = json.loads(GOLDEN.read_text(encoding="utf-8"))
        return loaded
    return {}


@pytest.mark.parametrize("case", ["index-first", *CASES])
def test_text_output_unchanged(
    case: str, outputs: dict[str, dict[str, Any]], golden: dict[str, Any]
) -> None:
    got = outputs[case]
    if os.environ.get("VAULTHEAT_UPDATE_GOLDEN") == "1":
        golden[case] = got
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_text(json.dumps(golden, ensure_ascii=False, indent=1) + "\n", "utf-8")
        return
    assert case in golden, f"no golden text {case!r}: run with VAULTHEAT_UPDATE_GOLDEN=1"
    # the text exact, printed decimals within one unit of the last decimal (another CPU's sums)
    assert_matches(got, golden[case], f"$[{case!r}]", text_numbers=True)


def test_text_golden_says_something(golden: dict[str, Any]) -> None:
    """The golden file holds real answers, not empty output: results, scores, a trace."""
    assert golden["search"]["rc"] == 0 and len(golden["search"]["stdout"]) >= 5
    assert any("score:" in line for line in golden["explain"]["stdout"])
    assert golden["related-missing"]["rc"] == 2 and golden["related-missing"]["stderr"]
    assert golden["status"]["stdout"][1].startswith("state: ready")


def test_explain_flag_prints_each_trace(golden: dict[str, Any]) -> None:
    """``search --explain`` / ``related --explain`` in text show every result's score trace
    (before, the flag changed only the JSON: the text was the plain listing)."""
    for case, results in (("search-explain", 3), ("related-explain", 3)):
        lines = golden[case]["stdout"]
        assert sum(line.lstrip().startswith("seed: ") for line in lines) == results, case
        assert sum(line.lstrip().startswith("score: ") for line in lines) == results, case
    related = golden["related-explain"]["stdout"]
    assert sum(line.lstrip().startswith("note score: ") for line in related) == 3


def test_files_only_explain_reaches_the_listed_score(golden: dict[str, Any]) -> None:
    """``explain --files-only --rank 1`` traces the note's best chunk; its last line adds the
    further chunks' bonus and lands on the score ``search --files-only`` listed for the note
    (before, it showed only the chunk's lower score)."""
    listed = golden["search-files-only"]["stdout"][0].split()  # " 1. 1.024  good ... path"
    explained = golden["explain-files-only"]["stdout"]
    assert explained[0].split("  score ")[0] == listed[-1]
    assert explained[-1].startswith("note score: best chunk ")
    assert f"{float(explained[-1].rsplit('= ', 1)[1]):.3f}" == listed[1]


def test_inspect_note_says_unresolved_and_backlinks(golden: dict[str, Any]) -> None:
    """``inspect note``: an unresolved link reads ``(unresolved)`` (it printed ``None``), a
    note without tags ``tags: (none)``, and the backlinks the JSON lists are shown too."""
    ideas = golden["inspect-note-unresolved"]["stdout"]
    assert "  link [[Does not exist yet]] -> (unresolved)" in ideas
    assert not any(line.endswith("-> None") for line in ideas)
    basics = golden["inspect-note"]["stdout"]
    assert "  backlink <- Garden/Composting.md" in basics


def test_inspect_note_without_tags_says_none() -> None:
    from vaultheat.index_inspect import render_inspect

    doc = {"schema": "vaultheat.inspect.note.v1", "path": "a.md", "title": "A", "tags": [],
           "links": [], "backlinks": [], "chunks": []}  # fmt: skip
    assert render_inspect(doc) == "a.md  title: A  tags: (none)"


def test_a_chunk_before_any_heading_reads_top(tmp_path: Path) -> None:
    """A search hit above the note's first heading shows ``(top)`` where the heading path goes,
    as ``explain`` does (it left an empty gap)."""
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "Plain.md").write_text("Zebra crossings and striped roads, no heading at all.\n")
    paths = index_paths(vault)
    paths.root.mkdir()
    save_settings(paths.config, Settings().with_value("embeddings.provider", "fake"))
    assert run(vault, ["index"])["rc"] == 0
    out = run(vault, ["search", "zebra crossings", "--top", "1"])["stdout"]
    assert "Plain.md:1-1  (top)  [" in out[0]
