#!/usr/bin/env bash
# Print the path of a Chromium-family browser for the plugin's end-to-end test; exit 1 if none.
# Looks first for one already on the machine: $CHROMIUM_PATH, Chrome, Chromium, Edge (PATH and
# the usual install folders), the playwright cache. With --install and none found, installs
# Debian's chromium with apt-get, but only as root on a machine that has apt-get.
set -uo pipefail

found() { [ -n "$1" ] && [ -x "$1" ] && { printf '%s\n' "$1"; exit 0; }; }

[ -n "${CHROMIUM_PATH:-}" ] && found "$CHROMIUM_PATH"
for name in chromium chromium-browser google-chrome google-chrome-stable chrome \
	microsoft-edge microsoft-edge-stable msedge; do
	found "$(command -v "$name" 2>/dev/null || true)"
done
for path in \
	"/Applications/Google Chrome.app/Contents/MacOS/Google Chrome" \
	"/Applications/Chromium.app/Contents/MacOS/Chromium" \
	"/Applications/Microsoft Edge.app/Contents/MacOS/Microsoft Edge" \
	/opt/google/chrome/chrome /opt/microsoft/msedge/msedge /snap/bin/chromium; do
	found "$path"
done
cache="${PLAYWRIGHT_BROWSERS_PATH:-${HOME:-/nonexistent}/.cache/ms-playwright}"
for path in "$cache"/chromium-*/chrome-linux/chrome "$cache"/chromium-*/chrome-linux64/chrome \
	"$cache"/chromium_headless_shell-*/chrome-linux/headless_shell; do
	found "$path"
done

if [ "${1:-}" = "--install" ] && [ "$(id -u 2>/dev/null)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
	echo "find-browser: installing Debian's chromium with apt-get" >&2
	apt-get update -qq >&2 &&
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null &&
		found "$(command -v chromium 2>/dev/null || echo /usr/bin/chromium)"
fi
exit 1
