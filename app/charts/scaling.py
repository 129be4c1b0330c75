"""Figures of "what a speed-up or a scale buys": Amdahl's delivery time and speed-up curve (1.2.1)
and the scale-vs-total-cost sketch of 1.4.1 (示意, no scale)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..words import words_for
from .theme import axis, bar, figure, hline, layout, line, points, vline, with_refs

W = words_for(__name__)

NO_TICKS: dict[str, Any] = {"showticklabels": False, "ticks": "", "showgrid": False}


def cost_vs_scale(
    grid: Sequence[float],
    general: Sequence[float],
    dedicated: Sequence[float],
    s_star: float,
    cost_star: float,
    scale: float,
    at_scale: tuple[float, float],
    upfront: float,
    x_max: float,
    y_max: float,
) -> dict:
    """General-purpose servers (a line through the origin) against a dedicated processor (up-front
    cost, shallower slope): the crossing and the reader's marker. No tick labels: the book's chart has none."""
    anns = [
        {
            "x": 0,
            "y": upfront,
            "xref": "x",
            "yref": "y",
            "text": W["cost_vs_scale.text"],
            "showarrow": True,
            "ax": 60,
            "ay": -30,
            "font": {"size": 14},
        },
        {
            "x": s_star,
            "y": cost_star,
            "xref": "x",
            "yref": "y",
            "text": W["cost_vs_scale.text_2"],
            "showarrow": True,
            "ax": 70,
            "ay": 50,
            "xanchor": "left",
            "font": {"size": 14},
        },
    ]
    lay = layout(
        axis(W["cost_vs_scale.axis"], range_=(0, x_max), **NO_TICKS),
        axis(W["cost_vs_scale.axis_2"], range_=(0, y_max), **NO_TICKS),
        height=340,
        margin=(40, 16, 16, 40),
        annotations=anns,
    )
    fig = figure(
        [
            line(grid, general, W["cost_vs_scale.line"], "read"),
            line(grid, dedicated, W["cost_vs_scale.line_2"], "compute"),
            points([s_star], [cost_star], W["cost_vs_scale.points"], "ink", size=12, symbol="diamond"),
            points([scale, scale], list(at_scale), W["cost_vs_scale.points_2"], "accent", size=11),
        ],
        with_refs(lay, vline(s_star, "", "ink", "dot"), vline(scale, "", "accent", "dash")),
    )
    fig["layout"]["hovermode"] = False
    return fig


def delivery_bars(rest: float, before: float, after: float, texts: Sequence[str], y_max: float) -> dict:
    """Amdahl: the unchanged rest and the sped-up part, before and after, stacked (hours)."""
    cols = [W["delivery_bars"], W["delivery_bars_2"]]
    return figure(
        [
            bar(cols, [rest, rest], W["delivery_bars.bar"], "waiting", text=[texts[0]] * 2),
            bar(cols, [before, after], W["delivery_bars.bar_2"], "compute", text=list(texts[1:])),
        ],
        layout(axis(""), axis(W["delivery_bars.axis"], range_=(0, y_max)), height=300, barmode="stack"),
    )


def speedup_curve(
    grid: Sequence[float],
    curve: Sequence[float],
    name: str,
    s: float,
    here: float,
    limit: float | None,
    limit_text: str,
) -> dict:
    """Amdahl: the overall speed-up against the part's speed-up s (log axis), with its ceiling."""
    refs = [hline(limit, limit_text, "target", dash="dash")] if limit is not None else []
    return figure(
        [
            line(grid, curve, name, "compute"),
            points([s], [here], W.f("speedup_curve.points", s=s), "accent", size=11),
        ],
        with_refs(
            layout(
                axis(W["speedup_curve.axis"], log=True, range_=(0, 2)),
                axis(W["speedup_curve.axis_2"], range_=(0, (limit or 100) * 1.15)),
                height=300,
            ),
            *refs,
        ),
    )
