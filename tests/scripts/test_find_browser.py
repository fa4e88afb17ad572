"""scripts/find-browser.sh: a browser on the machine first, apt-get only as root, else nothing."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "find-browser.sh"


def _exe(path: Path, body: str = "exit 0") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\n{body}\n", encoding="utf-8")
    path.chmod(0o755)
    return path


def _run(tmp: Path, *args: str, uid: str = "1000", **env: str) -> subprocess.CompletedProcess[str]:
    bin_dir = tmp / "bin"
    _exe(bin_dir / "id", f"echo {uid}")
    base = {"PATH": str(bin_dir), "HOME": str(tmp / "home")}
    return subprocess.run(["/bin/bash", str(SCRIPT), *args], env={**base, **env},
                          capture_output=True, text=True, timeout=30, check=False)  # fmt: skip


def test_nothing_found_without_root_installs_nothing(tmp_path: Path) -> None:
    log = tmp_path / "apt.log"
    _exe(tmp_path / "bin" / "apt-get", f"echo called >> {log}")
    res = _run(tmp_path, "--install")
    assert res.returncode == 1 and res.stdout == ""
    assert not log.exists()


@pytest.mark.parametrize("name", ["google-chrome", "chromium", "microsoft-edge"])
def test_a_browser_on_path_is_used(tmp_path: Path, name: str) -> None:
    browser = _exe(tmp_path / "bin" / name)
    res = _run(tmp_path, "--install")
    assert res.returncode == 0 and res.stdout.strip() == str(browser)


def test_playwright_cache_and_explicit_path(tmp_path: Path) -> None:
    chrome = _exe(tmp_path / "home/.cache/ms-playwright/chromium-1148/chrome-linux/chrome")
    assert _run(tmp_path).stdout.strip() == str(chrome)
    other = _exe(tmp_path / "custom" / "browser")
    assert _run(tmp_path, CHROMIUM_PATH=str(other)).stdout.strip() == str(other)


def test_root_with_apt_get_installs_chromium(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    # the fake apt-get "installs" a chromium on PATH
    fake = bin_dir / "chromium"
    install = f'printf "#!/bin/sh\\n" > {fake} && /bin/chmod +x {fake}'
    _exe(bin_dir / "apt-get", f'[ "$1" = install ] && {install}; exit 0')
    res = _run(tmp_path, "--install", uid="0")
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == str(bin_dir / "chromium")
    assert "apt-get" in res.stderr
    assert os.access(bin_dir / "chromium", os.X_OK)


def test_ci_sh_skips_with_one_clear_line() -> None:
    text = (REPO / "obsidian-plugin" / "scripts" / "ci.sh").read_text(encoding="utf-8")
    assert "find-browser.sh --install" in text
    assert "apt-get install" not in text  # only find-browser.sh installs, and only as root
    assert "e2e skipped: no Chrome, Chromium or Edge found" in text
