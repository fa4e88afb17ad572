"""Pruning vote-only notes that cannot reach the shown depth changes no result: rankings with
and without the pruning are identical on a vault with planted links (saved notes, unsaved text
with a cursor, several depths), and the pruning does skip notes there."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.conftest import open_fake_index, related_doc
from vaultheat.core.query import related
from vaultheat.core.query.votes import rank_floor, reachable
from vaultheat.core.requests import RelatedRequest
from vaultheat.engine import Engine

TOPICS = ["coffee roasting beans grinder espresso", "garden tomato soil compost seeds",
          "budget savings tax invoice pension", "python code test refactor module",
          "travel train ticket station luggage", "piano music scale chord rhythm"]  # fmt: skip
CLUSTER = 50  # notes n000-n049 share the first topic: the queries' close neighbours
N_NOTES = 300


def _write_vault(root: Path) -> list[str]:
    """A close cluster whose notes link at random across the whole vault (so most notes the
    votes bring in have one or two voters: a small bonus the pruning can rule out), and a few
    hubs every note links to (a large bonus the pruning must keep)."""
    rng = random.Random(13)
    names = [f"n{i:03d}" for i in range(N_NOTES)]
    hubs = names[-4:]
    for i, name in enumerate(names):
        words = TOPICS[0 if i < CLUSTER else 1 + i % (len(TOPICS) - 1)].split()
        body = " ".join(rng.choice(words) for _ in range(60))
        targets = set(rng.sample(names, rng.randint(1, 6))) | {rng.choice(hubs)}
        links = " ".join(f"[[{t}]]" for t in sorted(targets - {name}))
        (root / f"{name}.md").write_text(f"# {name}\n\n{body}\n\nSee {links}\n", encoding="utf-8")
    return names


@pytest.fixture(scope="module")
def linked_engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    vault = tmp_path_factory.mktemp("linked") / "vault"
    vault.mkdir()
    _write_vault(vault)
    engine = open_fake_index(vault)
    yield engine
    engine.close()


def _requests(engine: Engine) -> list[RelatedRequest]:
    reqs = []
    for i, name in enumerate(sorted(engine.views.store().notes())[: CLUSTER + 10]):
        top = (1, 3, 10)[i % 3]
        reqs.append(RelatedRequest(path=name, top=top, explain=i % 2 == 0))
        text = (engine.paths.vault / name).read_text(encoding="utf-8") + " more coffee beans"
        reqs.append(RelatedRequest(path=name, text=text, cursor=len(text) // 2, top=top))
    return reqs


def _count_skips(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the notes the pruning skips from now on: ``[skipped]``, updated in place."""
    skipped = [0]
    real = related.reachable

    def counting(cap: float, damp: float, bonus: float, floor: float) -> bool:
        ok = real(cap, damp, bonus, floor)
        skipped[0] += not ok
        return ok

    monkeypatch.setattr(related, "reachable", counting)
    return skipped


