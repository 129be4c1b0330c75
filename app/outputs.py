"""Output declarations: each output of a card is described once.

``outputs(t_mem_ms=out("读取下界 R_W/β", digits=2), …)`` gives an output its label, unit (from the
key's suffix unless stated), format, 示意 flag, tile visibility and book symbol. From that one
declaration the engine draws the tiles, formats the numbers that summaries, headlines, tables and
the section prose quote (``[[t_mem_ms]]``), types the JSON response and names the derivations.

Conditional attributes (``tile``, ``ill``, ``approx``) take a bool or the name of a value looked up
in the view's ``ctx``, then the params, then the outputs, so a card's compute decides at run time
without re-describing the output.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, replace
from functools import cache, lru_cache
from typing import Any

from . import format as fmt

# key suffix → display unit (the catalog's naming rule)
SUFFIX_UNITS: tuple[tuple[str, str], ...] = (
    ("_gbit_s", "Gbit/s"),
    ("_tok_s", "token/s"),
    ("_tokens_s", "token/s"),
    ("_steps_s", "步/s"),
    ("_req_s", "条/s"),
    ("_gib_s", "GiB·s"),
    ("_flop_per_byte", "FLOP/B"),
    ("_bytes", "B"),
    ("_kib", "KiB"),
    ("_mib", "MiB"),
    ("_gib", "GiB"),
    ("_tib", "TiB"),
    ("_kb", "kB"),
    ("_mb", "MB"),
    ("_gb", "GB"),
    ("_tb", "TB"),
    ("_tbps", "TB/s"),
    ("_gbps", "GB/s"),
    ("_tflops", "TFLOP/s"),
    ("_pflops", "PFLOP/s"),
    ("_gflop", "GFLOP"),
    ("_tflop", "TFLOP"),
    ("_pflop", "PFLOP"),
    ("_flop", "FLOP"),
    ("_us", "µs"),
    ("_ms", "ms"),
    ("_s", "s"),
    ("_h", "h"),
    ("_days", "天"),
    ("_weeks", "周"),
    ("_tokens", "token"),
    ("_steps", "步"),
    ("_pct", "%"),
    ("_x", "×"),
    ("_usd", "美元"),
)


@cache
def unit_of_key(key: str) -> str:
    for suffix, unit in SUFFIX_UNITS:
        if key.endswith(suffix):
            return unit
    return ""


Cond = "bool | str"


@dataclass(frozen=True)
class Out:
    """One output of a card. ``unit=None``: from the key's suffix."""

    label: str = ""
    unit: str | None = None
    digits: int | None = None  # fixed decimals
    sig: int | None = None  # or significant figures
    approx: bool | str = False  # prefix "≈"
    tile: bool | str = True  # shown as a labelled number
    em: bool = False  # emphasised tile
    ill: bool | str = False  # 示意 badge
    book: str = ""  # the book's own wording beside the number ("三倍")
    sym: str = ""  # book symbol of the quantity (TeX-ish: B^*, T_{step})
    rule: str = ""  # how a simulated/searched value is obtained (no check)
    text: Callable[[Any], str] | Mapping[Any, str] | None = None  # bool/str/None outputs → words
    type: Any = None  # response type when not inferable (list[float], dict …)
    help: str = ""  # longer description for the API docs
    # how the book prints some numbers
    sci: bool = False  # 1.454×10²⁴
    scale: float = 1.0  # value ÷ scale with the unit glued on: 284B (scale=1e9, unit="B")
    exp: int = 0  # value ÷ 10^exp; the unit names the ×10ⁿ
    signed: bool = False  # +0.009
    trim: bool = False  # no trailing zeros: 7.8125, 56.25, 225
    prefix: str = ""  # 约 225 倍 → prefix="约 "
    sep: bool = True  # thousands separators (4096 vs 4,096)
    stated: bool = False  # an input value prints every digit it was given
    none: str = "—"  # what a missing (None / not finite) value reads as
    axis: tuple[int, str] | None = None  # (figure index, "x"|"y"): the chart axis this quantity lives on
    show: Callable[[Any], str | None] | None = None  # prints a number in full (unit included) when
    # the formats above cannot (a unit chosen by magnitude); None → them
    key: str = ""

    @property
    def display_unit(self) -> str:
        return unit_of_key(self.key) if self.unit is None else self.unit

    @property
    def glued(self) -> bool:
        """The unit is written onto the number (284B, 32T)."""
        return self.scale != 1

    def fmt(self, value: Any, *, approx: bool = False, unit: bool = True, flags: str = "") -> str:
        """The value as tiles, summaries, tables and prose print it. ``flags`` (from a template
        slot ``[[key|…]]``, comma-separated): ``n`` number without unit, ``c`` compact (no trailing
        zeros), ``dK`` K decimals, ``sK`` K significant figures, ``a`` with "≈", ``g0`` no thousands
        separator."""
        return (self.formatter_for(flags) if flags else self.formatter(bool(approx), bool(unit)))(value)

    def formatter(self, approx: bool, unit: bool) -> Callable[[Any], str]:
        """``fmt(·, approx=approx, unit=unit)`` as one function, made on first use and kept on the
        declaration: every choice that depends only on the declaration is made once."""
        made = self._formatters()
        f = made.get((approx, unit))
        if f is None:
            f = made[(approx, unit)] = _formatter(self, approx, unit)
        return f

    def formatter_for(self, flags: str) -> Callable[[Any], str]:
        """``fmt(·, flags=flags)`` as one function (a template slot's flags: see :meth:`fmt`)."""
        made = self._formatters()
        f = made.get(flags)
        if f is None:
            d, approx, unit = _flagged(self, flags)
            f = made[flags] = d.formatter(approx, unit)
        return f

    def _formatters(self) -> dict[Any, Callable[[Any], str]]:
        made = self.__dict__.get("_formatter_cache")
        if made is None:
            made = {}
            object.__setattr__(self, "_formatter_cache", made)  # a cache, not a field: frozen stays frozen
        return made

    def shown(self, value: Any) -> str | None:
        """The ``show`` hook's text for a number, if it has one."""
        return self.show(value) if self.show is not None and _numeric(value) else None

    def words(self, value: Any) -> str:
        """A bool/str/None output in words."""
        if self.text is not None:
            return str(self.text(value) if callable(self.text) else self.text.get(value, str(value)))
        if isinstance(value, bool):
            return "是" if value else "否"
        return self.none if value is None else str(value)

    def number(self, value: float, *, approx: bool = False, unit: bool = True) -> str:
        if not math.isfinite(value):
            return self.none
        v = value / self.scale / 10**self.exp
        if self.sci:
            s = fmt.sci(v, self.sig or 4)
        else:
            stated = self.stated and _is_input(value)
            s = _fixed_text(
                v,
                None if stated else self.digits,
                9 if stated else self.sig,
                self.trim or stated,
                self.sep,
                self.signed,
            )
        s = self.prefix + (("≈" if self.glued else "≈ ") if approx and s != self.none else "") + s
        u = self.display_unit if unit else ""
        return s + u if self.glued else fmt.with_unit_text(s, u)


