"""Note names as evidence (core/titles.py): exact names score 1, partial matches by the rarity
of the words they share, generic title words weigh little."""

from __future__ import annotations

import pytest

from vaultheat.core.titles import FUZZY_CAP, TitleIndex, name_words

TITLES = {
    "tools/Excalidraw.md": "Excalidraw",
    "blog/next.md": "Next",
    "til/python-lru-cache.md": "Python lru_cache",
    "til/python-diskcache.md": "Python diskcache",
    "til/python-pep-584.md": "Python PEP 584",
    "blog/python.md": "Python",
    "plugins/obsidian-kanban-plugin.md": "Obsidian Kanban plugin",
    "plugins/obsidian-git-plugin.md": "Obsidian Git plugin",
    "plugins/obsidian-tasks-plugin.md": "Obsidian Tasks plugin",
}
ALIASES = {"plugins/obsidian-kanban-plugin.md": ["Kanban"]}


@pytest.fixture(scope="module")
def index() -> TitleIndex:
    return TitleIndex.build(TITLES, ALIASES)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("Setting up snapper on Arch", ("setting", "up", "snapper", "on", "arch")),
        ("if_name_main", ("if", "name", "main")),
        ("virt-manager-on-bazzite", ("virt", "manager", "on", "bazzite")),
        ("💭 Kanban", ("kanban",)),
    ],
    ids=["words", "snake-case", "kebab-case", "emoji"],
)
def test_name_words(text: str, words: tuple[str, ...]) -> None:
    assert name_words(text) == words


@pytest.mark.parametrize(
    ("query", "path"),
    [
        ("Excalidraw", "tools/Excalidraw.md"),
        ("excalidraw", "tools/Excalidraw.md"),
        ("kanban", "plugins/obsidian-kanban-plugin.md"),  # an alias
        ("python-lru-cache", "til/python-lru-cache.md"),  # a file name
        ("Obsidian Git plugin", "plugins/obsidian-git-plugin.md"),
    ],
    ids=["title", "case", "alias", "file-name", "long-title"],
)
def test_an_exact_name_scores_one_and_leads(index: TitleIndex, query: str, path: str) -> None:
    got = index.match(query)
    assert next(iter(got)) == path and got[path] == 1.0


def test_a_partial_match_never_ties_an_exact_one(index: TitleIndex) -> None:
    got = index.match("python")
    assert got["blog/python.md"] == 1.0
    assert all(s <= FUZZY_CAP for p, s in got.items() if p != "blog/python.md")


def test_rare_shared_words_outweigh_generic_ones(index: TitleIndex) -> None:
    # "kanban" is in one name, "obsidian" and "plugin" in three: the Kanban note leads, the
    # other plugin notes (sharing only the generic words) score far lower or not at all
    got = index.match("kanban plugin for obsidian")
    first, *rest = got.items()
    assert first[0] == "plugins/obsidian-kanban-plugin.md"
    assert all(s < first[1] / 2 for _, s in rest)


def test_a_generic_title_inside_a_long_question_scores_low(index: TitleIndex) -> None:
    # the query holds "next" and "python" among words no name has: weak evidence only
    got = index.match("what should I write next about decorators and generators in python")
    assert all(s < 0.3 for s in got.values())


def test_no_shared_word_no_match(index: TitleIndex) -> None:
    assert index.match("coffee roasting") == {}
    assert index.match("") == {}


def test_limit_and_floor(index: TitleIndex) -> None:
    assert len(index.match("python", limit=2)) == 2
    assert set(index.match("python", floor=0.99)) == {"blog/python.md"}
