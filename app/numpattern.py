"""Regular expressions for decimal numbers within bounds, so a schema can state a numeric range for a
number written inside a string (a custom GPU's ``custom:80,3.35,989.4``). Numbers are written without
sign, exponent or leading zeros: ``0``, ``12``, ``0.5``, ``12.250``."""

from __future__ import annotations

import re
from decimal import Decimal

DECIMAL = r"(?:0|[1-9][0-9]*)(?:\.[0-9]+)?"
_DECIMAL = re.compile(DECIMAL)


def is_decimal(text: str) -> bool:
    """``text`` is a number in the plain form above."""
    return _DECIMAL.fullmatch(text) is not None


def decimal_range(lo: float, hi: float) -> str:
    """A regex (no anchors) matching exactly the plain decimals ``x`` with ``lo ≤ x ≤ hi``; the integer
    parts of ``lo`` and ``hi`` must differ."""
    lo_d, hi_d = Decimal(str(lo)), Decimal(str(hi))
    li, hi_i = int(lo_d), int(hi_d)
    if not (0 <= lo_d < hi_d) or li == hi_i:
        raise ValueError(f"unsupported range {lo}–{hi}")
    lf, hf = _frac_digits(lo_d - li), _frac_digits(hi_d - hi_i)
    low = str(li) + (r"(?:\.(?:" + "|".join(_frac_ge(lf)) + "))" if lf else r"(?:\.[0-9]+)?")
    high = str(hi_i) + (r"(?:\.(?:" + "|".join(_frac_le(hf)) + "))?" if hf else r"(?:\.0+)?")
    alts = [low]
    if li + 1 <= hi_i - 1:
        alts.append("(?:" + "|".join(_int_range(li + 1, hi_i - 1)) + r")(?:\.[0-9]+)?")
    alts.append(high)
    return "(?:" + "|".join(alts) + ")"


def _frac_digits(f: Decimal) -> str:
    """0.0100 → "01"; 0 → ""."""
    s = format(f, "f")
    return s.split(".")[1].rstrip("0") if "." in s else ""


def _frac_ge(d: str) -> list[str]:
    """Non-empty digit strings F with 0.F ≥ 0.d."""
    out = [re.escape(d[:i]) + f"[{int(c) + 1}-9][0-9]*" for i, c in enumerate(d) if c != "9"]
    return out + [d + "[0-9]*"]


def _frac_le(d: str) -> list[str]:
    """Non-empty digit strings F with 0.F ≤ 0.d."""
    out = [d[:i] + f"[0-{int(c) - 1}][0-9]*" for i, c in enumerate(d) if c != "0"]
    return out + [d[:j] + "0*" for j in range(1, len(d) + 1)]


def _int_range(a: int, b: int) -> list[str]:
    """Integers a…b without leading zeros."""
    if a > b:
        return []
    la, lb = len(str(a)), len(str(b))
    if la < lb:
        return _int_range(a, 10**la - 1) + _int_range(10**la, b)
    return _same_length(str(a), str(b))


def _same_length(a: str, b: str) -> list[str]:
    """Digit strings of len(a) between a and b (a ≤ b, same length)."""
    if a == b:
        return [a]
    if set(a) == {"0"} and set(b) == {"9"}:
        return [f"[0-9]{{{len(a)}}}"]
    i = next(k for k in range(len(a)) if a[k] != b[k])
    p, rest = a[:i], len(a) - i - 1
    if rest == 0:
        return [p + _cls(int(a[i]), int(b[i]))]
    out = [p + a[i] + s for s in _same_length(a[i + 1 :], "9" * rest)]
    if int(a[i]) + 1 <= int(b[i]) - 1:
        out.append(p + _cls(int(a[i]) + 1, int(b[i]) - 1) + f"[0-9]{{{rest}}}")
    out += [p + b[i] + s for s in _same_length("0" * rest, b[i + 1 :])]
    return out


def _cls(x: int, y: int) -> str:
    return str(x) if x == y else f"[{x}-{y}]"
