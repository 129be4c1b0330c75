"""Figures of the roofline family: 图 1-11 (time lower bounds against the batch size B) and
图 1-12 (ideal output throughput B/T), both on a log B axis with B* marked."""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..calculators.roofline import BATCH_RANGE
from ..format import decimals, hover_number
from ..words import words_for
from .theme import COLORS, axis, bar, figure, hline, layout, line, log_ticks, points, vline, with_refs

W = words_for(__name__)

BATCH_TICKS = log_ticks(*BATCH_RANGE)  # the B axis's ticks, as every log axis labels them: its range is fixed


def batch_axis() -> dict:
    return axis(
        W["batch_axis.axis"],
        log=True,
        range_=(0, math.log10(BATCH_RANGE[1])),  # from B = 1 (log 0)
        ticks=BATCH_TICKS[0],
        ticktext=BATCH_TICKS[1],
    )


def bounds_vs_batch(
    grid: Sequence[float],
    t_mem: Sequence[float],
    t_cmp: Sequence[float],
    batch: int,
    t_step_ms: float,
    b_star: float,
    target_ms: float,
) -> dict:
    """图 1-11: the read bound (flat), the compute bound (rising) and their max, with the target.
    Fixed y range: a batch change then moves only the traces (the client's fast redraw path)."""
    lo, hi = min([*t_mem, *t_cmp]), max([*t_mem, *t_cmp, target_ms])
    y = axis(W["bounds_vs_batch.axis"], log=True, range_=(math.log10(lo) - 0.15, math.log10(hi) + 0.15))
    return figure(
        [
            line(grid, t_mem, W["bounds_vs_batch.line"], "read"),
            line(grid, t_cmp, W["bounds_vs_batch.line_2"], "compute"),
            line(
                grid,
                [max(a, b) for a, b in zip(t_mem, t_cmp)],
                W["bounds_vs_batch.line_3"],
                "ink",
                dash="dash",
                width=2,
            ),
            points([batch], [t_step_ms], W.f("bounds_vs_batch.points", batch=batch), "accent", size=11),
        ],
        with_refs(
            layout(batch_axis(), y, height=320),
            vline(b_star, f"B*≈{decimals(b_star, 0)}", log=True),
            hline(target_ms, W.f("bounds_vs_batch.hline", target_ms=target_ms), "target", log=True),
        ),
    )


def throughput_vs_batch(
    grid: Sequence[float], thr: Sequence[float], batch: int, throughput: float, b_star: float
) -> dict:
    """图 1-12: ideal throughput B/T rises linearly, then flattens past B*."""
    y = axis(W["throughput_vs_batch.axis"], range_=(0, max(thr) * 1.08))
    return figure(
        [
            line(grid, thr, W["throughput_vs_batch.line"], "compute"),
            points([batch], [throughput], W.f("throughput_vs_batch.points", batch=batch), "accent", size=11),
        ],
        with_refs(layout(batch_axis(), y, height=320), vline(b_star, f"B*≈{decimals(b_star, 0)}", log=True)),
    )


def read_vs_compute(
    t_compute_ms: float,
    t_read_ms: float,
    texts: Sequence[str],
    ratio_text: str,
    t_step_ms: float,
    step_text: str,
    x_max: float,
) -> dict:
    """The chapter opener: the two lower bounds of one decode step as horizontal bars on one time
    axis, with the read ÷ compute ratio above and the step bound marked."""
    lay = layout(
        axis(W["read_vs_compute.axis"], range_=(0, x_max)),
        axis(""),
        height=230,
        legend=False,
        margin=(80, 24, 36, 48),
        annotations=[
            {
                "x": 0,
                "y": 1.02,
                "xref": "paper",
                "yref": "paper",
                "xanchor": "left",
                "yanchor": "bottom",
                "showarrow": False,
                "text": W.f("read_vs_compute.text", ratio_text=ratio_text),
                "font": {"size": 18, "color": COLORS["read"]},
            }
        ],
    )
    return figure(
        [
            bar(
                [W["read_vs_compute.bar"], W["read_vs_compute.bar_2"]],
                [t_compute_ms, t_read_ms],
                W["read_vs_compute.bar_3"],
                ["compute", "read"],
                horizontal=True,
                text=list(texts),
                textposition="outside",
                cliponaxis=False,
                width=0.55,
                hovertemplate=f"%{{y}}: {hover_number('x', digits=4)} ms<extra></extra>",
            )
        ],
        with_refs(lay, vline(t_step_ms, step_text, "over")),
    )
