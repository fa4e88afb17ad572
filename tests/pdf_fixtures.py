"""Write small PDFs byte by byte (no PDF library needed): text pages, two columns, a page with
no text layer, broken files and a Flate stream that inflates to far more than it weighs."""

from __future__ import annotations

import zlib
from pathlib import Path


def _esc(s: str) -> str:
    return s.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def page_stream(lines: list[tuple[float, float, str]]) -> bytes:
    """A content stream drawing each (x, y, text) in 11pt Helvetica."""
    ops = [f"BT /F1 11 Tf 1 0 0 1 {x:.1f} {y:.1f} Tm ({_esc(t)}) Tj ET" for x, y, t in lines]
    return "\n".join(ops).encode("latin-1")


def text_page(paragraphs: list[str]) -> bytes:
    return page_stream([(72, 720 - 14 * i, p) for i, p in enumerate(paragraphs)])


def two_column_page(left: list[str], right: list[str]) -> bytes:
    return page_stream(
        [(72, 720 - 14 * i, t) for i, t in enumerate(left)]
        + [(320, 720 - 14 * i, t) for i, t in enumerate(right)]
    )


IMAGE_ONLY = b"0.5 g 72 72 400 600 re f"  # a grey rectangle: what a scan looks like to text tools


def build_pdf(
    streams: list[bytes], *, compress: bool = True, raw_streams: list[bytes] | None = None
) -> bytes:
    """A valid PDF with one page per content stream (``raw_streams``: already Flate-encoded)."""
    n = len(streams) if raw_streams is None else len(raw_streams)
    objs: list[bytes] = []
    kids = " ".join(f"{4 + 2 * i} 0 R" for i in range(n))
    objs.append(b"<< /Type /Catalog /Pages 2 0 R >>")
    objs.append(f"<< /Type /Pages /Kids [{kids}] /Count {n} >>".encode())
    objs.append(
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"
    )
    for i in range(n):
        objs.append(
            (
                "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
                f"/Resources << /Font << /F1 3 0 R >> >> /Contents {5 + 2 * i} 0 R >>"
            ).encode()
        )
        if raw_streams is not None:
            data, filt = raw_streams[i], b" /Filter /FlateDecode"
        elif compress:
            data, filt = zlib.compress(streams[i]), b" /Filter /FlateDecode"
        else:
            data, filt = streams[i], b""
        objs.append(b"<< /Length %d%s >>\nstream\n" % (len(data), filt) + data + b"\nendstream")
    out = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for k, body in enumerate(objs, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % k + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objs) + 1, xref)
    return bytes(out)


def bomb_stream(inflated_bytes: int) -> bytes:
    """Flate data that inflates to ``inflated_bytes`` of spaces (about 1000:1)."""
    c = zlib.compressobj(9)
    chunk = b" " * (1 << 20)
    parts = [c.compress(chunk) for _ in range(inflated_bytes >> 20)]
    parts.append(c.flush())
    return b"".join(parts)


def write(path: Path, data: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path
