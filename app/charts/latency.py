"""Figures of 1.2.1: the 2009 latency table on a log axis (图 1-6 扩展) and a serial timeline of
waits followed by compute."""

from __future__ import annotations

from collections.abc import Sequence

from ..calculators.latency import Op
from ..format import compact, num
from ..words import words_for
from .theme import COLORS, axis, bar, figure, gantt_trace, layout, vline, with_refs

W = words_for(__name__)

CATEGORY_ZH = {
    "compute": W["category_zh.compute"],
    "sync": W["category_zh.sync"],
    "storage": W["category_zh.storage"],
    "network": W["category_zh.network"],
}


def fmt_ns(ns: float) -> str:
    """A duration in the nearest readable unit: 0.5 ns, 3 μs, 10 ms, 1.5 s."""

    def g(x: float) -> str:
        return num(int(x)) if float(x).is_integer() else compact(x, 3)

    for scale, unit in ((1e9, "s"), (1e6, "ms"), (1e3, "μs")):
        if ns >= scale:
            return f"{g(ns / scale)} {unit}"
    return f"{g(ns)} ns"


def op_name(op: Op) -> str:
    """A row's name as words: the Chinese from the data, the slide's English wording in the English edition."""
    return W.f("op_name", zh=op.zh, label=op.label)


def latency_bars(ops: Sequence[Op], a: Op, b: Op) -> dict:
    """One horizontal bar per row on a log axis, coloured by category; rows A and B outlined and marked."""
    traces = []
    for cat, zh in CATEGORY_ZH.items():
        rows = [op for op in ops if op.category == cat]
        sel = [op.id in (a.id, b.id) for op in rows]
        t = bar(
            [op_name(op) for op in rows],
            [op.ns for op in rows],
            zh,
            cat,
            horizontal=True,
            text=[fmt_ns(op.ns) for op in rows],
            textposition="outside",
            cliponaxis=False,
            hovertemplate="%{y}: %{text}<extra></extra>",
        )
        t["marker"].update(
            {
                "opacity": [1 if s else 0.45 for s in sel],
                "line": {"width": [2.5 if s else 0 for s in sel], "color": COLORS["accent"]},
            }
        )
        traces.append(t)
    ticks = [10.0**k for k in range(-1, 10)]
    lay = layout(
        axis(W["latency_bars.axis"], log=True, range_=(-1, 9.3), ticks=ticks, ticktext=[fmt_ns(t) for t in ticks]),
        axis("", categoryorder="array", categoryarray=[op_name(op) for op in ops], autorange="reversed"),
        height=440,
        margin=(190, 20, 16, 56),
        barmode="overlay",
    )
    return figure(traces, with_refs(lay, vline(a.ns, "A", "accent", log=True), vline(b.ns, "B", "accent", log=True)))


def serial_timeline(n: int, each_ms: float, wait_ms: float, total_ms: float) -> dict:
    """n waits back to back on one lane, then the compute."""
    lane, starts = W["serial_timeline"], [i * each_ms for i in range(n)]
    traces = [
        gantt_trace(
            lane, starts, [t + each_ms for t in starts], W["serial_timeline.gantt_trace"], "waiting", width=0.5
        ),
        gantt_trace(lane, [wait_ms], [total_ms], W["category_zh.compute"], "compute", width=0.5),
    ]
    return figure(
        traces,
        layout(
            axis(W["serial_timeline.axis"], range_=(0, total_ms * 1.02)),
            axis(""),
            height=200,
            margin=(80, 16, 16, 48),
            barmode="overlay",
        ),
    )
