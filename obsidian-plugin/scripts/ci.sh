#!/usr/bin/env bash
# The plugin's part of CI (.ci/run calls it): install what is missing, then check the manifest
# copy, lint, type-check and build, run the unit tests and the end-to-end test.
#   E2E=real (default) runs against ../.venv/bin/vaultheat (or $VAULTHEAT_BIN); E2E=mock uses the
#   mock server; E2E=off skips it.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v node >/dev/null 2>&1; then
	echo "ci.sh: node is not installed (Node 20 is expected)" >&2
	exit 1
fi
if [ ! -d node_modules ] || ! npm ls --depth=0 >/dev/null 2>&1; then
	npm ci --no-audit --no-fund
fi
E2E="${E2E:-real}"
if [ "$E2E" != "off" ]; then
	# a browser already on the machine first; apt-get only as root (../scripts/find-browser.sh)
	if CHROMIUM_PATH="$(bash ../scripts/find-browser.sh --install)"; then
		export CHROMIUM_PATH
	else
		echo "ci.sh: e2e skipped: no Chrome, Chromium or Edge found; install one, set CHROMIUM_PATH, or run as root to apt-get chromium"
		E2E=skipped
	fi
fi

node scripts/sync-manifest.mjs --check
npm run --silent lint
npm run --silent build
npm test
case "$E2E" in
	real) node e2e/run-e2e.mjs ;;
	mock) node e2e/run-e2e.mjs --mock ;;
	off) echo "ci.sh: e2e skipped (E2E=off)" ;;
	skipped) ;;
	*) echo "ci.sh: E2E must be real, mock or off" >&2; exit 2 ;;
esac
