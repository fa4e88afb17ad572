"""Vault discovery: what counts as a note, what is skipped and why, filters, symlinks, errors."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import SHARED
from vaultheat.config import VaultSettings
from vaultheat.core.vault.discovery import (
    IGNORE_REASON,
    Discovery,
    GlobSet,
    ObsidianIgnore,
    Skip,
    discover,
)
from vaultheat.errors import VaultError


def write(root: Path, rel: str, content: str | bytes = "x") -> Path:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        p.write_bytes(content)
    else:
        p.write_text(content, encoding="utf-8")
    return p


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    for rel in [
        "Home.md",
        "a/Note.md",
        "a/b/Deep.md",
        "Upper.MD",
        "Archive/old.md",
        "Archive2/also-prefix.md",
        "Drafts/draft.md",
        "Templates/t.md",
        "skip/this.md",
        "keep/this.md",
        "a/Dotted v1.2.md",
        ".trash/deleted.md",
        ".git/objects/readme.md",
        ".obsidian/snippets/x.md",
        ".vaultheat/notes.md",
        ".hidden/secret.md",
        "a/.hidden-note.md",
    ]:
        write(root, rel, f"# {rel}\n")
    write(root, "img/pic.png", b"\x89PNG")
    write(root, "a/doc.pdf", b"%PDF")
    write(
        root,
        ".obsidian/app.json",
        json.dumps({"userIgnoreFilters": ["Archive", "/^Drafts\\//", "/[invalid/"]}),
    )
    write(root, "big.md", "x" * 101)
    write(root, "exact.md", "x" * 100)
    return root


def settings(**kw: object) -> VaultSettings:
    return VaultSettings(**{"max_file_bytes": 100, **kw})  # type: ignore[arg-type]


def note_paths(d: Discovery) -> list[str]:
    return [e.path for e in d.notes]


def test_discover_full_picture(vault: Path) -> None:
    d = discover(vault, settings(exclude=("Templates/**", "skip")))
    assert note_paths(d) == [
        "Home.md",
        "Upper.MD",
        "a/Dotted v1.2.md",
        "a/Note.md",
        "a/b/Deep.md",
        "exact.md",
        "keep/this.md",
    ]
    assert d.other_files == ["a/doc.pdf", "img/pic.png"]
    assert d.skipped == [
        Skip(".hidden", "hidden folder"),
        Skip("Archive/old.md", IGNORE_REASON),
        Skip("Archive2/also-prefix.md", IGNORE_REASON),  # Obsidian filters are plain prefixes
        Skip("Drafts/draft.md", IGNORE_REASON),
        Skip("Templates/t.md", "excluded by config glob 'Templates/**'"),
        Skip("a/.hidden-note.md", "hidden file"),
        Skip("big.md", "larger than 100 bytes"),
        Skip("skip/this.md", "excluded by config glob 'skip'"),
    ]


def test_file_entries_carry_stat(vault: Path) -> None:
    d = discover(vault, settings())
    home = next(e for e in d.notes if e.path == "Home.md")
    st = (vault / "Home.md").stat()
    assert home.abs_path == vault / "Home.md"
    assert (home.size, home.mtime_ns) == (st.st_size, st.st_mtime_ns)


def test_obsidian_ignore_can_be_turned_off(vault: Path) -> None:
    d = discover(vault, settings(honor_obsidian_ignore=False))
    assert {"Archive/old.md", "Archive2/also-prefix.md", "Drafts/draft.md"} <= set(note_paths(d))


def test_include_globs_restrict_notes(vault: Path) -> None:
    d = discover(vault, settings(include=("a/**",), honor_obsidian_ignore=False))
    assert note_paths(d) == ["a/Dotted v1.2.md", "a/Note.md", "a/b/Deep.md"]
    assert Skip("Home.md", "not matched by config include globs") in d.skipped


def test_custom_index_dir_inside_vault_is_skipped_silently(vault: Path) -> None:
    write(vault, "idx/state.md")
    d = discover(vault, settings(), index_dir=vault / "idx")
    assert "idx/state.md" not in note_paths(d)
    assert not any(s.path.startswith("idx") for s in d.skipped)


def test_unreadable_app_json_means_no_filters(vault: Path) -> None:
    write(vault, ".obsidian/app.json", "{not json")
    assert "Archive/old.md" in note_paths(discover(vault, settings()))


def test_nfd_file_names_become_nfc(tmp_path: Path) -> None:
    write(tmp_path, "Cafe\u0301/Re\u0301sume\u0301.md")
    d = discover(tmp_path, settings())
    assert note_paths(d) == ["Caf\u00e9/R\u00e9sum\u00e9.md"]
    assert d.notes[0].abs_path.exists()


@pytest.mark.parametrize(
    ("make", "message"),
    [(lambda p: p / "missing", "does not exist"), (lambda p: write(p, "file.md"), "not a folder")],
    ids=["missing", "file"],
)
def test_bad_vault_root_raises(tmp_path: Path, make: Callable[[Path], Path], message: str) -> None:
    with pytest.raises(VaultError, match=message):
        discover(make(tmp_path), VaultSettings())


# --- symlinks ----------------------------------------------------------------------------------


def symlink_or_skip(target: Path, link: Path) -> None:
    try:
        os.symlink(target, link, target_is_directory=True)
    except (OSError, NotImplementedError) as exc:  # e.g. Windows without the privilege
        pytest.skip(f"cannot create symlinks here: {exc}")


def test_symlink_loop_does_not_hang(tmp_path: Path) -> None:
    root = tmp_path / "v"
    write(root, "a/n.md")
    symlink_or_skip(root, root / "a" / "loop")
    symlink_or_skip(root / "a", root / "a" / "self")
    t0 = time.process_time()
    d = discover(root, settings())
    assert time.process_time() - t0 < 2.0
    assert note_paths(d) == ["a/n.md"]
    assert d.skipped == [Skip("a/loop", "symlink loop"), Skip("a/self", "symlink loop")]


def test_symlinks_leading_outside_the_vault_are_not_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    write(outside, "shared.md")
    write(outside, "inner/x.md")
    root = tmp_path / "v"
    write(root, "n.md")
    symlink_or_skip(outside, root / "link1")
    symlink_or_skip(outside / "inner", root / "link3")
    symlink_or_skip(outside / "shared.md", root / "shared-link.md")
    symlink_or_skip(tmp_path / "nowhere", root / "dangling")
    d = discover(root, settings())
    assert note_paths(d) == ["n.md"]
    reason = "symlink that leads outside the vault (not followed)"
    assert d.skipped == [Skip(p, reason) for p in ("link1", "link3", "shared-link.md")]


def test_symlink_to_folder_inside_vault_is_not_indexed_twice(tmp_path: Path) -> None:
    root = tmp_path / "v"
    write(root, "real/n.md")
    symlink_or_skip(root / "real", root / "alias")
    d = discover(root, settings())
    assert note_paths(d) == ["real/n.md"]
    assert d.skipped == [Skip("alias", "symlink to a folder already in the vault")]


# --- filter semantics --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("filters", "path", "hit"),
    [
        (["Archive"], "Archive/a.md", True),
        (["Archive/"], "Archive/a.md", True),
        (["Archive/"], "Archive2/a.md", False),
        (["Archive"], "Archive2/a.md", True),
        (["Archive"], "x/Archive/a.md", False),
        (["archive"], "Archive/a.md", False),
        (["/^Drafts\\//"], "Drafts/a.md", True),
        (["/^Drafts\\//"], "x/Drafts/a.md", False),
        (["/\\.excalidraw\\.md$/"], "x/y.excalidraw.md", True),
        (["/TODO/i"], "a/todo list.md", True),
        (["/[bad/"], "a/b.md", False),
    ],
)
def test_obsidian_ignore(filters: list[str], path: str, hit: bool) -> None:
    assert ObsidianIgnore(filters).matches(path) is hit


@pytest.mark.parametrize(
    ("pattern", "path", "hit"),
    [
        ("x/**", "x/a.md", True),
        ("x/**", "x/y/z/a.md", True),
        ("x/**", "xy/a.md", False),
        ("x/*", "x/a.md", True),
        ("x/*", "x/y/a.md", True),  # the folder x/y matches, so everything below it does
        ("*.md", "a/b.md", True),
        ("*.excalidraw.md", "d/e/f.excalidraw.md", True),
        ("drafts", "a/drafts/b.md", True),
        ("drafts/", "a/drafts/b.md", True),
        ("/drafts", "a/drafts/b.md", False),
        ("/drafts", "drafts/b.md", True),
        ("a/*/c.md", "a/b/c.md", True),
        ("a/*/c.md", "a/b/x/c.md", False),
        ("**/c.md", "c.md", True),
        ("**/c.md", "a/b/c.md", True),
        ("a/**/c.md", "a/c.md", True),
        ("a/**/c.md", "a/x/y/c.md", True),
        ("note?.md", "note1.md", True),
        ("note?.md", "note12.md", False),
        ("[ab]*.md", "b1.md", True),
        ("[!ab]*.md", "b1.md", False),
        ("Daily Notes/2023-*", "Daily Notes/2023-01-01.md", True),
        ("a+b(c).md", "a+b(c).md", True),
    ],
)
def test_glob_semantics(pattern: str, path: str, hit: bool) -> None:
    assert (GlobSet([pattern]).first_match(path) is not None) is hit


# --- real vault ----------------------------------------------------------------------------------


@pytest.mark.corpus
def test_vaultofknowledge_discovery_is_fast() -> None:
    vault = SHARED / "corpus" / "vaultofknowledge"
    if not vault.is_dir():
        pytest.skip(f"shared corpus {vault} is not present (it lives beside the repo in CI)")
    t0 = time.process_time()
    d = discover(vault, VaultSettings())
    elapsed = time.process_time() - t0
    assert elapsed < 1.0
    assert len(d.notes) == 2721
    assert note_paths(d) == sorted(note_paths(d))
    assert not any(p.startswith((".obsidian", ".trash")) for p in note_paths(d))
