"""The lab-log figure: measured points (a run's TPOT, llama-batched-bench's step time B / S_TG) against the
decode floor max(read/β, compute/Π) over the batch at the run's context; where no curve can be drawn, the
share of each bound the run reached, as bars against 100 %."""

from __future__ import annotations

import math
from collections.abc import Sequence

from .theme import axis, bar, figure, layout, line, points, vline, with_refs


def floor_chart(
    batches: Sequence[int],
    floor_ms: Sequence[float],
    read_ms: Sequence[float],
    compute_ms: Sequence[float],
    pts: Sequence[tuple[float, float]],
    names: dict[str, str],
) -> dict:
    """Time per output token (ms, log) against the batch B (log): the floor, its two terms, the points."""
    lo = min([*floor_ms, *read_ms, *compute_ms, *(p[1] for p in pts)]) / 1.5
    hi = max([*floor_ms, *(p[1] for p in pts)]) * 2
    x = axis(names["x"], log=True, range_=(0, math.log10(max(batches))), ticks=list(batches))
    y = axis(names["y"], log=True, range_=(math.log10(lo), math.log10(hi)))
    return figure(
        [
            line(batches, floor_ms, names["floor"], "ink"),
            line(batches, read_ms, names["read"], "read", dash="dot", width=1.5),
            line(batches, compute_ms, names["compute"], "compute", dash="dot", width=1.5),
            points([p[0] for p in pts], [p[1] for p in pts], names["measured"], "accent", size=12),
        ],
        layout(x, y, height=340),
    )


def share_bars(items: Sequence[str], pct: Sequence[float], names: dict[str, str]) -> dict:
    """Each row's measured share of its bound (%), horizontal, with the bound itself at 100 %."""
    top = max(110.0, *pct) * 1.1 if pct else 110.0
    return figure(
        [bar(list(items), list(pct), names["measured"], "accent", horizontal=True)],
        with_refs(
            layout(
                axis(names["x"], range_=(0, top)),
                axis(""),
                height=80 + 36 * len(items),
                legend=False,
                margin=(200, 16, 16, 40),
            ),
            vline(100, names["bound"], "ink"),
        ),
    )
