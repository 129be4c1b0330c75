"""The card engine: the Card type, its registry, parameter metadata and the CardView a card returns.

A card is a pydantic ``Params`` model (its controls), a ``compute(params) -> View`` function and an
entry in the registry. Nothing here knows about HTTP; the web layer renders what this module describes.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import cache
from typing import Any, ClassVar, Literal, TypedDict, cast

from markupsafe import escape
from pydantic import BaseModel, ConfigDict, Field, field_validator

from .derivation import Derivation, derive
from .format import BRIEF, DEFAULT, plain, with_unit_text
from .outputs import Out, fill, resolve_cond, split, undeclared
from .trace import Node, leaf, node_of, tracing
from .words import Text, in_edition, localize, words_for

W = words_for(__name__)

# ---------------------------------------------------------------------------------------------
# Parameters: pydantic fields that carry slider metadata (range, step, unit, Chinese label)
# ---------------------------------------------------------------------------------------------


def _list_item_schema(schema: dict[str, Any], model: type) -> None:
    """JSON schema: a ``number_list``'s items carry its bounds (``minimum``/``maximum``)."""
    for prop in schema.get("properties", {}).values():
        if prop.get("control") == "list" and isinstance(prop.get("items"), dict):
            bounds = {"minimum": prop.get("item_ge"), "maximum": prop.get("item_le")}
            prop["items"].update({k: v for k, v in bounds.items() if v is not None})


class Params(BaseModel):
    """Base for every card's parameters. Unknown query keys are ignored; known ones are validated.
    ``cross_field_rules`` names the rules between fields that a schema cannot state (shown in the
    card's API description)."""

    model_config = ConfigDict(extra="ignore", frozen=True, allow_inf_nan=False, json_schema_extra=_list_item_schema)
    cross_field_rules: ClassVar[tuple[str, ...]] = ()

    @field_validator("*")
    @classmethod
    def _list_items_in_range(cls, v: Any, info: Any) -> Any:
        """A ``number_list``'s items stay within its bounds."""
        if not isinstance(v, list):
            return v
        extra = cls.model_fields[info.field_name].json_schema_extra
        if isinstance(extra, dict) and extra.get("control") == "list":
            lo, hi = extra.get("item_ge"), extra.get("item_le")
            for i, x in enumerate(v):
                if (lo is not None and x < lo) or (hi is not None and x > hi):
                    raise ValueError(W.f("params.list_items_in_range.valueerror", v=i + 1, x=x, lo=lo, hi=hi))
        return v


class NoParams(Params):
    """A card without controls."""


def slider(
    default: float | int | None,
    *,
    ge: float,
    le: float,
    step: float,
    label: str,
    unit: str = "",
    log: bool = False,
    illustrative: bool = False,
    help: str = "",
    placeholder: str = "",
    sym: str = "",
) -> Any:
    """A numeric parameter drawn as a slider plus a number box. ``default=None`` makes it an
    optional override (blank = derived from another parameter, e.g. the GPU's bandwidth).
    ``sym`` is its book symbol in derivations (default: the symbol ending the label, else the label)."""
    extra: dict[str, Any] = {
        "control": "slider",
        "step": step,
        "unit": unit,
        "label": label,
        "log": log,
        "illustrative": illustrative,
        "placeholder": placeholder,
        "sym": sym,
    }
    return Field(default, ge=ge, le=le, description=help or label, json_schema_extra=extra)


def fixed(value: float, label: str, unit: str = "", sym: str = "") -> Any:
    """A value the book fixes (题设): validated like a slider whose range is that one value, and
    shown as text rather than as a control."""
    step = 1 if float(value).is_integer() else abs(value) or 1
    return slider(value, ge=value, le=value, step=step, label=label, unit=unit, sym=sym)


def choice(
    default: str | float, options: dict[Any, str], *, label: str, help: str = "", illustrative: bool = False
) -> Any:
    """An enum parameter drawn as a select; ``options`` maps value -> Chinese label. Options that are
    numbers need the field typed with :func:`number_type` (a JSON number, not a string)."""
    extra: dict[str, Any] = {"control": "select", "options": options, "label": label, "illustrative": illustrative}
    return Field(default, description=help or label, json_schema_extra=extra)


