"""One place that turns numbers into text the way the book prints them.

``20.90 ms``, ``0.1415 ms``, ``5,591``, ``141.11 GB ≈ 131.42 GiB``. Decimal GB (10⁹ B) and binary
GiB (2³⁰ B) are always labelled.
"""

from __future__ import annotations

import math
from typing import Any

GB = 1e9
GIB = 2**30
MIB = 2**20
KIB = 2**10


def num(x: Any, digits: int | None = None, sig: int | None = None) -> str:
    """Format a number: fixed ``digits`` decimals, or ``sig`` significant figures, with thousands
    separators. Without either: integers as integers, others to 4 significant figures."""
    if type(x) is not float or x - x != 0:  # anything but a finite float (most calls are one)
        if x is None:
            return "—"
        if isinstance(x, bool):
            return "是" if x else "否"
        if isinstance(x, str):
            return x
        if not isinstance(x, (int, float)) or not math.isfinite(x):
            return "—"
    if digits is not None:
        return f"{x:,.{digits}f}"
    if isinstance(x, int) or (sig is None and float(x).is_integer() and abs(x) < 1e15):
        return f"{int(round(x)):,}"
    sig = sig or 4
    if x == 0:
        return "0"
    mag = math.floor(math.log10(abs(x)))
    d = max(sig - 1 - mag, 0)
    return f"{x:,.{d}f}"


def with_unit(x: Any, unit: str = "", digits: int | None = None, sig: int | None = None) -> str:
    return with_unit_text(num(x, digits, sig), unit)


def with_unit_text(s: str, unit: str = "") -> str:
    """A formatted number and its unit: ``20.90 ms``, ``45%``, ``148×``, ``70×10⁹``."""
    if not unit or s == "—":
        return s
    if unit in ("%", "×") or unit.startswith("×10"):
        return f"{s}{unit}"
    return f"{s} {unit}"


def gb_gib(n_bytes: float, digits: int = 2) -> str:
    """``141.11 GB ≈ 131.42 GiB``."""
    return f"{n_bytes / GB:,.{digits}f} GB ≈ {n_bytes / GIB:,.{digits}f} GiB"


def ms(seconds: float, digits: int = 2) -> str:
    return f"{seconds * 1e3:,.{digits}f} ms"


_SUP = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def superscript(n: int) -> str:
    """``24`` → ``²⁴`` (exponents as the book prints them)."""
    return str(n).translate(_SUP)


def sci(x: Any, sig: int = 4) -> str:
    """Scientific notation as the book prints large counts: ``1.45438e24`` → ``1.454×10²⁴``."""
    if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x):
        return "—"
    if x == 0:
        return "0"
    e = math.floor(math.log10(abs(x)))
    m = x / 10**e
    if abs(round(m, sig - 1)) >= 10:
        m, e = m / 10, e + 1
    return f"{m:.{sig - 1}f}×10{superscript(e)}"
