"""Link resolution as Obsidian does it, plus the real-vault checks on the shared corpus."""

from __future__ import annotations

import time
import unicodedata
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import CORPUS
from vaultheat.config import VaultSettings
from vaultheat.core.models import Link
from vaultheat.core.vault.discovery import discover
from vaultheat.core.vault.parsing import parse_note
from vaultheat.core.vault.resolve import LinkResolver, fold, lookup_key

NOTES = [
    "Note.md",
    "a/Note.md",
    "a/b/Note.md",
    "zzzz/Note.md",
    "Folder/Target.md",
    "Folder/Sub/Deep.md",
    "Sub/Deep.md",
    "Folder/Inner/Leaf.md",
    "Ab/Inner/Leaf.md",
    "Other.md",
    "x/v1.4.5.md",
    "x/windows.h.md",
    "Caf\u00e9.md",
    "Obsidian Sync/Security and privacy.md",
    "Obsidian Publish/Security and privacy.md",
    "Obsidian Sync/Headless Sync.md",
    "Obsidian Publish/Intro.md",
    "UPPER/MiXeD Case.md",
    "x.png.md",
]
OTHERS = ["img/image.png", "docs/report.pdf", "x.png", "Folder/diagram.canvas"]
ALIASES = {
    "Other.md": ["Alt Name", "Target"],
    "Obsidian Sync/Headless Sync.md": ["Headless"],
    "Missing.md": ["Ghost"],
}


@pytest.fixture(scope="module")
def resolver() -> LinkResolver:
    return LinkResolver(NOTES, OTHERS, ALIASES)


CASES = [
    # (id, target, source, expected)
    ("bare-name-exact-root-path-wins", "Note", "a/b/src.md", "Note.md"),
    ("path-exact", "a/Note", "zzzz/src.md", "a/Note.md"),
    ("path-with-md", "Folder/Target.md", "src.md", "Folder/Target.md"),
    ("path-leading-slash", "/Folder/Target", "src.md", "Folder/Target.md"),
    ("path-case-insensitive", "folder/TARGET", "src.md", "Folder/Target.md"),
    ("bare-name-anywhere", "Target", "zzzz/src.md", "Folder/Target.md"),
    ("bare-name-with-md", "Target.md", "src.md", "Folder/Target.md"),
    ("case-insensitive", "mixed case", "src.md", "UPPER/MiXeD Case.md"),
    (
        "same-folder-wins",
        "Security and privacy",
        "Obsidian Sync/Headless Sync.md",
        "Obsidian Sync/Security and privacy.md",
    ),
    (
        "same-folder-wins-other-side",
        "Security and privacy",
        "Obsidian Publish/Intro.md",
        "Obsidian Publish/Security and privacy.md",
    ),
    (
        "else-shortest-path",
        "Security and privacy",
        "elsewhere.md",
        "Obsidian Sync/Security and privacy.md",
    ),
    ("path-beats-same-folder", "Sub/Deep", "Folder/src.md", "Sub/Deep.md"),
    ("relative-to-source-folder", "Inner/Leaf", "Folder/src.md", "Folder/Inner/Leaf.md"),
    ("suffix-shortest-elsewhere", "Inner/Leaf", "q/src.md", "Ab/Inner/Leaf.md"),
    ("dot-slash", "./Target", "Folder/src.md", "Folder/Target.md"),
    ("dot-dot", "../Other", "Folder/src.md", "Other.md"),
    ("dot-dot-deeper", "../../Note", "a/b/src.md", "Note.md"),
    ("dot-dot-escapes-vault", "../../x", "src.md", None),
    ("dot-slash-missing", "./Nope", "Folder/src.md", None),
    ("suffix-path", "b/Note", "q/src.md", "a/b/Note.md"),
    ("attachment-by-name", "image.png", "Folder/src.md", "img/image.png"),
    ("attachment-case", "IMAGE.PNG", "src.md", "img/image.png"),
    ("attachment-by-path", "img/image.png", "src.md", "img/image.png"),
    ("attachment-pdf", "report.pdf", "src.md", "docs/report.pdf"),
    ("attachment-canvas", "diagram.canvas", "src.md", "Folder/diagram.canvas"),
    ("attachment-needs-extension", "image", "src.md", None),
    ("exact-file-name-before-md-note", "x.png", "src.md", "x.png"),
    ("dotted-version", "v1.4.5", "src.md", "x/v1.4.5.md"),
    ("dotted-header", "windows.h", "src.md", "x/windows.h.md"),
    ("nfd-target", "Cafe\u0301", "src.md", "Caf\u00e9.md"),
    ("nfc-target", "CAF\u00c9", "src.md", "Caf\u00e9.md"),
    ("alias", "alt name", "src.md", "Other.md"),
    ("alias-lower-priority-than-name", "Target", "src.md", "Folder/Target.md"),
    ("alias-not-for-paths", "q/Alt Name", "src.md", None),
    ("alias-of-unknown-note-ignored", "Ghost", "src.md", None),
    ("whitespace-stripped", "  Other  ", "src.md", "Other.md"),
    ("unresolved", "Nothing Here", "src.md", None),
    ("folder-is-not-a-file", "Folder", "src.md", None),
    ("self", "", "a/src.md", "a/src.md"),
]


