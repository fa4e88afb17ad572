"""`vaultheat plugin install|status`: the only write into a vault, and only where it says."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from vaultheat import __version__
from vaultheat.cli import main
from vaultheat.errors import NotFoundError
from vaultheat.plugin import PLUGIN_FILES, find_plugin, install, plugin_folder

MANIFEST = {
    "id": "vaultheat",
    "name": "Vaultheat",
    "version": __version__,
    "minAppVersion": "1.7.2",
}


def make_build(
    folder: Path, version: str = __version__, main_js: str = "module.exports={}"
) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "main.js").write_text(main_js)
    (folder / "manifest.json").write_text(json.dumps({**MANIFEST, "version": version}))
    (folder / "styles.css").write_text(".vaultheat-row {}\n")
    return folder


def make_vault(tmp_path: Path) -> Path:
    vault = tmp_path / "Notes"
    (vault / ".obsidian").mkdir(parents=True)
    (vault / "Note.md").write_text("# Note\n")
    return vault


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_install_copies_the_three_files_and_writes_nothing_else(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    build = make_build(tmp_path / "build")
    vault = make_vault(tmp_path)
    before = snapshot(vault)
    rc = main(["plugin", "install", "--vault", str(vault), "--from", str(build)])
    assert rc == 0
    folder = vault / ".obsidian" / "plugins" / "vaultheat"
    assert sorted(p.name for p in folder.iterdir()) == sorted(PLUGIN_FILES)
    for name in PLUGIN_FILES:
        assert (folder / name).read_bytes() == (build / name).read_bytes()
    after = snapshot(vault)
    assert {k: v for k, v in after.items() if not k.startswith(".obsidian/plugins/")} == before
    out = capsys.readouterr()[0]
    assert f"installed vaultheat plugin {__version__} in {folder}" in out
    assert "Community plugins" in out


def test_install_is_idempotent(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    build = make_build(tmp_path / "build")
    vault = make_vault(tmp_path)
    assert main(["plugin", "install", "--vault", str(vault), "--from", str(build)]) == 0
    folder = plugin_folder(vault.resolve(), "vaultheat")
    stamps = {n: (folder / n).stat().st_mtime_ns for n in PLUGIN_FILES}
    os.utime(folder / "main.js", ns=(1, 1))  # an unchanged file must not even be rewritten
    capsys.readouterr()
    assert main(["plugin", "install", "--vault", str(vault), "--from", str(build), "--json"]) == 0
    doc = json.loads(capsys.readouterr()[0])
    assert doc["schema"] == "vaultheat.plugin.v1" and doc["state"] == "current"
    assert doc["files"] == {n: "unchanged" for n in PLUGIN_FILES}
    assert (folder / "main.js").stat().st_mtime_ns == 1
    assert all((folder / n).stat().st_mtime_ns == stamps[n] for n in PLUGIN_FILES[1:])


def test_update_replaces_only_what_changed_and_keeps_the_plugins_settings(tmp_path: Path) -> None:
    vault = make_vault(tmp_path)
    old = make_build(tmp_path / "old", version="0.0.9", main_js="old()")
    report = install(vault, find_plugin(old))
    (report.folder / "data.json").write_text('{"autoStart": true}')
    new = make_build(tmp_path / "new")
    report = install(vault, find_plugin(new))
    assert report.state == "updated"
    assert report.files == {"main.js": "updated", "manifest.json": "updated",
                            "styles.css": "unchanged"}  # fmt: skip
    assert (report.folder / "data.json").read_text() == '{"autoStart": true}'
    assert (report.folder / "main.js").read_text() == "module.exports={}"


def test_a_folder_that_is_not_a_vault_is_refused_unless_forced(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    build = make_build(tmp_path / "build")
    folder = tmp_path / "Documents"
    folder.mkdir()
    assert main(["plugin", "install", "--vault", str(folder), "--from", str(build)]) == 2
    err = capsys.readouterr()[1]
    assert "not an Obsidian vault" in err and "--force" in err
    assert list(folder.iterdir()) == []
    argv = ["plugin", "install", "--vault", str(folder), "--from", str(build), "--force"]
    assert main(argv) == 0
    assert (folder / ".obsidian" / "plugins" / "vaultheat" / "main.js").is_file()


def test_a_missing_folder_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    build = make_build(tmp_path / "build")
    argv = ["plugin", "install", "--vault", str(tmp_path / "nope"), "--from", str(build)]
    assert main([*argv, "--force"]) == 2
    assert "is not a folder" in capsys.readouterr()[1]
    assert not (tmp_path / "nope").exists()


def test_status_says_whether_the_vaults_copy_is_in_step(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    vault = make_vault(tmp_path)
    build = make_build(tmp_path / "build")
    status = ["plugin", "status", "--vault", str(vault), "--from", str(build)]
    assert main(status) == 1
    assert "not installed" in capsys.readouterr()[0]
    install(vault, find_plugin(make_build(tmp_path / "old", version="0.0.9")))
    assert main(status) == 1
    out = capsys.readouterr()[0]
    assert "version 0.0.9" in out and f"this sidecar is {__version__}" in out
    assert f"vaultheat plugin install --vault {vault.resolve()}" in out
    install(vault, find_plugin(build))
    assert main([*status, "--json"]) == 0
    doc = json.loads(capsys.readouterr()[0])
    assert doc["state"] == "current" and doc["installed_version"] == __version__
    assert doc["sidecar_version"] == __version__
    (plugin_folder(vault.resolve(), "vaultheat") / "main.js").write_text("edited()")
    assert main(status) == 1
    assert "main.js differ" in capsys.readouterr()[0]


def test_the_wheels_copy_comes_first(tmp_path: Path) -> None:
    packaged = make_build(tmp_path / "site" / "vaultheat" / "obsidian")
    checkout = tmp_path / "repo"
    make_build(checkout / "obsidian-plugin", version="9.9.9")
    (checkout / "obsidian-plugin" / "package.json").write_text("{}")
    source = find_plugin(packaged=packaged, checkout=checkout)
    assert (source.kind, source.folder, source.version) == ("package", packaged, __version__)
    source = find_plugin(packaged=tmp_path / "none", checkout=checkout)
    assert (source.kind, source.version) == ("checkout", "9.9.9")


def test_a_checkout_without_a_build_says_how_to_build_it(tmp_path: Path) -> None:
    checkout = tmp_path / "repo"
    (checkout / "obsidian-plugin").mkdir(parents=True)
    (checkout / "obsidian-plugin" / "package.json").write_text("{}")
    with pytest.raises(NotFoundError) as err:
        find_plugin(packaged=tmp_path / "none", checkout=checkout)
    expected = f"cd {checkout / 'obsidian-plugin'} && npm ci && npm run build"
    assert expected in err.value.message


def test_a_wheel_built_without_node_says_so(tmp_path: Path) -> None:
    with pytest.raises(NotFoundError) as err:
        find_plugin(packaged=tmp_path / "none", checkout=tmp_path / "not-a-checkout")
    assert "without its Obsidian plugin" in err.value.message and "Node" in err.value.message


def test_an_incomplete_folder_names_what_is_missing(tmp_path: Path) -> None:
    build = make_build(tmp_path / "build")
    (build / "styles.css").unlink()
    with pytest.raises(NotFoundError) as err:
        find_plugin(build)
    assert "lacks styles.css" in err.value.message
