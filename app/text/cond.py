"""Prose that stays true: a sentence that compares a card's live numbers is written once per case,
and the card's state picks the case.

    {{if eg-1-1: read_to_compute_ratio >= 2}}计算只要 …,相差约 [[eg-1-1.read_to_compute_ratio|n]] 倍
    {{elif compute_to_read_ratio >= 2}}计算却要 …{{else}}两项相近{{end}}

(on one line inside a paragraph). ``{{if CARD: CONDITION}}`` names the card whose state decides;
each ``{{elif CONDITION}}`` / ``{{else}}`` starts another case; the first case whose condition holds
is the text. A case is ordinary prose: Markdown, ``$tex$`` and live numbers ``[[card.key|flags]]``.
The first case is the one that holds at the card's defaults (a test holds every section to it), so
the page reads the same whoever renders it.

A condition is a Python-like expression over the card's outputs and params (and its view's ``ctx``),
by name (an output before a param of the same name; ``at_defaults``: the card is at its defaults):
comparisons (``<  <=  >  >=  ==  !=``, chained), ``and`` / ``or`` / ``not``, numbers,
``"strings"``, ``True`` / ``False`` / ``None``. No arithmetic and no calls: a number a case needs
(a ratio) is an output of the card. It is parsed once with :mod:`ast` and evaluated by walking the
tree here (never ``eval``); anything else is refused when the prose is read.
"""

from __future__ import annotations

import ast
import hashlib
import operator
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache, cached_property
from typing import Any

from ..words import words_for

W = words_for(__name__)

IF = re.compile(r"\{\{if ([a-z0-9-]+):\s*(.*?)\}\}(.*?)\{\{end\}\}", re.S)
_CASE = re.compile(r"\{\{(?:elif\s+(.*?)|(else))\}\}", re.S)

_COMPARE: dict[type, Callable[[Any, Any], bool]] = {
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
}


class ProseError(ValueError):
    """A conditional the prose cannot hold: a malformed block or a condition outside the grammar."""


@dataclass(frozen=True)
class Condition:
    """One parsed condition: its source, its tree and the names it reads."""

    source: str
    tree: ast.expr = field(repr=False, compare=False)
    names: frozenset[str] = frozenset()

    def holds(self, lookup: Callable[[str], Any]) -> bool:
        """Whether the condition holds, each name's value from ``lookup`` (KeyError: no such name)."""
        return bool(_value(self.tree, lookup))


@cache
def condition(source: str) -> Condition:
    """``source`` parsed and checked against the grammar (see the module docstring)."""
    try:
        tree = ast.parse(source.strip(), mode="eval").body
    except SyntaxError as e:
        raise ProseError(W.f("condition.proseerror", source=source, msg=e.msg)) from None
    names: set[str] = set()
    _check(tree, names, source)
    return Condition(source.strip(), tree, frozenset(names))


def _check(node: ast.AST, names: set[str], source: str) -> None:
    if isinstance(node, ast.BoolOp) and isinstance(node.op, (ast.And, ast.Or)):
        for v in node.values:
            _check(v, names, source)
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        _check(node.operand, names, source)
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and _is_number(node.operand):
        pass
    elif isinstance(node, ast.Compare) and all(type(op) in _COMPARE for op in node.ops):
        for v in (node.left, *node.comparators):
            _check(v, names, source)
    elif isinstance(node, ast.Name):
        names.add(node.id)
    elif isinstance(node, ast.Constant) and (node.value is None or isinstance(node.value, (bool, int, float, str))):
        pass
    else:
        raise ProseError(W.f("check.proseerror", source=source, v=ast.dump(node)[:40]))


def _is_number(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool)


def _value(node: ast.expr, lookup: Callable[[str], Any]) -> Any:
    if isinstance(node, ast.BoolOp):
        if isinstance(node.op, ast.And):
            return all(_value(v, lookup) for v in node.values)
        return any(_value(v, lookup) for v in node.values)
    if isinstance(node, ast.UnaryOp):
        if isinstance(node.op, ast.Not):
            return not _value(node.operand, lookup)
        return -_value(node.operand, lookup)
    if isinstance(node, ast.Compare):
        left = _value(node.left, lookup)
        for op, right_node in zip(node.ops, node.comparators, strict=True):
            right = _value(right_node, lookup)
            if not _compare(_COMPARE[type(op)], left, right):
                return False
            left = right
        return True
    if isinstance(node, ast.Name):
        return lookup(node.id)
    if isinstance(node, ast.Constant):
        return node.value
    raise ProseError(ast.dump(node))  # unreachable: condition() admits nothing else


def _compare(op: Callable[[Any, Any], bool], a: Any, b: Any) -> bool:
    """``a op b``; an order between a missing value (None) or unlike kinds is simply false."""
    if op in (operator.eq, operator.ne):
        return op(a, b)
    try:
        return op(a, b)
    except TypeError:
        return False


@dataclass(frozen=True)
class Conditional:
    """One ``{{if …}}…{{end}}`` block: the card that decides, each case's condition (None: ``else``)
    and text, and an id (from its source) that the page and the card's live values share."""

    card: str
    conditions: tuple[Condition | None, ...]
    texts: tuple[str, ...]
    source: str

    @cached_property
    def id(self) -> str:
        return hashlib.blake2s(self.source.encode(), digest_size=4).hexdigest()

    @property
    def names(self) -> frozenset[str]:
        return frozenset().union(*(c.names for c in self.conditions if c is not None))

    def choose(self, lookup: Callable[[str], Any]) -> int:
        """The index of the case that holds (the first whose condition holds, else the ``else``
        case); -1 when none does (the block then reads as nothing)."""
        for i, c in enumerate(self.conditions):
            if c is None or c.holds(lookup):
                return i
        return -1


def parse(m: re.Match[str]) -> Conditional:
    """The conditional an :data:`IF` match wrote."""
    card, first, body = m.group(1), m.group(2), m.group(3)
    if "{{if " in body:
        raise ProseError(W.f("parse.proseerror", v=m.group(0)[:60]))
    if "\n\n" in body:
        raise ProseError(W.f("parse.proseerror_2", v=m.group(0)[:60]))
    conds: list[Condition | None] = [condition(first)]
    texts: list[str] = []
    pos = 0
    for c in _CASE.finditer(body):
        texts.append(body[pos : c.start()])
        if conds[-1] is None:
            raise ProseError(W.f("parse.proseerror_3", v=m.group(0)[:60]))
        conds.append(None if c.group(2) else condition(c.group(1)))
        pos = c.end()
    texts.append(body[pos:])
    return Conditional(card, tuple(conds), tuple(texts), m.group(0))


def conditionals(text: str) -> list[Conditional]:
    """Every conditional of a prose text, in order."""
    return [parse(m) for m in IF.finditer(text)]
