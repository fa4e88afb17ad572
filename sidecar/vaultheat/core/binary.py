"""Is this ``.md`` file text at all? A binary file named like a note becomes hundreds of garbage
chunks that match every odd query, so it is skipped with a reason instead.

Two tests, in the spirit of git's and ``file``'s heuristics: a NUL byte in the first 8 KB (no
UTF-8 text has one), or more than 30 % of the first 64 KB's characters being control characters
(other than tab, newlines, form feed and escape), undecodable bytes or U+FFFD. Latin-1 or
cp1252 notes stay text (accented letters are a few percent of their bytes, under 20 % even in a
short line dense with them); random bytes come out near 60 %.
"""

from __future__ import annotations

NUL_WINDOW = 8 * 1024
SAMPLE = 64 * 1024
MAX_BAD_SHARE = 0.30
_ALLOWED_CONTROLS = frozenset("\t\n\r\f\v\x1b")


def binary_reason(raw: bytes) -> str | None:
    """Why ``raw`` is not a text note, or None when it is."""
    if b"\x00" in raw[:NUL_WINDOW]:
        return "binary content (NUL bytes), not a text note"
    text = raw[:SAMPLE].decode("utf-8", "surrogateescape")
    if not text:
        return None
    bad = sum(1 for ch in text if _is_bad(ch))
    share = bad / len(text)
    if share > MAX_BAD_SHARE:
        return f"binary content ({share:.0%} control or undecodable bytes), not a text note"
    return None


def _is_bad(ch: str) -> bool:
    code = ord(ch)
    if code < 0x20 or code == 0x7F:
        return ch not in _ALLOWED_CONTROLS
    return 0xDC80 <= code <= 0xDCFF or code == 0xFFFD
