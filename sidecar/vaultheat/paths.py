"""Where a vault's index lives, and how a command finds its vault.

The index defaults to ``<vault>/.vaultheat``; ``--index-dir`` (or ``VAULTHEAT_INDEX_DIR``)
keeps it outside the vault for people who sync their vault with a cloud service.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from vaultheat.config import CONFIG_FILENAME, INDEX_DIRNAME
from vaultheat.errors import VaultError


@dataclass(frozen=True)
class IndexPaths:
    vault: Path
    root: Path

    @property
    def db(self) -> Path:
        return self.root / "index.sqlite"

    @property
    def vectors(self) -> Path:
        return self.root / "vectors.hnsw"

    def space_vectors(self, space: str) -> Path:
        """The vector file of a second vector space (storage/vectorsync.py: "multilingual")."""
        return self.root / f"vectors.{space}.hnsw"

    @property
    def config(self) -> Path:
        return self.root / CONFIG_FILENAME

    @property
    def lock(self) -> Path:
        return self.root / "writer.lock"

    @property
    def server(self) -> Path:
        return self.root / "server.json"

    def exists(self) -> bool:
        return self.config.exists() or self.db.exists()


def find_vault(start: Path | None = None) -> Path:
    """The vault containing ``start`` (default: cwd): the nearest folder with ``.vaultheat`` or
    ``.obsidian``; else ``start`` itself."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / INDEX_DIRNAME).is_dir() or (folder / ".obsidian").is_dir():
            return folder
    return here


def index_paths(vault: Path | None, index_dir: Path | None = None) -> IndexPaths:
    if vault is None:
        vault = find_vault()
    vault = vault.expanduser().resolve()
    if not vault.is_dir():
        raise VaultError(
            f"vault folder {vault} does not exist or is not a folder", vault=str(vault)
        )
    env_dir = os.environ.get("VAULTHEAT_INDEX_DIR")
    root = index_dir or (Path(env_dir) if env_dir else None) or vault / INDEX_DIRNAME
    return IndexPaths(vault=vault, root=root.expanduser().resolve())


def safe_vault_path(vault: Path, rel: str) -> Path:
    """The absolute path of a vault-relative path, refusing anything that escapes the vault:
    absolute paths, ``..`` components, NUL bytes, and symlinks that lead outside."""
    import posixpath

    from vaultheat.errors import InputError

    if not isinstance(rel, str) or not rel or "\x00" in rel:
        raise InputError("path must be a non-empty vault-relative path")
    clean = rel.replace("\\", "/")
    if clean.startswith("/") or (len(clean) > 1 and clean[1] == ":"):
        raise InputError(f"path {rel!r} must be relative to the vault")
    norm = posixpath.normpath(clean)
    if norm == ".." or norm.startswith("../") or norm == ".":
        raise InputError(f"path {rel!r} escapes the vault")
    root = vault.resolve()
    target = (root / norm).resolve()
    if target != root and root not in target.parents:
        raise InputError(f"path {rel!r} escapes the vault")
    return target
