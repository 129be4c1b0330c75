"""Checking a reader's answer to a question: one rule for the page, the API and the live class.

**正确** within the card's display rounding or 0.5 % (whichever is wider), **接近** within 5 %, otherwise
**不对**. A question may declare a narrower band (``Question.tolerance``: its 正确 band; its 接近 band is
ten times that, as in the rule) when the effect it asks about is smaller than the rule's bands: the
unchanged value it starts from must not pass (练习 3-4: 76.51 s for 76.471 s); the page says so.

An answer that is not 正确 is held against the likely slips, in the order a teacher would guess them:

1. what the card declares for the question (``Question.slips``: total vs active parameters, …; and
   its alternative units: a number worked in one and typed as the other);
2. the number's own traced derivation, mechanically: each factor of its formula left out or applied
   twice, a factor shared by every term of a sum left out (18·N read as N), each term of a sum left
   out (named by its symbol and its value: "少加了 每卡预留 r(5 GB)");
3. a generic factor of two (K and V, 2·N·D, two directions), when the derivation's own 2 does not fit;
4. a percentage typed as a fraction or the other way round (×100, ÷100);
5. units: the question's own alternative units, ×10³/×10⁶/×10⁹, GB vs GiB (or the SI/IEC pair of the
   unit chosen: MB typed as MiB), bits vs bytes (×8), hours vs days (×24).

**Which slip is named.** The answer is measured against each slipped value with the rule's own 接近
band (``CLOSE_REL``, or the question's): a slip is a candidate only when the answer is within that
band of the slipped value. Of the candidates, the one whose value is nearest to the answer (relative
distance) wins, and the expected value itself competes too: an answer nearer the right value than
any slip is "close", not a slip. Only an exact tie (the same slipped value, e.g. the derivation's
own "少乘了 2" and the generic factor of two) goes to the earlier in the teacher's order. ``SLIP_REL``
is the 正确 band: a slipped value within it of the expected value is no slip at all (typing it is
right), so every named slip lies outside the 正确 band and inside the 接近 band of its own value;
two slips nearer to each other than ``SLIP_REL`` are told apart by the nearest-wins rule alone.

The expected value of a numeric question is the card's own output ``outputs[q.key]`` at the reader's
parameters, so an answer can never disagree with the chart. Typed text ("4.02×10²²", "73.7GB",
"≈ 1,024") is read by :mod:`app.answers` first (one parser for the page, the API and the live class).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from . import answers
from .cards import Question
from .derivation import sym_text
from .format import GIVEN
from .outputs import Out, undeclared
from .trace import OPS, Node, node_of, recompute
from .words import words_for

W = words_for(__name__)

CORRECT_REL = 0.005  # 正确: within 0.5 % (or the display rounding, when that is wider)
CLOSE_REL = 0.05  # 接近: within 5 %
SLIP_REL = 0.005  # a slipped value within the 正确 band of the expected value is no slip (see above)
TIE_REL = 1e-9  # slipped values this close are the same number: the earlier in the teacher's order is named
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


def bands(q: Question | None) -> tuple[float, float]:
    """The (正确, 接近) relative bands for ``q``: the rule's, or ten-to-one from its declared tolerance."""
    tol = getattr(q, "tolerance", None)
    return (CORRECT_REL, CLOSE_REL) if tol is None else (tol, 10 * tol)


def verdict_of(
    answer: float, expected: float, step: float = 0.0, correct_rel: float = CORRECT_REL, close_rel: float = CLOSE_REL
) -> str:
    """The rule: 正确 / 接近 / 不对 for a numeric answer (a question's own bands when it has them)."""
    err = abs(answer - expected)
    if err <= max(step, correct_rel * abs(expected)) * (1 + 1e-9):
        return "correct"
    if err <= max(step, close_rel * abs(expected)):
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


def _core(a: Any) -> Any:
    """A part without its unit conversions (r GB ×10⁹ is the term r)."""
    while isinstance(a, Node) and a.kind == "scale" and a.args and isinstance(a.args[0], Node):
        a = a.args[0]
    return a


def _named(a: Any) -> bool:
    """A part a reader can leave out: an input, a named intermediate, a rule's value or a written
    number (an unnamed sub-expression is looked into instead)."""
    a = _core(a)
    return not isinstance(a, Node) or a.kind in ("leaf", "named", "rule")


