#!/usr/bin/env python3
"""One version everywhere: the plugin's manifests, versions.json, the Node package and its lock,
pyproject.toml and ``vaultheat.__version__``. With ``--tag TAG`` (the release workflow) the tag
must be that version too: Obsidian finds a release by the tag equal to manifest.json's version.

    python scripts/check_versions.py [--tag 0.1.0]      exit 1 with the disagreements listed
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def versions(repo: Path = REPO) -> dict[str, str]:
    """Each place's version, by where it is written."""

    def load(rel: str) -> dict:
        return json.loads((repo / rel).read_text(encoding="utf-8"))

    lock = load("obsidian-plugin/package-lock.json")
    init = (repo / "sidecar/vaultheat/__init__.py").read_text(encoding="utf-8")
    found = re.search(r'^__version__ = "([^"]+)"', init, re.M)
    pyproject = tomllib.loads((repo / "pyproject.toml").read_text(encoding="utf-8"))
    return {
        "manifest.json": load("manifest.json")["version"],
        "obsidian-plugin/manifest.json": load("obsidian-plugin/manifest.json")["version"],
        "obsidian-plugin/package.json": load("obsidian-plugin/package.json")["version"],
        "obsidian-plugin/package-lock.json": lock["version"],
        'obsidian-plugin/package-lock.json packages[""]': lock["packages"][""]["version"],
        "pyproject.toml": pyproject["project"]["version"],
        "sidecar/vaultheat/__init__.py": found.group(1) if found else "(none)",
    }


def problems(repo: Path = REPO, tag: str | None = None) -> list[str]:
    found = versions(repo)
    version = found["manifest.json"]
    out = [
        f"{where} says {v}, manifest.json {version}" for where, v in found.items() if v != version
    ]
    manifest = json.loads((repo / "manifest.json").read_text(encoding="utf-8"))
    mapping = json.loads((repo / "versions.json").read_text(encoding="utf-8"))
    if mapping.get(version) != manifest["minAppVersion"]:
        out.append(f'versions.json lacks "{version}": "{manifest["minAppVersion"]}"')
    if tag is not None and tag != version:
        out.append(f"the tag {tag} is not the version {version} (Obsidian needs them equal)")
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tag", help="the release tag, which must equal the version")
    args = p.parse_args(argv)
    found = problems(tag=args.tag)
    for line in found:
        print(f"check_versions: {line}", file=sys.stderr)
    if not found:
        print(f"check_versions: every place says {versions()['manifest.json']}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
