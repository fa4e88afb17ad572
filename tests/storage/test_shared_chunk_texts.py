"""Store.shared_chunk_texts: the chunk texts several notes hold word for word, with how many
notes and which chunks (core/query/shared_text.py reads them for related notes)."""

from __future__ import annotations

from pathlib import Path

from vaultheat.config import Settings, save_settings
from vaultheat.core.query.shared_text import SharedText
from vaultheat.indexing.run import Indexer
from vaultheat.paths import index_paths
from vaultheat.providers.fake import FakeEmbedder
from vaultheat.storage.store import Store

FOOTER = ("Thank you to every gardener who filed an issue, sent a fix or answered a question "
          "in the forum this week: the garden grows because of you.")  # fmt: skip


def test_a_footer_in_four_notes_is_shared_text_of_four(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    topics = ["compost heaps", "raised beds", "tomato blight", "seed saving"]
    for i, topic in enumerate(topics):
        body = (
            f"This week we wrote about {topic} at length, with photos from the plots, "
            "notes on what went wrong and a plan for next season's beds and paths."
        )
        (vault / f"week-{i}.md").write_text(f"# Week {i}\n\n{body}\n\n## Thanks\n\n{FOOTER}\n")
    (vault / "other.md").write_text(f"# Other\n\nA note of its own.\n\n{FOOTER[:40]}\n")
    paths = index_paths(vault)
    paths.root.mkdir()
    # a small window, so each section is a chunk of its own
    settings = (Settings().with_value("embeddings.provider", "fake")
                .with_value("chunking.max_tokens", 48))  # fmt: skip
    save_settings(paths.config, settings)
    Indexer(paths, settings, FakeEmbedder()).run()
    store = Store(paths.db, readonly=True)
    try:
        rows = store.shared_chunk_texts()
        assert store.shared_chunk_texts(5) == []
    finally:
        store.close()
    assert len(rows) == 1
    text, notes, ids = rows[0]
    assert FOOTER in text and notes == 4 and len(ids) == 4
    shared = SharedText.from_rows(rows)
    assert shared.chunk_ids(4) == frozenset(ids) and shared.is_shared(text, 4)
