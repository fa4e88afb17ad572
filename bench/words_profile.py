"""Profile of the words phase (parse, chunk, store, FTS) with the configured model.

    PYTHONPATH=sidecar .venv/bin/python bench/words_profile.py VAULT [--fake] [--profile]

The vault is copied to a temporary folder, an index is made there like ``vaultheat init`` does,
and ``engine.index()`` runs until the words phase has committed (its first "meaning" progress
call), where the run is stopped. Reported: the words phase's wall and CPU time, the calls
to the embedder's ``count_tokens`` (how many, how many characters, their time) and to its
``word_token_spans`` when it has one (how many, their time). ``--profile``
prints cProfile's top functions by cumulative time.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import os
import pstats
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from index_bench import copy_vault, init_index, open_engine


class _WordsDone(Exception):
    pass


def run(src: Path, fake: bool, profile: bool) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="words-profile-") as tmp:
        vault = copy_vault(src, Path(tmp) / "vault")
        init_index(vault, "fake" if fake else "local")
        engine = open_engine(vault, fake)
        embedder: Any = engine.models.embedder
        embedder.count_tokens("warm up the tokenizer")  # loads the tokenizer (not the phase)
        inner = embedder.count_tokens
        stats = {"calls": 0, "chars": 0, "s": 0.0, "spans_calls": 0, "spans_s": 0.0}

        def counting(text: str) -> int:
            t = time.perf_counter()
            n = int(inner(text))
            stats["s"] += time.perf_counter() - t
            stats["calls"] += 1
            stats["chars"] += len(text)
            return n

        embedder.count_tokens = counting
        spans_of = getattr(embedder, "word_token_spans", None)
        if spans_of is not None:  # one call per note (core/vault/token_ranges.py)

            def spans(text: str) -> Any:
                t = time.perf_counter()
                out = spans_of(text)
                stats["spans_s"] += time.perf_counter() - t
                stats["spans_calls"] += 1
                return out

            embedder.word_token_spans = spans

        def progress(stage: str, done: int, total: int) -> None:
            if stage == "meaning":
                raise _WordsDone

        prof = cProfile.Profile() if profile else None
        t0, c0 = time.perf_counter(), time.process_time()
        if prof:
            prof.enable()
        with contextlib.suppress(_WordsDone):
            engine.index(progress=progress)
        if prof:
            prof.disable()
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        engine.close()
    if prof:
        pstats.Stats(prof).sort_stats("cumulative").print_stats(25)
    return {"vault": str(src), "words_wall_s": round(wall, 2), "words_cpu_s": round(cpu, 2),
            "count_calls": stats["calls"], "count_chars": stats["chars"],
            "count_s": round(stats["s"], 2), "spans_calls": stats["spans_calls"],
            "spans_s": round(stats["spans_s"], 2), "load": os.getloadavg()}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("vault", type=Path)
    p.add_argument("--fake", action="store_true")
    p.add_argument("--profile", action="store_true")
    a = p.parse_args(argv)
    print(run(a.vault, a.fake, a.profile))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
