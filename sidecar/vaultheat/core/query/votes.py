"""Link votes: notes linked from many of the query note's nearest neighbours rise.

For a related-notes request on note Q, ``c(n)`` is each note's score from the related pipeline
(Q excluded) and N the top ``k`` notes by ``c``. Each neighbour s in N votes, with its own
score, for every distinct note it links to (wikilinks, embeds, markdown links, property links):

    share(T) = Σ_{s ∈ N, s → T} c(s) / Σ_{s ∈ N} c(s)        (T ≠ Q, T ≠ s)
    bonus(T) = weight · share(T) · hub(T)
    score(T) = c(T) + bonus(T)

Why a sum over notes and not heat: "9 of the 20 notes most like this one link to T" is the
evidence, and only a sum over note-level out-links can express it (max-aggregation over chunk
edges cannot, and similarity, tag and backlink edges restate or dilute it). Only links between
*other* notes are read: Q's own links never vote and never count toward a hub's in-degree, so
a note being written (or a note evaluated with its links hidden) cannot see its own links.

``hub(T)`` is 1 unless hub damping is on (``hub_degree`` > 0): a note linked from more than
``hub_degree`` other notes (a changelog, an index, daily notes) gets ``sqrt(hub_degree /
in_degree)``, the same curve heat propagation uses for hubs. With votes beyond chance
(``related.vote_chance`` = c > 0) it is also multiplied by ``max(0, 1 - c × expected /
share(T))``, ``expected`` being the share of the vault's other notes that link to T: the vote a
random set of neighbours would give is not evidence (c = 1 takes all of it away).

A note Q already links to (as its text states its links now) is damped apart:
``related.vote_linked_hub_degree`` = h > 0 multiplies its vote by ``sqrt(h / in_degree)``
above h. The reader wrote that link; the sidebar need not spend its first place on a hub the
note names already (Settings, a changelog, a category page), while a hub it does not link to
yet keeps its whole vote. Link prediction never sees this (a note's own links are no
predictions), so its cost is read off the sidebar: docs/eval.md "Linked hubs".
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from vaultheat.core.query.heat import hub_factor
from vaultheat.core.query.linkheat import LinkGraph


class Voter(NamedTuple):
    path: str
    score: float


class Vote(NamedTuple):
    """The votes one target received; ``bonus == weight * share * hub_factor`` and
    ``share == sum(v.score for v in voters) / total``, exactly as computed. Immutable tuples,
    not frozen dataclasses: a request builds a few hundred, and a tuple is 5x cheaper to make."""

    target: str
    count: int  # type: ignore[assignment]  # shadows tuple.count on purpose: the API name
    k: int
    weight: float
    total: float
    share: float
    hub_factor: float
    bonus: float
    voters: tuple[Voter, ...]


@dataclass(frozen=True)
class VoteResult:
    neighbours: tuple[Voter, ...]  # N: the top-k notes by score, best first
    total: float  # Σ of their scores
    votes: dict[str, Vote]


@dataclass(frozen=True)
class NoteLinks:
    """Note-level links of an index generation: distinct resolved note targets per note."""

    out_links: Mapping[str, frozenset[str]] = field(default_factory=dict)
    in_degree: Mapping[str, int] = field(default_factory=dict)  # distinct linking notes
    chunks: Mapping[str, np.ndarray] = field(default_factory=dict)  # path -> chunk ids
    graph: LinkGraph = field(default_factory=lambda: LinkGraph.from_out_links({}))  # undirected

    def linking_to(self, path: str) -> set[str]:
        """The notes that link to ``path`` (its backlinks, as this generation stores them)."""
        return {p for p in self.graph.neighbours(path) if path in self.out_links.get(p, ())}

    @classmethod
    def from_pairs(
        cls, pairs: Sequence[tuple[str, str]], chunks: Mapping[str, np.ndarray]
    ) -> NoteLinks:
        out: dict[str, set[str]] = {}
        for src, dst in pairs:
            if src != dst:
                out.setdefault(src, set()).add(dst)
        indeg: dict[str, int] = {}
        for targets in out.values():
            for t in targets:
                indeg[t] = indeg.get(t, 0) + 1
        out_links = {s: frozenset(t) for s, t in out.items()}
        return cls(out_links, indeg, chunks, LinkGraph.from_out_links(out_links))


def link_votes(
    note_scores: Sequence[tuple[str, float]],
    out_links: Mapping[str, Collection[str]],
    *,
    k: int,
    weight: float,
    query: str | None = None,
    query_links: Collection[str] = (),
    in_degree: Mapping[str, int] | None = None,
    hub_degree: int = 0,
    notes: int = 0,
    chance: float = 0.0,
    linked: Collection[str] = (),
    linked_hub_degree: int = 0,
) -> VoteResult:
    """Votes of the top ``k`` of ``note_scores`` ((path, c), any order; ties by path) for the
    notes they link to. ``query`` (Q) never votes and never receives a vote; ``query_links``
    are Q's own stored links, taken out of ``in_degree`` so they do not move hub damping.
    ``notes`` (the vault's note count) and ``chance`` (0 = off) count votes beyond chance:
    see ``beyond_chance``. ``linked``: the notes Q links to now, whose votes
    ``linked_hub_degree`` damps (0 = off)."""
    top = heapq.nsmallest(
        max(k, 0),
        ((p, float(c)) for p, c in note_scores if p != query and c > 0),
        key=lambda x: (-x[1], x[0]),
    )  # the k best in O(n): requests score hundreds to thousands of notes
    neighbours = tuple(Voter(p, c) for p, c in top)
    total = sum(v.score for v in neighbours)
    if not neighbours or total <= 0 or weight <= 0:
        return VoteResult(neighbours, total, {})
    voters: dict[str, list[Voter]] = {}
    summed: dict[str, float] = {}  # Σ c(s) per target, added in neighbour order as sum() would
    for s in neighbours:
        for t in out_links.get(s.path, ()):
            if t != s.path and t != query:
                voters.setdefault(t, []).append(s)
                summed[t] = summed.get(t, 0) + s.score
    own = set(query_links)
    named = set(linked) if linked_hub_degree > 0 else set()
    votes: dict[str, Vote] = {}
    for t, vs in voters.items():
        share = summed[t] / total
        hub = 1.0
        degree = (in_degree or {}).get(t, 0) - (1 if t in own else 0)
        if hub_degree > 0:
            hub = hub_factor(degree, hub_degree)
        if chance > 0 and notes > 2:
            hub *= beyond_chance(share, degree, notes, chance)
        if t in named:
            hub *= hub_factor(degree, linked_hub_degree)
        votes[t] = Vote(t, len(vs), len(neighbours), weight, total, share, hub,
                        weight * share * hub, tuple(vs))  # fmt: skip
    return VoteResult(neighbours, total, votes)


def beyond_chance(share: float, degree: int, notes: int, strength: float = 1.0) -> float:
    """The part of a vote that popularity does not explain: ``1 - strength × expected /
    share``, where ``expected = degree / (notes - 1)`` is the share a target linked from
    ``degree`` of the vault's other notes would get from neighbours drawn at random (0 when the
    share is at or below that). At strength 1, a note most of the vault links to gains nothing
    from being linked by most of the closest notes too; in a small vault, where the closest
    notes are most of the vault, a vote measures closeness rather than the size of a cluster."""
    if share <= 0:
        return 0.0
    expected = min(1.0, max(0, degree) / max(1, notes - 1))
    return max(0.0, 1.0 - strength * expected / share)


def best_chunks(
    qmat: np.ndarray | None,
    chunks: Mapping[str, np.ndarray],
    vectors_of: Callable[[np.ndarray], np.ndarray],
) -> dict[str, tuple[int, float]]:
    """path -> (its chunk most similar to any query vector, that cosine), for the notes only
    the votes found. ``vectors_of(ids)`` gives the chunks' vectors, one per row.

    The product is ``np.einsum`` on purpose, not ``@``: a few hundred chunks against ~9 query
    vectors is tiny, and a BLAS call this size wakes OpenBLAS's worker threads, which on a
    busy 2-core machine cost ~10 ms per request (docs/eval.md "Link votes", latency) against
    ~0.2 ms single-threaded. Ties go to the first chunk of a note, as ``np.argmax`` does."""
    paths = [p for p, ids in chunks.items() if len(ids)]
    if qmat is None or not paths:
        return {}
    lens = np.fromiter((len(chunks[p]) for p in paths), dtype=np.int64, count=len(paths))
    ids = np.concatenate([chunks[p] for p in paths])
    sims = np.einsum("ij,kj->ik", vectors_of(ids), qmat).max(axis=1)
    starts = np.concatenate(([0], np.cumsum(lens)[:-1]))
    peak = np.maximum.reduceat(sims, starts)
    hits = np.flatnonzero(sims == np.repeat(peak, lens))
    first = hits[np.searchsorted(hits, starts)]
    return {p: (int(ids[i]), float(sims[i])) for p, i in zip(paths, first, strict=True)}


def rank_floor(scores: Iterable[float], depth: int) -> float:
    """The ``depth``-th highest of ``scores`` (−inf when there are fewer). More notes joining
    a ranking can only raise the score at a given depth, so a note whose final score is
    certainly below this floor can never rank within ``depth``."""
    top = heapq.nlargest(max(depth, 1), scores)
    return top[-1] if len(top) >= depth > 0 else -math.inf


def reachable(cap: float, damp: float, bonus: float, floor: float) -> bool:
    """Whether a vote-only note can reach ``floor``: its final score is ``content × damp +
    bonus`` with ``content <= cap`` (float products and sums are monotone, so the bound holds
    as computed); a negative ``damp`` reverses the bound, so such a note is always kept."""
    return damp < 0 or cap * damp + bonus >= floor


def recompute_bonus(votes: Mapping[str, Any]) -> float:
    """``bonus`` from a votes object's parts, in the order ``link_votes`` computes it."""
    share = sum(float(v["score"]) for v in votes["voters"]) / float(votes["total"])
    return float(votes["weight"]) * share * float(votes["hub_factor"])
