"""Build tiny random BERT models on disk so provider tests run offline in milliseconds.

The real default model takes seconds to load; these have two 32-wide layers and a vocabulary of
a few hundred WordPieces, yet they exercise the same loading code paths (a SentenceTransformer
directory with Transformer + mean Pooling + Normalize, and a CrossEncoder directory that is a
plain ``BertForSequenceClassification`` with its tokenizer). Weights are seeded, so every build
produces the same vectors.
"""

from __future__ import annotations

import importlib
import string
from pathlib import Path
from typing import Any

SPECIAL_TOKENS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")
WORD_LINES = (
    "the a an of to in on at and or is was are be for with as by it this that from",
    "cat cats dog dogs sat sit mat rug bird fish tree house car road city river sea",
    "query passage search document note notes vault obsidian link tag heading chunk",
    "tax filing quarterly report money bank budget invoice",
    "graph heat vector model embedding token tokens text word words sentence",
    "red green blue big small old new fast slow good bad hello world alpha beta gamma",
)
WORDS = [word for line in WORD_LINES for word in line.split()]
MAX_POSITIONS = 64
HIDDEN = 32


def build_vocab() -> list[str]:
    """Special tokens, whole words, single characters and ``##`` continuations: any ASCII text
    tokenizes without [UNK] for letters and digits."""
    chars = string.ascii_lowercase + string.digits + string.punctuation
    vocab = list(SPECIAL_TOKENS) + list(dict.fromkeys(WORDS))
    vocab += [c for c in chars if c not in vocab]
    vocab += [f"##{c}" for c in string.ascii_lowercase + string.digits]
    return vocab


def _write_tokenizer(directory: Path) -> Any:
    import transformers

    # BertTokenizerFast is an alias of BertTokenizer in transformers 5 (absent from its stubs)
    tokenizer_cls: Any = transformers.BertTokenizerFast  # type: ignore[attr-defined]
    directory.mkdir(parents=True, exist_ok=True)
    vocab_file = directory / "vocab.txt"
    vocab_file.write_text("\n".join(build_vocab()) + "\n", encoding="utf-8")
    # from_pretrained on a directory holding only vocab.txt works across transformers 4 and 5
    # (the constructor's vocab argument changed between them).
    tokenizer = tokenizer_cls.from_pretrained(
        str(directory), do_lower_case=True, model_max_length=MAX_POSITIONS
    )
    tokenizer.save_pretrained(str(directory))
    return tokenizer


def _config(num_labels: int = 2) -> Any:
    from transformers import BertConfig

    values: dict[str, Any] = {
        "vocab_size": len(build_vocab()),
        "hidden_size": HIDDEN,
        "num_hidden_layers": 2,
        "num_attention_heads": 2,
        "intermediate_size": 37,
        "max_position_embeddings": MAX_POSITIONS,
        "num_labels": num_labels,
    }
    return BertConfig(**values)


def build_tiny_sentence_transformer(directory: Path, *, seed: int = 0) -> Path:
    """A SentenceTransformer directory (BERT -> mean pooling -> Normalize) at ``directory``."""
    import torch
    from sentence_transformers import SentenceTransformer
    from transformers import BertModel

    try:  # sentence-transformers >= 6 moved the module classes
        models: Any = importlib.import_module("sentence_transformers.sentence_transformer.modules")
    except ImportError:  # pragma: no cover - older sentence-transformers
        models = importlib.import_module("sentence_transformers.models")

    torch.manual_seed(seed)
    hf_dir = directory.parent / f"{directory.name}-hf"
    tokenizer = _write_tokenizer(hf_dir)
    BertModel(_config()).save_pretrained(str(hf_dir))
    del tokenizer
    transformer = models.Transformer(str(hf_dir), max_seq_length=MAX_POSITIONS)
    pooling = models.Pooling(HIDDEN, pooling_mode="mean")
    model = SentenceTransformer(modules=[transformer, pooling, models.Normalize()], device="cpu")
    model.save(str(directory))
    return directory


def build_tiny_cross_encoder(directory: Path, *, seed: int = 0) -> Path:
    """A CrossEncoder directory: ``BertForSequenceClassification`` (one label) + tokenizer."""
    import torch
    from transformers import BertForSequenceClassification

    torch.manual_seed(seed)
    _write_tokenizer(directory)
    BertForSequenceClassification(_config(num_labels=1)).save_pretrained(str(directory))
    return directory
