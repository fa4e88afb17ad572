#!/usr/bin/env bash
# The main job on the bundled example vault: index it with the default offline model, then
# show status, a search, related notes and an explanation. The index goes to .demo-index/
# (outside the vault folder, so the repo's example vault stays untouched).
set -euo pipefail
cd "$(dirname "$0")/.."
VH=.venv/bin/vaultheat
VAULT=examples/vault
IDX=.demo-index
[ -f "$IDX/config.toml" ] || $VH init "$VAULT" --index-dir "$IDX"
$VH index --vault "$VAULT" --index-dir "$IDX"
$VH status --vault "$VAULT" --index-dir "$IDX"
echo; echo '$ vaultheat search "why does my espresso taste sour" --files-only'
$VH search "why does my espresso taste sour" --files-only --top 5 --vault "$VAULT" --index-dir "$IDX"
echo; echo '$ vaultheat related "Garden/Composting.md"'
$VH related "Garden/Composting.md" --top 5 --vault "$VAULT" --index-dir "$IDX"
echo; echo '$ vaultheat explain "coffee grounds in the garden" --rank 1'
$VH explain "coffee grounds in the garden" --rank 1 --vault "$VAULT" --index-dir "$IDX"
