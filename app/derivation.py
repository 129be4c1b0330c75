"""Derivations: a traced number (``app.trace``) written out three ways.

- ``formula``: the expression in the book's symbols, stopping at named intermediates (``R_W/β``);
- ``substituted``: the same expression with the reader's values and units (``70 GB ÷ 3.35 TB/s``);
- ``check``: a plain arithmetic expression over decimal numbers, expanded down to the inputs, that
  evaluates (``app.trace.evaluate``) to the number in its output's own unit.

Unit conversions (×10⁹, ÷1024, ×100 for %) are transparent in the first two and explicit in the
third. A chain lists every named intermediate as a step, and the inputs with their sources.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from . import format as fmt
from .trace import Node, node_of
from .words import localize, words_for

W = words_for(__name__)

PREC = {"add": 1, "sub": 1, "sum": 1, "mul": 2, "div": 2, "floordiv": 5, "mod": 2, "neg": 3, "pow": 4}
FUNC_TEXT = {"max": "max", "min": "min", "log": "ln", "log2": "log₂", "log10": "log₁₀", "exp": "exp", "round": "round"}
MAX_CHECK = 6000  # characters; beyond this the check stops at named intermediates
HELD_VALUE = "?"  # a held-back value where a derivation would print it (render.card.HIDDEN_TEXT)
MAX_TERMS = 8  # a long sum shows its first and last terms in formulas

PRECISE = replace(fmt.BRIEF, sig=7)  # inside ⌊⌋ ⌈⌉ round(): enough digits that the rounding reads right


def short(x: float) -> str:
    """A given value as given: integers whole, others to 6 significant figures, no trailing zeros;
    from 10¹⁵ on, scientific (1×10²¹)."""
    return fmt.GIVEN.text(x)


def with_unit(value: float, unit: str, *, given: bool = False, precise: bool = False) -> str:
    """A value and its unit: a given value as given; a derived one to 4 significant figures with the
    SI prefix its magnitude asks for (70 GB, 3.35 TB/s, 20.9 ms)."""
    unit = localize(unit)  # a word unit (Text, 项/条) in the edition served
    if given:
        return fmt.with_unit_text(fmt.GIVEN.text(value), unit)
    return fmt.si_text(value, unit, PRECISE if precise else fmt.BRIEF)


def sym_text(sym: str) -> str:
    """``T_{step}`` → ``T_step``; ``\\beta`` → ``β`` (plain text for JSON)."""
    s = localize(sym).replace("{", "").replace("}", "")  # a label (Text) in the edition served
    return re.sub(r"\\([A-Za-z]+)", lambda m: _GREEK.get(m.group(1), m.group(1)), s)


_GREEK = {
    "beta": "β",
    "Pi": "Π",
    "lambda": "λ",
    "mu": "μ",
    "rho": "ρ",
    "eta": "η",
    "alpha": "α",
    "gamma": "γ",
    "delta": "δ",
    "Delta": "Δ",
    "tau": "τ",
    "sigma": "σ",
    "theta": "θ",
    "cdot": "·",
}


def sym_tex(sym: str) -> str:
    """A symbol for TeX: words that are not a symbol (Chinese labels) go in ``\\text{}``."""
    sym = localize(sym)  # a label (Text) in the edition served
    if re.fullmatch(r"[A-Za-z\u0370-\u03ff\\{}_^*'0-9,.]+", sym):
        return sym
    return r"\text{" + sym.replace("{", "").replace("}", "") + "}"


class _Render:
    """Render a node in one of three styles: ``text`` (formula), ``tex`` (formula for MathML) and
    ``sub`` (values substituted)."""

    def __init__(self, style: str, held: frozenset[int] = frozenset(), held_values: tuple[float, ...] = ()):
        self.style = style
        self.held = held  # ids of the nodes whose values are held back: "?" where their value would show
        self.held_values = held_values  # and written numbers equal to one of them (worked out untraced)
        self.precise = 0  # inside ⌊⌋ ⌈⌉ round(): show enough digits that the rounding reads right

    def atom(self, n: Any) -> str:
        if not isinstance(n, Node):
            return self.const(n)
        if self.style == "sub" and id(n) in self.held:
            return HELD_VALUE
        if self.style == "sub":
            return with_unit(n.value, n.unit, given=n.kind == "leaf", precise=bool(self.precise))
        if n.sym:
            return sym_tex(n.sym) if self.style == "tex" else sym_text(n.sym)
        return with_unit(n.value, n.unit, given=True)

    def const(self, c: Any) -> str:
        if (
            self.style == "sub"
            and isinstance(c, (int, float))
            and any(math.isclose(c, v, rel_tol=1e-9) for v in self.held_values)
        ):
            return HELD_VALUE
        return short(c) if self.style != "tex" else short(c).replace(",", "{,}")

    def go(self, n: Any) -> tuple[str, int]:
        """(text, precedence) of ``n``."""
        if not isinstance(n, Node):
            return self.const(n), (3 if isinstance(n, (int, float)) and n < 0 else 9)
        if self.style == "sub" and id(n) in self.held:
            return HELD_VALUE, 9
        if n.kind in ("leaf", "named", "rule"):
            negative = self.style == "sub" and n.value < 0
            return self.atom(n), (3 if negative else 9)
        if n.kind == "scale":
            return self.go(n.args[0])
        return self.op(n)

    def wrap(self, n: Any, min_prec: int) -> str:
        s, p = self.go(n)
        return f"({s})" if p < min_prec else s

    def op(self, n: Node) -> tuple[str, int]:
        a = n.args
        tex, sub = self.style == "tex", self.style == "sub"
        if n.op in ("add", "sub", "sum"):
            parts = [self.wrap(x, 1) for x in a] if n.op != "sub" else [self.wrap(a[0], 1), self.wrap(a[1], 2)]
            joiner = " + " if n.op != "sub" else (" - " if tex else " − ")
            if n.op == "sum" and len(parts) > MAX_TERMS and not sub:
                parts = parts[:3] + ["\\dots" if tex else "…"] + parts[-2:]
            elif n.op == "sum" and len(parts) > MAX_TERMS:
                parts = parts[:3] + [W.f("render.op", len=len(a))] + parts[-2:]
            return joiner.join(parts), 1
        if n.op == "mul":
            x, y = self.wrap(a[0], 2), self.wrap(a[1], 3)
            if sub:
                return f"{x} × {y}", 2
            if not isinstance(a[0], Node) and isinstance(a[1], Node) and self.go(a[1])[1] == 9:
                return f"{x}{y}", 2  # 2B, 2β: a number before a symbol, as the book writes
            return (f"{x} \\cdot {y}" if tex else f"{x}·{y}"), 2
        if n.op == "div":
            x, y = self.wrap(a[0], 2), self.wrap(a[1], 3)
            return (f"{x} ÷ {y}" if sub else f"{x}/{y}"), 2
        if n.op == "floordiv":
            x, y = self.wrap(a[0], 2), self.wrap(a[1], 3)
            inner = f"{x} ÷ {y}" if sub else f"{x}/{y}"
            return (f"\\lfloor {inner} \\rfloor" if tex else f"⌊{inner}⌋"), 9
        if n.op == "mod":
            return f"{self.wrap(a[0], 3)} mod {self.wrap(a[1], 3)}", 2
        if n.op == "neg":
            return ("-" if tex else "−") + self.wrap(a[0], 3), 3
        if n.op == "pow":
            x = self.wrap(a[0], 5)
            y = self.go(a[1])[0] if tex else self.wrap(a[1], 9)
            return (f"{x}^{{{y}}}" if tex else f"{x}^{y}"), 4
        return self.func(n), 9

    def func(self, n: Node) -> str:
        tex = self.style == "tex"
        rounding = n.op in ("ceil", "floor", "round")
        self.precise += rounding
        try:
            args = ", ".join(self.go(x)[0] for x in n.args)
        finally:
            self.precise -= rounding
        if n.op == "ceil":
            return f"\\lceil {args} \\rceil" if tex else f"⌈{args}⌉"
        if n.op == "floor":
            return f"\\lfloor {args} \\rfloor" if tex else f"⌊{args}⌋"
        if n.op == "abs":
            return f"|{args}|"
        if n.op == "sqrt":
            return f"\\sqrt{{{args}}}" if tex else f"√({args})"
        name = FUNC_TEXT.get(n.op, n.op)
        if tex:
            name = {"max": "\\max", "min": "\\min", "ln": "\\ln", "exp": "\\exp"}.get(name, f"\\mathrm{{{name}}}")
        return f"{name}({args})"


def _check(n: Any, stop_at_named: bool = False) -> str:
    """Python-syntax arithmetic over decimal literals that evaluates to ``n``'s value."""
    if not isinstance(n, Node):
        v = float(n)
        return f"({v!r})" if v < 0 else repr(v)
    if n.kind in ("leaf", "rule") or (stop_at_named and n.kind == "named"):
        v = float(n.value)
        return f"({v!r})" if v < 0 else repr(v)
    if n.kind == "named":
        return _check(n.args[0], stop_at_named)
    a = [_check(x, stop_at_named) for x in n.args]
    op = n.op
    if op in ("add", "sum"):
        return "(" + " + ".join(a) + ")"
    sym = {"sub": "-", "mul": "*", "div": "/", "pow": "**"}.get(op)
    if sym:
        return f"({a[0]} {sym} {a[1]})"
    if op == "floordiv":
        return f"floor({a[0]} / {a[1]})"
    if op == "mod":
        return f"({a[0]} - {a[1]} * floor({a[0]} / {a[1]}))"
    if op == "neg":
        return f"(-{a[0]})"
    if op == "round":
        if len(a) == 1:
            return f"floor({a[0]} + 0.5)"
        return f"(floor({a[0]} * 10 ** {a[1]} + 0.5) / 10 ** {a[1]})"
    return f"{op}({', '.join(a)})"