def test_pruned_and_unpruned_rankings_are_identical(
    linked_engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    reqs = _requests(linked_engine)
    skipped = _count_skips(monkeypatch)
    pruned = [related_doc(linked_engine, r)["results"] for r in reqs]
    assert skipped[0] > 0, "the fixture must have vote-only notes the pruning skips"
    assert any(r["votes"] for res in pruned for r in res)
    assert any(r["explain"] and r["explain"]["seed"]["stage"] == "votes"
               for res in pruned for r in res if r["explain"])  # fmt: skip
    monkeypatch.setattr(related, "reachable", lambda *a: True)
    unpruned = [related_doc(linked_engine, r)["results"] for r in reqs]
    assert pruned == unpruned


def test_unlinked_only_is_never_pruned(
    linked_engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``unlinked_only`` reads past the shown depth (linked notes are skipped), so no bound."""
    calls = 0

    def never(*a: float) -> bool:
        nonlocal calls
        calls += 1
        return False

    monkeypatch.setattr(related, "reachable", never)
    linked_engine.related(RelatedRequest(path="n010.md", top=3, unlinked_only=True))
    assert calls == 0


def test_rank_floor_and_the_bound() -> None:
    assert rank_floor([0.2, 0.9, 0.5, 0.7], 2) == 0.7
    assert rank_floor([0.2, 0.9], 3) == float("-inf")  # fewer notes than the depth: no floor
    assert reachable(0.5, 1.0, 0.25, 0.75)  # reaches the floor exactly
    assert not reachable(0.5, 1.0, 0.125, 0.75)
    assert not reachable(0.6, 0.5, 0.5, 0.9)  # damped content: 0.3 + 0.5 < 0.9
    assert reachable(0.6, -1.0, 0.0, 9.0)  # a negative damp factor reverses the bound: keep


def test_the_vector_rankings_bound_prunes_more_and_changes_nothing(
    linked_engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A note the vector rankings did not find has no chunk closer than their last hit, so its
    content score is bounded by that cosine rather than by the vector part's maximum: more
    graph-only notes are ruled out before their chunks are read, with the same rankings."""
    from vaultheat.core.query import pipeline

    reqs = _requests(linked_engine)
    skipped = 0
    real = related.reachable

    def counting(cap: float, damp: float, bonus: float, floor: float) -> bool:
        nonlocal skipped
        ok = real(cap, damp, bonus, floor)
        skipped += not ok
        return ok

    monkeypatch.setattr(related, "reachable", counting)
    bounded = [related_doc(linked_engine, r)["results"] for r in reqs]
    with_bound, skipped = skipped, 0
    rankings = pipeline._vector_rankings

    def unbounded(*a: object, **k: object) -> tuple[object, ...]:
        return (*rankings(*a, **k)[:3], None)  # type: ignore[arg-type]

    monkeypatch.setattr(pipeline, "_vector_rankings", unbounded)
    loose = [related_doc(linked_engine, r)["results"] for r in reqs]
    assert bounded == loose
    assert with_bound > skipped


@pytest.mark.parametrize("factor", [0.5, 2.0, 0.0])
def test_damped_notes_prune_as_their_own_factor_says(
    linked_engine: Engine, monkeypatch: pytest.MonkeyPatch, factor: float
) -> None:
    """With ``related.damp`` the notes' factors differ: the first pass bounds every note by the
    factor that makes its score largest and the second by its own, so the rankings are those
    without pruning."""
    s = linked_engine.settings.with_value("related.damp", ("n1*",))
    engine = linked_engine.with_settings(s.with_value("related.damp_factor", factor))
    reqs = _requests(engine)[::3]
    pruned = [related_doc(engine, r)["results"] for r in reqs]
    monkeypatch.setattr(related, "reachable", lambda *a: True)
    assert pruned == [related_doc(engine, r)["results"] for r in reqs]


def test_damp_factors_are_every_factor_damping_gives() -> None:
    from vaultheat.config import RelatedSettings

    r = RelatedSettings(damp=("d/*",), damp_factor=0.3, page_factor=0.7)
    view = SimpleNamespace(page_kinds={"p.md": "digest", "d/p.md": "list"})
    damp = related.damping(view, r)  # type: ignore[arg-type]
    given = {damp(p) for p in ("x.md", "d/x.md", "p.md", "d/p.md")}
    assert given == set(related.damp_factors(r)) and len(given) == 4


def test_coverage_keeps_the_pruning_exact(
    linked_engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A note only the graph found gains its coverage part too (at most the weight, coverage
    being at most 1), so the bound counts it: open notes of three sections, coverage at a
    the default weight, the same rankings with and without the pruning."""
    from vaultheat.providers.fake import FakeEmbedder

    engine = Engine.open(linked_engine.paths.vault, embedder=FakeEmbedder(),
                         overrides={"experimental.related_score_coverage": 0.5})  # fmt: skip
    rng = random.Random(5)
    try:
        reqs = []
        for i, name in enumerate(sorted(engine.views.store().notes())[:CLUSTER]):
            parts = [(engine.paths.vault / name).read_text(encoding="utf-8")]
            for topic in rng.sample(TOPICS[1:], 2):
                words = topic.split()
                parts.append("## More\n\n" + " ".join(rng.choice(words) for _ in range(70)))
            text = "\n\n".join(parts)
            reqs.append(RelatedRequest(path=name, text=text, top=(3, 10)[i % 2]))
        skipped = _count_skips(monkeypatch)
        pruned = [related_doc(engine, r)["results"] for r in reqs]
        assert skipped[0] > 0
        assert any("coverage" in r for res in pruned for r in res)
        monkeypatch.setattr(related, "reachable", lambda *a: True)
        assert [related_doc(engine, r)["results"] for r in reqs] == pruned
    finally:
        engine.close()
