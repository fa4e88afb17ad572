"""Similarity edges: each chunk's k nearest neighbours above a similarity floor.

Pure functions over a vector index (``core/ports.py``; no store): the indexer writes the lists as
``similar`` edges. Each chunk is searched with its own stored vector. Because the search also
returns the chunk itself and, unless allowed, chunks of the same note, a fixed ``k + 1`` would leave
lists short; we ask for ``2k + 1`` and widen (doubling) only for the rows that came back short while
their last hit was still above the floor, i.e. only where more qualifying hits may exist.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

from vaultheat.core.ports import VectorIndexPort

Neighbours = list[tuple[int, float]]


def knn_lists(
    index: VectorIndexPort,
    ids: Sequence[int],
    *,
    k: int,
    min_sim: float,
    exclude: Callable[[int, int], bool] | None = None,
) -> dict[int, Neighbours]:
    """id -> up to ``k`` (neighbour, cosine) pairs with cosine >= ``min_sim``, best first.

    Self hits and pairs for which ``exclude(id, neighbour)`` is true are dropped; ties are broken
    by the lower neighbour id. Ids without a vector in the index are skipped (no key).
    """
    wanted = list(dict.fromkeys(int(i) for i in ids if i in index))
    if k <= 0 or not wanted:
        return {i: [] for i in wanted}
    vectors = index.get_vectors(wanted)
    out: dict[int, Neighbours] = {}
    pending = list(range(len(wanted)))
    fetch = 2 * k + 1
    while pending:
        hits = index.search(vectors[pending], fetch)
        widen: list[int] = []
        for row, found in zip(pending, hits, strict=True):
            node = wanted[row]
            kept = keep_neighbours(node, found, min_sim=min_sim, exclude=exclude)
            out[node] = kept[:k]
            more_may_exist = len(found) == fetch and found[-1][1] >= min_sim
            if len(kept) < k and more_may_exist and fetch < len(index):
                widen.append(row)
        pending = widen
        fetch = min(2 * fetch, len(index))
    return {node: out[node] for node in wanted}


def keep_neighbours(
    node: int,
    hits: Iterable[tuple[int, float]],
    *,
    min_sim: float,
    exclude: Callable[[int, int], bool] | None = None,
) -> Neighbours:
    """Filter one search answer: no self, no excluded pair, sim >= min_sim; sim desc, id asc."""
    kept = [
        (int(other), float(sim))
        for other, sim in hits
        if other != node and sim >= min_sim and not (exclude and exclude(node, int(other)))
    ]
    kept.sort(key=lambda h: (-h[1], h[0]))
    return kept


def affected_ids(
    new_lists: Mapping[int, Sequence[tuple[int, float]]], deleted: Iterable[int] = ()
) -> set[int]:
    """Nodes whose own lists must be recomputed after ``new_lists`` were computed.

    A node ``v`` that appears in a fresh list of ``u`` is similar to ``u`` above the floor, and
    similarity is symmetric, so ``u`` may now belong in ``v``'s top k: ``v`` must recompute.
    Returned: every neighbour named in ``new_lists`` values, minus the keys (their lists are
    fresh already) and minus ``deleted`` (they have no list any more).

    This is the seed's incremental heuristic, not an exact closure: a node ``z`` whose top k
    would now include ``u`` although ``z`` is not in ``u``'s own top k is missed (kNN is not
    symmetric) until its own next refresh. Nodes whose lists named a *deleted* node are not
    visible here either: the caller finds them in the stored edges (reverse lookup) and adds
    them.
    """
    gone = set(deleted)
    named = {int(v) for hits in new_lists.values() for v, _ in hits}
    return named - set(new_lists) - gone