# A number's digits as fmt.num writes them, by (value, digits, sig): one state prints most numbers
# twice (a tile without its unit, the prose with it), so the second is a lookup. Bounded; pure.
_NUM_TEXTS: dict[tuple[float, int | None, int | None], str] = {}
NUM_TEXTS_MAX = 1024


def _fixed_text(v: float, digits: int | None, sig: int | None, trim: bool, sep: bool, signed: bool) -> str:
    """A finite number as the declaration prints it: fmt.num's fixed-point digits, then trailing
    zeros trimmed, thousands separators dropped or a sign added, as asked."""
    keep = type(v) is float and v != 0  # ±0 compare equal but print differently: never kept
    s = _NUM_TEXTS.get((v, digits, sig)) if keep else None
    if s is None:
        s = fmt.num(v, digits, sig)
        if keep:
            if len(_NUM_TEXTS) >= NUM_TEXTS_MAX:
                _NUM_TEXTS.clear()
            _NUM_TEXTS[(v, digits, sig)] = s
    if trim and s[-1] == "0" and "." in s:  # fixed-point text: strip the zeros after the point
        s = s.rstrip("0").removesuffix(".")
    if not sep:
        s = s.replace(",", "")
    if signed and v >= 0:
        s = "+" + s
    return s


def _formatter(d: Out, approx: bool, unit: bool) -> Callable[[Any], str]:
    """``d.fmt(value, approx=approx, unit=unit)`` for any value. A plain finite number takes the
    same steps as :meth:`Out.number` with the declaration's attributes read once, unless its text
    can depend on more than its digits (a ``show`` hook, ``sci``, ``stated``)."""

    def general(value: Any) -> str:
        if not _numeric(value):
            return d.words(value)
        shown = d.shown(value)
        return shown if shown is not None else d.number(value, approx=approx, unit=unit)

    if d.show is not None or d.sci or d.stated:
        return general
    scale, p10, digits, sig, none = d.scale, 10**d.exp, d.digits, d.sig, d.none
    trim, sep, signed, prefix, glued = d.trim, d.sep, d.signed, d.prefix, d.glued
    mark = ("≈" if glued else "≈ ") if approx else ""
    u = d.display_unit if unit else ""
    with_unit_text = fmt.with_unit_text

    def plain(value: Any) -> str:
        if not ((type(value) is float or type(value) is int) and value - value == 0):
            return general(value)  # not a plain finite number (traced, bool, None, inf …)
        s = _fixed_text(value / scale / p10, digits, sig, trim, sep, signed)
        s = prefix + (mark if mark and s != none else "") + s
        return s + u if glued else with_unit_text(s, u)

    return plain


