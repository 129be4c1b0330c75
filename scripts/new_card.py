"""Scaffold a new card that renders at once: ``make card ID=kv-per-request SECTION=1.2``.

Writes three new files and two catalog entries, and edits nothing else:

- ``app/calculators/<slug>.py``: one stub formula per output (pure, traced, one-line docstring);
  each returns NaN until its formula is written, so the tile reads "—";
- ``app/chapters/ch<N>/s<N>_<sec>_<slug>.py``: the declaration (Params, outputs, ``@card``), a new
  module of the chapter package (discovered; it imports no other section module);
- ``tests/checks/ch<N>_s<N>_<sec>_<slug>.py``: the book values as ``check(...)``s, failing until the
  formulas give them;
- the card's entries in ``tests/data/catalog_ids.json`` and ``tests/data/catalog_contract.json``.

When the card catalog (``--catalog``, default ``../shared/catalog`` from the repository root) has an
entry for the id, its parameters, output keys and book values at the defaults are taken from it;
otherwise clearly marked placeholders are written. Standard library only.
"""

from __future__ import annotations

import argparse
import json
import keyword
import re
import sys
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

PLACEHOLDER = "待填"  # marks every text the scaffold could not take from the catalog (visible on the page)
NOT_A_VALUE = {"", "—", "-", "–"}
NO_UNIT = {"", "—", "-", "count", "index", "unitless", "enum", "bool", "×", "requests"}


# ---------------------------------------------------------------------------------------------
# The card catalog (../shared/catalog/*.md, format in FORMAT.md)
# ---------------------------------------------------------------------------------------------


@dataclass
class Row:
    """One row of a params or outputs table: the keys its first cell names and its other cells."""

    keys: list[str]
    cells: list[str]


@dataclass
class Entry:
    """One card of the catalog, as far as the scaffold needs it."""

    id: str
    file: str
    head: str
    kind: str = ""
    aliases: list[str] = field(default_factory=list)
    params: list[Row] = field(default_factory=list)
    outputs: list[Row] = field(default_factory=list)

    @property
    def param_keys(self) -> list[str]:
        return _keys(self.params)

    @property
    def output_keys(self) -> list[str]:
        return _keys(self.outputs)

    def book(self) -> dict[str, str]:
        """The book value at the defaults of each output a row names alone, as printed ("20.90")."""
        values = {}
        for row in self.outputs:
            printed = _printed_number(row.cells[-1]) if len(row.keys) == 1 and len(row.cells) >= 2 else None
            if printed is not None:
                values[row.keys[0]] = printed
        return values

    def derived(self) -> dict[str, str]:
        """Values the catalog derives at the defaults where the book prints none: "— (derived 68.66)"."""
        values = {}
        for row in self.outputs:
            if len(row.keys) == 1 and len(row.cells) >= 2:
                m = re.fullmatch(r"—\s*\((?:derived\s+)?(−?-?[\d,]*\.?\d+)\)", row.cells[-1].strip())
                if m:
                    values[row.keys[0]] = m.group(1).replace("−", "-")
        return values


def _keys(rows: list[Row]) -> list[str]:
    seen: list[str] = []
    for row in rows:
        seen += [k for k in row.keys if k not in seen]
    return seen


def _printed_number(cell: str) -> str | None:
    """The number a cell starts with ("≈ 148 (147.67)" → "148", "约 5,591" → "5,591"), if any."""
    m = re.match(r"(?:≈|约)?\s*(-?\d[\d,]*(?:\.\d+)?)(?=$|[\s;(/])", cell.strip())
    return m.group(1) if m else None


_ENTRY = re.compile(r"^### `([a-z0-9-]+)` · (.*)$")
_FIELD = re.compile(r"^- (kind|aliases|params|outputs)\b(.*)$")


def read_catalog(folder: Path) -> dict[str, Entry]:
    """Every entry of every chapter file in ``folder`` (none when the folder does not exist)."""
    entries: dict[str, Entry] = {}
    for path in sorted(folder.glob("*.md")) if folder.is_dir() else []:
        if path.name == "FORMAT.md":
            continue
        for entry in _entries(path):
            entries.setdefault(entry.id, entry)
    return entries


