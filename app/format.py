"""The one place that turns numbers into text the way the book prints them.

``20.90 ms``, ``0.1415 ms``, ``5,591``, ``141.11 GB ≈ 131.42 GiB``, ``1.454×10²⁴``. A
:class:`NumberFormat` is every choice about one quantity's text (decimals or significant figures,
scale, sign, trimming, separators, unit); an output declaration builds one (``Out.number_format``)
and tiles, prose slots, derivations, chart summaries and table cells all print through it. Decimal
GB (10⁹ B) and binary GiB (2³⁰ B) are always labelled. Text that keeps a fixed form goes through here
too: :func:`decimals` (a bar's ``0.125 s``), :func:`compact` (a value as typed, a URL's ``speedup=2.5``),
:func:`hover_number` (a Plotly hover's ``%{x:.4g}``); ``tests/engine/test_one_formatter.py`` keeps
format specs out of every other module.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

from .words import localize, words_for

W = words_for(__name__)

GB = 1e9
GIB = 2**30
MIB = 2**20
KIB = 2**10
NONE = "—"  # what a missing or non-finite number reads as


def num(x: Any, digits: int | None = None, sig: int | None = None) -> str:
    """Format a number: fixed ``digits`` decimals, or ``sig`` significant figures, with thousands
    separators. Without either: integers as integers, others to 4 significant figures."""
    if x is None:
        return NONE
    if isinstance(x, bool):
        return W["num"] if x else W["num_2"]
    if isinstance(x, str):
        return x
    if not isinstance(x, (int, float)) or not math.isfinite(x):
        return NONE
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


def plain(v: Any) -> str:
    """A value no declaration describes (a slider's value, a run-time word or number): integers
    whole with separators, other floats as ``%g``, anything else as it is."""
    if isinstance(v, float) and not v.is_integer():
        return f"{v:g}"
    return num(v) if isinstance(v, (int, float)) else str(v)


def count_noun(unit: str, number: str) -> str:
    """A unit written ``one|many`` (an English count noun, ``request|requests``) agreeing with the
    number as written: ``1 request``, ``8 requests``, ``0.5 requests``."""
    if "|" not in unit:
        return unit
    one, many = unit.split("|", 1)
    try:
        is_one = float(number.strip().lstrip("≈~ ").replace(",", "")) == 1
    except ValueError:
        is_one = False
    return one if is_one else many


def with_unit_text(s: str, unit: str = "") -> str:
    """A formatted number and its unit: ``20.90 ms``, ``45%``, ``148×``, ``70×10⁹`` (a unit word in the
    edition served: 8 请求 / 8 requests)."""
    unit = count_noun(localize(unit), s)
    if not unit or s == NONE:
        return s
    if unit in ("%", "×") or unit.startswith("×10"):
        return f"{s}{unit}"
    return f"{s} {unit}"


def with_unit(x: Any, unit: str = "", digits: int | None = None, sig: int | None = None) -> str:
    return with_unit_text(num(x, digits, sig), unit)


def decimals(x: float, digits: int, unit: str = "", *, sep: bool = False) -> str:
    """``x`` with exactly ``digits`` decimals, thousands separators only with ``sep`` (a bar's
    ``0.125 s``, a frame label ``120``, a vline's ``B*≈42``; ``sep``: ``1,234.5 MiB``), then its unit."""
    return with_unit_text(f"{x:{',' if sep else ''}.{digits}f}", unit)


def compact(x: float, sig: int = 6, unit: str = "") -> str:
    """``x`` to at most ``sig`` significant figures, trailing zeros dropped, no separators — Python's
    ``%g`` (``0.5``, ``2``, ``1.23e+06``): a value as typed (a slider's, a URL query's), then its unit."""
    return with_unit_text(f"{x:.{sig}g}", unit)


def round_sig(x: float, sig: int) -> float:
    """A float cut to ``sig`` significant figures (``0.1 + 3 × 0.1`` → ``0.4``), for data that is
    stored or sent as a number (a figure's JSON, a sweep's grid), not text."""
    return float(f"{x:.{sig}g}")


def hover_number(field: str, *, sig: int | None = None, digits: int | None = None, sep: bool = False) -> str:
    """A number in a Plotly hover template: ``%{field:spec}`` with a d3-format spec (plotly.js
    src/plots/template_attributes.js: "Numbers are formatted using d3-format's syntax"), ``sig``
    significant figures or ``digits`` decimals: ``hover_number("x", sig=4)`` → ``%{x:.4g}``,
    ``hover_number("y", digits=3, sep=True)`` → ``%{y:,.3f}``."""
    if (sig is None) == (digits is None):
        raise ValueError("hover_number takes sig or digits")
    spec = f".{sig}g" if sig is not None else f".{digits}f"
    return "%{" + field + ":" + ("," if sep else "") + spec + "}"


def gb_gib(n_bytes: float, digits: int = 2) -> str:
    """``141.11 GB ≈ 131.42 GiB``."""
    return f"{n_bytes / GB:,.{digits}f} GB ≈ {n_bytes / GIB:,.{digits}f} GiB"


_SUP = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def superscript(n: int) -> str:
    """``24`` → ``²⁴`` (exponents as the book prints them)."""
    return str(n).translate(_SUP)


def sci(x: Any, sig: int = 4) -> str:
    """Scientific notation as the book prints large counts: ``1.45438e24`` → ``1.454×10²⁴``."""
    if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x):
        return NONE
    if x == 0:
        return "0"
    e = math.floor(math.log10(abs(x)))
    m = x / 10**e
    if abs(round(m, sig - 1)) >= 10:
        m, e = m / 10, e + 1
    return f"{m:.{sig - 1}f}×10{superscript(e)}"


def _trim(s: str) -> str:
    """Fixed-point text without the zeros after its point (``2.500`` → ``2.5``, ``7.0`` → ``7``)."""
    if "." not in s:
        return s
    head, _, tail = s.partition("×")  # a mantissa keeps its exponent
    head = head.rstrip("0").removesuffix(".")
    return f"{head}×{tail}" if tail else head


STATED_WITHIN = 0.05  # a number on screen is never more than 5 % from its value


def _faithful(v: float, s: str) -> str:
    """``s`` (``v`` written to a fixed number of digits) when it states ``v`` within 5 % and shows
    a nonzero value as nonzero; else ``v`` to as many significant figures as that takes (0.33 with no
    decimals reads 0.33, not 0; 2.31 reads 2.3, not 2)."""
    shown = float(s.replace(",", ""))
    if v == 0 or abs(shown - v) <= STATED_WITHIN * abs(v):
        return s
    for sig in (2, 3, 4):
        s = _trim(num(v, None, sig))
        if abs(float(s.replace(",", "")) - v) <= STATED_WITHIN * abs(v):
            return s
    return s


@dataclass(frozen=True)
class NumberFormat:
    """How one quantity is written. ``digits``: fixed decimals, or ``sig``: significant figures (see
    :func:`num`); ``sci``: scientific (``1.454×10²⁴``), or scientific only from ``sci_from`` on;
    ``scale``/``exp``: the value is divided first (284B with ``scale=1e9``, the unit names the ×10ⁿ);
    ``trim``: no trailing zeros; ``sep``: thousands separators; ``signed``: ``+0.009``; ``prefix``:
    ``约 225 倍``; ``glued``: the unit written onto the number (284B)."""

    digits: int | None = None
    sig: int | None = None
    sci: bool = False
    sci_from: float = math.inf
    scale: float = 1.0
    exp: int = 0
    trim: bool = False
    sep: bool = True
    signed: bool = False
    prefix: str = ""
    unit: str = ""
    glued: bool = False
    none: str = NONE

    def text(self, value: Any, *, approx: bool = False, unit: bool = True) -> str:
        """``value`` written out (with "≈" when ``approx``, and the unit unless ``unit=False``)."""
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            return self.none
        v = value / self.scale / 10**self.exp
        if self.sci or abs(v) >= self.sci_from:
            s = sci(v, self.sig or 4)
            s = _trim(s) if self.trim else s
        else:
            s = _faithful(v, num(v, self.digits, self.sig))
            s = _trim(s) if self.trim else s
            if not self.sep:
                s = s.replace(",", "")
            if self.signed and v >= 0:
                s = "+" + s
        s = self.prefix + (("≈" if self.glued else "≈ ") if approx else "") + s
        u = localize(self.unit) if unit else ""
        if "|" in u:
            u = count_noun(u, s)
        return s + u if self.glued else with_unit_text(s, u)

    def flagged(self, flags: str) -> NumberFormat:
        """The format a template slot's flags ask for (``[[key|d1,c]]``): ``dK`` K decimals, ``sK`` K
        significant figures, ``c`` compact (no trailing zeros), ``g0`` no thousands separator.
        (``a`` "≈" and ``n`` no unit are arguments of :meth:`text`.)"""
        f = set(flags.split(","))
        digits = next((int(x[1:]) for x in f if x[:1] == "d" and x[1:].isdigit()), self.digits)
        sig = next(
            (int(x[1:]) for x in f if x[:1] == "s" and x[1:].isdigit()), None if digits != self.digits else self.sig
        )
        trim, sep = self.trim or "c" in f, self.sep and "g0" not in f
        if (digits, sig, trim, sep) == (self.digits, self.sig, self.trim, self.sep):
            return self  # "n" or "a" only: the same digits
        return replace(self, digits=digits, sig=sig, trim=trim, sep=sep)


# The formats of numbers no declaration describes: a value as given (a slider's, a preset's: every digit
# to 6 significant figures), a value derived in a chain (4 significant figures), and the default.
GIVEN = NumberFormat(sig=6, trim=True, sci_from=1e15)
BRIEF = NumberFormat(sig=4, trim=True, sci_from=1e15)
DEFAULT = NumberFormat()

# units written with an SI prefix chosen for the magnitude (70 GB, 3.35 TB/s)
_SI = [(1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"), (1, "")]
PREFIXABLE = ("B", "B/s", "FLOP", "FLOP/s", "bit/s", "FLOP/B")


def si_text(value: float, unit: str, form: NumberFormat = BRIEF) -> str:
    """A value in a base unit written with the prefix its magnitude asks for (70 GB, 3.35 TB/s; seconds
    below 1 as ms or µs), digits as ``form`` says."""
    if value and math.isfinite(value):
        if unit in PREFIXABLE:
            f, p = next(((f, p) for f, p in _SI if abs(value) >= f), (1, ""))
            return with_unit_text(form.text(value / f), p + unit)
        if unit == "s" and abs(value) < 1:
            return (
                with_unit_text(form.text(value * 1e3), "ms")
                if abs(value) >= 1e-3
                else with_unit_text(form.text(value * 1e6), "µs")
            )
    return with_unit_text(form.text(value), unit)
