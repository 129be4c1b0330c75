"""Checking a reader's answer to a question: one rule for the page, the API and the live class.

**正确** within the card's display rounding or 0.5 % (whichever is wider), **接近** within 5 %, otherwise
**不对**. An answer that is not 正确 is held against the likely slips; when one matches (within 0.5 %)
the result names it (``diagnosis``: a stable id, and a sentence) and the verdict stays what the rule
says. The slips come from three places:

- the number's own traced derivation, mechanically: each factor of its formula left out or applied
  twice, each term of a sum left out (so every card with derivations gets diagnoses for free);
- what the card declares for a question (``Question.slips``: total vs active parameters, TP not
  divided, …, values its ``compute`` worked out);
- unit slips: the question's own alternative units; ×10³ and ×10⁶ for any number, ×100 for a
  percentage; bits vs bytes (×8) and GB vs GiB (×1.0737) for byte quantities.

The expected value of a numeric question is the card's own output ``outputs[q.key]`` at the reader's
parameters, so an answer can never disagree with the chart.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from .cards import Question
from .derivation import sym_text
from .format import GIVEN
from .outputs import Out, undeclared
from .trace import OPS, Node, node_of, recompute
from .words import words_for

W = words_for(__name__)

CORRECT_REL = 0.005  # 正确: within 0.5 % (or the display rounding, when that is wider)
CLOSE_REL = 0.05  # 接近: within 5 %
SLIP_REL = 0.005  # an answer matches a slip within 0.5 % of the slip's value
RULE_TEXT = W["rule_text"]
VERDICT_TEXT = {
    "correct": W["verdict_text.correct"],
    "close": W["verdict_text.close"],
    "incorrect": W["verdict_text.incorrect"],
}
MAX_NODES = 400  # factor slips are looked for in the first this many parts of a derivation

BYTE_UNITS = re.compile(r"(^|[kKMGTP]i?)B(/s)?$|^bit|bit/s$")


@dataclass(frozen=True)
class Slip:
    """A likely mistake: its stable id, the sentence that names it, the value it would give."""

    id: str
    text: str
    value: float


# --------------------------------------------------------------------------- the rule


def display_step(decl: Out, value: float) -> float:
    """Half a unit of the last digit the output shows for ``value`` (in the value's own unit): an
    answer that rounds to what the card prints is within it."""
    text = decl.fmt(value, unit=False)
    m = re.search(r"(\d[\d,]*)(?:\.(\d+))?", text)
    if m is None:
        return 0.0
    decimals = len(m.group(2) or "")
    exp = re.search(r"×10([⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+)", text)
    e = int(exp.group(1).translate(str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789"))) if exp else 0
    return 0.5 * 10 ** (e - decimals) * decl.scale * 10**decl.exp


def verdict_of(answer: float, expected: float, step: float = 0.0) -> str:
    """The rule: 正确 / 接近 / 不对 for a numeric answer."""
    err = abs(answer - expected)
    if err <= max(step, CORRECT_REL * abs(expected)) * (1 + 1e-9):
        return "correct"
    if err <= CLOSE_REL * abs(expected):
        return "close"
    return "incorrect"


# --------------------------------------------------------------------------- slips from the derivation


def _label(n: Any) -> str:
    """How a part of a formula is named to the reader: a slider's label, a symbol, or the number."""
    if not isinstance(n, Node):
        return GIVEN.text(n)
    if n.kind == "leaf" and n.source.startswith((W["label.startswith"], W["label.startswith_2"])):
        return n.source.split(":", 1)[1]
    return sym_text(n.sym) if n.sym else GIVEN.text(n.value)


def _symbol(n: Any) -> str:
    """A part's stable name in a diagnosis id: its symbol, else its label."""
    return sym_text(n.sym) if isinstance(n, Node) and n.sym else _label(n)


def _named(a: Any) -> bool:
    """A part a reader can leave out: an input, a named intermediate, a rule's value or a written
    number (an unnamed sub-expression is looked into instead)."""
    return not isinstance(a, Node) or a.kind in ("leaf", "named", "rule")


def _parts(root: Node) -> Iterator[tuple[Node, int, Any]]:
    """Every (operation, operand index, operand) of the derivation, outermost first, through named
    intermediates and unit conversions."""
    seen, stack, count = set(), [root], 0
    while stack and count < MAX_NODES:
        n = stack.pop(0)
        if n in seen or n.kind in ("leaf", "rule"):
            continue
        seen.add(n)
        count += 1
        for i, a in enumerate(n.args):
            if n.kind in ("op", "scale"):
                yield n, i, a
            if isinstance(a, Node):
                stack.append(a)


_FACTOR_TEXT = {
    ("mul", "drop"): ("dropped_factor", W["factor_text.t"]),
    ("mul", "twice"): ("doubled_factor", W["factor_text.t_2"]),
    ("div", "drop"): ("dropped_divisor", W["factor_text.t_3"]),
    ("div", "twice"): ("doubled_divisor", W["factor_text.t_4"]),
    ("add", "drop"): ("dropped_term", W["factor_text.t_5"]),
    ("sum", "drop"): ("dropped_term", W["factor_text.t_5"]),
    ("add", "twice"): ("doubled_term", W["factor_text.t_6"]),
    ("sum", "twice"): ("doubled_term", W["factor_text.t_6"]),
    ("sub", "drop"): ("dropped_term", W["factor_text.t_7"]),
}


def _changed(op: Node, i: int, how: str) -> dict[Node, float] | None:
    """The swap that gives ``op`` its value with operand ``i`` left out (``drop``) or applied twice
    (``twice``); None when that has no meaning for the operation (a numerator counted twice, a function's
    argument). A numerator left out is a factor forgotten: B / T_step read as 1 / T_step."""
    args = [x.value if isinstance(x, Node) else x for x in op.args]
    v = args[i]
    if op.op == "mul" or (op.op == "div" and (i == 1 or how == "drop")):
        args[i] = 1.0 if how == "drop" else v * v
    elif op.op in ("add", "sum") or (op.op == "sub" and i == 1):
        args[i] = 0.0 if how == "drop" else 2 * v
    else:
        return None
    try:
        return {op: OPS[op.op](*args)}
    except (ArithmeticError, ValueError):
        return None


def factor_slips(value: Any) -> list[Slip]:
    """What the traced ``value`` would be with each factor of its formula left out or applied twice,
    each term of a sum left out: the slips its derivation offers."""
    root = node_of(value)
    if root is None:
        return []
    out: list[Slip] = []
    for op, i, a in _parts(root):
        if (op.kind == "scale" and not isinstance(a, Node)) or not _named(a):
            continue  # a unit conversion is a unit slip, not a factor
        for how in ("drop", "twice"):
            if how == "twice" and op.op in ("mul", "div") and isinstance(a, Node):
                continue  # a quantity squared is no one's slip; a written factor (×2) counted twice is
            key = ("mul", how) if op.op == "div" and i == 0 else (op.op, how)  # a numerator is a factor
            swap = _changed(op, i, how) if key in _FACTOR_TEXT else None
            if swap is None:
                continue
            try:
                v = recompute(root, swap)
            except (ArithmeticError, ValueError):
                continue
            if math.isfinite(v) and not math.isclose(v, root.value, rel_tol=SLIP_REL):
                kind, text = _FACTOR_TEXT[key]
                out.append(Slip(f"{kind}:{_symbol(a)}", text.format(x=_label(a)), v))
    return out


# --------------------------------------------------------------------------- unit slips


_SCALE = W["scale"]
_BITS = W["bits"]
_GIB = W["gib"]
_PCT = W["pct"]


def _both(id: str, text: str, factor: float) -> list[Slip]:
    return [Slip(id, text, factor), Slip(id, text, 1 / factor)]


def choice_slips(q: Question) -> list[Slip]:
    """The question's own alternative units: an answer worked in one and typed as the other."""
    out: list[Slip] = []
    for name, factor in q.units.items():
        out += _both("unit_choice", W.f("choice_slips.both", name=name, unit=q.unit), factor)
    return out


def unit_slips(unit: str) -> list[Slip]:
    """Unit slips of a quantity in ``unit``, as ratios to the expected value (value = the ratio)."""
    out = _both("scale_1e3", _SCALE.format(n="1000"), 1e3) + _both("scale_1e6", _SCALE.format(n="10⁶"), 1e6)
    if unit == "%":
        out += _both("percent", _PCT, 100.0)
    if BYTE_UNITS.search(unit or ""):
        out += _both("bits_bytes", _BITS, 8.0) + _both("gib_gb", _GIB, 2**30 / 1e9)
    return out


# --------------------------------------------------------------------------- checking one answer


def check(
    q: Question,
    expected: Any,
    answer: Any,
    unit: str | None = None,
    decl: Out | None = None,
    slips: Sequence[Slip] | None = None,
) -> dict[str, Any]:
    """The verdict on one answer (``unit``: the unit the reader chose, default the question's). A traced
    ``expected`` (from ``cards.explain``) also offers the slips of its own derivation; ``slips`` are those
    worked out before (a live question keeps them from when it was asked)."""
    if q.kind == "open":
        return {"verdict": "open"}
    if q.kind in ("bool", "choice"):
        return {"verdict": "correct" if _norm(answer) == _norm(expected) else "incorrect"}
    a = float(answer)
    if unit and unit != q.unit:
        a *= q.units[unit]
    e = float(expected)
    if not (math.isfinite(a) and math.isfinite(e)):
        return {"verdict": "incorrect"}
    step = display_step(decl or undeclared(q.key), e)
    verdict = verdict_of(a, e, step)
    out: dict[str, Any] = {"verdict": verdict}
    if verdict == "correct":
        return out
    slip = diagnose(q, expected, a, slips)
    if slip is not None:
        out.update(diagnosis=slip.id, diagnosis_text=slip.text, hint=slip.text)
    elif verdict == "close":
        out["hint"] = W["check"]
    return out


def slips_of(q: Question, expected: Any) -> list[Slip]:
    """The slips an answer is held against before the unit slips: the card's own, the question's
    alternative units, then the derivation's factors and terms (a traced ``expected`` has them)."""
    e = float(expected)
    return [*q.slips, *(Slip(r.id, r.text, e * r.value) for r in choice_slips(q)), *factor_slips(expected)]


def diagnose(q: Question, expected: Any, answer: float, slips: Sequence[Slip] | None = None) -> Slip | None:
    """The first slip the answer matches: :func:`slips_of` (or ``slips``, worked out before), then a
    unit slip."""
    e = float(expected)
    for s in slips_of(q, expected) if slips is None else slips:
        if s.value and math.isclose(answer, s.value, rel_tol=SLIP_REL):
            return s
    for s in unit_slips(q.unit):
        if e and math.isclose(answer, e * s.value, rel_tol=SLIP_REL):
            return s
    return None


def _norm(v: Any) -> Any:
    if isinstance(v, str):
        s = v.strip().lower()
        if s in ("true", "1", "yes", W["norm"], W["norm_2"]):
            return True
        if s in ("false", "0", "no", W["norm_3"], W["norm_4"]):
            return False
        return s
    return v


def _states(card: Any) -> Iterator[Any]:
    """The defaults, then every single select option and toggle flip: the states whose question
    sets a check body must cover (questions may depend on a choice, e.g. which variant is asked)."""
    from .cards import controls_of

    yield card.defaults()
    for s in controls_of(card.params):
        values = list(s.options or {}) if s.control == "select" else ([not s.default] if s.control == "toggle" else [])
        for v in values:
            try:
                yield card.parse({s.name: v})
            except ValueError:  # pydantic's ValidationError: a combination the card refuses
                continue


def questions_of(card: Any) -> dict[str, Question]:
    """Every question a card can ask, keyed by question key (first seen wins). A card is checkable
    when this is not empty, whatever its kind (read when the app registers its routes)."""
    out: dict[str, Question] = {}
    for params in _states(card):
        for q in card.compute(params).questions:
            out.setdefault(q.key, q)
    return out
