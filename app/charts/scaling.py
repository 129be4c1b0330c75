"""Figures of "what a speed-up or a scale buys": Amdahl's delivery time and speed-up curve (1.2.1)
and the scale-vs-total-cost sketch of 1.4.1 (示意, no scale)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .theme import axis, bar, figure, hline, layout, line, points, vline, with_refs

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
            "text": "前期开发成本",
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
            "text": "交点:累计节省抵上前期投入",
            "showarrow": True,
            "ax": 70,
            "ay": 50,
            "xanchor": "left",
            "font": {"size": 14},
        },
    ]
    lay = layout(
        axis("服务规模 →", range_=(0, x_max), **NO_TICKS),
        axis("总成本 →", range_=(0, y_max), **NO_TICKS),
        height=340,
        margin=(40, 16, 16, 40),
        annotations=anns,
    )
    fig = figure(
        [
            line(grid, general, "通用服务器", "read"),
            line(grid, dedicated, "专用处理器", "compute"),
            points([s_star], [cost_star], "交点", "ink", size=12, symbol="diamond"),
            points([scale, scale], list(at_scale), "当前规模", "accent", size=11),
        ],
        with_refs(lay, vline(s_star, "", "ink", "dot"), vline(scale, "", "accent", "dash")),
    )
    fig["layout"]["hovermode"] = False
    return fig


def delivery_bars(rest: float, before: float, after: float, texts: Sequence[str], y_max: float) -> dict:
    """Amdahl: the unchanged rest and the sped-up part, before and after, stacked (hours)."""
    cols = ["原来", "用工具后"]
    return figure(
        [
            bar(cols, [rest, rest], "其余环节(沟通、评审、审批…)", "waiting", text=[texts[0]] * 2),
            bar(cols, [before, after], "编码", "compute", text=list(texts[1:])),
        ],
        layout(axis(""), axis("交付时间 (h)", range_=(0, y_max)), height=300, barmode="stack"),
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
            points([s], [here], f"当前 s = {s:g}", "accent", size=11),
        ],
        with_refs(
            layout(
                axis("编码提速 s(对数)", log=True, range_=(0, 2)),
                axis("整体加速比 (×)", range_=(0, (limit or 100) * 1.15)),
                height=300,
            ),
            *refs,
        ),
    )
