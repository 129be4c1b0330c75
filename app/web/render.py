"""Rendering: Jinja environment, view → HTML fragments, JSON payloads, CSV; an LRU of rendered
fragments keyed by (card, canonical params)."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from functools import cache, lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import orjson
from jinja2 import Environment, FileSystemLoader, pass_context, select_autoescape
from markupsafe import Markup, escape

from .. import format as fmt
from ..cards import (
    REGISTRY,
    Card,
    Figure,
    Stat,
    View,
    cell_text,
    controls_of,
    explain,
    finite,
    label_text,
    run,
    slot,
    tiles,
)
from ..chapters import CHAPTERS, section_of
from ..chapters.glossary import TERMS
from ..charts import ROLE_LABELS
from ..derivation import Derivation
from ..outputs import split
from ..text import markdown, rich
from ..text.glossary import Marker, Scope, definitions_html
from .cache import LRU
from .parts import esc, esc_text, figures_html, links_html, notes_html, questions_html, stats_html, tables_html
from .query import to_query

ROOT = Path(__file__).resolve().parent.parent.parent
STATIC = ROOT / "static"


@cache
def _fingerprint(path: str) -> str:
    p = STATIC / path
    try:
        return hashlib.sha256(p.read_bytes()).hexdigest()[:12]
    except OSError:
        return "0"


def static_url(path: str) -> str:
    return f"/static/{path}?v={_fingerprint(path)}"


def dumps(obj: Any) -> bytes:
    """Compact UTF-8 JSON (orjson: several times faster than the standard library on figure data;
    a traced number is written as the plain number it is)."""
    return orjson.dumps(obj, default=float)


def _json_script(obj: Any) -> Markup:
    """JSON safe inside <script type="application/json"> (the three characters escaped only when
    present: most figures have none, and each replace is a pass over ~10 kB)."""
    b = dumps(obj)
    if b"<" in b or b">" in b or b"&" in b:
        b = b.replace(b"<", b"\\u003c").replace(b">", b"\\u003e").replace(b"&", b"\\u0026")
    return Markup(b.decode())


def stat_text(s: Stat) -> str:
    if s.text is not None:
        return s.text
    v = fmt.num(s.value, s.digits, s.sig)
    return ("≈ " if s.approx else "") + v


env = Environment(
    loader=FileSystemLoader(str(ROOT / "app" / "templates")),
    autoescape=select_autoescape(["html", "svg", "j2"]),
    trim_blocks=True,
    lstrip_blocks=True,
    auto_reload=False,  # templates are read once; create_app sets Settings.reload
)  # templates are read once unless developing
env.globals.update(
    static=static_url,
    rich=rich,
    markdown=markdown,
    CHAPTERS=CHAPTERS,
    REGISTRY=REGISTRY,
    ROLE_LABELS=ROLE_LABELS,
    json_script=_json_script,
    fmtnum=fmt.num,
    stat_text=stat_text,
    controls_of=controls_of,
    section_of=section_of,
    getattr_=getattr,
)
env.filters["rich"] = rich


env.globals["figure_rows"] = lambda f: figure_rows(f)
env.globals["legend_items"] = lambda f: legend_items(f)
env.globals["wire_figure"] = lambda f: wire_figure(f)
env.filters["num"] = fmt.num


def query_string(card: Card, params) -> str:
    q = to_query(card, params)
    return ("?" + urlencode(q)) if q else ""


def figure_rows(f: Figure) -> tuple[list[str], list[list[Any]]]:
    """The plotted data in long form (trace, x, y[, base]): the table alternative and the CSV."""
    has_base = any("base" in t for t in f.fig.get("data", []))
    cols = ["系列", "x", "y"] + (["起点"] if has_base else [])
    rows: list[list[Any]] = []
    for i, t in enumerate(f.fig.get("data", [])):
        name = t.get("name") or f"trace {i}"
        xs, ys = t.get("x") or [], t.get("y") or []
        base = t.get("base")
        for j in range(max(len(xs), len(ys))):
            row = [name, xs[j] if j < len(xs) else "", ys[j] if j < len(ys) else ""]
            if has_base:
                row.append(base[j] if isinstance(base, list) and j < len(base) else (base if base is not None else ""))
            rows.append(row)
    return cols, rows


def legend_items(f: Figure) -> list[dict[str, str]]:
    """The figure's legend as HTML items (Plotly's own legend is switched off: drawing it costs
    ~10 ms per redraw; an HTML legend costs nothing and reads well at any size)."""
    items, seen = [], set()
    for t in f.fig.get("data", []):
        name = t.get("name")
        if not name or t.get("showlegend") is False or name in seen:
            continue
        seen.add(name)
        line, marker = t.get("line") or {}, t.get("marker") or {}
        color = line.get("color") or marker.get("color") or "#888"
        if isinstance(color, list):
            color = color[0] if color else "#888"
        kind = "bar" if t.get("type") == "bar" else ("marker" if "lines" not in t.get("mode", "lines") else "line")
        items.append({"name": name, "color": str(color), "kind": kind, "dash": line.get("dash", "solid")})
    return items


def wire_figure(f: Figure, legend: list[dict[str, str]] | None = None) -> dict:
    """The figure as sent to the browser: Plotly's legend off when the HTML legend shows it
    (``legend``: the figure's :func:`legend_items`, when the caller has them already)."""
    fig = f.fig
    lay = fig.get("layout", {})
    if lay.get("showlegend", True) is not False and (legend_items(f) if legend is None else legend):
        fig = {**fig, "layout": {**lay, "showlegend": False}}
        if fig["layout"].get("margin", {}).get("t", 0) > 24 and not lay.get("title"):
            fig["layout"]["margin"] = {**fig["layout"]["margin"], "t": 16}
    return fig


def figure_csv(f: Figure) -> str:
    import csv
    import io

    cols, rows = figure_rows(f)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["series", "x", "y"] + (["base"] if len(cols) == 4 else []))
    w.writerows(rows)
    return buf.getvalue()