def _entries(path: Path) -> list[Entry]:
    found: list[Entry] = []
    entry: Entry | None = None
    current = ""  # the field whose lines follow
    for line in path.read_text(encoding="utf-8").splitlines():
        head = _ENTRY.match(line)
        if head:
            entry = Entry(head.group(1), path.name, head.group(2).strip())
            found.append(entry)
            current = ""
            continue
        if entry is None:
            continue
        if line.startswith(("## ", "### ", "---")):
            entry, current = None, ""
            continue
        fld = _FIELD.match(line)
        if fld:
            current, rest = fld.group(1), fld.group(2).partition(":")[2].strip()
            if current == "kind":
                entry.kind = rest
            elif current == "aliases":  # the ids before any remark in parentheses
                entry.aliases = _backticked(rest.split("(")[0])
            elif rest.startswith("`") and "|" in rest:  # a single row written inline
                _add_row(entry, current, rest)
            continue
        if line.startswith("- "):
            current = ""
        elif current in ("params", "outputs") and line.strip().startswith("|"):
            _add_row(entry, current, line.strip().strip("|"))
    return found


def _backticked(text: str) -> list[str]:
    return re.findall(r"`([^`]+)`", text)


def _add_row(entry: Entry, table: str, line: str) -> None:
    cells = [c.strip() for c in _split_cells(line)]
    keys = [k for k in _backticked(cells[0]) if re.fullmatch(r"[a-z][a-z0-9_]*", k)]
    if not keys:  # the header row or the |---| line
        return
    (entry.params if table == "params" else entry.outputs).append(Row(keys, cells[1:]))


def _split_cells(line: str) -> list[str]:
    """Table cells split at ``|`` outside backticks."""
    cells, cell, quoted = [], "", False
    for ch in line:
        if ch == "`":
            quoted = not quoted
        if ch == "|" and not quoted:
            cells.append(cell)
            cell = ""
        else:
            cell += ch
    return [*cells, cell]


# ---------------------------------------------------------------------------------------------
# Source text as ruff formats it: a bracket fits on its line, or holds one item per line
# ---------------------------------------------------------------------------------------------

WIDTH = 120  # ruff's line length (pyproject.toml)


@dataclass
class Br:
    """A bracketed list of items (a call, a dict, a list, a signature): ``open`` item, … ``close``."""

    open: str
    items: list[str | Br]
    close: str
    one_per_line: bool = False  # always exploded (a table of declarations reads better so)

    def flat(self) -> str:
        return self.open + ", ".join(i if isinstance(i, str) else i.flat() for i in self.items) + self.close


def width(line: str) -> int:
    """Columns as ruff counts them: East Asian wide characters take two; a ``# type:`` pragma none."""
    code = line.split("  # type:")[0]
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in code)


def lines(node: str | Br, indent: int = 0, suffix: str = "", pragma: str = "") -> list[str]:
    """``node`` on one line when it fits, else exploded with a trailing comma (which ruff keeps)."""
    pad = " " * indent
    tail = f"  {pragma}" if pragma else ""
    fits = isinstance(node, str) or (width(pad + node.flat() + suffix) <= WIDTH and not node.one_per_line)
    if fits or isinstance(node, str) or not node.items:
        return [pad + (node if isinstance(node, str) else node.flat()) + suffix + tail]
    out = [pad + node.open + tail]
    for item in node.items:
        out += lines(item, indent + 4, ",")
    return [*out, pad + node.close + suffix]


def py(v: object) -> str:
    """A Python literal, quoted as ruff writes it (double quotes unless the text holds one)."""
    if isinstance(v, str):
        text = json.dumps(v, ensure_ascii=False)
        return "'" + text[1:-1].replace('\\"', '"') + "'" if '"' in v and "'" not in v else text
    if isinstance(v, float) and v.is_integer():
        return f"{v:.1f}"
    return repr(v)


# ---------------------------------------------------------------------------------------------
# The card's parameters, outputs and book values, from a catalog entry or as placeholders
# ---------------------------------------------------------------------------------------------

