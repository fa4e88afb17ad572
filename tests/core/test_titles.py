"""Note names as evidence (core/query/titles.py): exact names score 1, partial matches by the rarity
of the words they share, generic title words weigh little."""

from __future__ import annotations

import pytest

from vaultheat.core.query.titles import TitleIndex, name_words

PARTIAL = 0.5

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
    got = index.match("python", partial=PARTIAL)
    assert got["blog/python.md"] == 1.0
    assert len(got) > 1 and all(s < PARTIAL for p, s in got.items() if p != "blog/python.md")


def test_exact_names_only_by_default(index: TitleIndex) -> None:
    assert index.match("python") == {"blog/python.md": 1.0}
    assert index.match("kanban plugin for obsidian") == {}


def test_rare_shared_words_outweigh_generic_ones(index: TitleIndex) -> None:
    # "kanban" is in one name, "obsidian" and "plugin" in three: the Kanban note leads, the
    # other plugin notes (sharing only the generic words) score far lower or not at all
    got = index.match("kanban plugin for obsidian", partial=PARTIAL)
    first, *rest = got.items()
    assert first[0] == "plugins/obsidian-kanban-plugin.md"
    assert all(s < first[1] / 2 for _, s in rest)


def test_a_generic_title_inside_a_long_question_scores_low(index: TitleIndex) -> None:
    # the query holds "next" and "python" among words no name has: weak evidence only
    got = index.match(
        "what should I write next about decorators and generators in python", partial=PARTIAL
    )
    assert got == {}  # below the minimum overlap


def test_a_shared_number_is_not_the_same_series() -> None:
    # "109" is the rarest word, but half the query is missing from the other series' name
    idx = TitleIndex.build({f"{s}/{s}-{n}.md": f"{s}-{n}" for s in ("thought", "gratitude")
                            for n in range(100, 120)})  # fmt: skip
    q = name_words("thought-109")
    other = idx.name_score(q, frozenset(q), name_words("gratitude-109"))
    assert other < 0.5 and idx.match("thought-109") == {"thought/thought-109.md": 1.0}


def test_no_shared_word_no_match(index: TitleIndex) -> None:
    assert index.match("coffee roasting", partial=PARTIAL) == {}
    assert index.match("", partial=PARTIAL) == {}


def test_limit(index: TitleIndex) -> None:
    assert len(index.match("python", limit=2, partial=PARTIAL)) == 2
    assert list(index.match("python", limit=1, partial=PARTIAL)) == ["blog/python.md"]


@pytest.mark.parametrize(
    "query", ["excalidraw", "Python", "python lru cache", "obsidian kanban plugin", "kanban",
              "obsidian", "next", "the", "coffee", "Python: diskcache!"],
)  # fmt: skip
@pytest.mark.parametrize("limit", [0, 1, 2, 20])
def test_exact_names_are_looked_up_as_the_scoring_finds_them(
    index: TitleIndex, query: str, limit: int
) -> None:
    """Without partial matches (the default) ``match`` looks the query's words up among the
    names (``TitleIndex.exact``) instead of scoring every note that shares a word: the same
    notes, scores and order as the exact matches the scoring walk finds."""
    scored = index.match(query, limit=limit, partial=1e-6)
    assert index.match(query, limit=limit) == {p: s for p, s in scored.items() if s >= 1.0}


def test_notes_of_one_name_come_by_path() -> None:
    idx = TitleIndex.build({"b/next.md": "Next", "a/Next.md": "Next", "c/x.md": "Next steps"},
                           {"c/x.md": ["next"]})  # fmt: skip
    assert idx.match("Next") == {"a/Next.md": 1.0, "b/next.md": 1.0, "c/x.md": 1.0}
    assert idx.match("next", limit=2) == {"a/Next.md": 1.0, "b/next.md": 1.0}