def view_context(
    card: Card, params, view: View, *, solutions: bool = True, derivations: dict[str, Derivation] | None = None
) -> dict[str, Any]:
    return {
        "card": card,
        "params": params,
        "view": view,
        "figure_rows": figure_rows,
        "qs": query_string(card, params),
        "solutions": solutions,
        "tiles": tiles(card, view, params),
        "tpl": lambda text, gl=None: template_html(card, view, params, text, gl),
        "derivations": derivations or {},
        "stats_html": lambda tiles, qs: stats_html(card, tiles, qs, stat_text),
        "figures_html": lambda qs, tpl: figures_html(
            card, view, qs, tpl, legend_items=legend_items, wire=wire_figure, json_script=_json_script
        ),
        "tables_html": lambda tpl: tables_html(card, view, tpl, cell_text),
        "links_html": lambda: links_html(view),
        "notes_html": lambda tpl: notes_html(card, view, tpl, Scope(f"n-{card.id}")),
        "fill_text": lambda text: label_text(text, card, view, params),
    }


def template_html(card: Card, view: View, params, text: str, scope: Scope | None = None) -> Markup:
    """Card text with its ``[[key]]`` slots filled: a numeric output becomes a button that expands
    its derivation; params and ctx values are plain text. With a glossary ``scope``, terms in the
    text (never in the filled numbers) are marked, each text piece once per process."""
    if "[[" not in text:
        return _marker.mark(str(rich(text)), scope) if scope is not None else rich(text)
    out, outputs = [], view.outputs
    for key, flag, html, button in _runs(text):
        hit = slot(card, view, params, key, flag) if key else None
        if hit is None:  # plain text, or a slot nothing fills (left as written)
            out.append(str(_marker.mark(html, scope)) if scope is not None else html)
            continue
        shown = esc_text(hit[0])
        if hit[1] == "output" and _is_number(outputs.get(key)):
            out.append(button + shown + "</button>")
        else:
            out.append(shown)
    return Markup("".join(out))


@lru_cache(maxsize=8192)
def _runs(text: str) -> tuple[tuple[str, str, str, str], ...]:
    """A template's runs (:func:`split`) as (key, flag, the run's text as HTML, a slot's opening
    button tag): a slot's text as written is what shows when nothing fills it, and a numeric
    output's value sits in a button that expands its derivation."""
    return tuple(
        (
            key,
            flag,
            str(rich(written)),
            f'<button type="button" class="num why" data-key="{esc(key)}" aria-expanded="false">' if key else "",
        )
        for written, key, flag in split(text)
    )


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def derivation_html(d: Derivation) -> Markup:
    """A derivation's formula as MathML (plain text when the symbols do not typeset)."""
    from ..text import tex

    try:
        return Markup(tex(d.tex)) if d.tex else escape(d.formula)
    except Exception:  # latex2mathml rejects a symbol: the plain formula reads as well
        return escape(d.formula)


env.globals["derivation_html"] = derivation_html


@lru_cache(maxsize=4096)
def live_number(cid: str, key: str, flag: str = "") -> str | None:
    """A number the prose quotes from a card (``[[eg-1-1.t_mem_ms]]``): its value at the card's
    defaults, as a link to the card that the page script keeps equal to the card's current state."""
    card = REGISTRY.get(cid)
    if card is None:
        return None
    p = card.defaults()
    view = compute(card, p)
    hit = slot(card, view, p, key, flag)
    if hit is None or hit[1] == "ctx":
        return None
    text = hit[0]
    flag_attr = f' data-flag="{escape(flag)}"' if flag else ""
    return (
        f'<a class="live" href="#{escape(cid)}" data-card="{escape(cid)}" data-key="{escape(key)}"{flag_attr}'
        f' title="随卡片 {escape(card.label or card.title)} 的滑块变化">{escape(text)}</a>'
    )


env.globals["live_number"] = live_number


