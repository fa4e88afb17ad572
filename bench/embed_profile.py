"""Where an ONNX embedding pass spends its time, on a vault's real index chunks.

    .venv/bin/python bench/embed_profile.py --model multilingual --vault PATH --limit 96 \\
        [--reps 5] [--variant NAME=MODEL.onnx:THREADS:BATCH ...]

Chunks come from the indexer's own rule (``chunk_for``: the embedder's tokenizer and window), a
seeded random sample of ``--limit``. Prints the tokenizer's time for the sample, token lengths,
padding waste at batch 8 / 32 (for the sample and for the whole vault sorted by length, which is
what the indexer's ``embed_documents`` sees), then runs every variant (an ONNX graph, intra-op
threads, batch size) in turn for ``--reps`` rounds, alternating, in one process: chunks/s wall,
chunks per CPU-second, and cosine of each variant's vectors against the first variant's.
Without ``--variant`` the product's own cached int8 graph runs at batch 32, 8 and 1 thread.
"""

from __future__ import annotations

import argparse
import dataclasses
import time
from pathlib import Path
from typing import Any

import numpy as np

from vaultheat.config import EmbeddingSettings, Settings, canonical_model
from vaultheat.core.vault.parsing import parse_note
from vaultheat.core.vault.sizing import chunk_for
from vaultheat.providers.onnx_embedder import order_by_token_length, pad_batch
from vaultheat.providers.registry import make_embedder


def waste(lengths: list[int], batch: int) -> float:
    """Share of padded positions when ``lengths`` (sorted longest first) run in batches."""
    order = sorted(lengths, reverse=True)
    padded = sum(len(order[s : s + batch]) * order[s] for s in range(0, len(order), batch))
    return (padded - sum(order)) / padded if padded else 0.0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", default="multilingual")
    ap.add_argument("--vault", type=Path, default=Path("/work/shared/corpus/obsidian-help/en"))
    ap.add_argument("--limit", type=int, default=96)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--variant", action="append", default=[], help="NAME=MODEL.onnx:THREADS:BATCH")
    a = ap.parse_args(argv)
    import onnxruntime as ort

    es = EmbeddingSettings(model=canonical_model(a.model), backend="onnx", precision="int8")
    settings = dataclasses.replace(Settings(), embeddings=es)
    emb: Any = make_embedder(es)
    emb._ensure_loaded()  # the product's session, tokenizer and metadata
    texts: list[str] = []
    for path in sorted(a.vault.rglob("*.md")):
        note = parse_note(str(path.relative_to(a.vault)), path.read_bytes())
        texts += [d.embed_input for d in chunk_for(note, settings, emb)]
    rng = np.random.default_rng(0)
    pick = sorted(rng.choice(len(texts), size=min(a.limit, len(texts)), replace=False))
    sample = [emb._prepare(emb._document_prefix + texts[i]) for i in pick]
    t0 = time.perf_counter()
    encs = emb._encoder.encode_batch(sample)
    tok_s = time.perf_counter() - t0
    lens = [len(e.ids) for e in encs]
    every = [len(e.ids) for e in emb._encoder.encode_batch(
        [emb._prepare(emb._document_prefix + t) for t in texts])]  # fmt: skip
    print(f"{len(texts)} chunks in the vault; sample {len(sample)}: tokenized in "
          f"{tok_s * 1000:.0f} ms, tokens mean {np.mean(lens):.0f} max {max(lens)}")  # fmt: skip
    for batch in (8, 32):
        print(f"padding waste at batch {batch}: sample {waste(lens, batch):.1%}, "
              f"whole vault {waste(every, batch):.1%}")  # fmt: skip
    base = str(emb.export_dir / "model.onnx")
    variants = [v.split("=", 1) for v in a.variant] or [
        ["int8-b32", f"{base}:0:32"], ["int8-b8", f"{base}:0:8"], ["int8-t1", f"{base}:1:32"]
    ]  # fmt: skip
    order = order_by_token_length(lens)
    sessions = {}
    for name, spec in variants:
        path, threads, batch = spec.rsplit(":", 2)
        opts = ort.SessionOptions()
        opts.inter_op_num_threads = 1
        if int(threads):
            opts.intra_op_num_threads = int(threads)
        sess = ort.InferenceSession(path, opts, providers=["CPUExecutionProvider"])
        sessions[name] = (sess, int(batch))
    ref = None
    for rep in range(a.reps):
        for name, (sess, batch) in sessions.items():
            out = np.empty((len(encs), emb.dimension), dtype=np.float32)
            w0, c0 = time.perf_counter(), time.process_time()
            for s in range(0, len(order), batch):
                idx = order[s : s + batch]
                ids, mask = pad_batch([encs[i].ids for i in idx], emb._meta.pad_id)
                feeds = {"input_ids": ids, "attention_mask": mask}
                if "token_type_ids" in emb._meta.input_names:
                    feeds["token_type_ids"] = np.zeros_like(ids)
                out[idx] = sess.run(None, feeds)[0]
            wall, cpu = time.perf_counter() - w0, time.process_time() - c0
            out /= np.linalg.norm(out, axis=1, keepdims=True)
            ref = out if ref is None else ref
            cos = (out * ref).sum(axis=1)
            print(f"round {rep} {name:12} {len(encs) / wall:6.1f} chunks/s  "
                  f"{len(encs) / cpu:6.1f} chunks/CPU-s  cos vs first mean {cos.mean():.5f} "
                  f"min {cos.min():.5f}", flush=True)  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
