"""Text preparation for the FTS5 lexical index.

FTS5's ``unicode61`` tokenizer (with diacritics removal) splits alphabetic scripts on spaces
and punctuation, but Chinese and Japanese are written without spaces: a run like 検索の設定
would be a single token that no query word matches. We rewrite every run of CJK characters
into overlapping character bigrams (検索 索の の設 設定) both when indexing and when querying,
so a two-character word matches inside a longer run. Bigrams beat FTS5's ``trigram`` tokenizer
here because most Chinese words are two characters long and trigram cannot match them.
"""

from __future__ import annotations

import re
import unicodedata

# Han, Hiragana, Katakana (incl. prolonged mark), Hangul syllables, CJK symbols excluded
_CJK_RUN = re.compile(
    "[\u3041-\u309f\u30a0-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]+"
)
# The version of ``lexical_text``: the full-text table keeps no copy of the text it indexes
# (storage/fts.py), so a row is removed by giving FTS5 the very values it was given, computed
# again with ``lexical_text``. Change what ``lexical_text`` returns for any text and bump this:
# a writer then rebuilds every row from the chunks (tests/core/test_lexical_version.py
# pins the outputs).
LEXICAL_VERSION = 1
_WORD = re.compile(r"\w+", re.UNICODE)
_STOP = frozenset(
    "a an and are as at be by do does for from how i in is it my of on or the to what when "
    "where which who why with you your can".split()
)
MATCH_TERMS = 64  # a MATCH expression holds a query's first this many terms


def _bigrams(run: str) -> str:
    if len(run) == 1:
        return run
    return " ".join(run[i : i + 2] for i in range(len(run) - 1))


def lexical_text(text: str) -> str:
    """The form of ``text`` that goes into the FTS index (CJK runs as bigrams)."""
    return _CJK_RUN.sub(lambda m: " " + _bigrams(m.group(0)) + " ", text)


def fold(text: str) -> str:
    """Lower case without diacritics, as the index's tokenizer (``remove_diacritics``) reads."""
    text = text.lower()
    if text.isascii():
        return text
    decomposed = unicodedata.normalize("NFD", text)
    return unicodedata.normalize(
        "NFC", "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    )


def text_terms(text: str) -> set[str]:
    """The index terms of a text, folded: a query term ``t`` (``query_terms``) matches the text
    as the lexical index matches it when ``fold(t)`` is in this set."""
    return set(_WORD.findall(fold(lexical_text(text))))


def query_terms(query: str) -> list[str]:
    """Distinct index terms of a query, stop words dropped (kept if nothing else is left)."""
    words = _WORD.findall(lexical_text(query).lower())
    kept = [w for w in words if w not in _STOP]
    out: list[str] = []
    for w in kept or words:
        if w not in out:
            out.append(w)
    return out


def fts_match(query: str) -> str | None:
    """An FTS5 MATCH expression: any term may match (BM25 ranks by how many and how rare)."""
    terms = query_terms(query)
    if not terms:
        return None
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in terms[:MATCH_TERMS])
