"""Export a sentence-transformers model to ONNX once, quantize it, and cache it by fingerprint.

Why our own exporter and not ``sentence-transformers[onnx]``: that extra pulls in optimum, which
pins sentence-transformers and transformers to older releases. Here torch's TorchScript exporter
(``dynamo=False``: no onnxscript needed) traces one small wrapper -- the transformer, the
pipeline's own Pooling/Dense/Normalize modules -- so the graph maps token ids straight to the
sentence embedding and onnxruntime plus ``tokenizers`` are all that inference needs.

Choices, each measured on all-MiniLM-L6-v2 (see docs/onnx.md):
- The transformer is loaded with eager attention for the trace. The SDPA path traces to a graph
  that onnxruntime runs slower, and a trace with an all-ones mask could bake "no padding" in, so
  the dummy batch always contains padding.
- int8 is ``quantize_dynamic`` with per-channel QInt8 weights on MatMul only, except the
  feed-forward down-projections (weights wider in than out: 1536 -> 384 in MiniLM), which stay
  fp32. Per-tensor weights drop the cosine against torch to ~0.94; quantizing the embedding
  tables (Gather) saves disk but costs accuracy; quantizing every MatMul keeps cosine ~0.994 but
  moved one of 28 eval queries off its first place; with the down-projections in fp32 (exporter
  version 2) cosine is ~0.997 and the eval metrics hold (docs/onnx.md), at ~1.6x the fp32 speed.
- Every export is checked against torch on a batch of another shape before it is cached (fp32
  must agree to 1e-3), so a bad trace fails loudly instead of producing quiet garbage.
- Cache layout: ``<cache>/<key>/{model.onnx, tokenizer.json, meta.json}`` where the key hashes the
  model fingerprint, ``EXPORTER_VERSION``, the precision and onnxruntime's major.minor. A result
  is built in a temp dir beside it and renamed into place: a directory rename is atomic, so a
  reader sees a complete export or none, and of two concurrent exporters the loser just
  discards its copy.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import logging
import os
import shutil
import tempfile
import threading
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from vaultheat.errors import ConfigError, ModelMissingError, ProviderError, VaultheatError

log = logging.getLogger(__name__)

EXPORTER_VERSION = "2"  # bump whenever the exported graph or quantization recipe changes
OPSET = 17
PRECISIONS = ("fp32", "int8")
MODEL_FILE = "model.onnx"
TOKENIZER_FILE = "tokenizer.json"
META_FILE = "meta.json"
INPUT_NAMES = ("input_ids", "attention_mask", "token_type_ids")
OUTPUT_NAME = "sentence_embedding"
EXPORTABLE_MODULES = ("Pooling", "Dense", "Normalize")  # ST modules after the Transformer
FP32_TOLERANCE = 1e-3
QUANTIZE_OPTIONS: dict[str, Any] = {"per_channel": True, "op_types_to_quantize": ["MatMul"]}
FAILED_SUFFIX = ".failed"  # <cache>/<key>.failed: an export that failed; auto skips onnx

_DUMMY_TEXTS = ("vaultheat export", "a longer second sentence, so the dummy batch holds padding")
_CHECK_TEXTS = ("the", "a short note about links", "tags, headings and a block of text " * 3)
_export_lock = threading.Lock()  # one export at a time in this process (each is CPU-heavy)


def pad_batch(rows: Sequence[Sequence[int]], pad_id: int) -> tuple[np.ndarray, np.ndarray]:
    """Right-pad token id rows to the longest row: (ids, attention mask), both int64."""
    width = max((len(r) for r in rows), default=0)
    ids = np.full((len(rows), width), pad_id, dtype=np.int64)
    mask = np.zeros((len(rows), width), dtype=np.int64)
    for i, row in enumerate(rows):
        ids[i, : len(row)] = row
        mask[i, : len(row)] = 1
    return ids, mask


@dataclass(frozen=True)
class ExportMeta:
    """What the runtime needs besides the graph; written as meta.json next to it."""

    dimension: int
    max_tokens: int
    input_names: tuple[str, ...]
    pad_id: int
    do_lower_case: bool
    precision: str
    exporter_version: str
    source: str

    def to_json(self) -> str:
        return json.dumps(dataclasses.asdict(self), indent=2)

    @classmethod
    def from_json(cls, text: str) -> ExportMeta:
        data = json.loads(text)
        data["input_names"] = tuple(data["input_names"])
        return cls(**data)


def default_cache_dir() -> Path:
    """``$VAULTHEAT_CACHE_DIR/onnx``, else ``$XDG_CACHE_HOME/vaultheat/onnx``, else ~/.cache/..."""
    root = os.environ.get("VAULTHEAT_CACHE_DIR", "").strip()
    if root:
        return Path(root).expanduser() / "onnx"
    xdg = os.environ.get("XDG_CACHE_HOME", "").strip()
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "vaultheat" / "onnx"


def onnxruntime_version() -> str:
    """major.minor of the installed onnxruntime (int8 kernels may change between releases)."""
    import onnxruntime

    return ".".join(onnxruntime.__version__.split(".")[:2])


def cache_key(fingerprint: str, precision: str) -> str:
    """Directory name for one export: sha256 over everything that changes the cached files."""
    check_precision(precision)
    parts = (fingerprint, EXPORTER_VERSION, precision, onnxruntime_version())
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:32]


def check_precision(precision: str) -> None:
    if precision not in PRECISIONS:
        raise ConfigError(
            f"bad embeddings.precision {precision!r}; choose one of {', '.join(PRECISIONS)}",
            precision=precision,
        )


def read_meta(export_dir: Path) -> ExportMeta | None:
    """The export's metadata, or None when the directory is not a complete export."""
    try:
        meta = ExportMeta.from_json((export_dir / META_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError, TypeError, KeyError):
        return None
    if not (export_dir / MODEL_FILE).is_file() or not (export_dir / TOKENIZER_FILE).is_file():
        return None
    return meta


def ensure_export(
    model_dir: Path, fingerprint: str, precision: str, *, cache_dir: Path | None = None
) -> Path:
    """The cached export directory for this model and precision, exporting it on first use.

    An int8 export is quantized from the cached fp32 export when there is one (no torch load).
    """
    cache = cache_dir or default_cache_dir()
    out_dir = cache / cache_key(fingerprint, precision)
    if read_meta(out_dir) is not None:
        return out_dir
    with _export_lock:
        if read_meta(out_dir) is None:
            fp32_dir = cache / cache_key(fingerprint, "fp32")
            if precision == "int8" and read_meta(fp32_dir) is not None:
                quantize_export(fp32_dir, out_dir)
            else:
                export_model(model_dir, out_dir, precision=precision)
    return out_dir


def run_in_child(fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` in a fresh (spawned) Python process; its result or its exception here.

    Why: a first-use export loads the fp32 model in torch, traces it and quantizes it -- about
    3 GB peak for the multilingual model (docs/multilingual.md) -- and none of that memory goes
    back to the OS when the export ends. In a child it dies with the child, and this process
    never imports torch. ``fn`` must be a module-level function (it is pickled by name).
    """
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    try:
        with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
            return pool.submit(fn, *args).result()
    except BrokenProcessPool as exc:  # the child died (out of memory, a signal)
        raise ProviderError(f"the ONNX export process died: {exc}") from exc


def export_model(model_dir: Path, out_dir: Path, *, precision: str) -> Path:
    """Export the SentenceTransformer at ``model_dir`` into ``out_dir``; returns the .onnx path.

    Works offline (``HF_HUB_OFFLINE=1``). ``out_dir`` appears atomically; if another exporter
    finished it first, its result is kept and ours is dropped.
    """
    check_precision(precision)
    log.info(
        "first use of this model: converting it to ONNX (%s) for fast CPU embedding; this "
        "happens once and takes about half a minute (cached in %s)",
        precision,
        out_dir,
    )
    t0 = time.perf_counter()
    try:
        publish(out_dir, lambda tmp: _export_into(model_dir, tmp, precision))
    except VaultheatError:
        raise
    except Exception as exc:  # torch/onnx/onnxruntime failures: say which step and what to do
        raise ProviderError(
            f"ONNX export of {model_dir} failed: {exc}; "
            'use embeddings.backend = "torch" for this model',
            model=str(model_dir),
            out_dir=str(out_dir),
        ) from exc
    log.info("model converted in %.0f s", time.perf_counter() - t0)
    return out_dir / MODEL_FILE


def quantize_export(fp32_dir: Path, out_dir: Path) -> Path:
    """An int8 export at ``out_dir`` made from a finished fp32 export."""
    meta = read_meta(fp32_dir)
    if meta is None or meta.precision != "fp32":
        raise ProviderError(f"no finished fp32 export at {fp32_dir}", path=str(fp32_dir))

    def build(tmp: Path) -> None:
        quantize_int8(fp32_dir / MODEL_FILE, tmp / MODEL_FILE)
        shutil.copyfile(fp32_dir / TOKENIZER_FILE, tmp / TOKENIZER_FILE)
        int8_meta = dataclasses.replace(meta, precision="int8")
        (tmp / META_FILE).write_text(int8_meta.to_json(), encoding="utf-8")

    log.info("quantizing %s to int8 in %s", fp32_dir, out_dir)
    publish(out_dir, build)
    return out_dir / MODEL_FILE


def publish(out_dir: Path, build: Callable[[Path], None]) -> None:
    """Run ``build`` on a fresh temp dir beside ``out_dir``, then rename it into place.

    A finished ``out_dir`` that appeared meanwhile (another process) wins; an unfinished one
    (files deleted by hand) is replaced.
    """
    try:
        out_dir.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.", suffix=".tmp", dir=out_dir.parent))
    except OSError as exc:
        raise ProviderError(
            f"cannot write the ONNX cache in {out_dir.parent}: {exc}; "
            "point VAULTHEAT_CACHE_DIR at a writable directory",
            path=str(out_dir.parent),
        ) from exc
    stale = tmp.with_suffix(".stale")
    try:
        build(tmp)
        try:
            os.rename(tmp, out_dir)
        except OSError:
            if read_meta(out_dir) is not None:
                log.info("another process exported %s first; using its copy", out_dir)
                return
            os.rename(out_dir, stale)  # an unfinished leftover: move it aside, then retry once
            os.rename(tmp, out_dir)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(stale, ignore_errors=True)


TORCH_EXTRA_MESSAGE = (
    "exporting this model to ONNX needs torch and sentence-transformers: "
    "`pip install 'vaultheat[torch]'`"
)


def _export_into(model_dir: Path, tmp: Path, precision: str) -> None:
    try:
        import torch
    except ImportError as exc:
        raise ModelMissingError(TORCH_EXTRA_MESSAGE, path=str(model_dir)) from exc

    model = load_sentence_transformer(model_dir)
    tokenizer = model.tokenizer
    if tokenizer is None or not getattr(tokenizer, "is_fast", False):
        raise ProviderError(
            f"cannot export {model_dir}: the ONNX backend needs a fast (tokenizers) tokenizer",
            model=str(model_dir),
        )
    input_names = model_input_names(model)
    wrapper = sentence_embedding_graph(model, input_names).eval()
    dummy = _tokenize(tokenizer, _DUMMY_TEXTS, input_names)
    if bool(dummy["attention_mask"].all()):
        raise ProviderError("export dummy batch has no padding; the trace would ignore masks")
    fp32_path = tmp / ("fp32.onnx" if precision != "fp32" else MODEL_FILE)
    with torch.no_grad(), _quiet_export():
        torch.onnx.export(
            wrapper,
            tuple(dummy[name] for name in input_names),
            str(fp32_path),
            dynamo=False,
            opset_version=OPSET,
            input_names=list(input_names),
            output_names=[OUTPUT_NAME],
            dynamic_axes={
                **{name: {0: "batch", 1: "sequence"} for name in input_names},
                OUTPUT_NAME: {0: "batch"},
            },
            do_constant_folding=True,
        )
        check = _tokenize(tokenizer, _CHECK_TEXTS, input_names)
        expected = wrapper(*(check[name] for name in input_names)).numpy()
    got = run_onnx(fp32_path, {k: v.numpy() for k, v in check.items()})
    diff = float(np.abs(got - expected).max())
    if diff > FP32_TOLERANCE:
        raise ProviderError(
            f"ONNX export of {model_dir} disagrees with torch (max abs diff {diff:.2e})",
            model=str(model_dir),
        )
    if precision == "int8":
        quantize_int8(fp32_path, tmp / MODEL_FILE)
        fp32_path.unlink()
    save_tokenizer_json(tokenizer, tmp / TOKENIZER_FILE)
    meta = ExportMeta(
        dimension=int(expected.shape[1]),
        max_tokens=sequence_limit(model),
        input_names=input_names,
        pad_id=int(tokenizer.pad_token_id or 0),
        do_lower_case=bool(getattr(model[0], "do_lower_case", False)),
        precision=precision,
        exporter_version=EXPORTER_VERSION,
        source=str(model_dir),
    )
    (tmp / META_FILE).write_text(meta.to_json(), encoding="utf-8")


def load_sentence_transformer(model_dir: Path) -> Any:
    """The model from a local directory, never from the network, with eager attention."""
    from vaultheat.providers.offline import set_offline_mode

    set_offline_mode()
    try:
        from sentence_transformers import SentenceTransformer
        from transformers.utils import logging as hf_logging
    except ImportError as exc:
        raise ModelMissingError(TORCH_EXTRA_MESSAGE, path=str(model_dir)) from exc
    hf_logging.disable_progress_bar()  # no tqdm bars on stderr (it carries our logs)
    try:
        model = SentenceTransformer(
            str(model_dir), device="cpu", model_kwargs={"attn_implementation": "eager"}
        )
    except Exception as exc:
        raise ModelMissingError(
            f"cannot load {model_dir} for ONNX export: {exc}", path=str(model_dir)
        ) from exc
    names = [type(module).__name__ for module in model]
    if not hasattr(model[0], "auto_model") or any(n not in EXPORTABLE_MODULES for n in names[1:]):
        raise ProviderError(
            f"cannot export pipeline {names} to ONNX (supported: Transformer followed by "
            f'{", ".join(EXPORTABLE_MODULES)}); use embeddings.backend = "torch"',
            model=str(model_dir),
        )
    return model


def model_input_names(model: Any) -> tuple[str, ...]:
    """The graph inputs: those the tokenizer produces and the transformer accepts."""
    import inspect

    produced = set(model.tokenizer.model_input_names)
    accepted = set(inspect.signature(model[0].auto_model.forward).parameters)
    names = tuple(n for n in INPUT_NAMES if n in produced and n in accepted)
    if names[:2] != INPUT_NAMES[:2]:
        raise ProviderError(f"cannot export: the model takes {sorted(produced)}, not input_ids")
    return names


def sequence_limit(model: Any) -> int:
    """The window sentence-transformers truncates at, capped by the position table."""
    limit = model.max_seq_length
    positions = getattr(model[0].auto_model.config, "max_position_embeddings", None)
    if limit is None or (positions is not None and limit > positions):
        limit = positions
    if limit is None:
        raise ProviderError("cannot tell the model's maximum sequence length")
    return int(limit)


def sentence_embedding_graph(model: Any, input_names: tuple[str, ...]) -> Any:
    """token ids -> transformer -> the pipeline's own Pooling/Dense/Normalize -> embedding.

    Built in a function so importing this module (the embedder does, for the cache helpers)
    never imports torch.
    """
    import torch

    class SentenceEmbeddingGraph(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.transformer = model[0].auto_model
            self.heads = torch.nn.ModuleList(list(model)[1:])

        def forward(self, *inputs: torch.Tensor) -> torch.Tensor:
            features = dict(zip(input_names, inputs, strict=True))
            hidden = self.transformer(**features).last_hidden_state
            state = {"token_embeddings": hidden, "attention_mask": features["attention_mask"]}
            for head in self.heads:
                state = head(state)
            out: torch.Tensor = state[OUTPUT_NAME]
            return out

    return SentenceEmbeddingGraph()


def _tokenize(tokenizer: Any, texts: tuple[str, ...], names: tuple[str, ...]) -> dict[str, Any]:
    enc = tokenizer(list(texts), padding=True, truncation=True, return_tensors="pt")
    return {name: enc[name] for name in names}


def run_onnx(path: Path, feeds: dict[str, np.ndarray]) -> np.ndarray:
    import onnxruntime as ort

    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    result = session.run([OUTPUT_NAME], {k: v.astype(np.int64) for k, v in feeds.items()})
    return np.asarray(result[0])


def quantize_int8(src: Path, dst: Path) -> None:
    """Dynamic int8: weights quantized offline, activations per batch at run time."""
    try:
        from onnxruntime.quantization import QuantType, quantize_dynamic
    except ImportError as exc:  # onnxruntime.quantization imports the onnx package
        raise ModelMissingError(
            "int8 quantization needs the onnx package: pip install onnx"
        ) from exc
    with _quiet_export():
        quantize_dynamic(
            str(src),
            str(dst),
            weight_type=QuantType.QInt8,
            nodes_to_exclude=down_projections(src),
            **QUANTIZE_OPTIONS,
        )


def down_projections(model_path: Path) -> list[str]:
    """MatMul nodes whose constant weight maps a wider input to a narrower output.

    In a transformer these are the feed-forward output projections (intermediate -> hidden);
    their int8 error is what moves the sentence embedding most, so they stay fp32. Found by
    weight shape, not by node name, so the rule holds for any exported architecture.
    """
    import onnx

    model = onnx.load(str(model_path), load_external_data=False)
    shapes = {init.name: tuple(init.dims) for init in model.graph.initializer}
    out = []
    for node in model.graph.node:
        if node.op_type != "MatMul":
            continue
        weight = next((shapes[i] for i in node.input if i in shapes), None)
        if weight is not None and len(weight) == 2 and weight[0] > weight[1]:
            out.append(node.name)
    return out


def save_tokenizer_json(tokenizer: Any, path: Path) -> None:
    """The fast tokenizer as tokenizer.json, without baked-in padding or truncation."""
    from tokenizers import Tokenizer

    backend = Tokenizer.from_str(tokenizer.backend_tokenizer.to_str())
    backend.no_padding()
    backend.no_truncation()
    backend.save(str(path))


class _DropQuantizerChatter(logging.Filter):
    """onnxruntime.quantization logs through the root logger: per-tensor INFO lines and advice
    to pre-process the model (measured: it changes nothing here)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno < logging.WARNING:
            return False
        return "pre-processing before quantization" not in record.getMessage()


@contextlib.contextmanager
def _quiet_export() -> Iterator[None]:
    """Tracer and deprecation warnings are expected here and say nothing to a user."""
    root = logging.getLogger()
    advice = _DropQuantizerChatter()
    root.addFilter(advice)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        root.removeFilter(advice)
