"""Quotes fold into what they quote (``core/query/quotes.py``): a search result whose best chunk is
mostly text of a note ranked above it leaves the list and is named among that note's
``duplicates``; a note proper quoted by a digest above it takes the digest's place."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import open_fake_index
from vaultheat.core.query.quotes import MIN_GRAMS, fold_quotes, quoted_share, shingles
from vaultheat.core.requests import SearchRequest
from vaultheat.documents import missing_document, search_document

SECTION = (
    "To change the passphrase of an encrypted disk run cryptsetup luksChangeKey on the "
    "device, type the old passphrase and then the new one twice; the key slot is rewritten "
    "in place and the data stays encrypted with the same master key."
)
NOTE = f"# LUKS\n\nDisk encryption on Linux.\n\n## Change passphrase\n\n{SECTION}\n"
DIGEST = f"# 2021-06-22\n\n## [LUKS](../tools/luks.md)\n\n* New: {SECTION}\n"


def _texts(**notes: str) -> tuple[dict[int, str], dict[str, str]]:
    chunks = {i: text for i, text in enumerate(notes.values())}
    return chunks, dict(notes)


def test_a_copy_below_folds_into_the_note_above() -> None:
    chunks, notes = _texts(luks=NOTE, digest=DIGEST, other="Grinding coffee beans for a V60 "
                           "pour over takes a medium fine setting and a steady hand.")
    ranking = [("luks", 0), ("digest", 1), ("other", 2)]
    walk = fold_quotes(ranking, chunks.__getitem__, notes.__getitem__, top=10, share=0.5)
    assert [k.path for k in walk.kept] == ["luks", "other"]
    assert walk.kept[0].duplicates == ["digest"]
    fold = walk.folded[1]
    assert (fold.path, fold.into, fold.into_rank) == ("digest", "luks", 1)
    assert 0.8 <= fold.share < 1.0  # the digest's own heading is not the note's text


def test_share_zero_and_different_wording_keep_everything() -> None:
    reworded = "# Notes\n\nRotating the LUKS key: luksChangeKey asks for the current secret first."
    chunks, notes = _texts(luks=NOTE, digest=DIGEST, reworded=reworded)
    ranking = [("luks", 0), ("digest", 1), ("reworded", 2)]
    off = fold_quotes(ranking, chunks.__getitem__, notes.__getitem__, top=10, share=0.0)
    assert [k.path for k in off.kept] == ["luks", "digest", "reworded"] and not off.folded
    on = fold_quotes(ranking, chunks.__getitem__, notes.__getitem__, top=10, share=0.5)
    assert [k.path for k in on.kept] == ["luks", "reworded"]


def test_a_chunk_too_short_to_tell_never_folds() -> None:
    assert len(shingles("luks change passphrase now")) < MIN_GRAMS
    assert quoted_share(shingles("luks change passphrase now"), shingles(NOTE + " now")) == 0.0
    chunks, notes = _texts(luks=NOTE + "\nluks change passphrase now\n", stub="luks change "
                           "passphrase now")
    walk = fold_quotes([("luks", 0), ("stub", 1)], chunks.__getitem__, notes.__getitem__,
                       top=10, share=0.5)  # fmt: skip
    assert [k.path for k in walk.kept] == ["luks", "stub"]


def test_chunks_of_one_note_never_fold_into_it_and_the_walk_stops_at_top() -> None:
    chunks = {0: NOTE, 1: SECTION, 2: DIGEST, 3: "Something else entirely, about tomatoes "
              "and raised beds in a small garden."}  # fmt: skip
    notes = {"luks": NOTE, "digest": DIGEST, "garden": chunks[3]}
    ranking = [("luks", 0), ("luks", 1), ("digest", 2), ("garden", 3)]
    walk = fold_quotes(ranking, chunks.__getitem__, notes.__getitem__, top=2, share=0.5)
    assert [k.path for k in walk.kept] == ["luks", "luks"]
    assert walk.examined == 2 and not walk.folded


def test_a_note_proper_takes_the_place_of_the_digest_quoting_it() -> None:
    chunks = {0: DIGEST, 1: SECTION}
    notes = {"digest": DIGEST, "luks": NOTE}
    ranking = [("digest", 0), ("luks", 1)]
    plain = fold_quotes(ranking, chunks.__getitem__, notes.__getitem__, top=10, share=0.5)
    assert [k.path for k in plain.kept] == ["digest"]
    walk = fold_quotes(ranking, chunks.__getitem__, notes.__getitem__, top=10, share=0.5,
                       proper=lambda cid: cid != 0)  # fmt: skip
    assert [(k.path, k.duplicates) for k in walk.kept] == [("luks", ["digest"])]
    assert walk.folded[0].into == "luks" and walk.folded[0].into_rank == 1


@pytest.fixture
def quoting_vault(tmp_path: Path) -> Path:
    vault = tmp_path / "vault"
    (vault / "tools").mkdir(parents=True)
    (vault / "newsletter").mkdir()
    (vault / "tools" / "luks.md").write_text(NOTE, encoding="utf-8")
    (vault / "newsletter" / "2021_06_22.md").write_text(DIGEST, encoding="utf-8")
    (vault / "newsletter" / "2021_w25.md").write_text(
        "# Week 25\n\n## [LUKS](../tools/luks.md)\n\n" + f"* New: {SECTION}\n\n" +
        "## Coffee\n\n* New: a note on grinding beans for a V60.\n", encoding="utf-8")  # fmt: skip
    (vault / "garden.md").write_text(
        "# Garden\n\nTomatoes want sun, compost and a deep watering twice a week.\n",
        encoding="utf-8",
    )
    return vault


@pytest.mark.parametrize("files_only", [True, False], ids=["notes", "chunks"])
def test_search_shows_the_passage_once_and_explain_says_where_it_went(
    quoting_vault: Path, files_only: bool
) -> None:
    engine = open_fake_index(quoting_vault)
    try:
        req = SearchRequest(query="luks change passphrase cryptsetup", top=10,
                            files_only=files_only)  # fmt: skip
        doc = search_document(engine.search(req))
        paths = [r["path"] for r in doc["results"]]
        copies = {"tools/luks.md", "newsletter/2021_06_22.md", "newsletter/2021_w25.md"}
        shown = [p for p in paths if p in copies]
        assert len(set(shown)) == 1, paths
        holder = next(r for r in doc["results"] if r["path"] in copies)
        assert set(holder["duplicates"]) | {holder["path"]} == copies
        for gone in copies - {holder["path"]}:
            m = missing_document(engine.explain_missing(req, gone))
            assert m["status"] == "folded", m
            assert holder["path"] in m["reason"]
        off = engine.with_settings(
            engine.settings.with_overrides({"search.fold_quotes": 0.0})
        ).search(req)
        assert copies <= {r.path for r in off.results}
    finally:
        engine.close()


def test_cli_text_names_the_folded_notes(
    quoting_vault: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from vaultheat.cli import main

    open_fake_index(quoting_vault).close()
    code = main(["search", "luks change passphrase cryptsetup", "--vault", str(quoting_vault),
                 "--files-only"])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0
    assert "also in 2 notes that repeat it: " in out, out
