"""Chunk sizes follow the embedder: its window, counted with its tokenizer and its prefix."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from vaultheat.config import Settings
from vaultheat.core.models import ChunkDraft, ParsedNote
from vaultheat.core.vault.chunking import chunk_note
from vaultheat.core.vault.token_ranges import WordSpans
from vaultheat.providers.base import Embedder


def document_token_counter(embedder: Embedder) -> Callable[[str], int]:
    """Tokens of a text as the model will see it: with the document prefix (e5's "passage: ")
    that the embedder adds, so a chunk at the limit is never silently truncated."""
    prefix = getattr(embedder, "document_prefix", "") or ""
    if not prefix:
        return embedder.count_tokens
    return lambda text: embedder.count_tokens(prefix + text)


def document_word_spans(embedder: Embedder) -> WordSpans | None:
    """The embedder's word spans (``core/vault/token_ranges.py``) when it offers them: exact
    counts of a note's ranges from one tokenization of the note. Only the text is tokenized:
    the document prefix and the header are counted apart."""
    spans = getattr(embedder, "word_token_spans", None)
    return spans if callable(spans) else None


def chunk_for(note: ParsedNote, settings: Settings, embedder: Embedder) -> list[ChunkDraft]:
    """A note's chunks, sized for this embedder (the one rule the indexer and live text share)."""
    c = settings.chunking
    header_note = note if c.header_aliases_tags else dataclasses.replace(note, aliases=[], tags=[])
    return chunk_note(
        header_note,
        max_tokens=c.max_tokens or embedder.max_tokens,
        count_tokens=document_token_counter(embedder),
        target_tokens=c.target_tokens,
        min_chars=c.min_chars,
        overlap_chars=c.overlap_chars,
        word_spans=document_word_spans(embedder),
    )