def toggle(default: bool, *, label: str, help: str = "") -> Any:
    """A boolean parameter drawn as a checkbox; travels as ``true``/``false``."""
    return Field(default, description=help or label, json_schema_extra={"control": "toggle", "label": label})


def number_list(
    default: Sequence[float],
    *,
    ge: float,
    le: float,
    step: float,
    label: str,
    unit: str = "",
    min_len: int = 1,
    max_len: int = 64,
    help: str = "",
    illustrative: bool = False,
) -> Any:
    """A list parameter: one number box per item; in URLs the key repeats once per item."""
    extra: dict[str, Any] = {
        "control": "list",
        "step": step,
        "unit": unit,
        "label": label,
        "item_ge": ge,
        "item_le": le,
        "illustrative": illustrative,
    }
    return Field(
        list(default), min_length=min_len, max_length=max_len, description=help or label, json_schema_extra=extra
    )


def number_type(options: Sequence[float], then: Callable[..., Any] | None = None) -> Any:
    """The type of a select whose options are numbers: a number equal to one option. Text from a
    query or a form (``"2796"``, ``"2796.0"``) selects the option of that value; booleans never do.
    ``then`` is a further rule on the chosen option (a pydantic after-validator, ``(v, info)``)."""
    from typing import Annotated

    from pydantic import AfterValidator, BeforeValidator, WithJsonSchema

    opts = tuple(options)

    def pick(v: Any) -> Any:
        if isinstance(v, bool) or not isinstance(v, (str, int, float)):
            raise ValueError(W["number_type.pick.valueerror"])
        try:
            x = float(v.strip()) if isinstance(v, str) else float(v)
        except ValueError:
            raise ValueError(W["number_type.pick.valueerror"]) from None
        for o in opts:
            if float(o) == x:
                return o
        raise ValueError(W["number_type.pick.valueerror_2"])

    schema = WithJsonSchema({"type": "number", "enum": list(opts)})
    if then is None:
        return Annotated[Literal[opts], BeforeValidator(pick), schema]
    return Annotated[Literal[opts], BeforeValidator(pick), AfterValidator(then), schema]


@dataclass(frozen=True)
class ControlSpec:
    """What the controls template needs to draw one parameter."""

    name: str
    control: str  # slider | select | toggle | list
    label: str
    default: Any
    unit: str = ""
    ge: float | None = None
    le: float | None = None
    step: float | None = None
    log: bool = False
    options: dict[Any, str] | None = None
    optional: bool = False
    illustrative: bool = False
    placeholder: str = ""
    help: str = ""
    is_int: bool = False
    custom: str = ""  # "gpu" / "model": the select offers a reader's own entry
    min_len: int | None = None  # list parameters
    max_len: int | None = None
    sym: str = ""  # book symbol in derivations

    @property
    def fixed(self) -> bool:
        """A 题设 value: a slider whose range is one value."""
        return self.control == "slider" and self.ge is not None and self.ge == self.le

    @property
    def source(self) -> str:
        """Where an input comes from, as a derivation says it."""
        kind = W["controlspec.source"] if self.fixed else W["controlspec.source_2"]
        return W.f("controlspec.source_of", kind=kind, label=self.label)


_SYMBOL_END = re.compile(r"\s([A-Za-z\u0370-\u03ff](?:_\{?[A-Za-z0-9]+\}?)?'?)$")


def symbol_of(label: str) -> str:
    """The book symbol a label ends with (“批大小 B” → B, “带宽 β(覆盖)” → β), else the label."""
    core = re.sub(r"[((][^))]*[))]\s*$", "", label).strip()
    m = _SYMBOL_END.search(" " + core)
    return m.group(1) if m else (label if core == label else core)  # a label kept whole stays words


class ControlExtra(TypedDict, total=False):
    """What the parameter builders above keep in a field's ``json_schema_extra``."""

    control: str
    label: str
    unit: str
    step: float | None
    log: bool
    options: dict[Any, str]
    illustrative: bool
    placeholder: str
    custom: str
    sym: str
    item_ge: float | None
    item_le: float | None


def control_map(model: type[Params]) -> dict[str, ControlSpec]:
    """The controls by parameter name."""
    return {s.name: s for s in controls_of(model)}