@cache
def undeclared(key: str) -> Out:
    """The declaration an output without one gets (format and unit from its key), made once per key:
    the flags cache below is keyed by the declaration's identity."""
    return Out(key=key)


_FLAGGED: dict[tuple[int, str], tuple[Out, Out, bool, bool]] = {}


def _flagged(decl: Out, flags: str) -> tuple[Out, bool, bool]:
    """A declaration as a slot's flags change it (parsed once per declaration and flags; keyed by
    identity, as a declaration may hold a dict of words)."""
    hit = _FLAGGED.get((id(decl), flags))
    if hit is not None and hit[0] is decl:
        return hit[1], hit[2], hit[3]
    f = set(flags.split(","))
    digits = next((int(x[1:]) for x in f if x[:1] == "d" and x[1:].isdigit()), decl.digits)
    sig = next((int(x[1:]) for x in f if x[:1] == "s" and x[1:].isdigit()), None if digits != decl.digits else decl.sig)
    d = replace(decl, digits=digits, sig=sig, trim=decl.trim or "c" in f, sep=decl.sep and "g0" not in f)
    if len(_FLAGGED) < 20_000:
        _FLAGGED[(id(decl), flags)] = (decl, d, "a" in f, "n" not in f)
    return d, "a" in f, "n" not in f


def _is_input(value: Any) -> bool:
    from .trace import node_of

    n = node_of(value)
    return n is not None and n.kind == "leaf"


def _numeric(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def out(label: str = "", **kw: Any) -> Out:
    """Declare a scalar output (shown as a tile unless ``tile=False``)."""
    return Out(label=label, **kw)


def data(label: str = "", type: Any = list, **kw: Any) -> Out:
    """Declare a structured output (series, rows): in the JSON, never a tile."""
    return Out(label=label, tile=False, type=type, **kw)


def outputs(**decls: Out) -> dict[str, Out]:
    """The ordered declaration of a card's outputs (tile order = this order)."""
    return {k: replace(d, key=k) for k, d in decls.items()}


# ---------------------------------------------------------------------------------------------
# Templates: "[[key]]" in summaries, headlines, labels and prose
# ---------------------------------------------------------------------------------------------

TEMPLATE = re.compile(r"\[\[([A-Za-z_][A-Za-z0-9_]*)(?:\|([a-z0-9,]+))?\]\]")


@dataclass(frozen=True)
class Piece:
    """A run of template text, or a filled slot (``key`` set) with its formatted value."""

    text: str
    key: str = ""
    kind: str = ""  # "output" | "param" | "ctx"


@lru_cache(maxsize=16_384)
def split(template: str) -> tuple[tuple[str, str, str], ...]:
    """``template`` as runs of (text, key, flag): a slot has a key (its text is the slot as
    written), plain text has none. Parsed once per template text: every drag fills the same texts."""
    runs: list[tuple[str, str, str]] = []
    pos = 0
    for m in TEMPLATE.finditer(template):
        if m.start() > pos:
            runs.append((template[pos : m.start()], "", ""))
        runs.append((m.group(0), m.group(1), m.group(2) or ""))
        pos = m.end()
    if pos < len(template):
        runs.append((template[pos:], "", ""))
    return tuple(runs)


def fill(template: str, lookup: Callable[[str, str], tuple[str, str] | None]) -> Iterator[Piece]:
    """Split ``template`` into text and filled slots. ``lookup(key, flag)`` → (text, kind) or
    None (the slot is left as written, so a typo shows rather than vanishes)."""
    for text, key, flag in split(template):
        if not key:
            yield Piece(text)
            continue
        hit = lookup(key, flag)
        yield Piece(hit[0], key, hit[1]) if hit else Piece(text)


def resolve_cond(cond: Any, ctx: Mapping[str, Any], params: Any, outs: Mapping[str, Any]) -> bool:
    """A conditional attribute: a bool, or the name of a ctx value / param / output."""
    if isinstance(cond, bool):
        return cond
    if cond in ctx:
        return bool(ctx[cond])
    if params is not None and cond in type(params).model_fields:
        return bool(getattr(params, cond))
    return bool(outs.get(cond))


def finite_or_none(x: Any) -> Any:
    return x if not isinstance(x, float) or math.isfinite(x) else None