RANGE = re.compile(r"(-?[\d.,]+)\s*[–-]\s*(-?[\d.,]+)\s*/\s*([\d.,]+)")
NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?")
KINDS = ("calculator", "chart", "animation", "diagram", "table", "exercise", "text")


@dataclass
class Control:
    """One parameter as the declaration writes it: ``name: annotation = <call>``."""

    name: str
    annotation: str
    call: Br
    builder: str  # the app.cards function the call uses
    numeric: bool = False  # a number the calculator stubs take
    number_type: bool = False  # a select of numbers (its annotation needs a type: ignore)


def _number(text: str) -> int | float | None:
    m = NUMBER.search(text)
    if not m:
        return None
    s = m.group(0).replace(",", "")
    return float(s) if "." in s else int(s)


def _label(meaning: str) -> str:
    """A placeholder label: the catalog's English words, marked to be replaced by the book's Chinese."""
    words = re.sub(r"`([^`]*)`", r"\1", meaning).strip() or "参数"
    return f"{PLACEHOLDER}:{words if len(words) <= 60 else words[:59] + '…'}"


def _unit(cell: str) -> str:
    unit = re.sub(r"`[^`]*`", "", cell).strip()
    return "" if unit.split(" ")[0] in NO_UNIT or unit.startswith(("enum", "select")) else unit


def controls(rows: list[Row]) -> list[Control]:
    """The parameters of a params table (a row naming several keys gives each its own default and
    range when its cells list one per key: "8192 / 256", "256–32768 / 256 ; 2–4096 / 1")."""
    out: list[Control] = []
    for row in rows:
        meaning, unit, default, range_ = [*row.cells, "", "", "", ""][:4]
        defaults = default.split(" / ") if len(row.keys) > 1 else [default]
        ranges = range_.split(";") if len(row.keys) > 1 else [range_]
        for i, key in enumerate(row.keys):
            d = defaults[i] if len(defaults) == len(row.keys) else default
            r = ranges[i] if len(ranges) == len(row.keys) else range_
            out.append(control(key, meaning, unit, d.strip(), r.strip()))
    return out


def control(name: str, meaning: str, unit_cell: str, default: str, range_: str) -> Control:
    """One parameter: a slider for "lo–hi / step", 题设 for "fixed", a select for an enum or a list of
    numbers, a toggle for true/false; an optional override for a default that is another value's."""
    label, unit = py(_label(meaning)), _unit(unit_cell)
    unit_arg = [f"unit={py(unit)}"] if unit else []
    word = default.strip("`").split(" ")[0]
    if word in ("true", "false"):
        return Control(name, "bool", Br("toggle(", [str(word == "true"), f"label={label}"], ")"), "toggle")
    if unit_cell.startswith("enum") or (default.startswith("`") and _number(word) is None):
        named = [*_backticked(unit_cell), *_backticked(range_), *_backticked(meaning)]
        options = list(dict.fromkeys([word, *named]))
        choices = Br("{", [f"{py(o)}: {py(o)}" for o in options], "}")
        literal = f"Literal[{', '.join(py(o) for o in options)}]"
        return Control(name, literal, Br("choice(", [py(word), choices, f"label={label}"], ")"), "choice")
    value = _number(default) if re.match(r"(?:≈|约)?\s*-?\d", default) else None
    if range_.startswith("select"):
        options = [n for n in (_number(t) for t in range_.split(",")) if n is not None]
        picked = value if value in options else options[0]
        choices = Br("{", [f"{py(o)}: {py(str(o))}" for o in options], "}")
        call = Br("choice(", [py(picked), choices, f"label={label}"], ")")
        return Control(name, f"number_type({options!r})", call, "choice", numeric=True, number_type=True)
    bounds = RANGE.search(range_)
    if bounds and value is None and _number(default) is not None:  # "the GPU's (3.35)": an override
        ge, le, step = (_number(b) for b in bounds.groups())
        args = ["None", f"ge={py(ge)}", f"le={py(le)}", f"step={py(step)}", f"label={label}", *unit_arg]
        return Control(name, "float | None", Br("slider(", args, ")"), "slider")
    value = 0 if value is None else value
    if bounds and "fixed" not in range_:
        ge, le, step = (_number(b) for b in bounds.groups())
        assert ge is not None and le is not None and step is not None
        whole = all(isinstance(v, int) for v in (value, ge, le, step))
        if not whole:
            value, ge, le, step = (float(v) for v in (value, ge, le, step))
        value = min(max(value, ge), le)
        args = [py(value), f"ge={py(ge)}", f"le={py(le)}", f"step={py(step)}", f"label={label}", *unit_arg]
        args += ["log=True"] * ("log" in range_) + ["illustrative=True"] * ("示意" in default)
        return Control(name, "int" if whole else "float", Br("slider(", args, ")"), "slider", numeric=True)
    kind = "int" if isinstance(value, int) else "float"
    return Control(name, kind, Br("fixed(", [py(value), f"label={label}", *unit_arg], ")"), "fixed", numeric=True)


