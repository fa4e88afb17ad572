"""bench/reader_related.py: labels read, complete rows filled with zeros, configs paired."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.bench.bench_scripts import load_bench

rr = load_bench("reader_related")


def test_complete_rows_grade_every_other_note_zero() -> None:
    row = {"note": "a.md", "grades": {"b.md": 2}, "complete": True}
    assert rr.grades_of(row, ["a.md", "b.md", "c.md"]) == {"b.md": 2, "c.md": 0}


def test_pooled_rows_leave_the_rest_unjudged() -> None:
    row = {"note": "a.md", "grades": {"b.md": 0}, "complete": False}
    assert rr.grades_of(row, ["a.md", "b.md", "c.md"]) == {"b.md": 0}


def test_labels_must_be_grades(tmp_path: Path) -> None:
    f = tmp_path / "l.jsonl"
    f.write_text(json.dumps({"note": "a.md", "grades": {"b.md": 3}}) + "\n")
    with pytest.raises(ValueError, match="grades are 0, 1 or 2"):
        rr.load_labels(f)
    f.write_text(json.dumps({"grades": {}}) + "\n")
    with pytest.raises(ValueError, match="'note' and 'grades'"):
        rr.load_labels(f)


def test_sets_add_and_extend_configs() -> None:
    got = rr.parse_sets(["x:related.page_factor=0.5", "x:related.votes=false", "y:a.b=ppr"])
    assert got == {"x": {"related.page_factor": 0.5, "related.votes": False}, "y": {"a.b": "ppr"}}
    with pytest.raises(SystemExit):  # heldout_links' parser, shared
        rr.parse_sets(["no-colon"])


def test_score_configs_pairs_each_with_default() -> None:
    labels = {"n1": {"a": 2, "b": 0}, "n2": {"c": 1, "d": 2}}
    rankings = {
        "default": {"n1": ["b", "a"], "n2": ["c", "d"]},
        "better": {"n1": ["a", "b"], "n2": ["d", "c"]},
    }
    doc = rr.score_configs(rankings, labels)
    assert doc["notes"] == 2
    assert doc["means"]["better"]["ndcg_at_10"] == pytest.approx(1.0)
    assert doc["means"]["default"]["ndcg_at_10"] < 1.0
    assert doc["means"]["better"]["first_grade"] == pytest.approx(2.0)
    assert doc["means"]["default"]["first_grade"] == pytest.approx(0.5)
    p = doc["paired_with_default"]["better"]["ndcg_at_10"]
    assert p["better"] == 2 and p["worse"] == 0 and p["delta"] > 0


def test_the_shipped_labels_read_and_the_example_labels_name_its_notes() -> None:
    data = Path(__file__).resolve().parents[2] / "bench" / "data" / "reader_related"
    example = Path(__file__).resolve().parents[2] / "examples" / "vault"
    files = sorted(data.glob("*.jsonl"))
    assert {f.stem for f in files} >= {"example", "bluebook", "waylonwalker"}
    for f in files:
        rows = rr.load_labels(f)
        assert rows and len({r["note"] for r in rows}) == len(rows)  # one line a note
        assert all(r["note"] not in r["grades"] for r in rows)
    for r in rr.load_labels(data / "example.jsonl"):
        assert r["complete"] is True
        for p in [r["note"], *r["grades"]]:
            assert (example / p).is_file(), p


def test_the_unlinked_view_leaves_linked_notes_out_of_the_labels() -> None:
    row = {"note": "a.md", "grades": {"b.md": 2}, "complete": True}
    got = rr.grades_of(row, ["a.md", "b.md", "c.md", "d.md"], frozenset({"b.md", "d.md"}))
    assert got == {"c.md": 0}
