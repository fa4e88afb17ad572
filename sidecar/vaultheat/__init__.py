"""vaultheat: local, private semantic search and related notes for Obsidian vaults."""

import os

# numpy's OpenBLAS wakes and spins a thread per core for every small matrix product; a query's
# products are tiny (hundreds of rows x 384), so the wake-ups cost more than they save (the link
# vote stage: 12.8 -> 2.1 ms at p50 with one thread, bench/votes_latency.py, docs/eval.md).
# Set before numpy loads; a value the user set wins. onnxruntime and torch keep their own pools.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

__version__ = "0.1.0"
