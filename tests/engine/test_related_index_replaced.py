"""Related notes of a note the index does not hold, while the index file is replaced: the
"not indexed" answer is built outside the read, so ``reopen`` (which waits for every reader)
never waits for the thread that asked. Before the fix, the note status opened a read of its
own inside the query's shared lock and the replaced file made it wait for itself."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path
from typing import Any

import pytest

from vaultheat.core.requests import RelatedRequest
from vaultheat.errors import NotFoundError
from vaultheat.paths import index_paths
from vaultheat.storage.store import Store


def _replace_index_file(vault: Path) -> None:
    """The same index under a new inode, as a restore from a backup leaves it."""
    db = index_paths(vault).db
    copy = db.with_name(db.name + ".copy")
    shutil.copyfile(db, copy)
    copy.replace(db)


def test_related_of_an_unindexed_note_while_the_index_is_replaced(
    fake_engine: Any, vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_engine.related(RelatedRequest(path="Garden/Composting.md", top=3))  # views loaded
    (vault / "Garden" / "New Bed.md").write_text("# New bed\n\nNot indexed yet.\n", "utf-8")
    original = Store.note_by_path
    replaced = threading.Event()

    def note_by_path(self: Store, path: str) -> Any:
        if path == "Garden/New Bed.md" and not replaced.is_set():
            replaced.set()  # inside the query's read: the file changes under it
            _replace_index_file(vault)
        return original(self, path)

    monkeypatch.setattr(Store, "note_by_path", note_by_path)
    outcome: list[BaseException | None] = []

    def ask() -> None:
        try:
            fake_engine.related(RelatedRequest(path="Garden/New Bed.md", top=3))
            outcome.append(None)
        except BaseException as exc:  # handed to the test thread
            outcome.append(exc)

    worker = threading.Thread(target=ask, daemon=True)
    worker.start()
    worker.join(60)  # a deadline, not a wait for time to pass: the answer comes at once
    assert not worker.is_alive(), "related notes deadlocked on a replaced index"
    assert replaced.is_set()
    assert len(outcome) == 1 and isinstance(outcome[0], NotFoundError)
    assert "not indexed" in str(outcome[0])
    # and the engine still answers from the replaced file
    found = fake_engine.related(RelatedRequest(path="Garden/Composting.md", top=3))
    assert found.results


def test_a_name_too_long_for_the_file_system_is_no_such_note(fake_engine: Any) -> None:
    """Found by the API fuzzer: ``is_file()`` raised ``OSError`` (ENAMETOOLONG), a 500."""
    with pytest.raises(NotFoundError, match="no such note"):
        fake_engine.related(RelatedRequest(path="x" * 300 + ".md", top=3))