def _named_under(
    n: Any, out: list[Node], seen: set[int], leaves: list[Node], depth: int = 0, held: frozenset[int] = frozenset()
) -> None:
    """Named intermediates and leaves under ``n`` in dependency order (each once). A ``held`` node is
    listed without what is under it (its working would spell out its value); a held input not at all."""
    if not isinstance(n, Node) or id(n) in seen or depth > 400:
        return
    seen.add(id(n))
    if id(n) in held:
        if n.kind in ("named", "rule"):
            out.append(n)
        return
    for x in n.args:
        _named_under(x, out, seen, leaves, depth + 1, held)
    if n.kind in ("named", "rule"):
        out.append(n)
    elif n.kind == "leaf":
        leaves.append(n)


def _reaches(top: Node, held: frozenset[int]) -> bool:
    """Whether a held node is a part of ``top``."""
    seen, stack = set(), [top]
    while stack:
        n = stack.pop()
        if not isinstance(n, Node) or id(n) in seen:
            continue
        if id(n) in held:
            return True
        seen.add(id(n))
        stack.extend(n.args)
    return False


def unwrap(n: Node) -> Node:
    """Strip unit conversions around a node (``t·10³`` shows as ``t``)."""
    while n.kind == "scale":
        n = n.args[0]
    return n