@cache
def controls_of(model: type[Params]) -> tuple[ControlSpec, ...]:
    """Read the control metadata off a Params model, in field order (read once per model: every
    request parses its query against them)."""
    specs = []
    for name, f in model.model_fields.items():
        raw = f.json_schema_extra
        extra = cast(ControlExtra, dict(raw) if isinstance(raw, dict) else {})
        ge = le = None
        for m in f.metadata:
            ge = getattr(m, "ge", ge)
            le = getattr(m, "le", le)
        ann = f.annotation
        args = getattr(ann, "__args__", None) or ()
        is_int = ann is int or (int in args and float not in args)
        if extra.get("control") == "list":
            ge, le = extra.get("item_ge"), extra.get("item_le")
            inner = getattr(ann, "__args__", (float,))[0]
            is_int = inner is int
        specs.append(
            ControlSpec(
                name=name,
                control=extra.get("control", "slider"),
                label=extra.get("label", name),
                default=f.default,
                unit=extra.get("unit", ""),
                ge=ge,
                le=le,
                step=extra.get("step"),
                log=extra.get("log", False),
                options=extra.get("options"),
                optional=f.default is None,
                illustrative=extra.get("illustrative", False),
                placeholder=extra.get("placeholder", ""),
                help=f.description or "",
                is_int=bool(is_int),
                custom=extra.get("custom", ""),
                sym=extra.get("sym") or symbol_of(extra.get("label", name)),
                min_len=next((m.min_length for m in f.metadata if getattr(m, "min_length", None) is not None), None),
                max_len=next((m.max_length for m in f.metadata if getattr(m, "max_length", None) is not None), None),
            )
        )
    return tuple(specs)


# ---------------------------------------------------------------------------------------------
# The view a card computes
# ---------------------------------------------------------------------------------------------


@dataclass
class Stat:
    """A labelled number (or word) on screen, as a tile shows it. ``key`` names the output it shows
    (catalog output key); ``text`` is the value as its declaration formats it; ``unit`` stands beside
    it when the text does not carry it."""

    key: str
    label: str
    text: str
    value: Any = None
    unit: str = ""
    illustrative: bool = False  # 示意 badge
    book: str = ""  # the book's own wording, shown beside ("三倍", "约 31×")
    emphasis: bool = False
    hidden: bool = False  # the value is held back (a live question asks it, or practice first): a placeholder
    note: str = ""  # why it is held back, beside the placeholder ("先作答")

    @property
    def numeric(self) -> bool:
        """A number (its tile opens the number's derivation)."""
        return isinstance(self.value, (int, float)) and not isinstance(self.value, bool)


# ---------------------------------------------------------------------------------------------
# Numbers held back: practice first and a live question's asked value
# ---------------------------------------------------------------------------------------------

HIDDEN_TEXT = "?"  # what a held-back number reads as
HELD: ContextVar[frozenset[str]] = ContextVar("held_outputs", default=frozenset())  # set while a fragment renders


class Quoted(Text):
    """Text quoting outputs' values outside a slot (a diagram's label, a table cell, a ✓/✗): each
    quoted value reads "?" while its output is held back, as a slot of that output does. It is made
    where the text is built (:func:`quote`, ``shown``), so what it carries is known by structure, not
    found by scanning the page. Joined to other text or words (``W["a"] + q``) it stays what it is,
    each part said in the edition served."""

    parts: tuple[tuple[Any, frozenset[str]], ...]  # runs of text (or words), each with the outputs it quotes

    def __new__(
        cls, text: Any = "", keys: Iterable[str] = (), parts: Sequence[tuple[Any, frozenset[str]]] = ()
    ) -> Quoted:
        runs = tuple(parts) or ((text, frozenset(keys)),)
        q = str.__new__(cls, "".join(str(t) for t, _ in runs))
        q.parts, q.catalogue, q.key, q.args = runs, None, "", {}  # type: ignore[assignment]
        return q

    @staticmethod
    def _runs(x: Any) -> tuple[tuple[Any, frozenset[str]], ...]:
        return x.parts if isinstance(x, Quoted) else ((x, frozenset()),)

    def __add__(self, other: str) -> Quoted:  # type: ignore[override]
        return Quoted(parts=self.parts + self._runs(other))

    def __radd__(self, other: str) -> Quoted:
        return Quoted(parts=self._runs(other) + self.parts)

    def localized(self, lang: str) -> Quoted:  # type: ignore[override]
        return Quoted(parts=tuple((str(in_edition(t, lang)), k) for t, k in self.parts))

    def held(self, hidden: frozenset[str]) -> bool:
        return any(not keys.isdisjoint(hidden) for _, keys in self.parts)

    def carrying(self, keys: Iterable[str], mark: str = "", slots: Iterable[str] = ()) -> Quoted:
        """The same text, where it also tells the answer of ``keys``: each ``mark`` in it (a ✓ or ✗) and
        each value of the ``slots`` outputs (a margin whose sign says "fits") read "?" while they are held."""
        keys, slots = frozenset(keys), frozenset(slots)
        runs: list[tuple[Any, frozenset[str]]] = []
        for t, k in self.parts:
            if not k.isdisjoint(slots):
                runs.append((t, k | keys))
            elif mark and mark in str(t):
                before, _, after = str(t).partition(mark)
                runs += [(before, k), (mark, k | keys), (after, k)]
            else:
                runs.append((t, k))
        return Quoted(parts=runs)

    def text(self, hidden: frozenset[str]) -> str:
        """In the edition served, each run quoting a held-back output as "?"."""
        return "".join(HIDDEN_TEXT if not k.isdisjoint(hidden) else str(localize(t)) for t, k in self.parts)

    def html(self, hidden: frozenset[str]) -> str:
        """As markup, in the edition served: each run quoting a held-back output as "?"."""
        return "".join(HIDDEN_TEXT if not k.isdisjoint(hidden) else str(escape(localize(t))) for t, k in self.parts)

    def __html__(self) -> str:
        return self.html(HELD.get())


