#!/usr/bin/env bash
# Create .venv and install vaultheat into it. Usage: scripts/setup.sh [--dev]
# Without --dev: vaultheat alone, no torch (the default model runs on onnxruntime).
# With --dev: also the dev tools and the `torch` and `multilingual` extras, so the tests cover
# those paths; the torch is a CPU-only build when there is no NVIDIA GPU (a CUDA build is ~5 GB
# more).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
PIP=".venv/bin/python -m pip"
if [ "${1:-}" != "--dev" ]; then
  $PIP install -q -e .
  exit 0
fi
if ! .venv/bin/python -c "import torch" 2>/dev/null; then
  if command -v nvidia-smi >/dev/null 2>&1 || [ "$(uname -s)" != "Linux" ]; then
    $PIP install -q "torch>=2.2"                       # CUDA on GPU machines; macOS/Windows wheels are CPU/MPS
  elif ! $PIP install -q --no-deps "torch==2.13.0" --no-index 2>/dev/null; then
    $PIP install -q "torch==2.13.0" --index-url https://download.pytorch.org/whl/cpu \
      --extra-index-url https://pypi.org/simple
  fi
  $PIP install -q "torch==2.13.0" 2>/dev/null || true  # pulls torch's own small dependencies
fi
$PIP install -q -e ".[dev,torch,multilingual]"
