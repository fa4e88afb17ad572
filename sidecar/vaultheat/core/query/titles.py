"""Note names as evidence: a query that names a note (its title, an alias, its file name)
should find that note, the way Obsidian's Quick switcher does (issue #22, item 2).

Inside the chunk pipeline a name weighs only through the lexical part (BM25 over the chunk's
header, weight 0.05), so "Excalidraw" ranked the note titled Excalidraw #7 behind dense digest
chunks. This module scores notes by their names alone, one number in [0, 1] per note:

- an exact name (the query's words are the name's words, in order, case and punctuation
  ignored) scores 1.0;
- otherwise a rarity-weighted overlap of the two word sets (weighted Jaccard, each word
  weighted by its inverse document frequency over the notes' names, as BM25 over a title field
  weighs it) times the share of the query's words the name has, times ``partial``
  (``search.title_partial``; 0, the default, keeps exact names only: partial matches measured
  neutral on help-en and slightly negative on waylonwalker, docs/eval.md "Note names").

Why weighted Jaccard and not "every title word is in the query": on a real vault many titles
are generic words ("Python", "Characters", "Next"); a naive replay of that rule lowered Hit@1
there (issue #22). Generic name words weigh little, a query word that no name has weighs the
most, so a long question that happens to hold a short generic title scores low, and a long
list-page name ("Awesome Python tools and libraries") that shares one word scores low too.

The score is absolute (not min-max normalized over the candidates, ``core/query/scoring.py``): a
weak partial match stays weak even when it is the best one among the candidates.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import PurePosixPath

from vaultheat.core.vault.lexical import lexical_text

MIN_OVERLAP = 0.2  # a partial match below this overlap (before ``partial``) is no match
_WORD = re.compile(r"[^\W_]+", re.UNICODE)  # snake_case and kebab-case split into words
_STOP = frozenset(
    "a an and are as at be by do does for from how i in is it my of on or the to what when "
    "where which who why with you your can".split()
)


def name_words(text: str) -> tuple[str, ...]:
    """Every word of ``text``, casefolded, in order (CJK runs as bigrams, as the lexical
    index reads them)."""
    return tuple(w.casefold() for w in _WORD.findall(lexical_text(text)))


def content_words(words: Sequence[str]) -> frozenset[str]:
    """The words that carry meaning: stop words dropped (kept if nothing else is left)."""
    kept = frozenset(w for w in words if w not in _STOP)
    return kept or frozenset(words)


@dataclass(frozen=True)
class TitleIndex:
    """The names of every note of one index generation and their words' rarity."""

    names: Mapping[str, tuple[tuple[str, ...], ...]]  # path -> its names, as word tuples
    by_word: Mapping[str, tuple[str, ...]]  # content word -> the notes with it in a name
    idf: Mapping[str, float]  # content word -> inverse document frequency over the names
    unknown_idf: float  # the weight of a query word no name has (the rarest possible)

    @classmethod
    def build(
        cls, titles: Mapping[str, str], aliases: Mapping[str, Iterable[str]] | None = None
    ) -> TitleIndex:
        """``titles``: path -> title (the file name counts as a name too); ``aliases``: path
        -> the note's aliases."""
        aliases = aliases or {}
        names: dict[str, tuple[tuple[str, ...], ...]] = {}
        holders: dict[str, set[str]] = {}
        for path, title in titles.items():
            seen: list[tuple[str, ...]] = []
            for name in (PurePosixPath(path).stem, title, *aliases.get(path, ())):
                words = name_words(str(name))
                if words and words not in seen:
                    seen.append(words)
            if not seen:
                continue
            names[path] = tuple(seen)
            for words in seen:
                for w in content_words(words):
                    holders.setdefault(w, set()).add(path)
        n = max(len(names), 1)
        idf = {w: _idf(n, len(ps)) for w, ps in holders.items()}
        by_word = {w: tuple(sorted(ps)) for w, ps in holders.items()}
        index = cls(names=names, by_word=by_word, idf=idf, unknown_idf=_idf(n, 0))
        _ = index.exact  # made with the view (45 ms at 50,000 notes), not on its first search
        return index

    def match(self, query: str, *, limit: int = 20, partial: float = 0.0) -> dict[str, float]:
        """path -> name score in [0, 1] of the ``limit`` best notes (best first; ties by
        path): 1.0 for an exact name, at most ``partial`` (< 1) for a partial match."""
        q_words = name_words(query)
        if not q_words:
            return {}
        if partial <= 0:
            # exact names only: a name scores 1.0 only when its words are the query's
            exact = sorted(self.exact.get(q_words, ()))
            return {path: 1.0 for path in exact[:limit]}
        q_set = content_words(q_words)
        touched: set[str] = set()
        for w in q_set:
            touched.update(self.by_word.get(w, ()))
        scored: list[tuple[float, str]] = []
        for path in touched:
            best = max(self.name_score(q_words, q_set, words) for words in self.names[path])
            if best >= 1.0:
                scored.append((1.0, path))
            elif partial > 0 and best >= MIN_OVERLAP:
                scored.append((min(partial, 0.99) * best, path))
        scored.sort(key=lambda x: (-x[0], x[1]))
        return {path: s for s, path in scored[:limit]}

    @cached_property
    def exact(self) -> Mapping[tuple[str, ...], tuple[str, ...]]:
        """A name's words -> the notes with that name: ``match`` without partial matches looks
        the query up here instead of scoring every note that shares a word with it (1 ms a
        search at 50,000 notes, where a common word is in thousands of names)."""
        holders: dict[tuple[str, ...], list[str]] = {}
        for path, names in self.names.items():
            for words in names:
                holders.setdefault(words, []).append(path)
        return {words: tuple(paths) for words, paths in holders.items()}

    def name_score(
        self, q_words: Sequence[str], q_set: frozenset[str], words: Sequence[str]
    ) -> float:
        """1.0 for the exact name, else the rarity-weighted Jaccard overlap x the share of the
        query's words found in the name (below 1 unless the words are the same set)."""
        if tuple(q_words) == tuple(words):
            return 1.0
        n_set = content_words(words)
        inter = q_set & n_set
        if not inter:
            return 0.0
        weight = self.weight
        shared = math.fsum(weight(w) for w in inter)
        union = math.fsum(weight(w) for w in q_set | n_set)
        if union <= 0:
            return 0.0
        # x the share of the query's words the name has: "thought 109" is not "gratitude 109"
        return min(shared / union * len(inter) / len(q_set), 0.999)

    def weight(self, word: str) -> float:
        return self.idf.get(word, self.unknown_idf)


def _idf(n: int, df: int) -> float:
    """BM25's idf (always > 0)."""
    return math.log(1.0 + (n - df + 0.5) / (df + 0.5))
