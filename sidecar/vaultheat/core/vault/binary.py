"""Is this ``.md`` file text at all? A binary file named like a note becomes hundreds of garbage
chunks that match every odd query, so it is skipped with a reason instead.

Two tests, in the spirit of git's and ``file``'s heuristics: a NUL byte in the first 8 KB (no
UTF-8 text has one), or more than 30 % of the first 64 KB's characters being control characters
(other than tab, newlines, form feed and escape), undecodable bytes or U+FFFD. Latin-1 or
cp1252 notes stay text (accented letters are a few percent of their bytes, under 20 % even in a
short line dense with them); random bytes come out near 60 %.

The characters are counted in a few whole-buffer passes, never one by one: the control
characters are ASCII bytes, each decoding to exactly one character, so they are counted in the
bytes; the undecodable bytes are the characters that ``surrogateescape`` adds and ``ignore``
drops (one per byte); U+FFFD is counted in the decoded text.
"""

from __future__ import annotations

NUL_WINDOW = 8 * 1024
SAMPLE = 64 * 1024
MAX_BAD_SHARE = 0.30
_ALLOWED_CONTROLS = b"\t\n\r\f\v\x1b"
_BAD_CONTROLS = bytes(b for b in [*range(0x20), 0x7F] if b not in _ALLOWED_CONTROLS)


def binary_reason(raw: bytes) -> str | None:
    """Why ``raw`` is not a text note, or None when it is."""
    if b"\x00" in raw[:NUL_WINDOW]:
        return "binary content (NUL bytes), not a text note"
    sample = raw[:SAMPLE]
    if not sample:
        return None
    bad = len(sample) - len(sample.translate(None, _BAD_CONTROLS))
    chars = len(sample)
    if not sample.isascii():
        text = sample.decode("utf-8", "surrogateescape")
        chars = len(text)
        undecodable = chars - len(sample.decode("utf-8", "ignore"))
        bad += undecodable + text.count("\ufffd")
    share = bad / chars
    if share > MAX_BAD_SHARE:
        return f"binary content ({share:.0%} control or undecodable bytes), not a text note"
    return None
