"""Traced numbers: floats and ints that remember how they were computed.

Every number a card shows can explain itself ("show the math") because the engine runs the card's
own computation a second time with its inputs wrapped as traced values: the same arithmetic that
produces the number records the expression, so a derivation can never drift from the value. With
tracing off (the default, and the path every slider drag takes) arithmetic on a traced value returns
a plain number, so presets that are traced leaves cost nothing.

A trace is a tree of :class:`Node`s: ``leaf`` (an input: slider, 题设, preset, book constant), ``op``
(arithmetic and the functions a check may use), ``scale`` (a unit conversion such as ×10⁹ or ÷1024,
shown transparently), ``named`` (an intermediate with a book symbol, e.g. R_W) and ``rule`` (a value
from a simulation or search, explained in words). This module is the bottom layer: no imports from
the app.
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

_ON: ContextVar[bool] = ContextVar("aiinfra_trace_on", default=False)


@contextmanager
def tracing() -> Iterator[None]:
    """Record expressions for arithmetic on traced values inside this block."""
    token = _ON.set(True)
    try:
        yield
    finally:
        _ON.reset(token)


def is_tracing() -> bool:
    return _ON.get()


class Node:
    """One step of a computation. ``value`` is the plain number it produced."""

    __slots__ = ("kind", "op", "args", "value", "sym", "unit", "source", "text", "depth")

    def __init__(
        self,
        kind: str,
        value: float,
        op: str = "",
        args: tuple = (),
        sym: str = "",
        unit: str = "",
        source: str = "",
        text: str = "",
    ):
        self.kind, self.op, self.args, self.value = kind, op, args, value
        self.sym, self.unit, self.source, self.text = sym, unit, source, text
        self.depth: int = 1 + max((a.depth for a in args if isinstance(a, Node)), default=0)


MAX_DEPTH = 120  # deeper means arithmetic traced through a loop: such a value is not a formula
# (the calculator should be a @rule); it comes out untraced instead


class Traced:
    """Mixin for :class:`TFloat` / :class:`TInt`: operators build nodes while tracing is on."""

    node: Node

    def __add__(self, o):
        return _bin("add", operator.add, self, o)

    def __radd__(self, o):
        return _bin("add", operator.add, o, self)

    def __sub__(self, o):
        return _bin("sub", operator.sub, self, o)

    def __rsub__(self, o):
        return _bin("sub", operator.sub, o, self)

    def __mul__(self, o):
        return _bin("mul", operator.mul, self, o)

    def __rmul__(self, o):
        return _bin("mul", operator.mul, o, self)

    def __truediv__(self, o):
        return _bin("div", operator.truediv, self, o)

    def __rtruediv__(self, o):
        return _bin("div", operator.truediv, o, self)

    def __floordiv__(self, o):
        return _bin("floordiv", operator.floordiv, self, o)

    def __rfloordiv__(self, o):
        return _bin("floordiv", operator.floordiv, o, self)

    def __mod__(self, o):
        return _bin("mod", operator.mod, self, o)

    def __rmod__(self, o):
        return _bin("mod", operator.mod, o, self)

    def __pow__(self, o, mod=None):
        return _bin("pow", operator.pow, self, o)

    def __rpow__(self, o, mod=None):
        return _bin("pow", operator.pow, o, self)

    def __neg__(self):
        return _un("neg", operator.neg, self)

    def __pos__(self):
        return self

    def __abs__(self):
        return _un("abs", abs, self)

    def __ceil__(self):
        return _un("ceil", math.ceil, self)

    def __floor__(self):
        return _un("floor", math.floor, self)

    def __round__(self, ndigits=None):
        if ndigits is None:
            return _un("round", round, self)
        return _bin("round", round, self, ndigits)


class TFloat(Traced, float):
    """A float with a trace."""

    __slots__ = ("node",)


class TInt(Traced, int):
    """An int with a trace (counts, indices: still usable in ``range`` and indexing)."""


def plain(x: Any) -> Any:
    """The plain number behind ``x`` (``x`` itself when it is not traced)."""
    if isinstance(x, TFloat):
        return float(x)
    if isinstance(x, TInt):
        return int(x)
    return x


def node_of(x: Any) -> Node | None:
    return x.node if isinstance(x, Traced) else None


def _wrap(value: Any, node: Node) -> Any:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or node.depth > MAX_DEPTH:
        return value
    t = TInt(value) if isinstance(value, int) else TFloat(value)
    t.node = node
    return t


def _arg(x: Any) -> Any:
    """An operand as stored in a node: the node of a traced value, else the plain number."""
    return x.node if isinstance(x, Traced) else x


_SCALES = {10.0**k for k in range(-15, 16) if abs(k) >= 2} | {1024.0**k for k in range(1, 6)}


def _is_scale(c: Any) -> bool:
    """Unit conversions (×10⁹, ÷1024, ×100 for %): shown transparently in formulas."""
    return isinstance(c, (int, float)) and not isinstance(c, bool) and float(c) in _SCALES


def _bin(op: str, fn: Callable, a: Any, b: Any) -> Any:
    value = fn(plain(a), plain(b))
    if not _ON.get() or not isinstance(value, (int, float)):
        return value
    kind = "op"
    if op == "add" and isinstance(a, Traced) and a.node.kind == "op" and a.node.op in ("add", "sum"):
        return _wrap(value, Node("op", value, "sum", (*a.node.args, _arg(b))))
    if op in ("mul", "div") and not isinstance(b, Traced) and _is_scale(b):
        kind = "scale"
    elif op == "mul" and not isinstance(a, Traced) and _is_scale(a):
        kind, a, b = "scale", b, a
    return _wrap(value, Node(kind, value, op, (_arg(a), _arg(b))))


def _un(op: str, fn: Callable, a: Any) -> Any:
    value = fn(plain(a))
    if not _ON.get():
        return value
    return _wrap(value, Node("op", value, op, (_arg(a),)))


# ---------------------------------------------------------------------------------------------
# Making traced values
# ---------------------------------------------------------------------------------------------


def leaf(value: Any, sym: str = "", unit: str = "", source: str = "") -> Any:
    """An input value: a slider, a 题设, a preset field or a constant the book states. Traced even
    with tracing off (so module-level presets carry their provenance), at no cost to arithmetic."""
    if value is None or isinstance(value, bool) or not isinstance(value, (int, float)):
        return value
    return _wrap(plain(value), Node("leaf", plain(value), sym=sym, unit=unit, source=source))


given = leaf


def name(x: Any, sym: str, unit: str = "") -> Any:
    """Give an intermediate result a book symbol (``R_W``, ``T_{step}``): formulas above it show
    the symbol, and the derivation lists it as a step of the chain. A no-op when not tracing."""
    if not _ON.get() or not isinstance(x, (int, float)) or isinstance(x, bool):
        return x
    v = plain(x)
    return _wrap(v, Node("named", v, args=(_arg(x),), sym=sym, unit=unit))


def by_rule(x: Any, text: str, sym: str = "", unit: str = "", inputs: tuple = ()) -> Any:
    """A value obtained by a rule (simulation, search, fit): explained in words, no check."""
    if not _ON.get() or not isinstance(x, (int, float)) or isinstance(x, bool):
        return x
    v = plain(x)
    return _wrap(v, Node("rule", v, args=tuple(_arg(i) for i in inputs), sym=sym, unit=unit, text=text))


def rule(text: str, sym: str = "", unit: str = "") -> Callable[[Callable], Callable]:
    """Decorator for a calculator that simulates or searches: its arguments enter as plain
    numbers (no trace through the loop) and its numeric results come out as ``by_rule`` values.
    Results may be a number, a tuple/list of numbers, or a dataclass whose number fields are traced."""
    import dataclasses
    import functools

    def wrap(fn: Callable) -> Callable:
        @functools.wraps(fn)
        def inner(*args: Any, **kw: Any) -> Any:
            if not _ON.get():
                return fn(*args, **kw)
            inputs = tuple(a for a in (*args, *kw.values()) if isinstance(a, Traced))
            res = fn(*(plain(a) for a in args), **{k: plain(v) for k, v in kw.items()})

            def mark(v: Any, s: str = sym) -> Any:
                return by_rule(v, text, s, unit, inputs)

            if isinstance(res, (int, float)):
                return mark(res)
            if isinstance(res, tuple) and not hasattr(res, "_fields"):
                return tuple(mark(v) for v in res)
            if dataclasses.is_dataclass(res) and not isinstance(res, type):
                upd = {
                    f.name: mark(getattr(res, f.name), f.name)
                    for f in dataclasses.fields(res)
                    if isinstance(getattr(res, f.name), (int, float)) and not isinstance(getattr(res, f.name), bool)
                }
                return dataclasses.replace(res, **upd) if upd else res
            return res

        return inner

    return wrap


def _fn(op: str, fn: Callable, *xs: Any) -> Any:
    value = fn(*(plain(x) for x in xs))
    if not _ON.get() or not any(isinstance(x, Traced) for x in xs):
        return value
    return _wrap(value, Node("op", value, op, tuple(_arg(x) for x in xs)))


def _operands(xs: tuple) -> tuple:
    """``f(a, b, …)`` or ``f([a, b, …])``, as builtin ``max``/``min`` take them."""
    return tuple(xs[0]) if len(xs) == 1 and isinstance(xs[0], (list, tuple)) else xs


def tmax(*xs: Any) -> Any:
    """``max`` that keeps the trace (builtin ``max`` returns one operand and loses the comparison)."""
    xs = _operands(xs)
    return xs[0] if len(xs) == 1 else _fn("max", max, *xs)


def tmin(*xs: Any) -> Any:
    xs = _operands(xs)
    return xs[0] if len(xs) == 1 else _fn("min", min, *xs)


def tsqrt(x: Any) -> Any:
    return _fn("sqrt", math.sqrt, x)


def tlog(x: Any) -> Any:
    return _fn("log", math.log, x)


def tlog2(x: Any) -> Any:
    return _fn("log2", math.log2, x)


def tlog10(x: Any) -> Any:
    return _fn("log10", math.log10, x)


def texp(x: Any) -> Any:
    return _fn("exp", math.exp, x)


def tsum(xs: Any, start: Any = 0) -> Any:
    """``sum`` as one n-ary addition (a flat formula, and no deep recursion for long lists)."""
    items = [start, *xs] if start != 0 or isinstance(start, Traced) else list(xs)
    value = sum(plain(x) for x in items) if items else 0
    if not _ON.get() or not any(isinstance(x, Traced) for x in items):
        return value
    return _wrap(value, Node("op", value, "sum", tuple(_arg(x) for x in items)))


# ---------------------------------------------------------------------------------------------
# Re-running a trace with a part changed (what an answer with one factor left out would be)
# ---------------------------------------------------------------------------------------------

OPS: dict[str, Callable] = {  # the operations a trace records, by name
    "add": operator.add,
    "sub": operator.sub,
    "mul": operator.mul,
    "div": operator.truediv,
    "floordiv": operator.floordiv,
    "mod": operator.mod,
    "pow": operator.pow,
    "neg": operator.neg,
    "abs": abs,
    "ceil": math.ceil,
    "floor": math.floor,
    "round": round,
    "sum": lambda *xs: sum(xs),
    "max": max,
    "min": min,
    "sqrt": math.sqrt,
    "log": math.log,
    "log2": math.log2,
    "log10": math.log10,
    "exp": math.exp,
}


def recompute(node: Node, swap: dict[Node, float]) -> float:
    """The value of ``node``'s computation with each node in ``swap`` replaced by its value there
    (a rule's value — a simulation — stays as it was run). Raises ``ArithmeticError``/``ValueError``
    when the changed computation has no value (a division by zero, a log of zero)."""
    if node in swap:
        return swap[node]
    if node.kind in ("leaf", "rule"):
        return node.value
    args = [recompute(a, swap) if isinstance(a, Node) else a for a in node.args]
    if node.kind == "named":
        return args[0]
    return OPS[node.op](*args)


# ---------------------------------------------------------------------------------------------
# Safe evaluation of check expressions
# ---------------------------------------------------------------------------------------------

CHECK_FUNCS: dict[str, Callable] = {
    "min": min,
    "max": max,
    "abs": abs,
    "sqrt": math.sqrt,
    "log": math.log,
    "log2": math.log2,
    "log10": math.log10,
    "exp": math.exp,
    "ceil": math.ceil,
    "floor": math.floor,
}
_BINOPS = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.Pow: operator.pow,
}


def evaluate(expr: str) -> float:
    """Evaluate a check expression: decimal numbers, ``+ - * / **``, parentheses and the
    functions of :data:`CHECK_FUNCS`. Anything else raises ``ValueError`` (this is not ``eval``)."""
    if len(expr) > 100_000:
        raise ValueError("expression too long")
    return _ev(ast.parse(expr, mode="eval").body)


def _ev(n: ast.AST) -> Any:
    if isinstance(n, ast.Constant) and isinstance(n.value, (int, float)) and not isinstance(n.value, bool):
        return n.value
    if isinstance(n, ast.BinOp) and type(n.op) in _BINOPS:
        a, b = _ev(n.left), _ev(n.right)
        if isinstance(n.op, ast.Pow) and isinstance(a, int) and isinstance(b, int) and abs(b) > 1000:
            raise ValueError("exponent too large")  # exact integer powers could be enormous
        try:
            return _BINOPS[type(n.op)](a, b)
        except OverflowError:
            raise ValueError("result too large") from None
    if isinstance(n, ast.UnaryOp) and isinstance(n.op, (ast.USub, ast.UAdd)):
        v = _ev(n.operand)
        return -v if isinstance(n.op, ast.USub) else v
    if (
        isinstance(n, ast.Call)
        and isinstance(n.func, ast.Name)
        and n.func.id in CHECK_FUNCS
        and not n.keywords
        and n.args
    ):
        return CHECK_FUNCS[n.func.id](*(_ev(a) for a in n.args))
    raise ValueError(f"not allowed in a check: {ast.dump(n)[:60]}")
