"""Gantt lanes: blocks on named lanes (bars whose ``base`` is the start) and an animation that
reveals them over time, frames addressing traces by name (图 1-10's two pipelines, the eager-mode
timeline, the measured-vs-bound bar of 1.3.4)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..format import compact
from ..words import words_for
from .theme import animate, axis, figure, frame, gantt_trace, layout, r, vline, with_refs

W = words_for(__name__)

# (lane, blocks as (start, end), trace name, colour role)
Lane = tuple[str, Sequence[tuple[float, float]], str, str]


def revealed_lanes(
    lanes: Sequence[Lane],
    t_end: float,
    n_frames: int,
    *,
    x_title: str,
    order: Sequence[str],
    prefix: str,
    dim: Sequence[str] = (),
) -> dict:
    """Every lane's blocks, plus ▶ frames that draw them up to time t: each frame re-sends only the
    block widths clipped at t (starts and colours stay in the base traces), rounded as the base
    traces are. ``order``: lanes from
    bottom to top; ``dim``: trace names drawn faint."""
    faint: dict[str, Any] = {"opacity": 0.35}
    data = [
        gantt_trace(lane, [s for s, _ in b], [e for _, e in b], name, role, **(faint if name in dim else {}))
        for lane, b, name, role in lanes
    ]
    times = [t_end * i / (n_frames - 1) for i in range(n_frames)]
    frames = [
        frame(**{name: {"x": r([max(0.0, min(e, t) - s) for s, e in b])} for _, b, name, _ in lanes}) for t in times
    ]
    lay = layout(
        axis(x_title, range_=(0, t_end * 1.02)),
        axis("", categoryorder="array", categoryarray=list(order)),
        height=240,
        margin=(80, 16, 16, 48),
        barmode="overlay",
        bargap=0.35,
    )
    return animate(figure(data, lay), frames, [compact(t, 3) for t in times], duration=120, prefix=prefix)


def bound_vs_measured(lower: float, measured: float, texts: Sequence[str], measured_text: str) -> dict:
    """One lane: the lower bound, then the gap up to the measured time, with the measurement marked."""
    lane = "batch 1"
    return figure(
        [
            gantt_trace(lane, [0], [lower], W["bound_vs_measured.gantt_trace"], "read", text=[texts[0]]),
            gantt_trace(lane, [lower], [measured], W["bound_vs_measured.gantt_trace_2"], "waiting", text=[texts[1]]),
        ],
        with_refs(
            layout(
                axis(W["bound_vs_measured.axis"], range_=(0, measured * 1.05)),
                axis(""),
                height=200,
                margin=(64, 16, 16, 48),
                barmode="overlay",
            ),
            vline(measured, measured_text, "accent"),
        ),
    )