@dataclass
class Output:
    key: str
    label: str
    unit: str  # "" when the key's suffix gives it (or it has none)
    formula: str  # the catalog's, for the stub's docstring


def outputs_of(entry: Entry, suffix_units: dict[str, str]) -> list[Output]:
    """The outputs of an outputs table, each key once, in the catalog's order."""
    found: dict[str, Output] = {}
    for row in entry.outputs:
        meaning, unit, formula = [*row.cells, "", "", ""][:3]
        for key in row.keys:
            own = _unit(unit) if not any(key.endswith(s) for s in suffix_units) else ""
            found.setdefault(key, Output(key, _label(meaning), own, formula.strip()))
    return list(found.values())


def suffix_units(root: Path) -> dict[str, str]:
    """The key suffixes that carry a unit (``SUFFIX_UNITS`` in app/outputs.py)."""
    text = (root / "app" / "outputs.py").read_text(encoding="utf-8")
    return dict(re.findall(r'\("(_[a-z_]+)", "([^"]*)"\)', text))


# ---------------------------------------------------------------------------------------------
# The plan: where each file goes and what it holds
# ---------------------------------------------------------------------------------------------

CARD_ID = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*")
TAKEN = {"trace", "TODO", "annotations"}  # module-level names of the stub module


@dataclass
class Plan:
    id: str
    section: str
    entry: Entry | None
    controls: list[Control]
    outputs: list[Output]

    @property
    def chapter(self) -> str:
        return self.section.split(".")[0]

    @property
    def slug(self) -> str:
        return self.id.replace("-", "_")

    @property
    def module(self) -> str:
        return f"s{self.chapter}_{self.section.split('.')[1]}_{self.slug}"

    @property
    def params_class(self) -> str:
        return "".join(w.capitalize() for w in self.id.split("-")) + "Params"

    @property
    def outputs_name(self) -> str:
        return f"{self.slug.upper()}_OUT"

    def files(self) -> dict[str, str]:
        """Path (from the repository root) → text of every new file."""
        return {
            f"app/calculators/{self.slug}.py": stub_module(self),
            f"app/chapters/ch{self.chapter}/{self.module}.py": declaration_module(self),
            f"tests/checks/ch{self.chapter}_{self.module}.py": checks_module(self),
        }

    def title_and_label(self) -> tuple[str, str]:
        """The card's title and printed label(s) from the catalog's heading ("图 1-1 · 标题")."""
        if self.entry is None:
            return f"{PLACEHOLDER}:{self.id} 的标题", ""
        head = re.sub(r"\s{2,}\(.*\)\s*$", "", self.entry.head).strip()
        label, sep, title = head.partition("·")
        if sep and re.match(r"(图|例题|练习|表)\s*\d", label):
            return title.strip(), label.strip()
        return head, ""


def fn_name(key: str) -> str:
    """A stub's function name: the output key (a keyword or a module-level name gets a trailing _)."""
    return f"{key}_" if keyword.iskeyword(key) or key in TAKEN else key


def plan(card_id: str, section: str, entry: Entry | None, units: dict[str, str]) -> Plan:
    if entry is None:  # no catalog entry: one placeholder parameter and one placeholder output
        row = Row(["x"], ["参数 x", "", "1", "0–10 / 0.1"])
        return Plan(card_id, section, None, controls([row]), [Output("y", f"{PLACEHOLDER}:输出 y", "", "")])
    outs = outputs_of(entry, units) or [Output("y", f"{PLACEHOLDER}:输出 y(目录未列输出)", "", "")]
    return Plan(card_id, section, entry, controls(entry.params), outs)


