"""Reading a typed answer the way the site writes numbers: one parser for the page, the check API
and the live class.

Accepted: ``4.02×10²²`` (as the cards print it), ``4.02×10^22``, ``4.02*10^22``, ``4.02e22``; full-width
digits and punctuation (``７３．７``, read through Unicode NFKC); thousands separators (``1,024``,
``1，024``); a leading ``≈``/``~``/``约``; a trailing unit that is the question's or one of its
alternative units (``20 ms``, ``73.7GB``), or a sibling of the same quantity (``68.6 GiB`` or
``70 MB`` for a GB question, ``0.02 s`` for an ms one): converted, and the answer says so. Anything
else is not guessed at: :func:`read` names what it did not understand, in the edition's words.

Units are explicit (GB = 10⁹ B, GiB = 2³⁰ B); the conversion table is :data:`FAMILIES`.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from .format import GIVEN
from .words import words_for

W = words_for(__name__)

MAX_TEXT = 50  # characters of a typed answer read at most (the API's limit too)
MAX_ABS = 1e30  # a number beyond this is no answer to any question here

# every unit a typed answer may carry, by quantity: name -> factor to the family's base unit
_BYTES = {"B": 1.0, "kB": 1e3, "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12, "PB": 1e15}
_BYTES |= {"KiB": 2.0**10, "MiB": 2.0**20, "GiB": 2.0**30, "TiB": 2.0**40, "PiB": 2.0**50}
FAMILIES: tuple[dict[str, float], ...] = (
    _BYTES,
    {k + "/s": v for k, v in _BYTES.items()},
    {"ns": 1e-9, "µs": 1e-6, "us": 1e-6, "ms": 1e-3, "s": 1.0, "min": 60.0, "h": 3600.0, "小时": 3600.0, "天": 86400.0},
    {"FLOP": 1.0, "GFLOP": 1e9, "TFLOP": 1e12, "PFLOP": 1e15, "FLOPs": 1.0, "GFLOPs": 1e9, "TFLOPs": 1e12},
)

_SUPERSCRIPT = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺", "0123456789-+")
_SUPER_RUN = re.compile(r"([⁻⁺]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+)")
_LEAD = re.compile(r"^(≈|~|约|大约|about|approx\.?)\s*", re.IGNORECASE)
_NUMBER = re.compile(
    r"^(?P<m>[+-]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d*)?|[+-]?\.\d+)"
    r"(?:\s*(?:[eE](?P<e>[+-]?\d+)|[×xX*·]\s*10\s*\^\s*\(?(?P<p>[+-]?\d+)\)?))?"
)


@dataclass(frozen=True)
class Read:
    """What a typed answer says: its number, the unit typed with it (None: the one chosen on the
    page), a note when it was converted, or ``error``: what was not understood."""

    value: float = math.nan
    unit: str | None = None
    note: str | None = None
    error: str | None = None


def factor(unit: str, to: str) -> float:
    """How many ``to`` one ``unit`` is (GiB → GB: 1.0737…); KeyError when they measure different things."""
    for fam in FAMILIES:
        if unit in fam and to in fam:
            return fam[unit] / fam[to]
    raise KeyError(unit)


def _normal(text: str) -> str:
    """The typed text with superscript exponents written out (10²² → 10^22) and full-width forms
    folded to ASCII (NFKC), minus signs made ASCII, spaces trimmed."""
    text = _SUPER_RUN.sub(lambda m: "^" + m.group(1).translate(_SUPERSCRIPT), text)
    text = unicodedata.normalize("NFKC", text).replace("−", "-").replace("，", ",")
    return text.strip()


def _unit_of(rest: str, allowed: Sequence[str]) -> str | None:
    """The unit named by ``rest``: one of ``allowed`` (exactly, then ignoring case and spaces), or a
    sibling of one in :data:`FAMILIES`; None when it is neither."""
    squeeze = rest.replace(" ", "")
    for u in allowed:
        if u and (rest == u or squeeze == u.replace(" ", "")):
            return u
    for u in allowed:
        if u and squeeze.lower() == u.replace(" ", "").lower():
            return u
    for fam in FAMILIES:
        if squeeze in fam and any(u in fam for u in allowed):
            return squeeze
    return None


def read(text: str, unit: str = "", allowed: Sequence[str] = ()) -> Read:
    """Read a typed answer to a question in ``unit`` (``allowed``: the units the question accepts)."""
    shown = text.strip()[:MAX_TEXT]
    if len(text.strip()) > MAX_TEXT:
        return Read(error=W.f("too_long", n=MAX_TEXT))
    s = _LEAD.sub("", _normal(text))
    m = _NUMBER.match(s)
    if m is None or not shown:
        return Read(error=W.f("not_a_number", text=shown))
    mantissa = float(m.group("m").replace(",", ""))
    exp = m.group("e") or m.group("p")
    try:
        value = mantissa * 10.0 ** int(exp) if exp else mantissa
    except OverflowError:
        value = math.inf
    if not math.isfinite(value) or abs(value) > MAX_ABS:
        return Read(error=W.f("too_big", text=shown))
    rest = s[m.end() :].strip()
    if not rest:
        return Read(value)
    got = _unit_of(rest, [*allowed, unit])
    if got is None:
        units = W["unit_sep"].join(u for u in dict.fromkeys([unit, *allowed]) if u)
        return Read(error=W.f("unknown_unit", unit=rest[:20], units=units or "—"))
    if got in allowed or got == unit:
        return Read(value, got)
    converted = value * factor(got, unit)
    note = W.f("converted", typed=f"{GIVEN.text(value)} {got}", value=f"{GIVEN.text(converted)} {unit}")
    return Read(value, got, note)
