"""Release-ready: one version everywhere, a LICENSE, and a release workflow that ships the
plugin's three files and the Python sdist and wheel."""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path
from types import ModuleType

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
VERSION_FILES = [
    "manifest.json",
    "versions.json",
    "obsidian-plugin/manifest.json",
    "obsidian-plugin/package.json",
    "obsidian-plugin/package-lock.json",
    "pyproject.toml",
    "sidecar/vaultheat/__init__.py",
]


def check_versions() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "check_versions", REPO / "scripts" / "check_versions.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    for rel in VERSION_FILES:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(REPO / rel, tmp_path / rel)
    return tmp_path


def test_every_version_is_the_same() -> None:
    found = check_versions().versions(REPO)
    assert len(set(found.values())) == 1, found
    assert check_versions().problems(REPO) == []


@pytest.mark.parametrize(
    "rel, old, new",
    [
        ("manifest.json", '"version": "0.1.0"', '"version": "0.1.1"'),
        ("obsidian-plugin/package.json", '"version": "0.1.0"', '"version": "0.2.0"'),
        ("obsidian-plugin/package-lock.json", '"version": "0.1.0"', '"version": "0.1.2"'),
        ("pyproject.toml", 'version = "0.1.0"', 'version = "0.1.9"'),
        ("sidecar/vaultheat/__init__.py", '__version__ = "0.1.0"', '__version__ = "1.0.0"'),
        ("versions.json", '"0.1.0"', '"0.0.1"'),
    ],
)
def test_a_version_out_of_step_is_caught(copy: Path, rel: str, old: str, new: str) -> None:
    path = copy / rel
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    found = check_versions().problems(copy)
    assert found and any(rel.split("/")[-1] in line for line in found), found


def test_the_release_tag_must_be_the_version() -> None:
    version = json.loads((REPO / "manifest.json").read_text())["version"]
    assert check_versions().problems(REPO, tag=version) == []
    assert check_versions().problems(REPO, tag=f"v{version}")


def test_license_is_mit_as_pyproject_says() -> None:
    text = (REPO / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License") and "Permission is hereby granted" in text
    assert 'license = "MIT"' in (REPO / "pyproject.toml").read_text()
    assert json.loads((REPO / "obsidian-plugin/package.json").read_text())["license"] == "MIT"


def test_the_release_workflow_ships_the_plugin_and_the_python_packages() -> None:
    workflow = yaml.safe_load((REPO / ".github/workflows/release.yml").read_text())
    trigger = workflow[True]  # YAML reads the key `on` as true
    assert trigger["push"]["tags"], "releases start from a version tag"
    steps = [s for job in workflow["jobs"].values() for s in job["steps"]]
    run = "\n".join(s.get("run", "") for s in steps)
    assert "check_versions.py --tag" in run
    assert "python -m build" in run
    publish = next(s["run"] for s in steps if "gh release create" in s.get("run", ""))
    for asset in (
        "obsidian-plugin/main.js",
        "manifest.json",
        "obsidian-plugin/styles.css",
        "dist/*",
    ):
        assert asset in publish, asset
    env = {k: v for s in steps for k, v in (s.get("env") or {}).items()}
    assert env.get("VAULTHEAT_REQUIRE_PLUGIN") == "1", "a release wheel must carry the plugin"