def stub_module(p: Plan) -> str:
    numeric = [c for c in p.controls if c.numeric]
    terms = "terms" if all(c.name != "terms" for c in numeric) else "terms_"
    src = [
        f'"""`{p.id}`: its formulas (pure; base units: bytes, s, FLOPs). Scaffolded by ``make card``: each',
        "function is a placeholder that returns NaN (the tile reads “—”) until its formula is written; the",
        'docstring names the formula to write."""',
        "",
        "from __future__ import annotations",
        "",
        "from .. import trace",
        "",
        "# the placeholder factor: NaN, so no book value is met by accident",
        f'TODO = trace.given(float("nan"), "?", source="{PLACEHOLDER}:书中的公式")',
    ]
    for o in p.outputs:
        args = [f"{c.name}: {'float' if c.number_type else c.annotation}" for c in numeric]
        formula = (o.formula if o.formula not in NOT_A_VALUE else "?").replace("\\", "\\\\").replace('"', "'")
        src += ["", "", *lines(Br(f"def {fn_name(o.key)}(", args, ") -> float:"))]
        src.append(f'    """{o.key} = {formula} (placeholder: NaN until written)."""')
        if len(numeric) > 1:  # every input, so the derivation names each slider the formula will use
            src += lines(Br(f"{terms} = [", [c.name for c in numeric], "]"), 4)
            src.append(f"    return trace.name(trace.tsum({terms}) * TODO, {py(o.key)})")
        else:
            src.append(f"    return trace.name({''.join(c.name + ' * ' for c in numeric)}TODO, {py(o.key)})")
    return "\n".join(src) + "\n"


def _import(module: str, names: set[str]) -> str:
    """``from module import a, B`` in ruff's order: constants, classes, then functions."""
    rank = {n: (0 if n.isupper() else 1 if n[:1].isupper() else 2, n) for n in names}
    return f"from {module} import {', '.join(sorted(names, key=rank.__getitem__))}"


def declaration_module(p: Plan) -> str:
    title, label = p.title_and_label()
    source = f"the card catalog's ({p.entry.file})" if p.entry else "placeholders (no catalog entry)"
    builders = {c.builder for c in p.controls} | {"Params", "View", "card"}
    builders |= {"number_type"} if any(c.number_type for c in p.controls) else set()
    src = [
        f'"""Section {p.section} · `{p.id}`, scaffolded by ``make card``.',
        "",
        f"Parameters and outputs: {source}. The formulas are placeholders in",
        f"app/calculators/{p.slug}.py; every text marked {PLACEHOLDER} is still to be written (the book's",
        'words and symbols)."""',
        "",
        "from __future__ import annotations",
        "",
    ]
    if any(c.annotation.startswith("Literal[") for c in p.controls):
        src += ["from typing import Literal", ""]
    src += [
        f"from ...calculators import {p.slug} as formulas",
        _import("...cards", builders),
        "from ...outputs import out, outputs",
        "",
        "",
        f"class {p.params_class}(Params):",
    ]
    if not p.controls:
        src.append('    """No parameters."""')
    for c in p.controls:
        pragma = "# type: ignore[valid-type]" if c.number_type else ""
        src += lines(Br(f"{c.name}: {c.annotation} = {c.call.open}", c.call.items, c.call.close), 4, "", pragma)
    decls = [Br(f"{o.key}=out(", [py(o.label), *([f"unit={py(o.unit)}"] if o.unit else [])], ")") for o in p.outputs]
    src += ["", "", *lines(Br(f"{p.outputs_name} = outputs(", list(decls), ")", one_per_line=True))]
    kind = next((k for k in KINDS if p.entry and p.entry.kind.startswith(k)), "calculator")
    card_args = [py(p.id), f"title={py(title)}", f"section={py(p.section)}", f"kind={py(kind)}"]
    card_args += [f"label={py(label)}"] * bool(label)
    if p.entry and p.entry.aliases:
        card_args.append(f"aliases=[{', '.join(py(a) for a in p.entry.aliases)}]")
    card_args += [f"params={p.params_class}", f"outputs={p.outputs_name}"]
    card_args.append(f"lead={py(PLACEHOLDER + ':一两句话,说读者看到什么、能改什么。')}")
    numeric = [f"p.{c.name}" for c in p.controls if c.numeric]
    values = [Br(f"{py(o.key)}: formulas.{fn_name(o.key)}(", list(numeric), ")") for o in p.outputs]
    headline = py(f"{PLACEHOLDER}:一句话,可引用输出 [[{p.outputs[0].key}]]")
    compute = p.slug if p.slug not in builders | {"out", "outputs", "formulas", "Literal"} else f"{p.slug}_view"
    src += ["", "", *lines(Br("@card(", card_args, ")"))]
    src.append(f"def {compute}(p: {p.params_class}) -> View:")
    src += lines(Br("values = {", list(values), "}", one_per_line=True), 4)
    src.append(f"    return View(values, headline={headline})")
    return "\n".join(src) + "\n"


