"""Decode-step figures on a concrete model: 图 1-13 (throughput against the batch), 图 1-14 (TPOT
and its lower bound), and the quick lower bounds of prefill and decode."""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..words import words_for
from .theme import axis, bar, figure, layout, line, points, vline, with_refs

W = words_for(__name__)

TICKS = [1, 2, 4, 8, 16, 32, 64]


def _batch_axis() -> dict:
    return axis(W["batch_axis.axis"], log=True, range_=(-0.05, math.log10(64) + 0.05), ticks=TICKS)


def throughput_ratio(
    grid: Sequence[int], measured_b: Sequence[int], measured_ratio: Sequence[float], batch: int
) -> dict:
    """图 1-13: the ideal B-fold throughput against the printed measurements."""
    y = axis(W["throughput_ratio.axis"], log=True, range_=(-0.05, math.log10(64) + 0.05), ticks=TICKS)
    return figure(
        [
            line(grid, grid, W["throughput_ratio.line"], "compute", dash="dash"),
            points(measured_b, measured_ratio, W["throughput_ratio.points"], "accent", size=12),
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
            line(grid, lower, W["tpot.line"], "read"),
            points(measured_b, measured_ms, W["tpot.points"], "accent", size=12),
            points([batch], [lower_here], W.f("tpot.points_2", batch=batch), "ink", size=9, symbol="diamond"),
        ],
        with_refs(
            layout(_batch_axis(), axis(W["tpot.axis"], rangemode="tozero"), height=320),
            vline(batch, "", log=True),
        ),
    )


def stage_bounds(names: Sequence[str], values_ms: Sequence[float], roles: Sequence[str], texts: Sequence[str]) -> dict:
    """Horizontal bars of the time lower bounds of each stage, on a log axis."""
    return figure(
        [bar(names, values_ms, W["stage_bounds.bar"], list(roles), horizontal=True, text=list(texts))],
        layout(
            axis(W["stage_bounds.axis"], log=True),
            axis("", autorange="reversed"),
            height=240,
            legend=False,
            margin=(150, 16, 16, 48),
        ),
    )
