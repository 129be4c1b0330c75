"""Card-facing glue for the live class, in one small adapter: which outputs of a card a class can be
asked about (its 练习 questions and its numeric tiles), their label and unit, the conditions a
question is asked under (the parameters as the card labels them, "批大小 B = 8 请求"), and which
figure axis a quantity lives on, all read from the card's declarations (``axis=`` where a quantity
has one; otherwise an axis whose title names the quantity's unit)."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, TypeGuard

from ..cards import Card, ControlSpec, Params, Question, View, controls_of, tiles
from ..format import compact
from ..text import rich
from ..words import LANGS, localize, localize_deep, speaking, words_for

W = words_for(__name__)

MAX_VALUE_CHARS = 24  # a free-text parameter value (a custom GPU spec) is shortened past this, whole


@dataclass(frozen=True)
class Askable:
    """Something a class can be asked on a card: an exercise question or a numeric tile."""

    key: str
    label: str
    source: str  # "exercise" | "tile"
    question: Question = field(compare=False)


def _is_number(v: Any) -> TypeGuard[float]:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


@dataclass(frozen=True)
class Condition:
    """One parameter as the card labels it: ``label`` (批大小 B), ``sym`` (B), ``value`` (8 请求)."""

    name: str
    label: str
    sym: str
    value: str

    @property
    def text(self) -> str:
        """For plain text (snapshot labels, lists): 批大小 B = 8 请求."""
        return f"{_plain(self.label)} = {self.value}"

    @property
    def short(self) -> str:
        """For a question's prompt: the symbol as maths when it is one ($B$ = 8 请求), else the label."""
        if self.sym and self.sym != self.label and re.fullmatch(r"[A-Za-zα-ωΑ-Ω_{}0-9\\]+", self.sym):
            return f"${self.sym}$ = {self.value}"
        return self.text


def _number(v: float) -> str:
    if isinstance(v, float) and v.is_integer() and abs(v) < 1e15:
        return str(int(v))
    return compact(v) if isinstance(v, float) else str(v)


def _value(spec: ControlSpec, v: Any) -> str:
    """A parameter's value as the card's control shows it, with its unit (never cut mid-number)."""
    if spec.custom == "model" and isinstance(v, str) and v not in (spec.options or {}):
        return str(localize(W["value"]))
    if isinstance(spec.options, dict) and v in spec.options:
        text = str(localize(spec.options[v]))
    elif isinstance(v, bool):
        text = str(localize(W["value_2"] if v else W["value_3"]))
    elif isinstance(v, (int, float)):
        text = _number(v)
    elif isinstance(v, (list, tuple)):
        text = str(localize(W["value_4"])).join(_number(x) if isinstance(x, (int, float)) else str(x) for x in v)
    else:
        text = str(v)
        if len(text) > MAX_VALUE_CHARS:
            text = text[: MAX_VALUE_CHARS - 1] + "…"
    unit = str(localize(spec.unit)) if isinstance(v, (int, float)) and not isinstance(v, bool) else ""
    if not unit:
        return text
    return f"{text}{unit}" if unit in ("%", "×", "°") or unit.startswith("×") else f"{text} {unit}"


def conditions(card: Card, params: Params) -> list[Condition]:
    """The parameters that differ from the card's defaults, in the card's order: what a question is
    asked under, or a snapshot shows (the rest is as the book has it)."""
    defaults = card.defaults()
    out = []
    for spec in controls_of(card.params):
        v = getattr(params, spec.name, None)
        if v is None or v == getattr(defaults, spec.name, None):
            continue
        out.append(Condition(spec.name, str(localize(spec.label)), spec.sym, _value(spec, v)))
    return out


def state_label(card: Card, params: Params) -> str:
    """A state in words: 批大小 B = 64 请求 · 带宽可用比例 = 70%, or 默认设置."""
    return " · ".join(c.text for c in conditions(card, params)) or str(localize(W["state_label"]))


def _asked_under(conds: list[Condition]) -> str:
    return str(localize(W["value_4"])).join(c.short for c in conds)


def in_each_edition(build: Callable[[], dict]) -> dict[str, dict]:
    """``build()``'s words in every edition (``{"zh": {...}, "en": {...}}``): what a class carries to its
    phones, each of which shows the class in its own language (the numbers are the same in each)."""
    out = {}
    for lang in LANGS:
        with speaking(lang):
            out[lang] = localize_deep(build())
    return out


def question_words(card: Card, params: Params, view: View, key: str) -> dict[str, dict]:
    """An asked question's words in every edition: its label, prompt (plain and as HTML), the
    conditions it is asked under, and the names of the options of a choice question."""

    def build() -> dict:
        item = find(card, params, view, key)
        assert item is not None
        q = item.question
        prompt = str(localize(q.prompt))
        return {
            "label": item.label,
            "prompt": prompt,
            "prompt_html": str(rich(prompt)),
            "conditions": state_label(card, params),
            "options": {k: str(localize(v)) for k, v in dict(q.options).items()},
            # a unit stays the key an answer names (``unit``); this is how the page writes it
            "unit_names": {str(u): str(localize(u)) for u in [q.unit, *dict(q.units)] if u},
        }

    return in_each_edition(build)


def askables(card: Card, params: Params, view: View) -> list[Askable]:
    """The card's exercise questions (not open-ended ones), then its numeric tiles ("predict this
    number", checked like an exercise against the same output). Each prompt states the conditions
    it is asked under (the parameters moved from the defaults): "$B$ = 8 请求 时,理想吞吐是多少?"."""
    conds = _asked_under(conditions(card, params))
    out = []
    for q in view.questions:
        if q.kind == "open" or q.key not in view.outputs:
            continue
        prompt = W.f("askables", conds=conds, prompt=q.prompt) if conds else q.prompt
        out.append(Askable(q.key, _plain(str(localize(q.prompt)))[:60], "exercise", replace(q, prompt=prompt)))
    taken = {a.key for a in out}
    for s in tiles(card, view, params):
        if s.key in taken or s.key not in view.outputs or not _is_number(view.outputs[s.key]):
            continue
        taken.add(s.key)
        label = _plain(str(localize(s.label)))
        prompt = W.f("askables_2", conds=conds, label=s.label) if conds else W.f("askables_3", label=s.label)
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
