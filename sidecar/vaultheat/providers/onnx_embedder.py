"""The ``onnx`` embedding backend: the same model as the torch backend, run by onnxruntime.

Why: on a laptop CPU, onnxruntime runs all-MiniLM-L6-v2 about twice as fast as torch in fp32
and about 3.5x as fast in dynamic int8 (docs/onnx.md), and a warm start needs neither torch nor
transformers -- only onnxruntime, ``tokenizers`` and the cached export. The first use exports
the configured sentence-transformers model once (``onnx_export``; that step does import torch,
from the ``torch`` extra) and every later start loads the cached graph. The default model is the
exception: it is built from a packaged ONNX file without torch (``minilm_onnx``), into the same
cache layout.

Behaviour mirrors ``SentenceTransformerEmbedder`` so the two are interchangeable:
- same model resolution (package name, local directory, hub id -- a hub id from the local
  cache, else downloaded once unless the process is offline), same prefix presets
  (``local.resolve_prefixes``), L2-normalized float32 vectors;
- ``fingerprint`` names the backend and precision, so switching backend or precision is a model
  change for the index (vectors differ slightly);
- ``count_tokens`` counts with the model's own tokenizer, special tokens included, no truncation;
- documents are tokenized once, sorted by token length and padded per batch to that batch's
  longest member (truncated at ``max_tokens`` like sentence-transformers), then returned in
  input order.

Thread-safety: loading happens once under a lock; the one tokenizer is used under its own lock
(``count_tokens`` lifts its truncation for a moment); one session run at a time (onnxruntime
already uses every intra-op thread).
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from vaultheat.config import EmbeddingSettings
from vaultheat.errors import ConfigError, ModelMissingError, ProviderError
from vaultheat.providers.local import (
    LocalModelIdentity,
    ModelSource,
    char_normalizer,
    hash_model_dir,
    materialize,
    resolve_prefixes,
)
from vaultheat.providers.onnx_export import (
    EXPORTER_VERSION,
    MODEL_FILE,
    OUTPUT_NAME,
    TOKENIZER_FILE,
    ExportMeta,
    cache_key,
    check_precision,
    default_cache_dir,
    ensure_export,
    pad_batch,
    read_meta,
    run_in_child,
)
from vaultheat.providers.word_spans import Spans, WordSplitter, tokenizer_spans

log = logging.getLogger(__name__)


def order_by_token_length(lengths: Sequence[int]) -> list[int]:
    """Indices, longest first; ties keep input order (a stable sort)."""
    return sorted(range(len(lengths)), key=lambda i: -lengths[i])


# Attention holds batch x heads x width^2 floats per layer: a batch of 32 inputs of 512 tokens
# (the multilingual model's window) took onnxruntime from 0.8 to 2.5 GB RSS. Batches of long
# inputs shrink so rows x width^2 stays within what 32 inputs of 256 tokens (the English model's
# window, whose batches this never changes) need.
ATTENTION_BUDGET = 32 * 256 * 256


# onnxruntime's memory pattern plans and keeps one buffer layout per input shape it has run.
# Off for models with a window over this (the multilingual model's 512): a run of its
# batches peaked at 1.15 GB RSS instead of 1.36 GB, same vectors (docs/multilingual.md). The
# English model (256) keeps it: off, its batches ran ~15% slower (0.60 GB instead of 1.02).
MEM_PATTERN_MAX_TOKENS = 256


def batch_rows(width: int, batch_size: int) -> int:
    """How many inputs of ``width`` tokens (the batch's longest) one session run takes."""
    return max(1, min(batch_size, ATTENTION_BUDGET // max(1, width * width)))


def normalize_rows(vectors: np.ndarray) -> np.ndarray:
    """Unit L2 norm per row (zero rows stay zero), float32."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return (vectors / np.maximum(norms, 1e-12)).astype(np.float32)


# what a sentence-transformers model needs; other frameworks' copies of the weights are skipped
HUB_IGNORE = ["*.onnx", "onnx/*", "openvino/*", "*.msgpack", "*.h5", "tf_model*", "flax_model*",
              "rust_model*", "*.ot"]  # fmt: skip


def find_cached_hub_model(model_id: str) -> Path:
    """The local snapshot of a hub model, downloaded once where a network is allowed (not with
    ``HF_HUB_OFFLINE``); ModelMissingError naming the next step when it cannot be had."""
    try:
        from huggingface_hub import snapshot_download
    except ImportError as exc:  # a dependency of transformers (the torch extra)
        raise ModelMissingError(
            f"model {model_id!r} needs the torch extra: `pip install 'vaultheat[torch]'`",
            model=model_id,
        ) from exc
    from vaultheat.providers.local import is_offline

    candidates = [model_id] if "/" in model_id else [model_id, f"sentence-transformers/{model_id}"]
    for repo_id in candidates:
        try:
            return Path(snapshot_download(repo_id, local_files_only=True))
        except Exception:
            continue
    save_hint = (
        'On a machine with network access run `python -c "from sentence_transformers import '
        f"SentenceTransformer as S; S('{model_id}').save('DIR')\"`, copy DIR here and "
        "`vaultheat config set embeddings.model DIR`; then `vaultheat index --full`"
    )
    if is_offline():
        raise ModelMissingError(
            f"model {model_id!r} is not in the local cache and downloads are off "
            f"(HF_HUB_OFFLINE / TRANSFORMERS_OFFLINE). Unset them to download it once, or: "
            f"{save_hint}",
            model=model_id,
        )
    errors = []
    for repo_id in candidates:
        log.info("downloading embedding model %s once (it is cached afterwards)", repo_id)
        try:
            return Path(snapshot_download(repo_id, ignore_patterns=HUB_IGNORE))
        except Exception as exc:
            errors.append(f"{repo_id}: {exc}")
    raise ModelMissingError(
        f"model {model_id!r} is not in the local cache and could not be downloaded "
        f"({'; '.join(errors)[:300]}). {save_hint}",
        model=model_id,
    )


def _prepare_export(settings: EmbeddingSettings, cache_dir: Path | None) -> str:
    """The child process's side of ``OnnxEmbedder.prepare``: the export, here."""
    return str(OnnxEmbedder(settings, cache_dir=cache_dir).prepare(in_child=False))


THREADS_ENV = "VAULTHEAT_ONNX_THREADS"


def intra_op_threads(configured: int) -> int:
    """onnxruntime's intra-op threads: ``$VAULTHEAT_ONNX_THREADS`` when set (a maintainer
    forcing one thread to reproduce another machine's float sums, see
    ``scripts/test-like-another-machine.sh``), else ``embeddings.threads`` (0: the library's
    default, one per core)."""
    raw = os.environ.get(THREADS_ENV, "").strip()
    if not raw:
        return configured
    try:
        value = int(raw)
    except ValueError:
        value = -1
    if value < 0:
        raise ConfigError(
            f"{THREADS_ENV} must be a whole number >= 0 (0: the default), not {raw!r}"
        )
    return value


class OnnxEmbedder(LocalModelIdentity):
    """The local Embedder on onnxruntime (CPU), fp32 or dynamic int8."""

    def __init__(self, settings: EmbeddingSettings, *, cache_dir: Path | None = None) -> None:
        if settings.backend != "onnx":
            raise ConfigError(f"OnnxEmbedder runs the onnx backend, not {settings.backend!r}")
        check_precision(settings.precision)
        self.settings = settings
        self.cache_dir = cache_dir
        self._query_prefix, self._document_prefix = resolve_prefixes(
            settings.model, settings.query_prefix, settings.document_prefix
        )
        self._lock = threading.Lock()
        self._run_lock = threading.Lock()
        self._source: ModelSource | None = None
        self._model_dir: Path | None = None
        self._meta: ExportMeta | None = None
        self._export_dir: Path | None = None
        self._session: Any = None
        # one tokenizer, truncating at max_tokens except inside count_tokens (under _tok_lock):
        # the multilingual model's 250k-piece vocabulary takes ~300 MB per loaded copy
        self._encoder: Any = None
        self._tok_lock = threading.Lock()
        self._normalize: Any = None  # the model's code point map (q4 models), else None
        self._words: WordSplitter | None = None  # word spans for exact range counts
        self._words_checked = False

    # -- identity (no model load) ------------------------------------------------------------
    @property
    def loaded(self) -> bool:
        return self._session is not None

    @property
    def fingerprint(self) -> str:
        # the exporter version is part of it: a new quantization recipe gives other vectors
        return self._fingerprint("onnx", f"{self.settings.precision}|x{EXPORTER_VERSION}")

    @property
    def dimension(self) -> int:
        return self._known_meta().dimension

    @property
    def max_tokens(self) -> int:
        return self._known_meta().max_tokens

    @property
    def export_dir(self) -> Path:
        """Where this model's export lives (or will live) in the cache."""
        if self._export_dir is None:
            cache = self.cache_dir or default_cache_dir()
            self._export_dir = cache / cache_key(self._model_identity(), self.settings.precision)
        return self._export_dir

    def prepare(self, *, in_child: bool = True) -> Path:
        """Make sure the export exists (exporting it now if needed) without loading a session.

        A missing export of a torch-built model (a hub model, a local folder, the multilingual
        model rebuilt from its 4-bit file) is made in a child process (``run_in_child``), so the
        torch model and the export's buffers never stay in this one; ``in_child=False`` is the
        child's own call. Raises ``ProviderError`` / ``ModelMissingError`` when this model
        cannot be exported.
        """
        if self.source.kind == "onnx-package":  # the default model, built without torch
            from vaultheat.providers.minilm_onnx import ensure_packaged_export

            return ensure_packaged_export(
                self.source.identity, self.settings.precision, cache_dir=self.cache_dir
            )
        if in_child and read_meta(self.export_dir) is None:
            run_in_child(_prepare_export, self.settings, self.cache_dir)
        return ensure_export(
            self._resolve_model_dir(),
            self._model_identity(),
            self.settings.precision,
            cache_dir=self.cache_dir,
        )

    # -- model use -----------------------------------------------------------------------------
    def count_tokens(self, text: str) -> int:
        if self._encoder is None:  # the tokenizer alone outlives a ``release``
            self._ensure_loaded()
        text = self._prepare(text)
        with self._tok_lock:
            self._encoder.no_truncation()
            try:
                return len(self._encoder.encode(text).ids)
            finally:
                self._encoder.enable_truncation(max_length=self._require_meta().max_tokens)

    def word_token_spans(self, text: str) -> Spans | None:
        """Each word's start, end and tokens in ``text``, special tokens left out, when this
        tokenizer counts every word on its own (``core/vault/token_ranges.py``), else None."""
        if self._encoder is None:
            self._ensure_loaded()
        words = self._word_splitter()
        if words is None:
            return None
        spans = words.spans(text, self._encode_words)
        if spans is not None:
            return spans
        with self._tok_lock:
            self._encoder.no_truncation()
            try:
                enc = self._encoder.encode(text, add_special_tokens=False)
            finally:
                self._encoder.enable_truncation(max_length=self._require_meta().max_tokens)
        return tokenizer_spans(enc)

    def _encode_words(self, words: list[str]) -> list[Any]:
        with self._tok_lock:
            self._encoder.no_truncation()
            try:
                return list(self._encoder.encode_batch(words, add_special_tokens=False))
            finally:
                self._encoder.enable_truncation(max_length=self._require_meta().max_tokens)

    def _word_splitter(self) -> WordSplitter | None:
        """The word splitter when the tokenizer is BERT's WordPiece, with its char-wise
        normalizer and word splitter and nothing done to the text before it (a word's tokens
        never depend on the text around it), else None."""
        if self._words_checked:
            return self._words
        enc = self._encoder
        kinds = (type(enc.normalizer).__name__, type(enc.pre_tokenizer).__name__)
        if (
            self._normalize is None
            and enc.padding is None  # a word's count is its encoding's length
            and not self._require_meta().do_lower_case
            and kinds == ("BertNormalizer", "BertPreTokenizer")
            and type(enc.model).__name__ == "WordPiece"
        ):
            special = [t.content for t in enc.get_added_tokens_decoder().values()]
            try:
                self._words = WordSplitter(enc, special)
            except ValueError:  # its characters are not of the expected kinds
                self._words = None
        self._words_checked = True
        return self._words

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        self._ensure_loaded()
        meta = self._require_meta()
        if not texts:
            return np.zeros((0, meta.dimension), dtype=np.float32)
        prepared = [self._prepare(self._document_prefix + t) for t in texts]
        with self._tok_lock:
            encodings = self._encoder.encode_batch(prepared)
        order = order_by_token_length([len(e.ids) for e in encodings])
        out = np.empty((len(texts), meta.dimension), dtype=np.float32)
        size = max(1, self.settings.batch_size)
        start = 0
        while start < len(order):
            rows = batch_rows(len(encodings[order[start]].ids), size)
            idx = order[start : start + rows]
            out[idx] = self._run([encodings[i] for i in idx])
            start += rows
        return out

    def embed_query(self, text: str) -> np.ndarray:
        self._ensure_loaded()
        prepared = self._prepare(self._query_prefix + text)
        with self._tok_lock:
            encoding = self._encoder.encode(prepared)
        return self._run([encoding])[0]

    def release(self) -> None:
        """Drop the onnxruntime session (its weights and its arena: most of this model's
        memory) until the next embed, which makes it again from the cached export. The
        tokenizer and the export's metadata stay: token counts still need no session. A run
        in flight finishes on the session it started with."""
        with self._lock:
            self._session = None

    # -- internals -----------------------------------------------------------------------------
    def _prepare(self, text: str) -> str:
        meta = self._require_meta()
        if self._normalize is not None:
            text = str(self._normalize(text))
        return text.lower() if meta.do_lower_case else text

    def _run(self, encodings: Sequence[Any]) -> np.ndarray:
        meta = self._require_meta()
        ids, mask = pad_batch([e.ids for e in encodings], meta.pad_id)
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in meta.input_names:
            feeds["token_type_ids"], _ = pad_batch([e.type_ids for e in encodings], 0)
        session = self._ensure_loaded()  # made again here after a ``release``
        try:
            with self._run_lock:
                result = session.run([OUTPUT_NAME], feeds)
        except Exception as exc:
            raise ProviderError(f"onnxruntime failed on {self.name!r}: {exc}") from exc
        return normalize_rows(np.asarray(result[0], dtype=np.float32))

    def _require_meta(self) -> ExportMeta:
        if self._meta is None:  # pragma: no cover - callers load first
            raise ProviderError("onnx embedder used before loading")
        return self._meta

    def _known_meta(self) -> ExportMeta:
        """Metadata without loading when possible: the cached export's, else the package's."""
        if self._meta is not None:
            return self._meta
        packaged = self.source.packaged
        cached = read_meta(self.export_dir)
        if cached is not None:
            return cached
        if packaged is not None:
            return ExportMeta(
                dimension=packaged.dimension,
                max_tokens=packaged.max_tokens,
                input_names=(),
                pad_id=0,
                do_lower_case=False,
                precision=self.settings.precision,
                exporter_version="",
                source=self.source.location,
            )
        self._ensure_loaded()
        return self._require_meta()

    def _resolve_model_dir(self) -> Path:
        if self._model_dir is None:
            source = self.source
            if source.kind == "hub":
                self._model_dir = find_cached_hub_model(source.location)
            else:
                self._model_dir = materialize(source)
        return self._model_dir

    def _model_identity(self) -> str:
        """The cache key's model part: content-hashed for hub snapshots (ids carry no revision)."""
        source = self.source
        if source.kind == "hub":
            return "dir:" + hash_model_dir(self._resolve_model_dir())
        return source.identity

    def _ensure_loaded(self) -> Any:
        """The session, loading the model on first use (after a ``release``: the session
        alone, from the export the tokenizer came from)."""
        session = self._session
        if session is not None:
            return session
        with self._lock:
            if self._session is None:
                if self._encoder is None:
                    self._load()
                else:
                    self._session = self._new_session(self._export_dir, self._require_meta())
            return self._session

    def _load(self) -> None:
        try:
            import onnxruntime  # noqa: F401  (here for the error below; sessions import it)
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise ModelMissingError(
                "the onnx backend needs onnxruntime and tokenizers: "
                "`pip install onnxruntime tokenizers onnx`"
            ) from exc
        export_dir = self.prepare()
        meta = read_meta(export_dir)
        if meta is None:  # pragma: no cover - ensure_export guarantees a complete export
            raise ProviderError(f"incomplete ONNX export at {export_dir}")
        # the session first: making it briefly takes about twice its graph's size (0.35 GB
        # more than it keeps for the multilingual model), best done before the tokenizer
        # (0.3 GB for that model's vocabulary) is in memory too
        session = self._new_session(export_dir, meta)
        encoder = Tokenizer.from_file(str(export_dir / TOKENIZER_FILE))
        encoder.enable_truncation(max_length=meta.max_tokens)
        self._normalize = char_normalizer(self.source)
        self._meta, self._encoder = meta, encoder
        self._export_dir = export_dir
        self._session = session  # last: `loaded` turns true only when everything is set

    def _new_session(self, export_dir: Path | None, meta: ExportMeta) -> Any:
        import onnxruntime as ort

        assert export_dir is not None
        options = ort.SessionOptions()
        threads = intra_op_threads(self.settings.threads)
        if threads > 0:
            options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        if meta.max_tokens > MEM_PATTERN_MAX_TOKENS:
            options.enable_mem_pattern = False
        if self.settings.device not in ("auto", "cpu"):
            log.info(
                "onnx backend runs on the CPU; embeddings.device %r ignored", self.settings.device
            )
        log.info(
            "loading ONNX embedding model %s (%s) from %s", self.name, meta.precision, export_dir
        )
        try:
            session = ort.InferenceSession(
                str(export_dir / MODEL_FILE), options, providers=["CPUExecutionProvider"]
            )
        except Exception as exc:
            raise ProviderError(
                f"cannot load the ONNX export {export_dir}: {exc}; delete it to re-export",
                path=str(export_dir),
            ) from exc
        return session

