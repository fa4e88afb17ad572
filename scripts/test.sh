#!/usr/bin/env bash
# Every check: lint, types, versions, the workflows, Python tests, the plugin's build and
# tests, then the sdist and wheel.
set -uo pipefail
cd "$(dirname "$0")/.."
status=0
.venv/bin/ruff check sidecar tests bench || status=1
.venv/bin/mypy || status=1
# release: one version everywhere, and the workflows linted (zizmor; the workflow schema)
.venv/bin/python scripts/check_versions.py || status=1
.venv/bin/zizmor --offline --quiet .github/workflows || status=1
.venv/bin/check-jsonschema --builtin-schema vendor.github-workflows .github/workflows/*.yml || status=1
.venv/bin/python -c "import torch, sys; sys.exit(0 if torch.version.cuda is None or __import__('shutil').which('nvidia-smi') else 'a CUDA torch was installed on a machine without a GPU')" || status=1
# one pytest worker per core (the suite waits on servers and child processes much of the time)
.venv/bin/python -m pytest -q -p no:cacheprovider -n auto --dist worksteal "$@" || status=1
if [ -f obsidian-plugin/package.json ]; then
  bash obsidian-plugin/scripts/ci.sh || status=1
  # sdist + wheel as a release builds them, the plugin inside (after ci.sh installed Node's packages)
  bash scripts/check-dist.sh || status=1
fi
exit $status