@dataclass
class Step:
    sym: str
    formula: str
    substituted: str
    result: str


@dataclass
class Derivation:
    """One output explained. ``input`` entries carry ``source``; others a formula, the values
    substituted and, for arithmetic, a ``check``; a rule (simulation, search) has no check."""

    input: bool = False
    source: str = ""
    sym: str = ""
    formula: str = ""
    tex: str = ""
    substituted: str = ""
    result: str = ""
    check: str | None = None
    steps: list[Step] = field(default_factory=list)
    inputs: list[Step] = field(default_factory=list)
    evaluated: str = ""  # a max/min with its terms worked out: max(0.1415 ms, 20.90 ms)

    def as_json(self) -> dict[str, Any]:
        if self.input:
            return {"input": True, "source": self.source}
        d: dict[str, Any] = {"formula": self.formula, "substituted": self.substituted, "result": self.result}
        if self.evaluated:
            d["evaluated"] = self.evaluated
        if self.check is not None:
            d["check"] = self.check
        if self.steps:
            d["steps"] = [s.__dict__ for s in self.steps]
        if self.inputs:
            d["inputs"] = [{"sym": s.sym, "value": s.substituted, "source": s.result} for s in self.inputs]
        return d


def _define(n: Node, text: _Render, tex: _Render, sub: _Render) -> tuple[str, str, str]:
    """(formula, tex, substituted) of what ``n`` is made of (a named node: its definition)."""
    body = n.args[0] if n.kind == "named" else n
    return text.go(body)[0], tex.go(body)[0], sub.go(body)[0]


def _choice(top: Node) -> Node | None:
    """The max/min a formula is (through its name and unit conversions), if it is one."""
    n = top.args[0] if top.kind == "named" else top
    n = unwrap(n) if isinstance(n, Node) else n
    while isinstance(n, Node) and n.kind == "named":
        n = unwrap(n.args[0]) if isinstance(n.args[0], Node) else n.args[0]
    return n if isinstance(n, Node) and n.kind == "op" and n.op in ("max", "min") else None


def _evaluated(value: Any, top: Node, shown: Callable[[float], str] | None, held_values: tuple[float, ...] = ()) -> str:
    """``max(0.1415 ms, 20.90 ms)``: each term of a max/min in the output's own format, so the step
    between the values substituted and the result reads (the terms scaled as the output is); a term
    equal to a held-back output's value (in the same units) reads "?"."""
    n = _choice(top)
    if n is None or shown is None or not n.value:
        return ""
    ratio = float(value) / n.value
    terms = [(a.value if isinstance(a, Node) else a) * ratio for a in n.args]
    held = [any(math.isclose(t, v, rel_tol=1e-9) for v in held_values) for t in terms]
    return f"{n.op}({', '.join(HELD_VALUE if h else shown(t) for t, h in zip(terms, held))})"


