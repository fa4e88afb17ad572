"""Range counts from word spans: exact for ranges that cut no word, None otherwise, and chunks
cut with them are the chunks cut by counting every range."""

from __future__ import annotations

import random
import re

import pytest

from vaultheat.core.vault import chunking
from vaultheat.core.vault.chunking import chunk_note
from vaultheat.core.vault.parsing import parse_note
from vaultheat.core.vault.token_ranges import RangeCounts, Spans

WORD = re.compile(r"\w+|[^\w\s]")


def count(text: str) -> int:
    """A word-local tokenizer: a word of n chars is ceil(n / 3) tokens, plus two specials."""
    return 2 + sum(-(-len(w) // 3) for w in WORD.findall(text))


def spans(text: str) -> Spans:
    ms = list(WORD.finditer(text))
    return [m.start() for m in ms], [m.end() for m in ms], [-(-len(m.group()) // 3) for m in ms]


def test_inside_counts_whole_words_and_refuses_cut_words() -> None:
    text = "alpha beta, gamma"
    rc = RangeCounts(spans(text))
    assert rc.inside(0, len(text)) == count(text) - 2
    assert rc.inside(0, 5) == count("alpha") - 2
    assert rc.inside(6, 11) == count("beta,") - 2
    assert rc.inside(5, 6) == 0  # whitespace only
    assert rc.inside(1, 5) is None  # starts inside "alpha"
    assert rc.inside(0, 8) is None  # ends inside "beta"


def test_inside_matches_the_counter_on_random_ranges() -> None:
    rng = random.Random(3)
    vocab = ["a", "bb", "ccccccc", ",", ".", "dd-ee", "x" * 40]
    text = " ".join(rng.choice(vocab) for _ in range(300))
    rc = RangeCounts(spans(text))
    answered = 0
    for _ in range(2000):
        s = rng.randrange(len(text))
        e = rng.randrange(s, len(text) + 1)
        n = rc.inside(s, e)
        if n is not None:
            answered += 1
            assert n == count(text[s:e]) - 2, (s, e)
    assert answered > 50


def test_unsorted_or_overlapping_spans_never_answer() -> None:
    assert RangeCounts(([0, 2], [3, 5], [1, 1])).inside(0, 5) is None
    assert RangeCounts(([4, 0], [5, 1], [1, 1])).inside(0, 5) is None


def test_chunks_with_spans_are_the_chunks_without() -> None:
    rng = random.Random(5)
    words = ["lorem", "ipsum", "dolor.", "sit", "amet,", "consectetur", "adipiscing", "x" * 30]
    for seed in range(8):
        rng.seed(seed)
        sections = []
        for i in range(rng.randint(1, 5)):
            paras = [
                " ".join(rng.choice(words) for _ in range(rng.randint(3, 120)))
                for _ in range(rng.randint(1, 6))
            ]
            sections.append(f"{'#' * rng.randint(1, 3)} Head {i}\n\n" + "\n\n".join(paras))
        note = parse_note("n.md", ("\n\n".join(sections) + "\n").encode())
        for max_tokens, overlap in ((64, 0), (128, 40)):
            kw = {"max_tokens": max_tokens, "count_tokens": count, "overlap_chars": overlap}
            plain = chunk_note(note, **kw)  # type: ignore[arg-type]
            fast = chunk_note(note, word_spans=spans, **kw)  # type: ignore[arg-type]
            assert [(c.byte_start, c.byte_end, c.heading_path, c.embed_input) for c in fast] == [
                (c.byte_start, c.byte_end, c.heading_path, c.embed_input) for c in plain
            ]
            assert all(count(c.embed_input) <= max_tokens for c in fast)


def test_no_spans_offered_falls_back_to_counting() -> None:
    note = parse_note("n.md", ("word " * 200 + "\n").encode())
    plain = chunk_note(note, max_tokens=32, count_tokens=count)
    none = chunk_note(note, max_tokens=32, count_tokens=count, word_spans=lambda t: None)
    assert [c.text for c in none] == [c.text for c in plain]


def test_huge_notes_are_counted_range_by_range(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(chunking, "MAX_SPANS_CHARS", 1000)
    asked: list[int] = []

    def spy(text: str) -> Spans:
        asked.append(len(text))
        return spans(text)

    small = parse_note("s.md", ("word " * 150 + "\n").encode())
    big = parse_note("b.md", ("word " * 300 + "\n").encode())
    for note in (small, big):
        plain = chunk_note(note, max_tokens=40, count_tokens=count)
        fast = chunk_note(note, max_tokens=40, count_tokens=count, word_spans=spy)
        assert [c.text for c in fast] == [c.text for c in plain]
    assert asked == [len(small.text)]
