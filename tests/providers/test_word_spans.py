"""Word spans of the default model's tokenizer (the packaged tokenizer.json, no network): a range
that cuts no word counts exactly what the tokenizer counts for that range alone."""

from __future__ import annotations

import random

import pytest

pytest.importorskip("tokenizers")

from vaultheat.core.vault.token_ranges import RangeCounts
from vaultheat.providers.minilm_onnx import load_tokenizer
from vaultheat.providers.word_spans import (
    WordSplitter,
    classify_ascii,
    classify_char,
    tokenizer_spans,
)

TOK = load_tokenizer()
SPECIAL = [t.content for t in TOK.get_added_tokens_decoder().values()]

TEXTS = [
    "Hello, World! It's 3.14 -- see https://example.com/a_b/c?d=e&f=g#h (ok).",
    "snake_case_name and CamelCaseName and x" * 3 + " " + "y" * 150 + " end",  # [UNK] word
    "[SEP] literal [MASK] tokens and [not] special [cls]",
    "tab\there\r\nwindows line\x0bvertical\x0cfeed\x1fcontrol\x7fdel\x00nul",
    "日本語のテキストと English 混在。句点！",  # CJK: one token a character
    "café naïve résumé Ærøskøbing İstanbul ΟΔΟΣ'Α ǅemal",  # accents stripped, lowercased
    "emoji 👍🏽 family 👨‍👩‍👧 flag 🇫🇷 and ‘quotes’ — dashes",
    "e\u0301 combining after a letter, \u0301 alone, \ufeffbom, \u200bzero width",
]


def real(text: str) -> int:
    return len(TOK.encode(text, add_special_tokens=False).ids)


def ranges(text: str, rng: random.Random, n: int) -> list[tuple[int, int]]:
    """Random ranges: half of them between positions next to a non-alphanumeric char."""
    out = [(0, len(text))]
    edges = [i for i in range(len(text) + 1) if not text[i - 1 : i + 1].isalnum()]
    for k in range(n):
        if k % 2:
            s, e = sorted(rng.sample(edges, 2)) if len(edges) > 1 else (0, 0)
        else:
            s = rng.randrange(len(text) + 1)
            e = rng.randrange(s, len(text) + 1)
        out.append((s, e))
    return out


def check_ranges(text: str, rc: RangeCounts, rng: random.Random) -> int:
    answered = 0
    for s, e in ranges(text, rng, 400):
        n = rc.inside(s, e)
        if n is not None:
            answered += 1
            assert n == real(text[s:e]), (text[s:e],)
            # after a header and "\n\n", as the chunker counts it
            head = "Title (aliases: a) #tag\nHead > Sub\n\n"
            assert len(TOK.encode(head).ids) + n == len(TOK.encode(head + text[s:e]).ids)
    return answered


@pytest.mark.parametrize("text", TEXTS)
def test_tokenizer_spans_count_ranges_exactly(text: str) -> None:
    rc = RangeCounts(tokenizer_spans(TOK.encode(text, add_special_tokens=False)))
    assert rc.ok
    assert check_ranges(text, rc, random.Random(len(text))) > 10


def test_every_ascii_character_has_a_known_kind() -> None:
    kinds = classify_ascii(TOK)
    assert "other" not in kinds.values()
    assert kinds[" "] == kinds["\n"] == kinds["\t"] == "space"
    assert kinds["_"] == kinds["-"] == kinds["."] == "punct"
    assert kinds["a"] == kinds["Z"] == kinds["7"] == "word"
    assert kinds["\x00"] == kinds["\x01"] == "drop"


def encode_batch(words: list[str]) -> list[object]:
    return list(TOK.encode_batch(words, add_special_tokens=False))


def test_splitter_is_the_tokenizer_spans_on_random_ascii() -> None:
    words = WordSplitter(TOK, SPECIAL)
    rng = random.Random(11)
    alphabet = "abcXYZ019 \n\t.,;:!?'\"()[]{}<>/\\|@#$%^&*-_=+~`" + "unbelievable" * 2
    for _ in range(300):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 200)))
        got = words.spans(text, encode_batch)
        assert got is not None
        want = tokenizer_spans(TOK.encode(text, add_special_tokens=False))
        assert got == want, text
        check_ranges(text, RangeCounts(got), rng)


@pytest.mark.parametrize("text", TEXTS)
def test_splitter_agrees_or_declines(text: str) -> None:
    got = WordSplitter(TOK, SPECIAL).spans(text, encode_batch)
    if got is not None:
        assert got == tokenizer_spans(TOK.encode(text, add_special_tokens=False))
    declined = ("[SEP]", "\x00", "\u0301", "\u200d")  # special text, dropped, combining, ZWJ
    assert (got is None) == any(d in text for d in declined), text


def test_splitter_is_the_tokenizer_spans_on_random_unicode() -> None:
    """Random texts of letters, CJK, accents (precomposed), punctuation of many scripts,
    no-break and ideographic spaces, emoji, symbols, digits of other scripts."""
    words = WordSplitter(TOK, SPECIAL)
    rng = random.Random(13)
    alphabet = (
        "abcXYZ09 .,-_'\n"
        "日本語のテキスト한국어中文。、！？「」（）ー"
        "éÉàçñøÆßİıΣσςΟΔЖжқ‘’“”—–…•·€£¥©®™°±×÷½²"
        "\u00a0\u3000\u2009"
        "👍🏽🇫🇷😀✓→∑√∞"
        "٣४๕ﬁﬀ"
    )
    checked = 0
    for _ in range(400):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 160)))
        got = words.spans(text, encode_batch)
        if got is None:
            continue
        checked += 1
        assert got == tokenizer_spans(TOK.encode(text, add_special_tokens=False)), text
        check_ranges(text, RangeCounts(got), rng)
    assert checked > 350


def test_kinds_of_some_non_ascii_characters() -> None:
    kinds = {c: classify_char(TOK, c) for c in "é日。’ \u00a0\u3000👍\u0301\u200b\u200d"}
    assert kinds["é"] == "word" and kinds["👍"] == "word"
    assert kinds["日"] == kinds["。"] == kinds["’"] == "punct"
    assert kinds["\u00a0"] == kinds["\u3000"] == "space"
    assert kinds["\u0301"] == "other"  # combining: left to the tokenizer
    assert kinds["\u200b"] in ("drop", "space") and kinds["\u200d"] == "drop"


def test_long_and_limit_words() -> None:
    words = WordSplitter(TOK, SPECIAL)
    for n in (99, 100, 101, 500):
        text = "see " + "x" * n + " and https://example.com/" + "q" * n
        assert words.spans(text, encode_batch) == tokenizer_spans(
            TOK.encode(text, add_special_tokens=False)
        )
