"""The golden comparator (``tests/golden_compare.py``) tolerates another CPU's last digits and
nothing more: a changed key, string or integer, or a float off by 1e-3, still fails."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from tests.golden_compare import first_difference, text_difference

DOC: dict[str, Any] = {
    "schema": "vaultheat.related.v1",
    "results": [
        {"rank": 1, "path": "Coffee/Index.md", "score": 0.780762,
         "components": {"vector": 0.438755065, "lexical": 2.49180914, "heat": None}},
        {"rank": 2, "path": "Garden/Composting.md", "score": 1.024, "linked": True},
    ],
}  # fmt: skip


def changed(edit: Any) -> dict[str, Any]:
    doc = copy.deepcopy(DOC)
    edit(doc)
    return doc


def test_identical_and_last_digit_differences_match() -> None:
    assert first_difference(copy.deepcopy(DOC), DOC) is None
    nudged = changed(lambda d: d["results"][0]["components"].update(
        vector=0.438755065 * (1 + 1e-9), lexical=2.49180914 * (1 - 1e-9)))  # fmt: skip
    assert first_difference(nudged, DOC) is None
    # a 6-decimal rounded score whose rounding flipped (a 9th-digit difference underneath)
    flipped = changed(lambda d: d["results"][0].update(score=0.780763))
    assert first_difference(flipped, DOC) is None


@pytest.mark.parametrize(
    ("edit", "where"),
    [
        (lambda d: d["results"][0]["components"].update(vector=0.438755065 + 1e-3),
         "$.results[0].components.vector"),
        (lambda d: d["results"][1].update(score=1.024 + 1e-3), "$.results[1].score"),
        (lambda d: d["results"][0].update(score=0.780762 + 2e-6), "$.results[0].score"),
        (lambda d: d["results"][1].update(path="Garden/Compost.md"), "$.results[1].path"),
        (lambda d: d["results"][1].update(rank=3), "$.results[1].rank"),
        (lambda d: d["results"][1].update(linked=False), "$.results[1].linked"),
        (lambda d: d["results"][0]["components"].update(heat=0.0),
         "$.results[0].components.heat"),
        (lambda d: d["results"][1].update(linked_now=d["results"][1].pop("linked")),
         "$.results[1]: keys"),
        (lambda d: d.update(results=d["results"][:1]), "$.results: 1 items"),
        (lambda d: d.update(schema="vaultheat.related.v2"), "$.schema"),
    ],
)  # fmt: skip
def test_a_real_difference_fails_and_names_its_path(edit: Any, where: str) -> None:
    found = first_difference(changed(edit), DOC)
    assert found is not None and found.startswith(where), found


def test_key_order_is_part_of_the_document() -> None:
    reordered = {"results": DOC["results"], "schema": DOC["schema"]}
    found = first_difference(reordered, DOC)
    assert found is not None and found.startswith("$: keys"), found


def test_text_numbers_within_one_printed_unit() -> None:
    line = " 1. 0.984  strong 0.50  Coffee/Index.md:9-11  Coffee  [vector]"
    assert text_difference(line, line) is None
    assert text_difference(line.replace("0.984", "0.985"), line) is None
    assert text_difference(line.replace("0.984", "0.983"), line) is None
    assert text_difference(line.replace("0.50", "0.51"), line) is None
    assert text_difference(line.replace("0.984", "0.986"), line)  # two units: a real change
    assert text_difference(line.replace("0.984", "0.9840"), line)  # printed differently
    assert text_difference(line.replace("9-11", "9-12"), line)  # a line number: exact
    assert text_difference(line.replace("strong", "good  "), line)  # a word
    assert text_difference(line.replace("Index", "Indexes"), line)


def test_text_documents_walk_like_json() -> None:
    golden = {"rc": 0, "stdout": ["score: 0.7808 = 0.94 x 0.7878"], "stderr": []}
    ok = {"rc": 0, "stdout": ["score: 0.7807 = 0.94 x 0.7879"], "stderr": []}
    assert first_difference(ok, golden, text_numbers=True) is None
    bad = {"rc": 0, "stdout": ["score: 0.7818 = 0.94 x 0.7878"], "stderr": []}
    found = first_difference(bad, golden, text_numbers=True)
    assert found is not None and found.startswith("$.stdout[0]: number 1"), found
    assert first_difference({**ok, "rc": 1}, golden, text_numbers=True)
