"""Each chunk's language (m006): detected in the meaning phase on its embedding input, given
to chunks whose vector came from the cache and to an index from before languages by the next
index run, and counted per language."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tests.storage.old_schema import before_contentless_fts, before_languages, float32_cache
from vaultheat.config import Settings, save_settings
from vaultheat.indexing.report import IndexReport
from vaultheat.indexing.run import Indexer
from vaultheat.paths import IndexPaths, index_paths
from vaultheat.providers.fake import FakeEmbedder
from vaultheat.storage import db as dbmod
from vaultheat.storage.store import Store

ENGLISH = """# Roasting coffee at home

Roasting your own coffee beans is easier than most people think. You need green beans, a
heat source and a way to keep the beans moving so that they roast evenly. Listen for the
first crack: the beans are ready a minute or two after it, depending on how dark you like them.
"""
GERMAN = """# Kaffee zu Hause rösten

Das Rösten der eigenen Kaffeebohnen ist einfacher, als die meisten Leute denken. Man braucht
grüne Bohnen, eine Wärmequelle und eine Möglichkeit, die Bohnen ständig zu bewegen, damit sie
gleichmäßig rösten. Achten Sie auf den ersten Knack: Die Bohnen sind eine oder zwei Minuten
danach fertig, je nachdem, wie dunkel Sie sie mögen.
"""
RUSSIAN = """# Обжарка кофе дома

Обжаривать кофейные зёрна самому проще, чем думает большинство людей. Нужны зелёные зёрна,
источник тепла и способ постоянно перемешивать зёрна, чтобы они обжаривались равномерно.
"""
NUMBERS = "| 1 | 2 |\n| --- | --- |\n| 3 | 4 |\n"


@pytest.fixture
def paths(tmp_path: Path) -> IndexPaths:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "Roasting.md").write_text(ENGLISH)
    (vault / "Rösten.md").write_text(GERMAN)
    (vault / "Обжарка.md").write_text(RUSSIAN)
    (vault / "2024-01-01.md").write_text(NUMBERS)
    p = index_paths(vault)
    p.root.mkdir()
    save_settings(p.config, settings())
    return p


def settings() -> Settings:
    return Settings().with_value("embeddings.provider", "fake")


def index(paths: IndexPaths) -> IndexReport:
    return Indexer(paths, settings(), FakeEmbedder()).run()


def languages(paths: IndexPaths) -> dict[str, set[str | None]]:
    """note path -> the languages of its chunks."""
    con = sqlite3.connect(paths.db)
    try:
        out: dict[str, set[str | None]] = {}
        for path, lang in con.execute(
            "SELECT n.path, c.language FROM chunks c JOIN notes n ON n.id = c.note_id"
        ):
            out.setdefault(path, set()).add(lang)
        return out
    finally:
        con.close()


def counts(paths: IndexPaths) -> dict[str, int]:
    store = Store(paths.db, readonly=True)
    try:
        return store.language_counts()
    finally:
        store.close()


EXPECTED = {"Roasting.md": {"en"}, "Rösten.md": {"de"}, "Обжарка.md": {"ru"},
            "2024-01-01.md": {"und"}}  # fmt: skip


def test_the_meaning_phase_stores_each_chunks_language(paths: IndexPaths) -> None:
    report = index(paths)
    assert report.chunks["embedded"] == 4
    assert languages(paths) == EXPECTED
    assert counts(paths) == {"de": 1, "en": 1, "ru": 1, "und": 1, "pending": 0}


def test_a_chunk_whose_vector_came_from_the_cache_gets_its_language(paths: IndexPaths) -> None:
    index(paths)
    (paths.vault / "sub").mkdir()
    (paths.vault / "Rösten.md").rename(paths.vault / "sub" / "Rösten.md")  # new rows, same input
    report = index(paths)
    assert report.chunks["embedded"] == 0 and report.chunks["reused"] == 1
    assert languages(paths)["sub/Rösten.md"] == {"de"}
    assert counts(paths)["pending"] == 0


def test_an_index_from_before_languages_is_migrated_and_filled_by_the_next_run(
    paths: IndexPaths,
) -> None:
    index(paths)
    con = sqlite3.connect(paths.db)
    before_languages(con)
    float32_cache(con)
    before_contentless_fts(con)
    con.execute("PRAGMA user_version = 5")  # before m006
    con.commit()
    ids = sorted(r[0] for r in con.execute("SELECT id FROM chunks"))
    con.close()
    # a reader (which never migrates) counts every chunk as not looked at yet
    assert counts(paths) == {"pending": 4}
    report = index(paths)  # the writer migrates, and the run detects from the notes on disk
    assert report.notes["unchanged"] == 4 and report.chunks["embedded"] == 0
    assert languages(paths) == EXPECTED
    assert counts(paths)["pending"] == 0
    con = sqlite3.connect(paths.db)
    try:
        assert sorted(r[0] for r in con.execute("SELECT id FROM chunks")) == ids
        assert con.execute("PRAGMA user_version").fetchone()[0] == dbmod.SCHEMA_VERSION
    finally:
        con.close()


def test_a_note_rewritten_in_another_language_changes_its_chunks_language(
    paths: IndexPaths,
) -> None:
    index(paths)
    (paths.vault / "Roasting.md").write_text(GERMAN.replace("Kaffee", "Tee"))
    index(paths)
    assert languages(paths)["Roasting.md"] == {"de"}
    assert counts(paths) == {"de": 2, "ru": 1, "und": 1, "pending": 0}


def test_status_and_check_count_the_chunks_per_language(paths: IndexPaths) -> None:
    from tests.conftest import status_doc
    from vaultheat.check import check_index
    from vaultheat.engine import Engine
    from vaultheat.status_lines import languages_line

    index(paths)
    engine = Engine.open(paths.vault, embedder=FakeEmbedder())
    try:
        doc = status_doc(engine)
        assert doc["languages"] == {"de": 1, "en": 1, "ru": 1, "und": 1, "pending": 0}
        report = check_index(engine)
        assert report["state"] == "clean" and report["languages"] == doc["languages"]
    finally:
        engine.close()
    con = sqlite3.connect(paths.db)  # as a run stopped before detecting two of them
    con.execute("UPDATE chunks SET language = NULL WHERE language IN ('de', 'ru')")
    con.commit()
    con.close()
    engine = Engine.open(paths.vault, embedder=FakeEmbedder())
    try:
        doc = status_doc(engine)
        assert doc["languages"] == {"en": 1, "und": 1, "pending": 2}
        report = check_index(engine)
        assert report["state"] == "interrupted"
        assert "2 chunks await their language" in report["pending"]
    finally:
        engine.close()
    line = languages_line({"en": 1234, "de": 12, "und": 3, "pending": 5})
    assert line == "languages: en 1,234 chunks, de 12, und 3, 5 not detected yet"
    assert languages_line({"en": 1, "pending": 0}) == "languages: en 1 chunk"
