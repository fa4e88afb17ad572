"""Text of a PDF, page by page, extracted in a bounded child process.

Design: a PDF is untrusted and its parser is native code, so extraction never runs in the
sidecar's process. A child (``python -m vaultheat.core.vault.pdftext``) opens the file under an
address space limit (``RLIMIT_AS``) and the parent waits at most ``timeout_s``: a decompression
bomb, a parser crash or a hang ends the child, and the PDF is skipped with a reason, never fatal.
The child prints one JSON object: the text of each page, or why there is none (encrypted, broken,
past the page cap, no text layer). The default backend is pypdfium2 (see docs/benchmarks.md, "PDF
extraction", for the measurement against pypdf).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

MAX_PDF_BYTES = 64 * 1024 * 1024
MAX_PDF_PAGES = 2000
PDF_TIMEOUT_S = 60.0
PDF_MEMORY_MB = 1024
BACKENDS = ("pypdfium2", "pypdf")


@dataclass
class PdfText:
    path: str
    pages: list[str] = field(default_factory=list)  # page i+1's text ("" for a page with none)
    skipped: str | None = None


def _clean(text: str) -> str:
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "")
    return "\n".join(line.rstrip() for line in text.split("\n")).strip()


def _extract_here(path: str, backend: str, max_pages: int) -> dict[str, Any]:
    """Runs in the child. Returns {"pages": [...]} or {"skipped": reason}."""
    if backend == "pypdf":
        import pypdf

        try:
            reader = pypdf.PdfReader(path)
            if reader.is_encrypted:
                return {"skipped": "encrypted PDF"}
            n = len(reader.pages)
            if n > max_pages:
                return {"skipped": f"PDF has {n} pages, over the {max_pages}-page cap"}
            return {"pages": [_clean(p.extract_text() or "") for p in reader.pages]}
        except pypdf.errors.FileNotDecryptedError:
            return {"skipped": "encrypted PDF"}
        except Exception as exc:
            return {"skipped": f"broken PDF: {type(exc).__name__}: {str(exc)[:160]}"}
    import pypdfium2

    try:
        doc = pypdfium2.PdfDocument(path)
    except pypdfium2.PdfiumError as exc:
        msg = str(exc)
        if "password" in msg.lower():
            return {"skipped": "encrypted PDF"}
        return {"skipped": f"broken PDF: {msg[:160]}"}
    try:
        n = len(doc)
        if n > max_pages:
            return {"skipped": f"PDF has {n} pages, over the {max_pages}-page cap"}
        pages = []
        for i in range(n):
            page = doc[i]
            tp = page.get_textpage()
            pages.append(_clean(tp.get_text_range()))
            tp.close()
            page.close()
        return {"pages": pages}
    finally:
        doc.close()


def _limit_memory(memory_mb: int) -> None:  # pragma: no cover - runs in the child
    import resource

    limit = memory_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def extract_pdf(
    abs_path: Path,
    rel_path: str,
    *,
    backend: str = "pypdfium2",
    max_bytes: int = MAX_PDF_BYTES,
    max_pages: int = MAX_PDF_PAGES,
    timeout_s: float = PDF_TIMEOUT_S,
    memory_mb: int = PDF_MEMORY_MB,
) -> PdfText:
    """The pages' text of one PDF, or a skip reason. Never raises for a bad file."""
    out = PdfText(path=rel_path)
    try:
        size = os.stat(abs_path).st_size
    except OSError as exc:
        out.skipped = f"unreadable: {exc.strerror or exc}"
        return out
    if size > max_bytes:
        out.skipped = f"PDF is {size} bytes, over the {max_bytes}-byte cap"
        return out
    module = "vaultheat.core.vault.pdftext"
    cmd = [sys.executable, "-m", module, backend, str(max_pages), str(abs_path)]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(Path(__file__).resolve().parents[3]), env.get("PYTHONPATH", "")]
    )
    preexec = (lambda: _limit_memory(memory_mb)) if sys.platform != "win32" else None
    try:
        proc = subprocess.run(
            cmd, capture_output=True, timeout=timeout_s, env=env, preexec_fn=preexec, check=False
        )
    except subprocess.TimeoutExpired:
        out.skipped = f"PDF extraction took over {timeout_s:g} s"
        return out
    try:
        result = json.loads(proc.stdout.decode("utf-8", "replace"))
    except ValueError:
        why = "over the memory bound" if proc.returncode != 0 else "no output"
        tail = proc.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or [""]
        if "MemoryError" in tail[0] or proc.returncode < 0:
            why = f"over the {memory_mb} MB memory bound or crashed (exit {proc.returncode})"
        else:
            why = f"extraction failed (exit {proc.returncode}): {tail[0][:160]}"
        out.skipped = f"broken PDF: {why}"
        return out
    if isinstance(result.get("skipped"), str):
        out.skipped = result["skipped"]
        return out
    pages = [p if isinstance(p, str) else "" for p in result.get("pages", [])]
    if not any(p.strip() for p in pages):
        out.skipped = "no text layer (a scan or images only)" if pages else "PDF has no pages"
        return out
    out.pages = pages
    return out


def _main(argv: list[str]) -> int:  # pragma: no cover - the child
    backend, max_pages, path = argv[0], int(argv[1]), argv[2]
    try:
        result = _extract_here(path, backend, max_pages)
    except MemoryError:
        result = {"skipped": "broken PDF: over the memory bound"}
    sys.stdout.write(json.dumps(result))
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(_main(sys.argv[1:]))
