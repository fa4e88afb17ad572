"""Language identification for issue #25: libraries against the script rule.

Accuracy on the chunks of the eight shared help vaults (chunked by core.vault.chunking with the
default sizes, token count approximated as len(text) / 4) and on their query sets plus the
repo's cross-lingual set; the truth is the vault's (or the query's ``lang``) language.
Speed per chunk, import time. Run: nice -n 10 .venv/bin/python bench/langid_bench.py
"""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys
import time
from collections.abc import Callable

from vaultheat.core.language import detect, script_language
from vaultheat.core.vault.chunking import chunk_note
from vaultheat.core.vault.parsing import parse_note

CORPUS = pathlib.Path("/work/shared/corpus/obsidian-help")
EVAL = pathlib.Path("/work/shared/eval")
REPO = pathlib.Path(__file__).resolve().parent.parent
LANGS = ["en", "de", "es", "fr", "pt-br", "ru", "ja", "zh"]
MAX_CHUNKS = 400  # per vault, spread evenly


def truth(lang: str) -> str:
    return lang.split("-")[0]


def chunks(lang: str) -> list[str]:
    out: list[str] = []
    for path in sorted((CORPUS / lang).rglob("*.md")):
        raw = path.read_bytes()
        try:
            note = parse_note(str(path), raw)
        except Exception:  # a bad note is skipped, as in the indexer
            continue
        out += [
            c.text for c in chunk_note(note, max_tokens=256, count_tokens=lambda s: len(s) // 4)
        ]
    step = max(1, len(out) // MAX_CHUNKS)
    return out[::step][:MAX_CHUNKS]


def queries() -> list[tuple[str, str]]:
    files = [EVAL / f"obsidian-help-{lang}.queries.jsonl" for lang in LANGS]
    files.append(REPO / "bench/data/crosslingual.queries.jsonl")
    out = []
    for f in files:
        for line in f.read_text().splitlines():
            q = json.loads(line)
            out.append((q["query"], truth(q.get("lang") or f.stem.split("-", 2)[-1].split(".")[0])))
    return out


def _py3langid() -> Callable[[str], str]:
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    ident = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    return lambda t: {"yue": "zh"}.get(ident.classify(t)[0], ident.classify(t)[0])


def _pycld2() -> Callable[[str], str]:
    import pycld2

    def f(t: str) -> str:
        try:
            code = pycld2.detect(t)[2][0][1]
        except pycld2.error:
            return "und"
        return {"zh-Hant": "zh", "un": "und"}.get(code, code)

    return f


DETECTORS: dict[str, Callable[[], Callable[[str], str]]] = {
    "script rule": lambda: lambda t: script_language(t).code,
    "py3langid": _py3langid,
    "pycld2": _pycld2,
    "detect() (py3langid + script fallback)": lambda: lambda t: detect(t).code,
}
IMPORTS = {
    "py3langid": "import py3langid.langid as L; L.LanguageIdentifier.from_model_file(L.MODEL_FILE)",
    "pycld2": "import pycld2; pycld2.detect('hello world')",
}


def import_time(stmt: str) -> float:
    t = time.perf_counter()
    subprocess.run([sys.executable, "-c", stmt], check=True)
    return time.perf_counter() - t - baseline


baseline = 0.0


def main() -> None:
    global baseline
    t = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    baseline = time.perf_counter() - t
    data = {lang: chunks(lang) for lang in LANGS}
    qs = queries()
    short = [(c, truth(lang)) for lang, cs in data.items() for c in cs if len(c) < 200]
    head = (
        "| detector | "
        + " | ".join(LANGS)
        + " | all chunks | short chunks (<200 ch) | queries | ms/chunk |"
    )
    print(
        f"chunks per vault: {[len(v) for v in data.values()]}, short {len(short)},",
        f"queries {len(qs)}",
    )
    print(head)
    print("|" + "---|" * (len(LANGS) + 5))
    for name, make in DETECTORS.items():
        f = make()
        f("warm up")
        cells, right, n = [], 0, 0
        t = time.perf_counter()
        for lang, cs in data.items():
            ok = sum(f(c) == truth(lang) for c in cs)
            cells.append(f"{ok / len(cs):.3f}")
            right, n = right + ok, n + len(cs)
        ms = (time.perf_counter() - t) / n * 1000
        s_ok = sum(f(c) == y for c, y in short) / len(short)
        q_ok = sum(f(q) == y for q, y in qs) / len(qs)
        print(
            f"| {name} | "
            + " | ".join(cells)
            + f" | {right / n:.3f} | {s_ok:.3f} | {q_ok:.3f} | {ms:.2f} |"
        )
    for name, stmt in IMPORTS.items():
        print(f"import + load {name}: {import_time(stmt):.2f} s")


if __name__ == "__main__":
    main()
