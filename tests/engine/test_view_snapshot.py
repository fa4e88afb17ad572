"""One query reads one index generation: the view it gets is frozen, its store is a read
transaction that a commit by the index writer does not move, and the next query gets a new
view of the new generation while the old one stays as it was."""

from __future__ import annotations

from vaultheat.core.query.view import IndexView
from vaultheat.engine import Engine
from vaultheat.storage.store import Store

NOTE = "Coffee/Roasting/Roasting Basics.md"


def _delete_note(engine: Engine, path: str) -> None:
    """What the index child does for a deleted note: one committed transaction."""
    writer = Store(engine.paths.db)
    try:
        row = writer.note_by_path(path)
        assert row is not None
        with writer.transaction():
            writer.delete_note(row.id)
            writer.bump_generation()
    finally:
        writer.close()


def test_a_query_reads_one_generation_while_the_writer_commits(fake_engine: Engine) -> None:
    seen: dict[str, object] = {}

    def query(view: IndexView) -> None:
        before = (view.store.chunk_count(), view.store.note_by_path(NOTE))
        _delete_note(fake_engine, NOTE)  # commits while this query runs
        after = (view.store.chunk_count(), view.store.note_by_path(NOTE))
        seen.update(view=view, before=before, after=after)

    fake_engine.read(query)
    assert seen["before"] == seen["after"], "the snapshot must not move mid-query"
    old = seen["view"]
    assert isinstance(old, IndexView)
    new = fake_engine.read(lambda v: v)
    assert new.generation == old.generation + 1 and new is not old
    assert fake_engine.read(lambda v: v.store.note_by_path(NOTE)) is None
    assert NOTE in old.graph.note_chunks() and NOTE not in new.graph.note_chunks()
    assert NOTE in old.links.chunks  # the old view was replaced, not changed


def test_search_and_related_after_notes_are_deleted_answer_from_the_new_view(
    fake_engine: Engine,
) -> None:
    from vaultheat.core.requests import RelatedRequest, SearchRequest

    before = fake_engine.search(SearchRequest("roasting first crack", top=10, files_only=True))
    assert NOTE in [h.path for h in before.results]
    _delete_note(fake_engine, NOTE)
    after = fake_engine.search(SearchRequest("roasting first crack", top=10, files_only=True))
    assert NOTE not in [h.path for h in after.results]
    other = next(h.path for h in after.results)
    related = fake_engine.related(RelatedRequest(other, top=10))
    assert NOTE not in [h.path for h in related.results]


def test_a_closed_engine_lets_go_of_its_view_and_answers_the_same_after(
    fake_engine: Engine,
) -> None:
    """close() drops the view and its vectors (bounded memory: a closed engine its caller
    still holds keeps no copy of every vector); the next query builds them again, the same."""
    from vaultheat.core.requests import RelatedRequest, SearchRequest

    req = SearchRequest("roasting first crack", top=10)
    before = fake_engine.search(req)
    rel = fake_engine.related(RelatedRequest(NOTE, top=10))
    fake_engine.close()
    assert fake_engine.views._view is None and fake_engine.views._vectors is None
    after = fake_engine.search(req)
    assert [(h.path, h.score) for h in after.results] == [(h.path, h.score) for h in before.results]
    again = fake_engine.related(RelatedRequest(NOTE, top=10))
    assert [(h.path, h.score) for h in again.results] == [(h.path, h.score) for h in rel.results]