@pytest.mark.parametrize(
    ("target", "source", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_resolve(resolver: LinkResolver, target: str, source: str, expected: str | None) -> None:
    assert resolver.resolve(target, source) == expected


@pytest.mark.parametrize(
    ("paths", "source", "expected"),
    [
        (["a/Note.md", "a/b/Note.md", "zzzz/Note.md"], "a/b/src.md", "a/b/Note.md"),
        (["a/Note.md", "a/b/Note.md", "zzzz/Note.md"], "zzzz/src.md", "zzzz/Note.md"),
        (["a/Note.md", "zzzz/Note.md"], "zzzz/deep/src.md", "a/Note.md"),
        (["a/b/Note.md", "zzzz/Note.md"], "q/src.md", "a/b/Note.md"),
        (["b/Note.md", "a/Note.md"], "q/src.md", "a/Note.md"),
    ],
    ids=[
        "same-folder",
        "same-folder-2",
        "ancestor-counts-for-nothing",
        "shortest-string-not-fewest-parts",
        "tie-lexicographic",
    ],
)
def test_ambiguous_names(paths: list[str], source: str, expected: str) -> None:
    r = LinkResolver(paths)
    assert r.resolve("Note", source) == expected
    assert sorted(r.candidates("Note", source)) == sorted(paths)
    assert r.candidates("Note", source)[0] == expected


def test_resolve_link_same_note_and_kinds(resolver: LinkResolver) -> None:
    def link(target: str, kind: str = "wikilink") -> Link:
        return Link("x", target, None, None, kind, 0, 1, 1)

    assert resolver.resolve_link(link(""), "Folder/src.md") == "Folder/src.md"
    assert resolver.resolve_link(link("Target", "embed"), "src.md") == "Folder/Target.md"
    assert resolver.resolve_link(link("../Other.md", "markdown"), "Folder/src.md") == "Other.md"


def test_remembered_answers_are_the_computed_ones() -> None:
    """resolve() remembers per (target, source folder); asked from every note, in two orders,
    it answers what candidates() computes afresh, and a blank target is always its source."""
    targets = [c[1] for c in CASES] + ["", "  ", "#Heading"]
    sources = [*NOTES, "src.md", "Folder/src.md", "a/b/src.md", "Caf\u00e9/x.md"]
    pairs = [(t, s) for t in targets for s in sources]
    fresh = LinkResolver(NOTES, OTHERS, ALIASES)
    for t, s in [*pairs, *reversed(pairs)]:
        expected = fresh.candidates(t, s, first_only=True)
        assert fresh.resolve(t, s) == (expected[0] if expected else None), (t, s)


def test_nfd_paths_are_stored_nfc() -> None:
    r = LinkResolver(["Cafe\u0301/Re\u0301sume\u0301.md"])
    assert r.resolve("résumé", "x.md") == "Caf\u00e9/R\u00e9sum\u00e9.md"
    assert "café/RÉSUMÉ.md" in r


def test_keys_for_path_cover_every_target_that_resolves_to_it(resolver: LinkResolver) -> None:
    for target, expected in [(c[1], c[3]) for c in CASES]:
        if expected and target.strip():
            assert lookup_key(target) in resolver.keys_for_path(expected), target
    assert resolver.keys_for_path("Other.md") == {"other.md", "other", "alt name", "target"}
    assert resolver.names_affected(["img/image.png", "Note.md"]) == {"image.png", "note.md", "note"}


@settings(max_examples=60, deadline=None)
@given(st.lists(st.from_regex(r"[a-cA-C]{1,2}(/[a-c]{1,2}){0,2}", fullmatch=True), max_size=12))
def test_every_note_resolves_by_its_own_path(stems: list[str]) -> None:
    paths = sorted({s + ".md" for s in stems}, key=fold)
    unique = {fold(p): p for p in paths}
    r = LinkResolver(unique.values())
    for p in unique.values():
        assert r.resolve(p[:-3], "anywhere/src.md") == p
        assert r.resolve(p, "src.md") == p
        name = p.rsplit("/", 1)[-1][:-3]
        assert fold(r.resolve(name, "src.md") or "").endswith(fold(name) + ".md")


def test_build_and_lookup_are_fast() -> None:
    paths = [f"f{i % 50}/sub{i % 7}/Note {i % 900}.md" for i in range(20_000)]
    t0 = time.process_time()
    r = LinkResolver(paths)
    for i in range(20_000):
        r.resolve(f"Note {i % 900}", f"f{i % 50}/x.md")
    assert time.process_time() - t0 < 3.0


# --- real vaults (shared corpus) ---------------------------------------------------------------


def corpus_vault(name: str) -> Path:
    path = CORPUS / name
    if not path.is_dir():
        pytest.skip(f"shared corpus {path} is not present (it lives beside the repo in CI)")
    return path


@pytest.mark.corpus
def test_obsidian_help_links_resolve() -> None:
    vault = corpus_vault("obsidian-help/en")
    found = discover(vault, VaultSettings())
    notes = [parse_note(e.path, e.abs_path.read_bytes()) for e in found.notes]
    assert len(notes) == 173 and not any(n.warnings for n in notes)
    r = LinkResolver([n.path for n in notes], found.other_files, {n.path: n.aliases for n in notes})
    total = resolved = self_links = 0
    for n in notes:
        for lk in n.links:
            if not lk.target:
                self_links += 1
                continue
            total += 1
            resolved += r.resolve_link(lk, n.path) is not None
    share = resolved / total
    print(
        f"obsidian-help/en: {resolved}/{total} links resolve ({share:.2%}), "
        f"{self_links} same-note links"
    )
    assert share >= 0.95
    assert self_links == 144  # the README's count of [[#Heading]] links
    sync = "Obsidian Sync/Security and privacy.md"
    publish = "Obsidian Publish/Security and privacy.md"
    assert r.resolve("Security and privacy", "Obsidian Sync/Headless Sync.md") == sync
    assert (
        r.resolve("Security and privacy", "Obsidian Publish/Introduction to Obsidian Publish.md")
        == publish
    )
    by_path = {n.path: n for n in notes}
    intro = by_path["Obsidian Publish/Introduction to Obsidian Publish.md"]
    (link,) = [lk for lk in intro.links if lk.target == "Security and privacy"]
    assert r.resolve_link(link, intro.path) == publish


@pytest.mark.corpus
def test_vaultofknowledge_parses_every_note() -> None:
    vault = corpus_vault("vaultofknowledge")
    t0 = time.process_time()
    found = discover(vault, VaultSettings())
    assert time.process_time() - t0 < 1.0
    assert len(found.notes) == 2721
    notes = [parse_note(e.path, e.abs_path.read_bytes()) for e in found.notes]
    assert all(unicodedata.is_normalized("NFC", n.path) for n in notes)
    r = LinkResolver([n.path for n in notes], found.other_files)
    links = [(n.path, lk) for n in notes for lk in n.links if lk.target]
    resolved = sum(r.resolve_link(lk, src) is not None for src, lk in links)
    print(f"vaultofknowledge: {resolved}/{len(links)} links resolve")
    assert resolved / len(links) > 0.9
