"""``lexical_text`` pinned to its version: the FTS table keeps no copy of the text it indexed
(storage/fts.py), so a row can only be removed by computing its values again, byte for byte.
When this test fails because ``lexical_text`` was changed on purpose, bump ``LEXICAL_VERSION``
(a writer then rebuilds every FTS row from the chunks) and write the new outputs here."""

from __future__ import annotations

from vaultheat.core.vault.lexical import LEXICAL_VERSION, lexical_text

PINNED = {
    "Plain ASCII words, punctuation!": "Plain ASCII words, punctuation!",
    "Crème brûlée à Noël": "Crème brûlée à Noël",
    "検索の設定": " 検索 索の の設 設定 ",
    "Kyoto 京都 trip": "Kyoto  京都  trip",
    "a 字 b": "a  字  b",
    "한국어 텍스트": " 한국 국어   텍스 스트 ",
    "カタカナ and ひらがな": " カタ タカ カナ  and  ひら らが がな ",
    "": "",
}


def test_lexical_text_is_the_version_the_index_was_written_with() -> None:
    assert LEXICAL_VERSION == 1, "a new version: pin its outputs below"
    assert {s: lexical_text(s) for s in PINNED} == PINNED