def book_values(p: Plan) -> tuple[dict[str, str], dict[str, str]]:
    """The catalog's printed values at the defaults, and its derived ones (outputs of this card only)."""
    if p.entry is None:
        return {}, {}
    keys = {o.key for o in p.outputs}
    book = {k: v for k, v in p.entry.book().items() if k in keys}
    derived = {k: v for k, v in p.entry.derived().items() if k in keys and k not in book}
    return book, derived


def checks_module(p: Plan) -> str:
    book, derived = book_values(p)
    where = f"{p.entry.file} `{p.id}`, at the defaults" if p.entry else f"{PLACEHOLDER}:书中出处"
    src = [
        f'"""Book values of `{p.id}` (scaffolded by ``make card``): they fail until the formulas in',
        f'app/calculators/{p.slug}.py give them."""',
        "",
        "from __future__ import annotations",
        "",
    ]
    if not book and not derived:
        src += ["import math", ""]
    src += ["from . import check", ""]
    checks = []
    for values, source in ((book, "book"), (derived, "derived")):
        if values:
            expect = Br("{", [f"{py(k)}: {py(_value(v))}" for k, v in values.items()], "}")
            checks.append(Br("check(", [py(p.id), "{}", expect, f"source={py(source)}", f"where={py(where)}"], ")"))
    if not checks:  # nothing printed: a value to fill in, NaN until then (no number equals it)
        key = p.outputs[0].key
        expect = Br("{", [f"{py(key)}: math.nan"], "}")
        checks.append(Br("check(", [py(p.id), "{}", expect, 'source="book"', f"where={py(where)}"], ")"))
        src.append(f"# {PLACEHOLDER}: the book's value of {key} at the defaults, and where the book prints it")
    src += lines(Br("CHECKS = [", list(checks), "]", one_per_line=True))
    return "\n".join(src) + "\n"


def _value(printed: str) -> int | float:
    v = printed.replace(",", "")
    return float(v) if "." in v else int(v)


# ---------------------------------------------------------------------------------------------
# Writing it
# ---------------------------------------------------------------------------------------------


def catalog_entries(p: Plan) -> tuple[dict, dict]:
    """The card's entries in tests/data/catalog_ids.json and tests/data/catalog_contract.json."""
    if p.entry is None:
        ids = {"aliases": [], "file": "", "head": f"{PLACEHOLDER}:不在卡片目录中"}
    else:
        ids = {"aliases": p.entry.aliases, "file": p.entry.file, "head": p.entry.head}
    contract = {
        "params": [c.name for c in p.controls],
        "outputs": [o.key for o in p.outputs],
        "book": book_values(p)[0],
    }
    return ids, contract


def sections(root: Path) -> list[str]:
    """The section keys the book's structure lists (app/chapters/__init__.py)."""
    text = (root / "app" / "chapters" / "__init__.py").read_text(encoding="utf-8")
    return re.findall(r'\("(\d+\.(?:\d+|open|end))",', text)


