"""Puts the built Obsidian plugin into the wheel, the way JupyterLab extensions ship their front
end inside a Python wheel: ``vaultheat/obsidian/{main.js,manifest.json,styles.css}``, which
``vaultheat plugin install`` copies into a vault. Everything else is in pyproject.toml.

Where the three files come from, first match wins:
  1. an sdist: the copy made when the sdist was built (``sidecar/vaultheat/obsidian/``);
  2. a checkout with Node and npm: ``obsidian-plugin/`` built with esbuild (``npm ci`` first
     when its node_modules is missing);
  3. a checkout where ``obsidian-plugin/main.js`` was built before.
Otherwise the wheel is built without the plugin and says so (``vaultheat plugin install`` then
explains how to get it), unless ``VAULTHEAT_REQUIRE_PLUGIN=1`` (the release workflow) makes that
an error. An editable install (``pip install -e .``, scripts/setup.sh) builds nothing: the
checkout's own ``obsidian-plugin/`` is used, so a machine without npm still installs.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist

HERE = Path(__file__).resolve().parent
PLUGIN_SRC = HERE / "obsidian-plugin"
SHIPPED = Path("vaultheat") / "obsidian"
PREBUILT = HERE / "sidecar" / SHIPPED
FILES = ("main.js", "manifest.json", "styles.css")


def _say(message: str) -> None:
    print(f"vaultheat build: {message}", file=sys.stderr, flush=True)


def _complete(folder: Path) -> bool:
    return all((folder / name).is_file() for name in FILES)


def _npm_build() -> bool:
    npm, node = shutil.which("npm"), shutil.which("node")
    if not (npm and node and (PLUGIN_SRC / "package.json").is_file()):
        return False
    if not (PLUGIN_SRC / "node_modules" / "esbuild").is_dir():
        _say("installing the plugin's Node packages (npm ci)")
        subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=PLUGIN_SRC, check=True)
    _say("building the Obsidian plugin (esbuild)")
    subprocess.run([node, "esbuild.config.mjs", "production"], cwd=PLUGIN_SRC, check=True)
    return True


def plugin_files() -> dict[str, Path] | None:
    """The three built files by name, or None (after saying why)."""
    if (HERE / "PKG-INFO").is_file() and _complete(PREBUILT):
        return {name: PREBUILT / name for name in FILES}
    if _npm_build() or _complete(PLUGIN_SRC):
        files = {name: PLUGIN_SRC / name for name in FILES}
        # the repository root's manifest is the canonical one (obsidian-plugin/ has a copy)
        if (HERE / "manifest.json").is_file():
            files["manifest.json"] = HERE / "manifest.json"
        if all(p.is_file() for p in files.values()):
            return files
    why = "Node and npm were not found" if not shutil.which("npm") else "nothing to build from"
    if os.environ.get("VAULTHEAT_REQUIRE_PLUGIN") == "1":
        raise SystemExit(f"vaultheat build: cannot build the Obsidian plugin: {why}")
    _say(f"WARNING: {why}; building vaultheat WITHOUT its Obsidian plugin (install Node 20+ "
         "and build again to include it)")  # fmt: skip
    return None


def _copy_into(files: dict[str, Path], dest: Path) -> None:
    dest.mkdir(parents=True, exist_ok=True)
    for name, path in files.items():
        shutil.copyfile(path, dest / name)


class BuildPy(build_py):
    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return  # an editable install reads obsidian-plugin/ in place
        dest = Path(self.build_lib) / SHIPPED
        shutil.rmtree(dest, ignore_errors=True)  # build/ is reused: never ship an old copy
        files = plugin_files()
        if files is not None:
            _copy_into(files, dest)
            _say(f"the wheel carries the Obsidian plugin ({', '.join(FILES)})")


class Sdist(sdist):
    def make_release_tree(self, base_dir: str, files: list[str]) -> None:
        super().make_release_tree(base_dir, files)
        built = plugin_files()
        if built is not None:
            _copy_into(built, Path(base_dir) / "sidecar" / SHIPPED)


setup(cmdclass={"build_py": BuildPy, "sdist": Sdist})
