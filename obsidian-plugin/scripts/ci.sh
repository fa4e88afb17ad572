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
if [ "${E2E:-real}" != "off" ] && [ ! -x "${CHROMIUM_PATH:-/usr/bin/chromium}" ]; then
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi

node scripts/sync-manifest.mjs --check
npm run --silent lint
npm run --silent build
npm test
case "${E2E:-real}" in
	real) node e2e/run-e2e.mjs ;;
	mock) node e2e/run-e2e.mjs --mock ;;
	off) echo "ci.sh: e2e skipped (E2E=off)" ;;
	*) echo "ci.sh: E2E must be real, mock or off" >&2; exit 2 ;;
esac