def _term_label(a: Any) -> str:
    """A term as a reader would name it: its label, and its value when it has a unit ("r(5 GB)")."""
    a = _core(a)
    label = _label(a)
    if isinstance(a, Node) and a.unit and a.unit != "×":
        return W.f("term_label", label=label, value=GIVEN.text(a.value), unit=a.unit)
    return label


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
            if n.kind == "op" or (n.kind == "scale" and not isinstance(a, Node)):
                yield n, i, a  # a converted quantity is no factor of its conversion
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


def factor_slips(value: Any, rel: float = SLIP_REL) -> list[Slip]:
    """What the traced ``value`` would be with each factor of its formula left out or applied twice,
    each term of a sum left out: the slips its derivation offers (those outside the 正确 band ``rel``)."""
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
            if math.isfinite(v) and not math.isclose(v, root.value, rel_tol=rel):
                kind, text = _FACTOR_TEXT[key]
                x = _term_label(a) if op.op in ("add", "sum", "sub") else _label(_core(a))
                out.append(Slip(f"{kind}:{_symbol(_core(a))}", text.format(x=x), v))
    return out + _common_factor_slips(root, rel)


def _common_factor_slips(root: Node, rel: float) -> list[Slip]:
    """A sum whose every term is a product with one same named factor (N·2 + N·4 + N·4 + N·8): the
    other factors left out (the answer read as N: "少乘了 (2 + 4 + 4 + 8)")."""
    out: list[Slip] = []
    seen: set[Node] = set()
    for op, i, _a in _parts(root):
        if i or op in seen or op.op not in ("add", "sum") or len(op.args) < 2:
            continue
        seen.add(op)
        terms = [_core(t) for t in op.args]
        if not all(isinstance(t, Node) and t.kind == "op" and t.op == "mul" for t in terms):
            continue
        shared = [x for x in terms[0].args if isinstance(x, Node) and all(x in t.args for t in terms[1:])]
        if not shared:
            continue
        x = shared[0]
        rest = [" × ".join(_label(y) for y in t.args if y is not x) or "1" for t in terms]
        try:
            v = recompute(root, {op: op.value / sum(t.value for t in terms) * x.value})
        except (ArithmeticError, ValueError):
            continue
        if math.isfinite(v) and v and not math.isclose(v, root.value, rel_tol=rel):
            text = W["factor_text.t"].format(x="(" + " + ".join(rest) + ")")
            out.append(Slip(f"dropped_factor:({'+'.join(rest)})", text, v))
    return out


# --------------------------------------------------------------------------- unit slips


_SCALE = W["scale"]
_BITS = W["bits"]
_GIB = W["gib"]
_PCT = W["pct"]
_TWO = W["two"]
_DAYS = W["days"]

# a byte unit's SI prefix and the ratio of its IEC sibling (MiB / MB = 2²⁰ / 10⁶)
_SI_IEC = {"k": 1, "K": 1, "M": 2, "G": 3, "T": 4, "P": 5}
SI_IEC_UNIT = re.compile(r"^([kKMGTP])(i?)B(/s)?$")
DAY_UNITS = re.compile(r"(^|·)(h|d|天|小时|hours?|days?)$")
PERCENT_UNITS = ("%", "", "×")  # a share or a ratio: typed as a percentage or as a fraction


def _both(id: str, text: str, factor: float) -> list[Slip]:
    return [Slip(id, text, factor), Slip(id, text, 1 / factor)]


def choice_slips(q: Question) -> list[Slip]:
    """The question's own alternative units: an answer worked in one and typed as the other."""
    out: list[Slip] = []
    for name, factor in q.units.items():
        out += _both("unit_choice", W.f("choice_slips.both", name=name, unit=q.unit), factor)
    return out


def si_iec_slip(unit: str | None) -> list[Slip]:
    """A byte unit's SI/IEC pair (MB and MiB): a number worked in one and typed as the other."""
    m = SI_IEC_UNIT.match(unit or "")
    if m is None:
        return []
    n = _SI_IEC[m.group(1)]
    si, iec = f"{'k' if n == 1 else m.group(1).upper()}B", f"{'K' if n == 1 else m.group(1).upper()}iB"
    return _both(f"si_iec:{iec}", W.f("si_iec", si=si, iec=iec), 1024**n / 1000**n)


