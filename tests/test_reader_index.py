"""`chunking.reader_text`: the index embeds what a reader sees, and keeps the bytes (issue #22)."""

from __future__ import annotations

from pathlib import Path

from vaultheat.config import Settings, save_settings
from vaultheat.core.parsing import parse_note
from vaultheat.core.sizing import chunk_for
from vaultheat.engine import Engine
from vaultheat.indexer import input_hash
from vaultheat.paths import index_paths
from vaultheat.providers.fake import FakeEmbedder

TEMPLATE = (
    "# Git backup plugin\n\n"
    "%% ----- Badges ----- %%\n"
    "[![Downloads](https://img.shields.io/badge/x)](https://obsidian.md) "
    "[![Stars](https://img.shields.io/badge/y)](https://github.com)\n\n"
    "Back up your vault with git on a schedule.\n"
)
# long enough for several chunks under a small window: one of them is comments only
SECTIONS = (
    "".join(
        f"## Part {i}\n\n" + ("Roasting coffee beans at home takes patience. " * 6) + "\n\n"
        for i in range(3)
    )
    + "## Template\n\n%% "
    + "template boilerplate line\n" * 12
    + "%%\n"
)


def _index(vault: Path, reader: bool) -> Engine:
    paths = index_paths(vault)
    paths.root.mkdir(exist_ok=True)
    settings = Settings().with_value("embeddings.provider", "fake")
    save_settings(paths.config, settings.with_value("chunking.reader_text", reader))
    engine = Engine.open(vault, embedder=FakeEmbedder())
    engine.index(full=True)
    return engine


def test_the_model_input_leaves_out_comments_and_badges_the_bytes_stay(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "Git backup.md").write_text(TEMPLATE)
    engine = _index(vault, reader=True)
    try:
        store = engine.store()
        row = store.note_by_path("Git backup.md")
        assert row is not None
        (chunk,) = store.note_chunks(row.id)
        raw = TEMPLATE.encode()
        assert chunk.text == raw[chunk.byte_start : chunk.byte_end].decode()  # exact bytes
        assert "Badges" in chunk.text
        (draft,) = chunk_for(parse_note("Git backup.md", raw), engine.settings, engine.embedder)
        assert "Badges" not in draft.embed_input and "shields.io" not in draft.embed_input
        assert draft.embed_input.endswith("Back up your vault with git on a schedule.")
        assert chunk.embed_hash == input_hash(draft.embed_input)  # the cache follows the input
        body = store.db.execute(
            "SELECT body FROM chunks_fts WHERE rowid = ?", (chunk.id,)
        ).fetchone()[0]
        assert "badges" in body.lower()  # the lexical index keeps what it kept
    finally:
        engine.close()


def test_a_chunk_with_no_prose_left_gets_no_vector(tmp_path: Path) -> None:
    note = parse_note("Roasting.md", SECTIONS.encode())
    settings = Settings().with_value("chunking.max_tokens", 64)
    embedder = FakeEmbedder()
    plain = chunk_for(note, settings, embedder)
    assert any("boilerplate" in d.embed_input and "Roasting" not in d.text for d in plain)
    read = chunk_for(note, settings.with_value("chunking.reader_text", True), embedder)
    assert len(read) < len(plain)
    assert not any("boilerplate" in d.embed_input for d in read)
    assert [d.ordinal for d in read] == list(range(len(read)))
    assert all(d.text == SECTIONS.encode()[d.byte_start : d.byte_end].decode() for d in read)


def test_a_note_of_only_comments_keeps_one_chunk_findable_by_title(tmp_path: Path) -> None:
    note = parse_note("Stub.md", b"%% ----- Badges ----- %%\n[![a](b.svg)](c)\n")
    (draft,) = chunk_for(note, Settings().with_value("chunking.reader_text", True), FakeEmbedder())
    assert "Stub" in draft.embed_input and "Badges" not in draft.embed_input


def test_turning_it_on_reembeds_on_the_next_index(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "Git backup.md").write_text(TEMPLATE)
    engine = _index(vault, reader=False)
    engine.close()
    engine = _index(vault, reader=True)
    try:
        row = engine.store().note_by_path("Git backup.md")
        assert row is not None
        (chunk,) = engine.store().note_chunks(row.id)
        raw = TEMPLATE.encode()
        (draft,) = chunk_for(parse_note("Git backup.md", raw), engine.settings, engine.embedder)
        assert chunk.embed_hash == input_hash(draft.embed_input)
    finally:
        engine.close()
