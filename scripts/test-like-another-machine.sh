#!/usr/bin/env bash
# The Python tests as a slower, smaller machine runs them: pinned to one core, every math
# library (OpenMP, OpenBLAS, MKL, onnxruntime) on one thread, one pytest process (no xdist
# workers). Float sums then run in another order than on a many-core machine, and waits and
# timeouts get no spare core: a test that only passes on a fast machine fails here.
# Extra arguments go to pytest, e.g. `scripts/test-like-another-machine.sh tests/cli/test_cli.py -x`;
# with none it runs the whole suite (slow: one core). PYTHON=... picks the interpreter.
set -uo pipefail
cd "$(dirname "$0")/.."
py="${PYTHON:-.venv/bin/python}"
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 VAULTHEAT_ONNX_THREADS=1
pin=()
if command -v taskset >/dev/null 2>&1; then
  # the first core this process may use (core 0 may be outside a container's set)
  cpu="$("$py" -c 'import os; print(min(os.sched_getaffinity(0)))')"
  pin=(taskset -c "$cpu")
else
  echo "test-like-another-machine: no taskset here, not pinned to one core (threads still 1)" >&2
fi
# -n 0: pytest-xdist stays loaded (its options parse) but runs no worker processes
exec "${pin[@]}" "$py" -m pytest -q -p no:cacheprovider -n 0 "$@"
