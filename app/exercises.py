"""Checking a reader's answer to an exercise question: 正确 / 接近 (with the likely slip) / 不对.

One mechanism for every exercise card: a card lists ``Question``s in its view; the expected value
of a numeric question is the card's own output ``outputs[q.key]`` at the reader's current
parameters, so an answer can never disagree with the chart.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

from .cards import Question

# (factor, hint): an answer that equals expected × factor (within the 正确 band) is a known slip.
SLIPS: list[tuple[float, str]] = [
    (1e3, "数量级差了 1000 倍:检查单位换算(ms 与 s、GB 与 MB、k 与 1)。"),
    (1e-3, "数量级差了 1000 倍:检查单位换算(ms 与 s、GB 与 MB、k 与 1)。"),
    (1e6, "差了 10⁶ 倍:检查单位前缀(M 与 1、GB 与 KB)。"),
    (1e-6, "差了 10⁶ 倍:检查单位前缀(M 与 1、GB 与 KB)。"),
    (1e9, "差了 10⁹ 倍:检查单位前缀(G 与 1)。"),
    (1e-9, "差了 10⁹ 倍:检查单位前缀(G 与 1)。"),
    (100.0, "差了 100 倍:百分数与小数混用了?"),
    (0.01, "差了 100 倍:百分数与小数混用了?"),
    (2**30 / 1e9, "GB(10⁹ B)与 GiB(2³⁰ B)混用了:两者差约 7.4%。"),
    (1e9 / 2**30, "GB(10⁹ B)与 GiB(2³⁰ B)混用了:两者差约 7.4%。"),
    (1.024, "KB/KiB 或 MB/MiB 混用了:差 2.4%。"),
    (1 / 1.024, "KB/KiB 或 MB/MiB 混用了:差 2.4%。"),
    (8.0, "差了 8 倍:bit 与 byte 混用了?链路速率先除以 8。"),
    (1 / 8, "差了 8 倍:bit 与 byte 混用了?链路速率先除以 8。"),
    (2.0, "差了 2 倍:一次乘加是 2 FLOP,或者读写/前后向少算了一半?"),
    (0.5, "差了 2 倍:一次乘加是 2 FLOP,或者读写/前后向少算了一半?"),
    (3.0, "差了 3 倍:训练是前向 + 两次反向矩阵乘,约 3 × 前向。"),
    (1 / 3, "差了 3 倍:训练是前向 + 两次反向矩阵乘,约 3 × 前向。"),
]

VERDICT_TEXT = {"correct": "正确", "close": "接近", "incorrect": "不对"}


def _rel(a: float, e: float) -> float:
    if e == 0:
        return abs(a)
    return abs(a - e) / abs(e)


def check(q: Question, expected: Any, answer: Any, unit: str | None = None) -> dict[str, Any]:
    """Verdict for one answer. ``unit`` is the unit the reader chose (default: the question's)."""
    if q.kind == "open":
        return {"verdict": "open"}
    if q.kind in ("bool", "choice"):
        ok = _norm(answer) == _norm(expected)
        return {"verdict": "correct" if ok else "incorrect"}
    a = float(answer)
    if unit and unit != q.unit:
        a *= q.units[unit]
    e = float(expected)
    if not (math.isfinite(a) and math.isfinite(e)):
        return {"verdict": "incorrect"}
    err = _rel(a, e)
    if err <= q.rel_tol:
        return {"verdict": "correct"}
    if err <= q.close_tol:
        return {"verdict": "close", "hint": "很接近了:检查中间结果的舍入,或保留更多位小数。"}
    for factor, hint in _unit_slips(q):
        if e != 0 and _rel(a, e * factor) <= q.rel_tol:
            return {"verdict": "close", "hint": hint}
    if float(e).is_integer() and abs(e) >= 5 and abs(a - e) == 1:
        return {"verdict": "close", "hint": "差了 1:检查是否多数或少数了一步(例如 1 次 prefill + (G−1) 次 decode)。"}
    return {"verdict": "incorrect"}


def _unit_slips(q: Question) -> list[tuple[float, str]]:
    own = []
    for name, factor in q.units.items():
        hint = f"单位:你的数像是按 {name} 算的,却按 {q.unit} 填写(或反过来)。"
        own += [(1 / factor, hint), (factor, hint)]
    return own + SLIPS


def _norm(v: Any) -> Any:
    if isinstance(v, str):
        s = v.strip().lower()
        if s in ("true", "1", "yes", "是", "对"):
            return True
        if s in ("false", "0", "no", "否", "不"):
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
