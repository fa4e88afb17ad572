"""Golden comparisons that a different CPU cannot fail while a real change still does.

Scores are float32 sums; another CPU (another BLAS kernel, another SIMD width, another number
of threads) adds them in another order and the result moves in the 8th-9th significant digit.
So the golden tests compare the *structure* exactly (keys, their order, list lengths, every
string, every integer, ``null`` and booleans) and only the floats at a stated tolerance:

* JSON documents: a float matches when ``math.isclose(got, golden, rel_tol=1e-6,
  abs_tol=1e-7)``; a value the code rounds to 6 decimals (``round(score, 6)``: both sides have
  at most 6 decimals) may also be one unit apart in that 6th decimal, because a difference in
  the 9th digit can flip the rounding.
* Text (numbers printed inside lines): the text between the numbers must be equal, and each
  printed decimal number must have as many decimals as the golden one and lie within one unit
  of its last printed decimal (``0.984`` matches ``0.983`` .. ``0.985``). Numbers printed
  without a decimal point (counts, ids, line numbers) must be equal.

A score off by 1e-3, a changed key or a changed word still fails, and the message names the
JSON path of the first difference (``$["cli:related"].results[2].score``).
"""

from __future__ import annotations

import math
import re
from typing import Any

REL_TOL = 1e-6
ABS_TOL = 1e-7
ROUNDED_DECIMALS = 6  # documents.py rounds scores to 6 decimals

# a decimal or integer number not glued to a digit or a dot before it ("9-11" reads 9 and 11,
# "1.2.3" reads 1.2 and leaves ".3" as text)
_NUMBER = re.compile(r"(?<![\d.])-?\d+(?:\.\d+)?")


def _key(path: str, key: str) -> str:
    return f"{path}.{key}" if key.isidentifier() else f"{path}[{key!r}]"


def _decimals(value: float) -> int | None:
    """Decimals in the shortest repr of ``value`` (None for exponent forms)."""
    text = repr(value)
    if "e" in text or "E" in text:
        return None
    return len(text.split(".", 1)[1]) if "." in text else 0


def floats_match(got: float, want: float) -> bool:
    if math.isclose(got, want, rel_tol=REL_TOL, abs_tol=ABS_TOL):
        return True
    dg, dw = _decimals(got), _decimals(want)
    if dg is not None and dw is not None and max(dg, dw) <= ROUNDED_DECIMALS:
        return abs(got - want) <= 10.0**-ROUNDED_DECIMALS * (1 + 1e-9)
    return False


def text_difference(got: str, want: str) -> str | None:
    """Why the line ``got`` differs from the golden ``want`` (numbers at one printed unit)."""
    got_parts, want_parts = _NUMBER.split(got), _NUMBER.split(want)
    got_nums, want_nums = _NUMBER.findall(got), _NUMBER.findall(want)
    if got_parts != want_parts or len(got_nums) != len(want_nums):
        return f"text differs: {got!r} != golden {want!r}"
    for i, (g, w) in enumerate(zip(got_nums, want_nums, strict=True)):
        if "." not in w:
            if g != w:
                return f"number {i + 1} differs: {g} != golden {w} in {got!r}"
            continue
        places = len(w.split(".", 1)[1])
        if "." not in g or len(g.split(".", 1)[1]) != places:
            return f"number {i + 1} printed as {g}, golden {w} in {got!r}"
        if abs(float(g) - float(w)) > 10.0**-places * (1 + 1e-9):
            return f"number {i + 1} off by more than one printed unit: {g} != golden {w} in {got!r}"
    return None


def first_difference(
    got: Any, want: Any, path: str = "$", *, text_numbers: bool = False
) -> str | None:
    """The first place where ``got`` differs from the golden ``want`` beyond the tolerance, as
    ``"<json path>: <what>"``; None when they match. With ``text_numbers`` the strings are
    compared as text with printed numbers in them (:func:`text_difference`)."""
    if isinstance(want, dict):
        if not isinstance(got, dict):
            return f"{path}: {type(got).__name__} != golden object"
        if list(got) != list(want):
            return f"{path}: keys {list(got)} != golden {list(want)}"
        for key in want:
            found = first_difference(
                got[key], want[key], _key(path, key), text_numbers=text_numbers
            )
            if found:
                return found
        return None
    if isinstance(want, list):
        if not isinstance(got, list):
            return f"{path}: {type(got).__name__} != golden list"
        if len(got) != len(want):
            return f"{path}: {len(got)} items != golden {len(want)}"
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            found = first_difference(g, w, f"{path}[{i}]", text_numbers=text_numbers)
            if found:
                return found
        return None
    if type(got) is not type(want):
        return f"{path}: {got!r} ({type(got).__name__}) != golden {want!r} ({type(want).__name__})"
    if isinstance(want, float):
        if floats_match(got, want):
            return None
        return f"{path}: {got!r} != golden {want!r} (rel_tol {REL_TOL:g}, abs_tol {ABS_TOL:g})"
    if isinstance(want, str) and text_numbers:
        found = text_difference(got, want)
        return f"{path}: {found}" if found else None
    return None if got == want else f"{path}: {got!r} != golden {want!r}"


def assert_matches(got: Any, want: Any, path: str = "$", *, text_numbers: bool = False) -> None:
    found = first_difference(got, want, path, text_numbers=text_numbers)
    assert found is None, f"differs from the golden file at {found}"
