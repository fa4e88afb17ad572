"""``vaultheat plugin install|status``: put the Obsidian plugin into a vault, or say how it stands.

The built plugin (``main.js``, ``manifest.json``, ``styles.css``) ships inside the wheel in
``vaultheat/obsidian/`` (``setup.py`` builds it from ``obsidian-plugin/`` when the wheel is
built, as JupyterLab extensions ship their front end). In a source checkout (an editable
install) the files are read from ``obsidian-plugin/`` itself, once ``npm run build`` made
``main.js`` there.

``install`` is the only command that writes into a vault folder, and only because the user
named it: it copies the three files to ``VAULT/.obsidian/plugins/<id>/`` (``<id>`` from the
manifest), each replaced atomically and only when it differs, so a second run changes nothing.
The plugin's own ``data.json`` there is never touched. A folder without ``.obsidian/`` is
refused unless ``force``: a typo must not plant an Obsidian config in some other folder.
"""

from __future__ import annotations

import filecmp
import json
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vaultheat import __version__
from vaultheat.errors import NotFoundError, VaultError

PLUGIN_FILES = ("main.js", "manifest.json", "styles.css")
PACKAGED_DIR = Path(__file__).resolve().parent / "obsidian"
CHECKOUT_ROOT = Path(__file__).resolve().parents[2]
CONFIG_DIR = ".obsidian"
SCHEMA = "vaultheat.plugin.v1"


@dataclass(frozen=True)
class PluginSource:
    """Where the three files come from: ``package`` (the wheel), ``checkout`` or ``folder``."""

    kind: str
    folder: Path
    manifest: dict[str, Any]

    @property
    def plugin_id(self) -> str:
        return str(self.manifest["id"])

    @property
    def version(self) -> str:
        return str(self.manifest["version"])

    def path(self, name: str) -> Path:
        return self.folder / name


@dataclass
class PluginReport:
    """What install did, or what status found, for ``VAULT/.obsidian/plugins/<id>/``."""

    action: str
    vault: Path
    folder: Path
    state: str
    sidecar_version: str
    installed_version: str | None
    source: PluginSource | None
    files: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "action": self.action,
            "vault": str(self.vault),
            "folder": str(self.folder),
            "state": self.state,
            "sidecar_version": self.sidecar_version,
            "installed_version": self.installed_version,
            "source": None
            if self.source is None
            else {
                "kind": self.source.kind,
                "folder": str(self.source.folder),
                "version": self.source.version,
            },
            "files": self.files,
        }


def build_command(root: Path = CHECKOUT_ROOT) -> str:
    return f"cd {root / 'obsidian-plugin'} && npm ci && npm run build"


def _complete(folder: Path) -> bool:
    return all((folder / name).is_file() for name in PLUGIN_FILES)


def _read_manifest(folder: Path) -> dict[str, Any]:
    path = folder / "manifest.json"
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise NotFoundError(f"cannot read the plugin's manifest {path}: {exc}", path=path) from exc
    if not isinstance(manifest, dict) or not manifest.get("id") or not manifest.get("version"):
        raise NotFoundError(f"{path} is not an Obsidian plugin manifest (no id or version)")
    return manifest


def find_plugin(
    from_folder: Path | None = None,
    *,
    packaged: Path = PACKAGED_DIR,
    checkout: Path = CHECKOUT_ROOT,
) -> PluginSource:
    """The plugin to install: ``from_folder`` when given, else the wheel's copy, else a source
    checkout's build; raises NotFoundError saying how to get one."""
    if from_folder is not None:
        if not _complete(from_folder):
            missing = [n for n in PLUGIN_FILES if not (from_folder / n).is_file()]
            raise NotFoundError(
                f"{from_folder} lacks {', '.join(missing)} (a plugin folder holds "
                f"{', '.join(PLUGIN_FILES)})",
                folder=from_folder,
            )
        return PluginSource("folder", from_folder, _read_manifest(from_folder))
    if _complete(packaged):
        return PluginSource("package", packaged, _read_manifest(packaged))
    source_dir = checkout / "obsidian-plugin"
    if (source_dir / "package.json").is_file():
        if _complete(source_dir):
            return PluginSource("checkout", source_dir, _read_manifest(source_dir))
        raise NotFoundError(
            "this is a source checkout and its Obsidian plugin is not built yet; build it "
            f"(Node 20+ and npm): {build_command(checkout)}  then run this command again",
            build=build_command(checkout),
        )
    raise NotFoundError(
        "this vaultheat was installed without its Obsidian plugin (Node and npm were missing "
        "when it was built); install Node 20+ and reinstall vaultheat (e.g. `pipx reinstall "
        "vaultheat`), or install the wheel attached to a release, which carries the plugin"
    )


