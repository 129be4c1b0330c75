"""Figures of the roofline family: 图 1-11 (time lower bounds against the batch size B) and
图 1-12 (ideal output throughput B/T), both on a log B axis with B* marked."""

from __future__ import annotations

import math
from collections.abc import Sequence

from .theme import COLORS, Rounded, SharedRounding, axis, bar, figure, hline, layout, line, points, r, vline, with_refs


def batch_axis(hi: int = 512) -> dict:
    return axis("批大小 B(请求数,对数)", log=True, range_=(0, math.log10(hi)))


_B_AXIS = SharedRounding()
B_AXIS_MAX = 4096


def batch_x(grid: Sequence[float]) -> Rounded:
    """The B axis for the wire. Its values come from a small set (the log points, the integer batch,
    B* and its neighbours), so one process-wide :class:`SharedRounding` formats each value once (a new
    one past ``B_AXIS_MAX`` values: replaced, never cleared under a reader)."""
    global _B_AXIS
    if len(_B_AXIS.memo) > B_AXIS_MAX:
        _B_AXIS = SharedRounding()
    return _B_AXIS(grid)


def rounded_max(a: Sequence[float], b: Sequence[float], ra: Rounded, rb: Rounded) -> Rounded:
    """``r`` of the elementwise max of two series, from the series and their rounded values
    (``ra``, ``rb``): rounding to a fixed number of digits keeps order, so the max of the rounded
    values is the rounded max (when a value is not finite, the max itself is rounded)."""
    if None in ra or None in rb:
        return r([y if y > x else x for x, y in zip(a, b)])
    return Rounded([y if y > x else x for x, y in zip(ra, rb)])


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
    x, rm, rc = batch_x(grid), r(t_mem), r(t_cmp)  # each rounded once
    lo, hi = min([*t_mem, *t_cmp]), max([*t_mem, *t_cmp, target_ms])
    y = axis("时间下界 (ms,对数)", log=True, range_=(math.log10(lo) - 0.15, math.log10(hi) + 0.15))
    return figure(
        [
            line(x, rm, "权重读取 R_W/β", "read"),
            line(x, rc, "计算 F/Π", "compute"),
            line(x, rounded_max(t_mem, t_cmp, rm, rc), "下界 max", "ink", dash="dash", width=2),
            points([batch], [t_step_ms], f"当前 B={batch}", "accent", size=11),
        ],
        with_refs(
            layout(batch_axis(), y, height=320),
            vline(b_star, f"B*≈{b_star:.0f}", log=True),
            hline(target_ms, f"目标 {target_ms:g} ms", "target", log=True),
        ),
    )


def throughput_vs_batch(
    grid: Sequence[float], thr: Sequence[float], batch: int, throughput: float, b_star: float
) -> dict:
    """图 1-12: ideal throughput B/T rises linearly, then flattens past B*."""
    y = axis("输出吞吐 (token/s)", range_=(0, max(thr) * 1.08))
    return figure(
        [
            line(batch_x(grid), thr, "理想吞吐 B/T", "compute"),
            points([batch], [throughput], f"当前 B={batch}", "accent", size=11),
        ],
        with_refs(layout(batch_axis(), y, height=320), vline(b_star, f"B*≈{b_star:.0f}", log=True)),
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
        axis("时间下界 (ms)", range_=(0, x_max)),
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
                "text": f"<b>{ratio_text}</b> 读取 ÷ 计算",
                "font": {"size": 18, "color": COLORS["read"]},
            }
        ],
    )
    return figure(
        [
            bar(
                ["矩阵计算", "读权重"],
                [t_compute_ms, t_read_ms],
                "下界",
                ["compute", "read"],
                horizontal=True,
                text=list(texts),
                textposition="outside",
                cliponaxis=False,
                width=0.55,
                hovertemplate="%{y}: %{x:.4f} ms<extra></extra>",
            )
        ],
        with_refs(lay, vline(t_step_ms, step_text, "over")),
    )