def quote(text: str, lookup: Callable[[str, str], tuple[str, str] | None]) -> Quoted:
    """``text`` with its slots filled (``lookup`` as :func:`~app.outputs.fill`), each filled output
    remembered (:class:`Quoted`), so it reads "?" wherever that output is held back."""
    if "[[" not in text:
        return Quoted(text)
    runs: list[tuple[Any, frozenset[str]]] = []
    for written, key, flag in split(localize(text)):
        hit = lookup(key, flag) if key else None
        if hit is None:
            runs.append((written, frozenset()))
        else:  # a slot holding words (Text) stays words: said in the edition served
            runs.append((hit[0], frozenset({key}) if hit[1] == "output" else frozenset()))
    return Quoted(parts=runs)


@dataclass
class Figure:
    """One Plotly figure as a plain dict (``data``, ``layout``, optional ``frames``)."""

    fig: dict
    title: str = ""
    summary: str = ""  # text alternative for screen readers: the figure's key numbers
    illustrative: bool = False
    animated: bool = False
    height: int = 320
    answers: frozenset[str] = frozenset()  # outputs the figure draws that the card's questions ask for
    # outputs whose value the figure plots or writes (a point, a bar, a label, a hover): a live question
    # asking one holds the figure back (tests/web/test_figure_draws.py checks the list is complete)
    draws: frozenset[str] = frozenset()


@dataclass
class Table:
    """A table. ``formats[i]`` formats numbers of column i: an output key (format it as that output
    is declared), an :class:`Out`, or None (4 significant figures)."""

    columns: list[str]
    rows: list[list[Any]]
    title: str = ""
    illustrative_cells: set[tuple[int, int]] = field(default_factory=set)
    links: dict[int, str] = field(default_factory=dict)  # row index -> card id
    note: str = ""
    formats: Sequence[str | Out | None] = ()
    # cells that show outputs' values, (row, column) → their keys: "?" while one of them is held back
    # (a text cell quoting outputs is a Quoted instead)
    keys: dict[tuple[int, int], frozenset[str]] = field(default_factory=dict)


@dataclass
class Note:
    text: str  # may contain $tex$ inline maths
    kind: Literal["note", "warn", "illustrative", "formula", "book"] = "note"
    # "defaults": it quotes book numbers that hold at the card's defaults only, so it is shown there only;
    # "moved": the words that stand in for such a note once a control has moved
    when: Literal["always", "defaults", "moved"] = "always"


def notes_at(card: Card, view: View, params: Params) -> list[Note]:
    """The notes that hold at this state: a note of the book's numbers only at the card's defaults."""
    if all(n.when == "always" for n in view.notes):
        return view.notes
    at = params == card.defaults()
    return [n for n in view.notes if n.when == "always" or (n.when == "defaults") == at]


@dataclass
class Block:
    """A template-rendered part of the card (SVG diagrams, bespoke layouts)."""

    template: str
    context: dict[str, Any] = field(default_factory=dict)