def plugin_folder(vault: Path, plugin_id: str) -> Path:
    return vault / CONFIG_DIR / "plugins" / plugin_id


def _vault(vault: Path, *, force: bool) -> Path:
    vault = vault.expanduser()
    if not vault.is_dir():
        raise VaultError(f"{vault} is not a folder", vault=vault)
    vault = vault.resolve()
    if not (vault / CONFIG_DIR).is_dir() and not force:
        raise VaultError(
            f"{vault} is not an Obsidian vault (it has no {CONFIG_DIR} folder): open it as a "
            f"vault in Obsidian once, or pass --force to create {CONFIG_DIR}/plugins there",
            vault=vault,
        )
    return vault


def _installed_version(folder: Path) -> str | None:
    try:
        data = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    version = data.get("version") if isinstance(data, dict) else None
    return str(version) if version else None


def _copy(src: Path, dest: Path) -> None:
    """Replace ``dest`` with a copy of ``src`` atomically (Obsidian may read it meanwhile)."""
    tmp = dest.with_name(f".{dest.name}.{os.getpid()}.tmp")
    shutil.copyfile(src, tmp)
    os.replace(tmp, dest)


def install(vault: Path, source: PluginSource, *, force: bool = False) -> PluginReport:
    """Copy the plugin into ``vault``; files already identical are left alone."""
    vault = _vault(vault, force=force)
    folder = plugin_folder(vault, source.plugin_id)
    before = _installed_version(folder)
    folder.mkdir(parents=True, exist_ok=True)
    files: dict[str, str] = {}
    for name in PLUGIN_FILES:
        dest = folder / name
        if dest.is_file() and filecmp.cmp(source.path(name), dest, shallow=False):
            files[name] = "unchanged"
            continue
        files[name] = "updated" if dest.exists() else "added"
        _copy(source.path(name), dest)
    if all(v == "unchanged" for v in files.values()):
        state = "current"
    else:
        state = "installed" if before is None else "updated"
    return PluginReport("install", vault, folder, state, __version__, source.version, source,
                        files)  # fmt: skip


def status(vault: Path, source: PluginSource | None, plugin_id: str = "vaultheat") -> PluginReport:
    """Whether the vault's copy is there and in step with this sidecar (and with ``source``)."""
    vault = _vault(vault, force=True)
    folder = plugin_folder(vault, source.plugin_id if source else plugin_id)
    installed = _installed_version(folder)
    files: dict[str, str] = {}
    for name in PLUGIN_FILES:
        dest = folder / name
        if not dest.is_file():
            files[name] = "missing"
        elif source is None:
            files[name] = "present"
        else:
            same = filecmp.cmp(source.path(name), dest, shallow=False)
            files[name] = "same" if same else "different"
    if installed is None or "missing" in files.values():
        state = "missing"
    elif installed != __version__:
        state = "outdated"
    elif "different" in files.values():
        state = "modified"
    else:
        state = "current"
    return PluginReport("status", vault, folder, state, __version__, installed, source, files)


def describe(report: PluginReport) -> str:
    """The report in a few lines of text, with the next step."""
    where = report.folder
    version = report.installed_version
    enable = (
        "Enable it in Obsidian: Settings → Community plugins → Vaultheat (reload the plugin, or "
        "restart Obsidian, if it was on already)."
    )
    if report.action == "install":
        changed = [f"{name} {how}" for name, how in report.files.items() if how != "unchanged"]
        if report.state == "current":
            return f"vaultheat plugin {version} is already installed in {where}; nothing changed"
        verb = "installed" if report.state == "installed" else "updated"
        return f"{verb} vaultheat plugin {version} in {where} ({', '.join(changed)})\n{enable}"
    fix = f"run: vaultheat plugin install --vault {report.vault}"
    if report.state == "missing":
        return f"the vaultheat plugin is not installed in {report.vault}; {fix}"
    if report.state == "outdated":
        return (
            f"the plugin in {where} is version {version}, this sidecar is "
            f"{report.sidecar_version}; {fix}"
        )
    if report.state == "modified":
        differ = ", ".join(n for n, how in report.files.items() if how == "different")
        return (
            f"the plugin in {where} is version {version} like this sidecar, but {differ} "
            f"differ from this install's build; {fix} to replace them"
        )
    return f"the plugin in {where} is version {version}, in step with this sidecar"
