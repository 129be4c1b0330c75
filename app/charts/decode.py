"""Decode-step figures on a concrete model: 图 1-13 (throughput against the batch), 图 1-14 (TPOT
and its lower bound), and the quick lower bounds of prefill and decode."""

from __future__ import annotations

import math
from collections.abc import Sequence

from .theme import axis, bar, figure, layout, line, points, vline, with_refs

TICKS = [1, 2, 4, 8, 16, 32, 64]


def _batch_axis() -> dict:
    return axis("同时请求数 B(对数)", log=True, range_=(-0.05, math.log10(64) + 0.05), ticks=TICKS)


def throughput_ratio(
    grid: Sequence[int], measured_b: Sequence[int], measured_ratio: Sequence[float], batch: int
) -> dict:
    """图 1-13: the ideal B-fold throughput against the printed measurements."""
    y = axis("吞吐 ÷ 单请求吞吐", log=True, range_=(-0.05, math.log10(64) + 0.05), ticks=TICKS)
    return figure(
        [
            line(grid, grid, "理想:单请求吞吐 × B", "compute", dash="dash"),
            points(measured_b, measured_ratio, "实测(书中给出的两档)", "accent", size=12),
        ],
        with_refs(layout(_batch_axis(), y, height=320), vline(batch, f"B={batch}", log=True)),
    )


def tpot(
    grid: Sequence[int],
    lower: Sequence[float],
    measured_b: Sequence[int],
    measured_ms: Sequence[float],
    batch: int,
    lower_here: float,
) -> dict:
    """图 1-14: the TPOT lower bound max(B·F₁/Π, (R_W + B·R_state)/β) against the measured TPOT."""
    return figure(
        [
            line(grid, lower, "TPOT 下界 max(B·F₁/Π, (R_W+B·R_state)/β)", "read"),
            points(measured_b, measured_ms, "实测 TPOT", "accent", size=12),
            points([batch], [lower_here], f"当前 B={batch} 下界", "ink", size=9, symbol="diamond"),
        ],
        with_refs(
            layout(_batch_axis(), axis("每输出间隔 TPOT (ms)", rangemode="tozero"), height=320),
            vline(batch, "", log=True),
        ),
    )


def stage_bounds(names: Sequence[str], values_ms: Sequence[float], roles: Sequence[str], texts: Sequence[str]) -> dict:
    """Horizontal bars of the time lower bounds of each stage, on a log axis."""
    return figure(
        [bar(names, values_ms, "时间下界", list(roles), horizontal=True, text=list(texts))],
        layout(
            axis("时间下界 (ms,对数)", log=True),
            axis("", autorange="reversed"),
            height=240,
            legend=False,
            margin=(150, 16, 16, 48),
        ),
    )
