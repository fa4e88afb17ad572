"""Chunks are sized with the prefix the embedder adds, so nothing is truncated by the model."""

from __future__ import annotations

from vaultheat.config import Settings
from vaultheat.core.vault.parsing import parse_note
from vaultheat.core.vault.sizing import chunk_for, document_token_counter
from vaultheat.providers.fake import FakeEmbedder


class PrefixedFake(FakeEmbedder):
    document_prefix = "passage: with a long instruction of many words "


def test_document_prefix_counts_against_the_window() -> None:
    embedder = PrefixedFake(max_tokens=40)
    raw = ("# Title\n\n" + "word " * 400 + "\n").encode()
    note = parse_note("n.md", raw)
    chunks = chunk_for(note, Settings(), embedder)
    assert len(chunks) > 5
    prefix = PrefixedFake.document_prefix
    for c in chunks:
        assert embedder.count_tokens(prefix + c.embed_input) <= 40
    plain = chunk_for(note, Settings(), FakeEmbedder(max_tokens=40))
    assert len(plain) < len(chunks), "without a prefix each chunk may hold more"


def test_counter_is_the_plain_one_without_prefix() -> None:
    embedder = FakeEmbedder()
    assert document_token_counter(embedder) == embedder.count_tokens