@dataclass
class Link:
    """A link to another card in a given state ("try it with these settings")."""

    text: str
    href: str


@dataclass
class Question:
    """An exercise question. Numeric questions are checked against ``outputs[key]``."""

    key: str
    prompt: str
    unit: str = ""
    kind: Literal["numeric", "bool", "choice", "open"] = "numeric"
    hint: str = ""
    solution: list[str] = field(default_factory=list)  # steps, $tex$ allowed, numbers filled in
    answer_text: str = ""  # model answer for open questions
    slips: tuple[Any, ...] = ()  # exercises.Slip: mistakes the card knows of (total vs active, TP not divided)
    units: dict[str, float] = field(default_factory=dict)  # alternative units: name -> factor to `unit`
    options: dict[str, str] = field(default_factory=dict)  # for choice/bool questions
    # a narrower 正确 band than the rule's 0.5 % (接近: ten times it), when the change the question asks
    # about is smaller than the rule's bands (the unchanged value must not pass); shown on the page
    tolerance: float | None = None
    # other outputs whose value tells this answer (练习 3-2's backlog at the book's other rounding of the
    # rate, within the 正确 band): held back with it until the reader has tried it
    tells: frozenset[str] = frozenset()


@dataclass
class View:
    outputs: dict[str, Any]
    figures: list[Figure] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    blocks: list[Block] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)
    headline: str = ""  # one line above the numbers; [[key]] slots are filled
    links: list[Link] = field(default_factory=list)  # cards (with presets) to try this on
    links_title: str = W["view.links_title"]
    ctx: dict[str, Any] = field(default_factory=dict)  # run-time values for labels and conditions
    # the text of each [[key|flags]] slot once filled: tiles, captions, summaries and the prose
    # values quote the same numbers (see :func:`slot`)
    filled: dict[tuple[str, str, bool], tuple[str, str] | None] = field(default_factory=dict, repr=False, compare=False)


# ---------------------------------------------------------------------------------------------
# Cards and the registry
# ---------------------------------------------------------------------------------------------

Kind = Literal["calculator", "chart", "animation", "diagram", "table", "exercise", "text"]


@dataclass
class Card:
    id: str
    title: str  # short Chinese title as in the catalog
    label: str  # printed label(s): "例题 1-1 / 图 1-9 ~ 1-12"; "" if none
    section: str  # "1.3", "3.2", "1-end", "1-open", "3-open", "3-end"; "tools": a tool page
    kind: Kind
    params: type[Params]
    compute: Callable[[Any], View]
    aliases: tuple[str, ...] = ()
    badges: tuple[tuple[str, str], ...] = ()  # (text, card id) links such as ("练习 3-3", "ex-3-3")
    template: str | None = None  # a bespoke result template instead of the generic one
    lead: str = ""  # one or two sentences shown under the title (Chinese)
    shared_state: str | None = None  # id of a card whose same-named params this card follows on a page
    outputs: dict[str, Out] = field(default_factory=dict)  # each output declared once
    _defaults: Params = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._defaults = self.params()  # frozen: one instance serves every comparison with the defaults

    @property
    def chapter(self) -> int:
        """The chapter number of ``section``; 0 for a section outside the chapters (``"tools"``)."""
        head = self.section.split(".")[0].split("-")[0]
        return int(head) if head.isdigit() else 0

    @property
    def display_title(self) -> str:
        return W.f("display_title", label=self.label, title=self.title) if self.label else self.title

    def parse(self, data: dict[str, Any]) -> Params:
        return self.params.model_validate(data)

    def defaults(self) -> Params:
        """The card's default state (one frozen instance, built with the card)."""
        return self._defaults


REGISTRY: dict[str, Card] = {}
ALIASES: dict[str, str] = {}


def register(card: Card) -> Card:
    if card.id in REGISTRY or card.id in ALIASES:
        raise ValueError(f"duplicate card id {card.id}")
    REGISTRY[card.id] = card
    for a in card.aliases:
        if a in REGISTRY or a in ALIASES:
            raise ValueError(f"duplicate alias {a}")
        ALIASES[a] = card.id
    return card


def unregister(card_id: str) -> None:
    """Take a card (and its aliases) out of the registry: for a test that registers a card of its own."""
    card = REGISTRY.pop(card_id)
    for a in card.aliases:
        ALIASES.pop(a, None)