def unit_slips(unit: str, chosen: str | None = None) -> list[Slip]:
    """The generic slips of a quantity in ``unit`` (typed in ``chosen``), as ratios to the expected value
    (value = the ratio), in the teacher's order: a factor of two, a percentage, the ×1000 family, the
    SI/IEC pair, bits vs bytes, hours vs days."""
    out = _both("factor_two", _TWO, 2.0)
    if unit in PERCENT_UNITS:
        out += _both("percent", _PCT, 100.0)
    out += _both("scale_1e3", _SCALE.format(n="1000"), 1e3) + _both("scale_1e6", _SCALE.format(n="10⁶"), 1e6)
    out += _both("scale_1e9", _SCALE.format(n="10⁹"), 1e9)
    if BYTE_UNITS.search(unit or ""):
        out += _both("gib_gb", _GIB, 2**30 / 1e9)
        for u in dict.fromkeys([unit, chosen or unit]):  # MB typed as MiB (and back)
            out += [s for s in si_iec_slip(u) if not math.isclose(max(s.value, 1 / s.value), 2**30 / 1e9)]
        out += _both("bits_bytes", _BITS, 8.0)
    if DAY_UNITS.search(unit or ""):
        out += _both("hours_days", _DAYS, 24.0)
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
    worked out before (a live question keeps them from when it was asked). Typed text is read first
    (:func:`app.answers.read`): what cannot be read is said in the verdict (``unreadable``), and a unit
    typed after the number is used (converted, and said so, when it is the question's SI/IEC sibling)."""
    if q.kind == "open":
        return {"verdict": "open"}
    if q.kind in ("bool", "choice"):
        return {"verdict": "correct" if _norm(answer) == _norm(expected) else "incorrect"}
    note = None
    if isinstance(answer, str):
        read = answers.read(answer, q.unit, [q.unit, *q.units])
        if read.error:  # said as the verdict, not refused: the reader sees what to type instead
            return {"verdict": "unreadable", "text": read.error}
        answer, note = read.value, read.note
        unit = read.unit or unit
    a = float(answer)
    if unit and unit != q.unit:
        a *= q.units[unit] if unit in q.units else answers.factor(unit, q.unit)
    e = float(expected)
    if not (math.isfinite(a) and math.isfinite(e)):
        return {"verdict": "incorrect"}
    # a question's own band is exact (the page states it): the display rounding does not widen it
    step = 0.0 if q.tolerance else display_step(decl or undeclared(q.key), e)
    verdict = verdict_of(a, e, step, *bands(q))
    out: dict[str, Any] = {"verdict": verdict}
    if note:
        out["note"] = note
    if verdict == "correct":
        return out
    slip = diagnose(q, expected, a, slips, unit)
    if slip is not None:
        out.update(diagnosis=slip.id, diagnosis_text=slip.text, hint=slip.text)
    elif verdict == "close":
        out["hint"] = W["check"]
    return out


def slips_of(q: Question, expected: Any) -> list[Slip]:
    """The slips an answer is held against before the generic ones: what the question declares (its
    own slips, its alternative units), then the derivation's factors and terms (a traced ``expected``
    has them)."""
    e = float(expected)
    return [*q.slips, *(Slip(r.id, r.text, e * r.value) for r in choice_slips(q)), *factor_slips(expected, bands(q)[0])]


def candidates(q: Question, expected: Any, slips: Sequence[Slip] | None = None, unit: str | None = None) -> list[Slip]:
    """Every slip an answer to ``q`` is held against, with its value, in the teacher's order."""
    e = float(expected)
    own = slips_of(q, expected) if slips is None else list(slips)
    return [*own, *(Slip(s.id, s.text, e * s.value) for s in unit_slips(q.unit, unit))]


def diagnose(
    q: Question, expected: Any, answer: float, slips: Sequence[Slip] | None = None, unit: str | None = None
) -> Slip | None:
    """The slip nearest the answer among those whose 接近 band holds it (:func:`candidates`; ``slips``:
    the question's own, worked out before), unless the expected value is nearer still; an exact tie
    goes to the earlier in the teacher's order."""
    e = float(expected)
    close = bands(q)[1]
    best, best_d = None, abs(answer - e) / abs(e) if e else math.inf
    for s in candidates(q, expected, slips, unit):
        if not s.value or not math.isfinite(s.value):
            continue
        d = abs(answer - s.value) / abs(s.value)
        if d <= close and d < best_d * (1 - TIE_REL) - TIE_REL:
            best, best_d = s, d
    return best


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
