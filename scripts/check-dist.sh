#!/usr/bin/env bash
# The Python packages as a release builds them: sdist and wheel (`python -m build`, the wheel
# built from the sdist), both carrying the Obsidian plugin; then `vaultheat plugin install`
# from the unpacked wheel into a fresh vault leaves the three files with the manifest's id and
# version. Needs the plugin's Node packages (obsidian-plugin/scripts/ci.sh installs them).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=.venv/bin/python
out=$(mktemp -d "${TMPDIR:-/tmp}/vaultheat-dist.XXXXXX")
trap 'rm -rf "$out"' EXIT
if ! VAULTHEAT_REQUIRE_PLUGIN=1 $PY -m build --no-isolation -o "$out/dist" . >"$out/build.log" 2>&1; then
  tail -40 "$out/build.log"
  echo "check-dist: python -m build failed" >&2
  exit 1
fi
$PY scripts/check_dist.py "$out/dist"
$PY -m zipfile -e "$out"/dist/vaultheat-*.whl "$out/wheel"
mkdir -p "$out/vault/.obsidian"
# the unpacked wheel comes first on the path: this is the wheel's vaultheat, not the checkout's
PYTHONPATH="$out/wheel" $PY -m vaultheat.cli plugin install --vault "$out/vault"
PYTHONPATH="$out/wheel" $PY -m vaultheat.cli plugin status --vault "$out/vault" --json >"$out/status.json"
$PY - "$out" <<'PYCHECK'
import json, sys
from pathlib import Path
out = Path(sys.argv[1])
status = json.loads((out / "status.json").read_text())
manifest = json.loads(Path("manifest.json").read_text())
folder = out / "vault" / ".obsidian" / "plugins" / manifest["id"]
installed = json.loads((folder / "manifest.json").read_text())
problems = []
if status["source"]["kind"] != "package":
    problems.append(f"installed from {status['source']['kind']}, not from the wheel")
if sorted(p.name for p in folder.iterdir()) != ["main.js", "manifest.json", "styles.css"]:
    problems.append(f"{folder} holds {sorted(p.name for p in folder.iterdir())}")
if (installed["id"], installed["version"]) != (manifest["id"], manifest["version"]):
    problems.append(f"installed {installed['id']} {installed['version']}")
if status["state"] != "current":
    problems.append(f"plugin status says {status['state']}")
for p in problems:
    print(f"check-dist: {p}", file=sys.stderr)
if problems:
    sys.exit(1)
print(f"check-dist: the wheel installs {manifest['id']} {manifest['version']} into a fresh vault")
PYCHECK