def card(
    id: str,
    *,
    title: str,
    section: str,
    kind: Kind,
    params: type[Params] = NoParams,
    label: str = "",
    aliases: Sequence[str] = (),
    badges: Sequence[tuple[str, str]] = (),
    template: str | None = None,
    lead: str = "",
    shared_state: str | None = None,
    outputs: dict[str, Out] | None = None,
) -> Callable[[Callable[[Any], View]], Callable[[Any], View]]:
    """Decorator: register ``compute`` as card ``id``."""

    def wrap(compute: Callable[[Any], View]) -> Callable[[Any], View]:
        register(
            Card(
                id=id,
                title=title,
                label=label,
                section=section,
                kind=kind,
                params=params,
                compute=compute,
                aliases=tuple(aliases),
                badges=tuple(badges),
                template=template,
                lead=lead,
                shared_state=shared_state,
                outputs=dict(outputs or {}),
            )
        )
        return compute

    return wrap


def resolve(name: str) -> str | None:
    """Card id for an id or alias, else None."""
    if name in REGISTRY:
        return name
    return ALIASES.get(name)


def finite(x: float) -> float | None:
    """JSON-safe number: NaN/inf become None."""
    return x if isinstance(x, (int, float)) and math.isfinite(x) else None


# ---------------------------------------------------------------------------------------------
# Running a card: plain (every slider drag) or traced (derivations, on demand and in the JSON API)
# ---------------------------------------------------------------------------------------------


def traced_params(card: Card, params: Params) -> Params:
    """The same params with every number a traced input naming its control (slider or 题设)."""
    specs = {s.name: s for s in controls_of(card.params)}
    upd = {}
    for name, value in params:
        spec = specs.get(name)
        if spec is None or isinstance(value, bool) or not isinstance(value, (int, float)):
            continue
        upd[name] = leaf(value, spec.sym, spec.unit, spec.source)
    return params.model_copy(update=upd)


def run(card: Card, params: Params) -> View:
    """The card's view (plain numbers)."""
    return card.compute(params)


def explain(
    card: Card, params: Params, held: Callable[[View], frozenset[str]] | None = None
) -> tuple[View, dict[str, Derivation]]:
    """The card's view computed with tracing on, and a derivation for every numeric scalar output;
    ``held(view)`` names the outputs held back (answers not yet tried, a live question's value): no
    other output's derivation shows their values."""
    with tracing():
        view = card.compute(traced_params(card, params))
    return view, derivations_of(card, view, params, held(view) if held else frozenset())


def held_nodes(view: View, keys: frozenset[str], equal: bool = True) -> frozenset[int]:
    """The trace nodes that carry the ``keys`` outputs' values: their own nodes (through unit
    conversions), and any worked value equal to one of them (three significant digits or more: the same
    quantity worked out again, 练习 3-6's D = n_seq·P beside its asked input tokens; an input from another
    card's defaults, 练习 3-5's 1,600 patches); with ``equal`` off, the outputs' own nodes only."""
    out: set[int] = set()
    values: list[float] = []
    for k in keys:
        n = node_of(view.outputs.get(k))
        while n is not None:  # the output, and the same value before each unit conversion (FLOP of a GFLOP)
            out.add(id(n))
            if _telling(n.value):
                values.append(float(n.value))
            n = n.args[0] if n.kind == "scale" and n.args and isinstance(n.args[0], Node) else None
    if values and equal:
        seen: set[int] = set()
        stack = [n for v in view.outputs.values() if (n := node_of(v)) is not None]
        while stack:
            n = stack.pop()
            if id(n) in seen:
                continue
            seen.add(id(n))
            if any(math.isclose(n.value, v, rel_tol=1e-9) for v in values):
                out.add(id(n))
            stack.extend(a for a in n.args if isinstance(a, Node))
    return frozenset(out)


def _telling(v: Any) -> bool:
    """A value whose equal elsewhere is no coincidence: written with three digits or more (1,600, 0.283;
    a 2 or a 64 reads like many other numbers)."""
    if not isinstance(v, (int, float)) or isinstance(v, bool) or not math.isfinite(v) or v == 0:
        return False
    return abs(v) >= 100 or len(f"{abs(v):.4e}".split("e")[0].replace(".", "").rstrip("0")) >= 3