def problems(root: Path, card_id: str, section: str) -> list[str]:
    """Why the card cannot be scaffolded here (empty: it can)."""
    if not CARD_ID.fullmatch(card_id):
        return [f"ID {card_id!r}: lower-case kebab case, starting with a letter (fig-1-7, kv-per-request)"]
    if section not in sections(root):
        return [f"SECTION {section!r} is not a section of the book: one of {', '.join(sections(root))}"]
    out = []
    ids = json.loads((root / "tests/data/catalog_ids.json").read_text(encoding="utf-8"))
    if card_id in ids:
        out.append(f"{card_id} is already in tests/data/catalog_ids.json (a card with that id exists)")
    if not (root / f"app/chapters/ch{section.split('.')[0]}").is_dir():
        out.append(f"no chapter package app/chapters/ch{section.split('.')[0]}")
    return out


def write(root: Path, p: Plan) -> list[str]:
    """Write the new files and add the two catalog entries; the paths written, from ``root``."""
    files = p.files()
    existing = [path for path in files if (root / path).exists()]
    if existing:
        raise SystemExit(f"make card: {', '.join(existing)} exist already; nothing written")
    for path, text in files.items():
        (root / path).write_text(text, encoding="utf-8")
    for name, entry in zip(("catalog_ids.json", "catalog_contract.json"), catalog_entries(p)):
        path = root / "tests" / "data" / name
        data = json.loads(path.read_text(encoding="utf-8"))
        (data["cards"] if "cards" in data else data)[p.id] = entry
        path.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return [*files, "tests/data/catalog_ids.json", "tests/data/catalog_contract.json"]


def next_steps(p: Plan) -> str:
    calc, decl = f"app/calculators/{p.slug}.py", f"app/chapters/ch{p.chapter}/{p.module}.py"
    book, derived = book_values(p)
    values = ", ".join(f"{k} = {v}" for k, v in {**book, **derived}.items())
    steps = [
        f"1. Write the formulas in {calc} (one per output; its docstring names the formula) and test",
        f"   them by hand in tests/calculators/test_{p.slug}.py (or move them into a topic module).",
        f"2. Replace every {PLACEHOLDER} text in {decl}: labels, symbols (sym=), title, lead, headline;",
        "   add a figure (tests/example_card.py shows one).",
        f"3. The book values ({values or 'none in the catalog: write one in first'}) are checks in",
        f"   tests/checks/ch{p.chapter}_{p.module}.py; they fail until the formulas give them:",
        f"   .venv/bin/python -m pytest -q tests/web/test_book_values.py -k {p.id}",
        f"4. Place the card in app/chapters/ch{p.chapter}/{p.section}.md ({{{{card:{p.id}}}}}), run `make golden`",
        "   and read its diff, then `make test`.",
    ]
    if p.entry is None:
        steps.insert(0, f"0. No catalog entry for {p.id}: rename the placeholder parameter x and output y in the")
        steps.insert(1, "   declaration, the stubs, the check and both tests/data/catalog_*.json entries.")
    return "\n".join(steps)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Scaffold a new card that renders at once.")
    parser.add_argument("id", help="the card id, e.g. kv-per-request")
    parser.add_argument("section", help="the section, e.g. 1.2 (or 3.end, 1.open)")
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent, help="repository root")
    parser.add_argument("--catalog", type=Path, help="card catalog folder (default: ROOT/../shared/catalog)")
    args = parser.parse_args(argv)
    root: Path = args.root.resolve()
    catalog: Path = args.catalog or root.parent / "shared" / "catalog"
    wrong = problems(root, args.id, args.section)
    if wrong:
        print("make card: " + "\n  ".join(wrong), file=sys.stderr)
        return 2
    entry = read_catalog(catalog).get(args.id)
    p = plan(args.id, args.section, entry, suffix_units(root))
    written = write(root, p)
    origin = f"from {catalog / entry.file}" if entry else f"placeholders: no entry for it in {catalog}"
    print(f"make card: {p.id} in section {p.section} ({origin})")
    print("\n".join(f"  wrote {path}" for path in written))
    print("It registers and renders now, with NaN (“—”) for every output. Next:")
    print(next_steps(p))
    return 0


if __name__ == "__main__":
    sys.exit(main())
