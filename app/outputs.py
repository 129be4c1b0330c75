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
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any

from . import format as fmt
from .trace import node_of
from .words import localize, words_for

W = words_for(__name__)

# key suffix → display unit (the catalog's naming rule)
SUFFIX_UNITS: tuple[tuple[str, str], ...] = (
    ("_gbit_s", "Gbit/s"),
    ("_tok_s", "token/s"),
    ("_tokens_s", "token/s"),
    ("_steps_s", W["suffix_units"]),
    ("_req_s", W["suffix_units_2"]),
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
    ("_days", W["suffix_units_3"]),
    ("_weeks", W["suffix_units_4"]),
    ("_tokens", "token"),
    ("_steps", W["suffix_units_5"]),
    ("_pct", "%"),
    ("_x", "×"),
    ("_usd", W["suffix_units_6"]),
)


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

    @cached_property
    def display_unit(self) -> str:
        """The unit shown: as declared, else from the key's suffix."""
        return unit_of_key(self.key) if self.unit is None else self.unit

    @property
    def glued(self) -> bool:
        """The unit is written onto the number (284B, 32T)."""
        return self.scale != 1

    @cached_property
    def number_format(self) -> fmt.NumberFormat:
        """How this output's numbers are written, built once from the declaration."""
        return fmt.NumberFormat(
            digits=self.digits,
            sig=self.sig,
            sci=self.sci,
            scale=self.scale,
            exp=self.exp,
            trim=self.trim,
            sep=self.sep,
            signed=self.signed,
            prefix=self.prefix,
            unit=self.display_unit,
            glued=self.glued,
            none=self.none,
        )

    def fmt(self, value: Any, *, approx: bool = False, unit: bool = True, flags: str = "") -> str:
        """The value as tiles, summaries, tables and prose print it. ``flags`` (from a template
        slot ``[[key|…]]``, comma-separated; they decide "≈" and the unit): ``n`` number without unit,
        ``c`` compact (no trailing zeros), ``dK`` K decimals, ``sK`` K significant figures, ``a`` with
        "≈", ``g0`` no thousands separator."""
        if not _numeric(value):
            return self.words(value)
        shown = self.shown(value)
        if shown is not None:
            return shown
        form = self.number_format
        if flags:
            form = form.flagged(flags)
            names = flags.split(",")
            approx, unit = "a" in names, "n" not in names
        if self.stated and not self.sci and _is_input(value):  # an input prints every digit it was given
            form = replace(form, digits=None, sig=9, trim=True)
        return form.text(value, approx=approx, unit=unit)

    def shown(self, value: Any) -> str | None:
        """The ``show`` hook's text for a number, if it has one."""
        return self.show(value) if self.show is not None and _numeric(value) else None

    def words(self, value: Any) -> str:
        """A bool/str/None output in words."""
        if self.text is not None:
            said = self.text(value) if callable(self.text) else self.text.get(value, str(value))
            return said if isinstance(said, str) else str(said)  # a Text stays a Text: the English page says it
        if isinstance(value, bool):
            return W["out.words"] if value else W["out.words_2"]
        return self.none if value is None else (value if isinstance(value, str) else str(value))  # words stay words


def undeclared(key: str) -> Out:
    """The declaration an output without one gets (format and unit from its key)."""
    return Out(key=key)


def _is_input(value: Any) -> bool:
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


def split(template: str) -> tuple[tuple[str, str, str], ...]:
    """``template`` as runs of (text, key, flag): a slot has a key (its text is the slot as
    written), plain text has none."""
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


def fill(template: str, lookup: Callable[[str, str], tuple[str, str] | None]) -> str:
    """``template`` as plain text with its slots filled: ``lookup(key, flag)`` → (text, kind), or None
    (the slot is left as written, so a typo shows rather than vanishes)."""
    if "[[" not in template:
        return template
    template = localize(template)  # a Text filled per request: its words in the edition served
    out = []
    for written, key, flag in split(template):
        hit = lookup(key, flag) if key else None
        out.append(str(localize(hit[0])) if hit else written)  # a slot holding a word (Text): its edition
    return "".join(out)


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