def derivations_of(card: Card, view: View, params: Params, held: frozenset[str] = frozenset()) -> dict[str, Derivation]:
    out: dict[str, Derivation] = {}
    carriers = held_nodes(view, held) if held else frozenset()
    for key, value in view.outputs.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            continue
        decl = card.outputs.get(key) or undeclared(key)
        shown = decl.fmt(value, approx=resolve_cond(decl.approx, view.ctx, params, view.outputs))
        try:
            d = derive(
                value,
                decl.sym or label_text(decl.label, card, view, params) or key,
                shown,
                decl.rule,
                term_text(decl),
                carriers - held_nodes(view, frozenset({key}), equal=False),  # its own node shows its formula
                tuple(float(view.outputs[k]) for k in held - {key} if _telling(view.outputs[k])),
            )
        except RecursionError:  # a trace too deep to write out reads as unrecorded
            d = None
        out[key] = d if d is not None else Derivation(sym=key, formula=W["derivations_of.formula"], result=shown)
    return out


def term_text(decl: Out) -> Callable[[float], str]:
    """A term of an output's max/min as its derivation writes it: 4 significant figures, the output's unit."""
    return lambda v: with_unit_text(BRIEF.text(v / decl.scale / 10**decl.exp), decl.display_unit)


def tiles(card: Card, view: View, params: Params) -> list[Stat]:
    """The labelled numbers of a view, from the output declaration in its order: an output shows
    as a tile when its ``tile`` condition holds at this state."""
    o, ctx = view.outputs, view.ctx
    stats = []
    for key, d in card.outputs.items():
        if key not in o or d.tile is False or not resolve_cond(d.tile, ctx, params, o):
            continue
        approx = resolve_cond(d.approx, ctx, params, o)
        value = o[key]
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            whole = d.shown(value) is not None or d.glued or d.sci  # the text carries its unit
            text, unit = d.fmt(value, approx=approx, unit=whole), "" if whole else d.display_unit
        else:
            text, unit = label_text(d.words(value), card, view, params), ""
        stats.append(
            Stat(
                key,
                label_text(d.label or key, card, view, params),
                text,
                value=value,
                unit=unit,
                illustrative=resolve_cond(d.ill, ctx, params, o),
                book=d.book,
                emphasis=d.em,
            )
        )
    return stats


def slot(card: Card, view: View, params: Params | None, key: str, flag: str = "") -> tuple[str, str] | None:
    """The text of a ``[[key]]`` slot: a view ctx value, an output (its declared format; ``|n``
    without the unit) or a param (its value and control unit). Filled once per view."""
    memo = (key, flag, params is None)
    hit = view.filled.get(memo, _UNFILLED)
    if hit is _UNFILLED:
        hit = view.filled[memo] = _fill_slot(card, view, params, key, flag)
    return hit


_UNFILLED: Any = object()


def _fill_slot(card: Card, view: View, params: Params | None, key: str, flag: str) -> tuple[str, str] | None:
    if key in view.ctx:
        v = view.ctx[key]
        return (plain(localize(v)), "ctx")
    if key in view.outputs:
        decl = card.outputs.get(key) or undeclared(key)
        return decl.fmt(view.outputs[key], flags=flag), "output"
    if params is not None and key in type(params).model_fields:
        v = getattr(params, key)
        spec = control_map(card.params).get(key)
        unit = spec.unit if spec and "n" not in flag.split(",") else ""
        return with_unit_text(plain(v), unit), "param"
    return None


def label_text(text: str, card: Card, view: View, params: Params | None, hide: frozenset[str] = frozenset()) -> str:
    """A template as plain text: each slot filled (:func:`slot`), a slot of a ``hide`` output (held back)
    as "?", a slot nothing fills left as written."""

    def look(key: str, flag: str) -> tuple[str, str] | None:
        return (HIDDEN_TEXT, "output") if key in hide else slot(card, view, params, key, flag)

    return fill(localize(text), look)


def cell_text(card: Card, table: Table, col: int, value: Any) -> str:
    """A table cell as text: numbers in the column's declared format."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return str(value)
    spec = table.formats[col] if col < len(table.formats) else None
    if isinstance(spec, str):
        spec = card.outputs.get(spec) or undeclared(spec)
    return spec.fmt(value, unit=False) if spec is not None else DEFAULT.text(value)