_BYTE_UNIT = re.compile(r"(?<=\d) B(?=$|[^\w/]|/s)")


def _bytes_as_words(d: Derivation) -> Derivation:
    """Where the batch size B is a symbol of the derivation, a bare byte unit is written 字节 (1 字节,
    not 1 B beside B = 16)."""

    def w(t: str) -> str:
        return _BYTE_UNIT.sub(localize(W["bytes_as_words.w.sub"]), t)  # built per request: in its edition

    return replace(
        d,
        substituted=w(d.substituted),
        result=w(d.result),
        evaluated=w(d.evaluated),
        steps=[replace(x, substituted=w(x.substituted), result=w(x.result)) for x in d.steps],
        inputs=[replace(x, substituted=w(x.substituted)) for x in d.inputs],
    )


def derive(
    value: Any,
    sym: str,
    result: str,
    rule_text: str = "",
    shown: Callable[[float], str] | None = None,
    held: frozenset[int] = frozenset(),
    held_values: tuple[float, ...] = (),
) -> Derivation | None:
    """The derivation of an output ``value`` shown as ``result`` (``shown`` writes a number as the
    output does); ``sym`` names it (book symbol or label). None when the value carries no trace (the
    caller decides what that means). ``held``: the ids of nodes that are other outputs held back (an
    answer not yet tried): where one of them is a part, its value reads "?" and its own working is not
    shown, so a given's derivation never expands into an answer; ``held_values``: their values, for the
    numbers a formula writes without a trace."""
    node = node_of(value)
    if node is None:
        if rule_text:
            return Derivation(sym=sym, formula=rule_text, result=result)
        return None
    top = unwrap(node)
    if top.kind == "leaf":
        return Derivation(input=True, source=top.source or W["derive.source"], sym=sym, result=result)
    text, tex, sub = _Render("text"), _Render("tex"), _Render("sub", held, held_values)
    if top.kind == "rule":
        ins = "; ".join(f"{text.atom(x)} = {sub.atom(x)}" for x in top.args if isinstance(x, Node))
        return Derivation(
            sym=sym,
            formula=f"{sym_text(sym)}:{localize(top.text)}",
            tex="",
            substituted=ins or result,
            result=result,
            inputs=_inputs(top, text, sub),
        )
    left = sym_text(top.sym) if top.kind == "named" and top.sym else sym_text(sym)
    left_tex = sym_tex(top.sym) if top.kind == "named" and top.sym else sym_tex(sym)
    f, t, s = _define(top, text, tex, sub)
    check: str | None
    named: list[Node] = []
    leaves: list[Node] = []
    _named_under(top.args[0] if top.kind == "named" else top, named, set(), leaves, held=held)
    hides = held and _reaches(top, held)
    check = None if hides else _check(node)  # a check line spells out every part's value
    if check is not None and len(check) > MAX_CHECK:
        check = _check(node, stop_at_named=True)
        if len(check) > MAX_CHECK:
            check = None
    steps = []
    for m in named:
        if id(m) in held:
            steps.append(Step(sym_text(m.sym) or "…", "", "", HELD_VALUE))  # its working would spell it out
        elif m.kind == "rule":
            steps.append(Step(sym_text(m.sym) or "…", localize(m.text), "", with_unit(m.value, m.unit)))
        else:
            mf, _, ms = _define(m, text, tex, sub)
            steps.append(Step(sym_text(m.sym), mf, ms, with_unit(m.value, m.unit)))
    d = Derivation(
        sym=left,
        formula=f"{left} = {f}",
        tex=f"{left_tex} = {t}",
        substituted=s,
        result=result,
        check=check,
        steps=steps,
        inputs=_inputs_of(leaves, text, sub),
        evaluated="" if hides else _evaluated(value, top, shown, held_values),
    )
    return _bytes_as_words(d) if any(x.sym == "B" for x in leaves) else d


def _inputs_of(leaves: list[Node], text: _Render, sub: _Render) -> list[Step]:
    out, seen = [], set()
    for x in leaves:
        key = (x.sym, x.value, x.source)
        if key in seen:
            continue
        seen.add(key)
        out.append(Step(text.atom(x), "", sub.atom(x), x.source))
    return out


def _inputs(top: Node, text: _Render, sub: _Render) -> list[Step]:
    leaves: list[Node] = []
    _named_under(top, [], set(), leaves)
    return _inputs_of(leaves, text, sub)
