"""A figure as the browser gets it: the Plotly dict (its own legend off where the HTML legend shows
it), the HTML legend's items, and the plotted data in long form for the table and the CSV."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from typing import Any, NamedTuple

from ..cards import Figure
from ..charts.theme import with_log_ticks
from ..words import localize_deep, words_for

W = words_for(__name__)


def figure_rows(f: Figure) -> tuple[list[str], list[list[Any]]]:
    """The plotted data in long form (trace, x, y[, base]): the table alternative and the CSV, its words in
    the edition served."""
    has_base = any("base" in t for t in f.fig.get("data", []))
    cols = [W["figure_rows"], "x", "y"] + ([W["figure_rows_2"]] if has_base else [])
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
    return localize_deep(cols), localize_deep(rows)  # trace names and categories in the edition served


def figure_csv(f: Figure) -> str:
    cols, rows = figure_rows(f)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["series", "x", "y"] + (["base"] if len(cols) == 4 else []))
    w.writerows(rows)
    return buf.getvalue()


class LegendItem(NamedTuple):
    """One entry of a figure's HTML legend: a trace's name and its swatch."""

    name: str
    color: str
    kind: str  # "line" | "marker" | "bar"
    dash: str  # Plotly's dash name: "solid", "dash", "dot" …


def legend_items(f: Figure) -> list[LegendItem]:
    """The figure's legend as HTML items (Plotly's own legend is switched off: drawing it costs
    ~10 ms per redraw; an HTML legend costs nothing and reads well at any size)."""
    if f.fig.get("layout", {}).get("showlegend") is False:
        return []
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
        items.append(LegendItem(name, str(color), kind, line.get("dash", "solid")))
    return items


def wire_figure(f: Figure, legend: Sequence[LegendItem]) -> dict:
    """The figure as sent to the browser: Plotly's legend off when the HTML ``legend`` shows it; every
    log axis labels its decades (and 2, 5 as full values) explicitly, never Plotly's bare minor digits."""
    fig = with_log_ticks(f.fig)
    lay = fig.get("layout", {})
    if legend:
        fig = {**fig, "layout": {**lay, "showlegend": False}}
        if fig["layout"].get("margin", {}).get("t", 0) > 24 and not lay.get("title"):
            fig["layout"]["margin"] = {**fig["layout"]["margin"], "t": 16}
    return localize_deep(fig)