@cache
def prose_slots() -> dict[str, tuple[tuple[str, str], ...]]:
    """Which (output, flags) of each card some section's prose quotes: the fragment ships exactly
    those, formatted, so the page can keep its prose equal to the card's state. Sorted: a set's
    order changes with each process's string hashing, and every worker must send the same bytes
    (and so the same ETag) for one state."""
    from ..chapters import CHAPTERS, prose
    from ..text import LIVE

    found: dict[str, set[tuple[str, str]]] = {}
    for ch in CHAPTERS.values():
        for sec in ch.sections:
            for m in LIVE.finditer(prose(sec.key)):
                found.setdefault(m.group(1), set()).add((m.group(2), m.group(3) or ""))
    return {k: tuple(sorted(v)) for k, v in found.items()}


def live_values(card: Card, view: View, params) -> dict[str, str]:
    """The formatted values of the prose-quoted outputs at this state, keyed ``key`` or ``key|flags``."""
    out = {}
    for key, flag in prose_slots().get(card.id, ()):
        hit = slot(card, view, params, key, flag)
        if hit and hit[1] != "ctx":
            out[f"{key}|{flag}" if flag else key] = hit[0]
    return out


env.globals["live_values"] = live_values

_marker = Marker(TERMS)
env.filters["gloss"] = lambda html, scope: _marker.mark(str(html), scope)
env.globals["glossary_scope"] = lambda prefix, anchors=False: Scope(prefix, anchors)
env.globals["glossary_definitions"] = definitions_html(TERMS)
env.globals["cell_text"] = cell_text


_fragments: LRU[tuple[bytes, str]] = LRU(4096)
_json: LRU[bytes] = LRU(4096)
_explains: LRU[bytes] = LRU(1024)


def compute(card: Card, params) -> View:
    """A card's view (cheap: well under a millisecond for most cards). Views are not cached: their
    object graphs would make the garbage collector's full passes slow; the rendered bytes are."""
    return run(card, params)


def explain_bytes(card: Card, params) -> bytes:
    """Every derivation of the card at these params, as the HTML the tiles expand into."""

    def make() -> bytes:
        view, ders = explain(card, params)
        return render(
            "_explain.html", card=card, view=view, derivations=ders, tiles={s.key: s for s in tiles(card, view, params)}
        ).encode()

    return _explains.get((card.id, params.model_dump_json()), make)


def cached_json(card: Card, params, make) -> bytes:
    """The JSON body of a card at these params, rendered once per state."""
    return _json.get((card.id, params.model_dump_json()), make)


def fragment_bytes(card: Card, params, *, solutions: bool = True) -> tuple[bytes, str]:
    """The card's result fragment and its ETag, from the LRU when this state was seen before."""

    def make() -> tuple[bytes, str]:
        body = render_fragment(card, params, compute(card, params), solutions=solutions).encode()
        return body, '"' + hashlib.sha1(body).hexdigest()[:20] + '"'

    return _fragments.get((card.id, params.model_dump_json(), solutions), make)


def render_fragment(
    card: Card, params, view: View, *, solutions: bool = True, derivations: dict[str, Derivation] | None = None
) -> str:
    ctx = view_context(card, params, view, solutions=solutions, derivations=derivations)
    if card.template:  # a card's own template, which includes the generic result
        return env.get_template(card.template).render(**ctx)
    return result_text(ctx)


def result_html(ctx: Mapping[str, Any]) -> Markup:
    """:func:`result_text` for a card's template (``_result.html`` includes it)."""
    return Markup(result_text(ctx))


def result_text(ctx: Mapping[str, Any]) -> str:
    """The generic result: headline, tiles, figures, diagrams, tables, links, questions, notes and
    the prose-quoted values. Composed as strings (every drag renders it; a Jinja template around
    these parts cost more than most of them); diagrams stay the ``blocks`` macro of ``_parts.html``."""
    card, view, qs, tpl = ctx["card"], ctx["view"], ctx["qs"], ctx["tpl"]
    parts = env.get_template("_parts.html").module
    out: list[str] = [
        f'<p class="headline">{tpl(view.headline)}</p>' if view.headline else "",
        ctx["stats_html"](ctx["tiles"], qs),
        "\n",
        ctx["figures_html"](qs, tpl),
        "\n",
        parts.blocks(card, view, ctx["solutions"]) if view.blocks else "",  # type: ignore[attr-defined]
        "\n",
        ctx["tables_html"](tpl),
        "\n",
        ctx["links_html"](),
        "\n",
        questions_html(card, view, qs, ctx["solutions"], tpl, ctx["fill_text"]),
        "\n",
        ctx["notes_html"](tpl),
        "\n",
    ]
    values = live_values(card, view, ctx["params"])
    if values:
        out.append(
            f'<script type="application/json" class="livevals" data-card="{escape(card.id)}">{_json_script(values)}</script>'
        )
    return "".join(out)


env.globals["generic_result"] = pass_context(result_html)  # _result.html, where a card's template includes it


def outputs_json(view: View) -> dict[str, Any]:
    def clean(v: Any) -> Any:
        if isinstance(v, float):
            return finite(v)
        if isinstance(v, dict):
            return {k: clean(x) for k, x in v.items()}
        if isinstance(v, (list, tuple)):
            return [clean(x) for x in v]
        return v

    return {k: clean(v) for k, v in view.outputs.items()}


def render(name: str, **ctx: Any) -> str:
    return env.get_template(name).render(**ctx)
