"""Text that many notes hold word for word: a template's boilerplate.

A chunk whose exact text is found in several notes (a template's style block, an empty
"## Tasks" section, a newsletter's "Thank you" footer) says what kind of page a note is, not
what it is about. Related notes read it as no evidence: such a chunk neither asks (it leaves
the open note's query vectors and words) nor answers (it is no candidate), so two notes made
from one template are related only through what they say beyond it. Counted per index
generation over the stored chunks (``Store.shared_chunk_texts``); the threshold is
``related.shared_text_notes``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field


def text_hash(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


@dataclass(frozen=True)
class SharedText:
    """Chunk texts found in at least two notes: the hash of each such chunk's text, and how
    many notes hold each text (unsaved text, which has no chunk ids, is looked up by hash)."""

    text_of_chunk: Mapping[int, str] = field(default_factory=dict)  # chunk id -> text hash
    notes_of_text: Mapping[str, int] = field(default_factory=dict)  # text hash -> notes

    @classmethod
    def from_rows(cls, rows: Iterable[tuple[str, int, Iterable[int]]]) -> SharedText:
        """From (text, notes holding it, chunk ids with that text)."""
        of_chunk: dict[int, str] = {}
        notes: dict[str, int] = {}
        for text, count, ids in rows:
            key = text_hash(text)
            notes[key] = count
            for cid in ids:
                of_chunk[cid] = key
        return cls(of_chunk, notes)

    _muted: dict[int, frozenset[int]] = field(default_factory=dict, compare=False, repr=False)

    def chunk_ids(self, min_notes: int) -> frozenset[int]:
        """The chunks whose text is in at least ``min_notes`` notes (none when below 2); built
        once per threshold (a view's shared text serves every request of its generation)."""
        if min_notes < 2:
            return frozenset()
        if min_notes not in self._muted:
            self._muted[min_notes] = frozenset(c for c, k in self.text_of_chunk.items()
                                               if self.notes_of_text[k] >= min_notes)  # fmt: skip
        return self._muted[min_notes]

    def is_shared(self, text: str, min_notes: int) -> bool:
        """Whether ``text`` (a chunk's exact text) is in at least ``min_notes`` stored notes."""
        return min_notes >= 2 and self.notes_of_text.get(text_hash(text), 0) >= min_notes


def own_text(shared: list[bool]) -> list[int]:
    """The positions of a note's chunks that are its own text (not shared); all of them when
    every chunk is shared (a note that is nothing but its template is still itself)."""
    own = [i for i, s in enumerate(shared) if not s]
    return own or list(range(len(shared)))
