"""Chunks with and without word-span counting must be identical (issue #41 item 1).

    PYTHONPATH=sidecar .venv/bin/python bench/chunk_identity.py VAULT [VAULT ...]
        [--sample N] [--seed 1]

Every ``.md`` note of each vault (or a random sample of ``N``) is parsed and chunked in process
twice with the default model's settings: once counting every range with the tokenizer (the old
sizing), once with ``word_spans`` (``core/vault/token_ranges.py``). Each chunk's (byte_start,
byte_end, heading_path, text, embed_input) is compared, and the tokenizer calls and time of both
are printed. Nothing is written; exits 1 on any difference.
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import time
from pathlib import Path
from typing import Any

from vaultheat.config import Settings
from vaultheat.core.vault.chunking import chunk_note
from vaultheat.core.vault.parsing import parse_note
from vaultheat.core.vault.sizing import document_token_counter, document_word_spans
from vaultheat.providers.registry import make_embedder


def _key(c: Any) -> tuple[Any, ...]:
    return (c.byte_start, c.byte_end, c.heading_path, c.text, c.embed_input)


def check(vault: Path, embedder: Any, settings: Settings, sample: int, seed: int) -> int:
    paths = sorted(p for p in vault.rglob("*.md") if p.is_file())
    if sample and len(paths) > sample:
        paths = sorted(random.Random(seed).sample(paths, sample))
    c = settings.chunking
    max_tokens = c.max_tokens or embedder.max_tokens
    count = document_token_counter(embedder)
    calls = {"n": 0}

    def counted(text: str) -> int:
        calls["n"] += 1
        return count(text)

    spans = document_word_spans(embedder)
    times, ncalls, diffs, chunks = [0.0, 0.0], [0, 0], 0, 0
    for path in paths:
        note = parse_note(str(path.relative_to(vault)), path.read_bytes())
        if not c.header_aliases_tags:
            note = dataclasses.replace(note, aliases=[], tags=[])
        out = []
        for i, ws in enumerate((None, spans)):
            calls["n"] = 0
            t = time.perf_counter()
            out.append(
                chunk_note(
                    note,
                    max_tokens=max_tokens,
                    count_tokens=counted,
                    target_tokens=c.target_tokens,
                    min_chars=c.min_chars,
                    overlap_chars=c.overlap_chars,
                    word_spans=ws,
                )
            )
            times[i] += time.perf_counter() - t
            ncalls[i] += calls["n"]
        old, new = ([_key(x) for x in o] for o in out)
        chunks += len(old)
        if old != new:
            diffs += 1
            print(f"DIFF {path}: {len(old)} vs {len(new)} chunks")
    print(f"{vault}: {len(paths)} notes, {chunks} chunks, {diffs} notes differ; tokenizer calls "
          f"{ncalls[0]} -> {ncalls[1]}, chunking {times[0]:.2f} -> {times[1]:.2f} s")  # fmt: skip
    return diffs


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("vaults", type=Path, nargs="+")
    p.add_argument("--sample", type=int, default=0, help="a random sample of this many notes")
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args(argv)
    settings = Settings()
    embedder = make_embedder(settings.embeddings)
    if document_word_spans(embedder) is None:
        raise SystemExit("the embedder offers no word spans")
    diffs = sum(check(v, embedder, settings, a.sample, a.seed) for v in a.vaults)
    print("identical" if diffs == 0 else f"{diffs} notes differ")
    return 1 if diffs else 0


if __name__ == "__main__":
    raise SystemExit(main())
