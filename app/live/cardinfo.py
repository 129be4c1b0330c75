"""Card-facing glue for the live class, in one small adapter: which outputs of a card a class can be
asked about (its 练习 questions and its numeric tiles), their label and unit, and which figure axis a
quantity lives on, all read from the card's output declaration (``axis=`` where a quantity has one;
otherwise an axis whose title names the quantity's unit)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, TypeGuard

from ..cards import Card, Params, Question, View, tiles


@dataclass(frozen=True)
class Askable:
    """Something a class can be asked on a card: an exercise question or a numeric tile."""

    key: str
    label: str
    source: str  # "exercise" | "tile"
    question: Question = field(compare=False)


def _is_number(v: Any) -> TypeGuard[float]:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def askables(card: Card, params: Params, view: View) -> list[Askable]:
    """The card's exercise questions (not open-ended ones), then its numeric tiles ("predict this
    number", checked like an exercise against the same output)."""
    out = [
        Askable(q.key, _plain(q.prompt)[:60], "exercise", q)
        for q in view.questions
        if q.kind != "open" and q.key in view.outputs
    ]
    taken = {a.key for a in out}
    for s in tiles(card, view, params):
        if s.key in taken or s.key not in view.outputs or not _is_number(view.outputs[s.key]):
            continue
        taken.add(s.key)
        label = _plain(s.label)
        prompt = f"预测:{s.label} 是多少?"
        out.append(Askable(s.key, label, "tile", Question(s.key, prompt, s.unit, kind="numeric")))
    return out


def find(card: Card, params: Params, view: View, key: str) -> Askable | None:
    return next((a for a in askables(card, params, view) if a.key == key), None)


def expected(view: View, key: str):
    return view.outputs.get(key)


def _plain(text: str) -> str:
    """Label text without $…$ maths markers (for selects and lists)."""
    return re.sub(r"\$([^$]*)\$", r"\1", text).strip()


def _axis_title(ax: dict) -> str:
    t = ax.get("title", "")
    return t.get("text", "") if isinstance(t, dict) else str(t or "")


def _unit_in(unit: str, title: str) -> bool:
    if not unit or unit in ("×", "%", "1"):
        return False
    return re.search(rf"(?<![A-Za-z/]){re.escape(unit)}(?![A-Za-z/])", title) is not None


def axis_of(card: Card, view: View, key: str) -> dict | None:
    """Where a histogram of answers to ``key`` can be drawn on the card's own figure: the explicit
    table first, else the first figure axis whose title names the tile's unit and whose range (if
    fixed) holds the true value. None: draw a stand-alone histogram."""
    value = view.outputs.get(key)
    if not _is_number(value):
        return None
    decl = card.outputs.get(key)
    if decl is not None and decl.axis is not None:
        return _axis(view, *decl.axis)
    unit = (decl.display_unit if decl is not None else "") or next((q.unit for q in view.questions if q.key == key), "")
    for idx, f in enumerate(view.figures):
        if f.fig.get("frames"):
            continue
        for which in ("x", "y"):
            ax = f.fig.get("layout", {}).get(f"{which}axis") or {}
            if _unit_in(unit, _axis_title(ax)) and _in_range(ax, value):
                return _axis(view, idx, which)
    return None


def _axis(view: View, idx: int, which: str) -> dict | None:
    if idx >= len(view.figures):
        return None
    ax = view.figures[idx].fig.get("layout", {}).get(f"{which}axis") or {}
    return {"figure": idx, "axis": which, "log": ax.get("type") == "log", "title": _axis_title(ax)}


def _in_range(ax: dict, value: float) -> bool:
    rng = ax.get("range")
    if not rng:
        return True
    if ax.get("type") == "log":
        if value <= 0:
            return False
        value = math.log10(value)
    lo, hi = sorted(rng)
    return lo <= value <= hi
