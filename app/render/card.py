"""A card's representations as text: its result fragment (what htmx swaps in as a slider moves), its
derivations (what a tile expands into), its JSON answer, and the numbers the section prose quotes.
Python builds data here; the markup is in templates (``_result.html``, ``_parts.html``)."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from functools import cache, cached_property
from typing import Any
from urllib.parse import urlencode

from markupsafe import Markup, escape

from ..cards import (
    HELD,
    HIDDEN_TEXT,
    REGISTRY,
    Card,
    Note,
    Question,
    Quoted,
    Stat,
    Table,
    View,
    cell_text,
    explain,
    label_text,
    notes_at,
    run,
    slot,
    tiles,
)
from ..derivation import Derivation
from ..exercises import RULE_TEXT
from ..outputs import split, undeclared
from ..state import query_string
from ..text import markdown, rich
from ..text.cond import Conditional, conditionals
from ..text.glossary import Scope
from ..words import current_lang, localize, localize_deep, words_for
from .env import edition_templates, env, gloss, json_script
from .figures import LegendItem, legend_items, wire_figure

W = words_for(__name__)


@dataclass(frozen=True)
class Reading:
    """How a card is shown, apart from its state (in a URL: the view flags :data:`VIEW_FLAGS`).

    - ``solutions``: exercises offer their worked solutions (``solutions=off`` hides them);
    - ``hide``: outputs held back completely (a live question's asked value: no trace of it, its
      figures included, until the reveal);
    - practice first: a number that answers one of the card's own questions is held back until the
      reader has checked an answer to it or asked to see it (``reveal=<key>``), unless
      ``answers=shown`` (an instructor's view) shows everything;
    - ``prose``: the fragment carries the values a page's prose quotes from this card (``prose=1``,
      asked for by the pages that quote it: sections, chapters, tools), so that prose can follow the
      sliders; a card page, the presenter or a phone has no such prose and does not pay for it."""

    solutions: bool = True
    hide: frozenset[str] = field(default_factory=frozenset)
    answers_shown: bool = False
    revealed: frozenset[str] = field(default_factory=frozenset)
    prose: bool = False

    def practice(self, view: View) -> frozenset[str]:
        """The outputs of ``view`` that answer its own questions and are still held back."""
        if self.answers_shown:
            return frozenset()
        asked = {q.key: q for q in view.questions if q.kind != "open" and q.key in view.outputs}
        seen = [view.outputs[k] for k in asked.keys() & self.revealed]
        # an answer equal to one already shown is shown too (its number is on the card already)
        held = {k for k in asked.keys() - self.revealed if not any(_same(view.outputs[k], v) for v in seen)}
        return with_tells(view, held)

    def query(self) -> list[tuple[str, str]]:
        """These flags as query pairs (what a derivation or a refreshed fragment must be asked with)."""
        out = [] if self.solutions else [("solutions", "off")]
        out += [("hide", k) for k in sorted(self.hide)]
        out += [("answers", "shown")] if self.answers_shown else [("reveal", k) for k in sorted(self.revealed)]
        return out


def with_tells(view: View, keys: Iterable[str]) -> frozenset[str]:
    """``keys`` (outputs held back) with the outputs that tell one of them (``Question.tells``)."""
    keys = frozenset(keys)
    told = [q.tells for q in view.questions if q.key in keys]
    return keys.union(*told) & view.outputs.keys()


def _same(a: Any, b: Any) -> bool:
    if _is_number(a) and _is_number(b):
        return math.isclose(a, b, rel_tol=1e-9)
    return a == b


VIEW_FLAGS = ("solutions", "hide", "embed", "answers", "reveal", "prose")  # keys that change how a card is shown
PRACTICE_NOTE = W["practice_note"]  # beside a number held back until the reader has tried
PRACTICE_FIGURE_NOTE = W["practice_figure_note"]
PRACTICE_FIGURE_NOTE_NO_SOLUTIONS = W["practice_figure_note_no_solutions"]  # solutions=off: there is no 查看解答
LIVE_FIGURE_NOTE = W["live_figure_note"]


def fill_html(
    card: Card, view: View, params: Any, hide: frozenset[str], text: str, scope: Scope | None = None
) -> Markup:
    """Card text with its ``[[key]]`` slots filled: a numeric output becomes a button that expands its
    derivation; params and ctx values are plain text; a hidden output reads "?", and so does text
    quoting one (:class:`~app.cards.Quoted`). With a glossary ``scope``, terms in the text (never in
    the filled numbers) are marked."""
    if isinstance(text, Quoted):
        return Markup(text.html(hide))
    text = localize(text)
    if "[[" not in text:
        return gloss(rich(text), scope) if scope is not None else rich(text)
    out: list[str] = []
    for written, key, flag in split(text):
        hit = slot(card, view, params, key, flag) if key else None
        if hit is None:  # plain text, or a slot nothing fills (left as written)
            out.append(gloss(rich(written), scope) if scope is not None else rich(written))
        elif key in hide:
            out.append(HIDDEN_TEXT)
        elif hit[1] == "output" and _is_number(view.outputs.get(key)):
            out.append(slot_button(key, hit[0]))
        else:
            out.append(escape(localize(hit[0])))
    return Markup("".join(out))


def part(name: str) -> Any:
    """A macro of ``_parts.html``, for markup that text filled in Python carries (slots, live numbers)."""
    return getattr(env.get_template("_parts.html").module, name)


def slot_button(key: str, value: str) -> Markup:
    """A numeric output filled into text: its value, as a button that opens its derivation."""
    return Markup(part("slot_button")(key, value))


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def answer_text(card: Card, q: Question, value: Any) -> str:
    """A question's expected answer as the solution states it: 是/否, the option's words, or the
    number as its output is declared (the tile's digits and unit)."""
    if q.kind in ("bool", "choice"):
        if isinstance(value, bool):
            return W["answer_text"] if value else W["answer_text_2"]
        option = q.options.get(str(value), value)
        return option if isinstance(option, str) else str(option)  # an option's words stay words (edition)
    return (card.outputs.get(q.key) or undeclared(q.key)).fmt(value)


def _tiles(card: Card, view: View, params: Any, hide: frozenset[str], practice: frozenset[str]) -> list[Stat]:
    """The view's tiles, a held-back output's value as "?" (with why, for an answer not yet tried) and a
    label quoting one with "?" in its place (练习 1-4's 扩展效率 ?/?)."""

    def held(s: Stat) -> Stat:
        note = PRACTICE_NOTE if s.key in practice else ""
        unit = s.unit or (card.outputs.get(s.key) or undeclared(s.key)).display_unit
        return Stat(s.key, s.label, HIDDEN_TEXT, unit=unit, illustrative=s.illustrative, hidden=True, note=note)

    def label(s: Stat) -> Stat:
        decl = card.outputs.get(s.key)
        if decl is None or "[[" not in str(decl.label) or not hide:
            return s
        return replace(s, label=label_text(decl.label, card, view, params, hide))

    return [held(label(s)) if s.key in hide else label(s) for s in tiles(card, view, params)]


@dataclass(frozen=True)
class FigureShown:
    """One figure as the fragment draws it (``_parts.html``'s ``figures``): its plot element's id, its
    caption and summary with their slots filled, its HTML legend and the JSON the browser plots; a
    figure ``held`` back (it draws a live question's value, or an answer the reader has not tried yet)
    shows its caption and ``note`` alone."""

    idx: int
    pid: str
    title: Markup
    summary: Markup
    legend: tuple[LegendItem, ...]
    data: Markup  # the wire figure as JSON, safe inside <script type="application/json">
    held: bool
    note: str  # why a held figure is not drawn yet (a live question asks its value, or practice first)
    animated: bool
    illustrative: bool
    min_height: int  # px: the figure's own height, kept while Plotly draws


@dataclass
class Shown:
    """One card at one state as its fragment draws it: what the templates read (``s.…``, each worked
    out once per fragment) and the text helpers they call, each filling slots, formatting cells and
    stating answers for this state.

    What is held back is known by declaration, never found by searching the finished page: ``hide`` names
    the outputs (a live question's, answers not yet tried); their tiles, ``[[key]]`` slots, quoted text
    (:class:`~app.cards.Quoted`) and declared table cells (``Table.keys``) read "?", and a figure is held
    when it declares drawing one (``Figure.draws`` for a live question, ``Figure.answers`` for practice)."""

    card: Card
    params: Any
    view: View
    reading: Reading
    hide: frozenset[str]  # outputs held back: a live question's, and answers not yet tried
    practice: frozenset[str]  # of those, the answers to the card's own questions
    held: frozenset[int]  # figures that draw a live question's value (declared: Figure.draws | answers)
    held_for_practice: frozenset[int] = frozenset()  # figures that draw an answer not yet tried (declared)

    @classmethod
    def of(cls, card: Card, params: Any, view: View, reading: Reading = Reading()) -> Shown:
        live = with_tells(view, reading.hide)
        practice = reading.practice(view) - live
        held = frozenset(i for i, f in enumerate(view.figures) if live & (f.draws | f.answers))
        tried_first = frozenset(i for i, f in enumerate(view.figures) if f.answers & practice) - held
        return cls(card, params, view, reading, live | practice, practice, held, tried_first)

    @cached_property
    def view_qs(self) -> str:
        """The state's query with the view flags: a derivation or solution loaded on demand is asked
        for as this fragment shows (answers still held back stay held back)."""
        flags = self.reading.query()
        if not flags:
            return self.qs
        return (self.qs + "&" if self.qs else "?") + urlencode(flags)

    @cached_property
    def qs(self) -> str:
        return query_string(self.card, self.params)

    @property
    def solutions(self) -> bool:
        return self.reading.solutions

    @cached_property
    def notes(self) -> list[Note]:
        return notes_at(self.card, self.view, self.params)

    @cached_property
    def tiles(self) -> list[Stat]:
        return _tiles(self.card, self.view, self.params, self.hide, self.practice)

    @cached_property
    def figures(self) -> list[FigureShown]:
        out = []
        for i, f in enumerate(self.view.figures):
            held = i in self.held or i in self.held_for_practice
            legend = () if held else tuple(legend_items(f))
            out.append(
                FigureShown(
                    idx=i,
                    pid=f"plot-{self.card.id}-{i}",
                    title=self.fill(f.title) if f.title else Markup(),
                    summary=self.fill(f.summary) if f.summary and not held else Markup(),
                    legend=legend,
                    data=Markup() if held else json_script(wire_figure(f, legend)),
                    held=held,
                    note=self._held_note(i) if held else "",
                    animated=f.animated,
                    illustrative=f.illustrative,
                    min_height=f.fig.get("layout", {}).get("height") or f.height,
                )
            )
        return out

    def _held_note(self, i: int) -> str:
        if i in self.held:
            return LIVE_FIGURE_NOTE
        return PRACTICE_FIGURE_NOTE if self.reading.solutions else PRACTICE_FIGURE_NOTE_NO_SOLUTIONS

    @cached_property
    def live_values(self) -> dict[str, str]:
        if not self.reading.prose:
            return {}
        values = live_values(self.card, self.view, self.params)
        return {k: v for k, v in values.items() if k.split("|")[0] not in self.hide}

    @cached_property
    def notes_scope(self) -> Scope:
        return Scope(f"n-{self.card.id}")

    def fill(self, text: str, scope: Scope | None = None) -> Markup:
        return fill_html(self.card, self.view, self.params, self.hide, text, scope)

    def text(self, text: str) -> str:
        if isinstance(text, Quoted):
            return text.text(self.hide)
        return label_text(text, self.card, self.view, self.params, self.hide)

    def cell(self, table: Table, col: int, value: Any) -> str:
        return cell_text(self.card, table, col, value)

    def held_cell(self, table: Table, row: int, col: int) -> bool:
        """Whether a cell shows a held-back output (declared in ``Table.keys``): it reads "?"."""
        return not self.hide.isdisjoint(table.keys.get((row, col), ()))

    hidden = HIDDEN_TEXT

    def answer(self, q: Question) -> str:
        if q.key in self.hide:
            unit = (self.card.outputs.get(q.key) or undeclared(q.key)).display_unit
            return HIDDEN_TEXT + " " + unit if unit else HIDDEN_TEXT  # the unit's words in the edition served
        return answer_text(self.card, q, self.view.outputs.get(q.key))

    rule = RULE_TEXT
    markdown = staticmethod(markdown)


def fragment_context(card: Card, params: Any, view: View, reading: Reading = Reading()) -> dict[str, Any]:
    """What ``_result.html`` (and a card's own template) is rendered with: ``s`` (:class:`Shown`) and,
    for the cards' own templates and diagrams, the card, its state, view and tiles."""
    s = Shown.of(card, params, view, reading)
    return {
        "s": s,
        "card": card,
        "params": params,
        "view": s.view,
        "solutions": s.solutions,
        "tiles": s.tiles,
    }


def render_fragment(card: Card, params: Any, view: View, reading: Reading = Reading()) -> str:
    """The result fragment of ``view`` (a card's own template includes the generic ``_result.html``)."""
    ctx = fragment_context(card, params, view, reading)
    template = (
        env.select_template(edition_templates(card.template)) if card.template else env.get_template("_result.html")
    )
    s = ctx["s"]
    token = HELD.set(s.hide)  # text that quotes a held-back output reads "?" (cards.Quoted)
    try:
        html = template.render(**ctx)
    finally:
        HELD.reset(token)
    return html


def fragment_html(card: Card, params: Any, reading: Reading = Reading()) -> str:
    """The card's result fragment at ``params``."""
    return render_fragment(card, params, run(card, params), reading)


def explain_html(card: Card, params: Any, reading: Reading = Reading()) -> str:
    """Every derivation of the card at ``params``, as the HTML the tiles expand into. A number held
    back (practice first, a live question) shows its formula with the values substituted, not its result."""

    def held(view: View) -> frozenset[str]:
        return with_tells(view, reading.hide) | reading.practice(view)

    view, ders = explain(card, params, held)
    hide = held(view)
    for k in hide & set(ders):
        ders[k] = replace(ders[k], result=HIDDEN_TEXT, steps=[], evaluated="", check=None)
    practice = hide - with_tells(view, reading.hide)
    shown = {s.key: s for s in _tiles(card, view, params, hide, practice)}
    token = HELD.set(hide)
    try:
        html = env.get_template("_explain.html").render(card=card, view=view, derivations=ders, tiles=shown)
    finally:
        HELD.reset(token)
    return html


# --------------------------------------------------------------------------- JSON


def _clean(v: Any) -> Any:
    if isinstance(v, float):
        return v if math.isfinite(v) else None
    if isinstance(v, dict):
        return {k: _clean(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_clean(x) for x in v]
    return v


def outputs_json(view: View) -> dict[str, Any]:
    """Every output of a view, JSON-safe (NaN and infinities become null)."""
    return {k: _clean(v) for k, v in view.outputs.items()}


def card_json(card: Card, params: Any) -> dict:
    """A card's answer: params, outputs and a derivation for every numeric scalar output."""
    view, ders = explain(card, params)
    out: dict[str, Any] = {
        "card": card.id,
        "params": params.model_dump(mode="json"),
        "outputs": outputs_json(view),
        "derivations": {k: d.as_json() for k, d in ders.items()},
    }
    if view.questions:
        out["questions"] = [{"key": q.key, "prompt": q.prompt, "unit": q.unit, "kind": q.kind} for q in view.questions]
    return localize_deep(out)


# --------------------------------------------------------------------------- numbers the prose quotes


class LiveProse:
    """What the section prose's live parts render with (``markdown(text, live_number)``): a number
    the prose quotes from a card (``live_number("eg-1-1", "t_mem_ms")``) and the case of a conditional
    (:mod:`app.text.cond`) that holds, both at the card's defaults; the page script keeps them equal
    to the card's current state (:func:`live_values`)."""

    def __call__(self, cid: str, key: str, flag: str = "") -> Markup | None:
        """A live number: its value at the card's defaults, as a link to the card."""
        card = REGISTRY.get(cid)
        if card is None:
            return None
        p = card.defaults()
        hit = slot(card, run(card, p), p, key, flag)
        if hit is None or hit[1] == "ctx":
            return None
        return Markup(part("live_number")(card, key, flag, hit[0]))

    def branch(self, c: Conditional) -> int:
        """The case of ``c`` that holds at its card's defaults (0 for a card that is not registered:
        the first case, which the prose writes for the defaults)."""
        card = REGISTRY.get(c.card)
        if card is None:
            return 0
        p = card.defaults()
        return c.choose(state_lookup(card, run(card, p), p))


live_number = LiveProse()


def state_lookup(card: Card, view: View, params: Any) -> Callable[[str], Any]:
    """A condition's names at a state: an output, else a param, else a ``ctx`` value; ``at_defaults``
    is whether the state is the card's defaults (the prose may then say "书中的数")."""

    fields = type(params).model_fields if params is not None else {}

    def get(name: str) -> Any:
        if name == "at_defaults":
            return params == card.defaults()
        if name in view.outputs:
            return view.outputs[name]
        if name in fields:
            return getattr(params, name)
        if name in view.ctx:
            return view.ctx[name]
        raise KeyError(f"{card.id} has no output, param or ctx value {name!r}")

    return get


def prose_slots() -> dict[str, tuple[tuple[str, str], ...]]:
    """Which (output, flags) of each card some section's prose quotes (in any case of a
    conditional), in the edition served: the fragment ships exactly those, formatted, so the page can
    keep its prose equal to the card's state. Sorted: every worker must send the same bytes (and so the
    same ETag) for one state."""
    return _prose_slots(current_lang())


@cache
def _prose_slots(lang: str) -> dict[str, tuple[tuple[str, str], ...]]:
    """:func:`prose_slots` of one edition (each edition's prose is its own text: cached per language, or
    the first edition asked would answer for both)."""
    from ..chapters import CHAPTERS, prose
    from ..text import LIVE

    found: dict[str, set[tuple[str, str]]] = {}
    for ch in CHAPTERS.values():
        for sec in ch.sections:
            for m in LIVE.finditer(prose(sec.key)):
                found.setdefault(m.group(1), set()).add((m.group(2), m.group(3) or ""))
    return {k: tuple(sorted(v)) for k, v in found.items()}


def prose_conditionals() -> dict[str, tuple[Conditional, ...]]:
    """The conditionals of every section's prose in the edition served, by the card whose state decides
    them (each once, in id order)."""
    return _prose_conditionals(current_lang())


@cache
def _prose_conditionals(lang: str) -> dict[str, tuple[Conditional, ...]]:
    """:func:`prose_conditionals` of one edition (a conditional's id hashes its text: per language)."""
    from ..chapters import CHAPTERS, prose

    found: dict[str, dict[str, Conditional]] = {}
    for ch in CHAPTERS.values():
        for sec in ch.sections:
            for c in conditionals(prose(sec.key)):
                found.setdefault(c.card, {})[c.id] = c
    return {k: tuple(v[i] for i in sorted(v)) for k, v in found.items()}


CASE_KEY = "if:"  # a live value keyed ``if:<id>`` is the case of conditional <id> that holds


def live_values(card: Card, view: View, params: Any) -> dict[str, str]:
    """The formatted values of the prose-quoted outputs at this state, keyed ``key`` or ``key|flags``,
    and for each conditional this card decides, the case that holds (``if:<id>`` → "0", "1", …)."""
    out = {}
    for key, flag in prose_slots().get(card.id, ()):
        hit = slot(card, view, params, key, flag)
        if hit and hit[1] != "ctx":
            out[f"{key}|{flag}" if flag else key] = hit[0]
    conds = prose_conditionals().get(card.id, ())
    if conds:
        get = state_lookup(card, view, params)
        for c in conds:
            out[CASE_KEY + c.id] = str(c.choose(get))
    return out


def derivation_html(d: Derivation) -> Markup:
    """A derivation's formula as MathML (plain text when the symbols do not typeset)."""
    from ..text import tex

    try:
        return Markup(tex(d.tex)) if d.tex else Markup.escape(d.formula)
    except Exception:  # latex2mathml rejects a symbol: the plain formula reads as well
        return Markup.escape(d.formula)


env.globals.update(live_number=live_number, derivation_html=derivation_html)
