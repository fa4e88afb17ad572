"""Issue #40 item 6: what keeps an indexing process's memory down with the multilingual model.

Structural checks, not RSS measurements (those are in docs/multilingual.md): a first-use export
runs in a child process, so torch never enters the process that embeds; long inputs run in
smaller batches; one tokenizer serves both truncating encodes and token counts.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from vaultheat.config import EmbeddingSettings
from vaultheat.providers import onnx_embedder as onnx_embedder_module
from vaultheat.providers.onnx_embedder import ATTENTION_BUDGET, OnnxEmbedder, batch_rows
from vaultheat.providers.onnx_export import read_meta, run_in_child

SIDECAR = Path(__file__).resolve().parents[2] / "sidecar"


def _settings(model: Path) -> EmbeddingSettings:
    return EmbeddingSettings(model=str(model), device="cpu", backend="onnx", precision="fp32")


def test_run_in_child_runs_in_another_process_and_returns_its_result() -> None:
    assert run_in_child(os.getpid) != os.getpid()


def test_run_in_child_raises_the_childs_exception() -> None:
    with pytest.raises(ValueError):
        run_in_child(int, "not a number")


def test_a_missing_export_is_made_in_a_child(
    tiny_st_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[tuple[object, ...]] = []

    def record(fn: object, *args: object) -> object:
        calls.append((fn, *args))
        return run_in_child(fn, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(onnx_embedder_module, "run_in_child", record)
    embedder = OnnxEmbedder(_settings(tiny_st_dir), cache_dir=tmp_path)
    embedder.prepare()
    assert len(calls) == 1 and read_meta(embedder.export_dir) is not None
    OnnxEmbedder(_settings(tiny_st_dir), cache_dir=tmp_path).prepare()  # cached: no child
    assert len(calls) == 1


def test_the_embedding_process_never_imports_torch(tiny_st_dir: Path, tmp_path: Path) -> None:
    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from vaultheat.config import EmbeddingSettings\n"
        "from vaultheat.providers.onnx_embedder import OnnxEmbedder\n"
        f"s = EmbeddingSettings(model={str(tiny_st_dir)!r}, device='cpu', backend='onnx',"
        " precision='int8')\n"
        f"e = OnnxEmbedder(s, cache_dir=Path({str(tmp_path)!r}))\n"
        "assert e.embed_documents(['a note about links']).shape[0] == 1\n"
        "print('torch' in sys.modules)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(SIDECAR)}
    out = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "False", out.stderr  # the export ran, in a child of its own


@pytest.mark.parametrize(
    ("width", "size", "rows"),
    [(1, 32, 32), (128, 32, 32), (256, 32, 32), (257, 32, 31), (512, 32, 8), (512, 4, 4),
     (100_000, 32, 1)],
)  # fmt: skip
def test_long_inputs_run_in_smaller_batches(width: int, size: int, rows: int) -> None:
    assert batch_rows(width, size) == rows
    assert rows == 1 or rows * width * width <= ATTENTION_BUDGET or rows == size


def test_one_tokenizer_counts_untruncated_and_embeds_truncated(
    tiny_st_dir: Path, tmp_path: Path
) -> None:
    embedder = OnnxEmbedder(_settings(tiny_st_dir), cache_dir=tmp_path)
    long = "graph heat vector model embedding " * 30
    before = embedder.embed_documents([long, "short"])
    assert embedder.count_tokens(long) > embedder.max_tokens
    after = embedder.embed_documents([long, "short"])
    np.testing.assert_allclose(before, after, atol=1e-6)  # truncation is back on
    assert len(embedder._encoder.encode(long).ids) == embedder.max_tokens
