"""Figures of load over time (chapter 3 opener, 3.1 and 练习 3-2): decode work arriving per second
against the processing rate μ with the backlog Q(t) on a second axis (▶ along t), the opener's two
lanes, the occupancy of waiting state M(t), and the small bars of what one decode step reads."""

from __future__ import annotations

import bisect
import math
from collections.abc import Sequence
from typing import Any

from ..format import decimals, num
from ..words import words_for
from .theme import animate, axis, bar, color, figure, frame, hline, layout, line, points, r, with_refs

W = words_for(__name__)


def frame_indices(n: int, max_frames: int = 48) -> list[int]:
    """≤ max_frames indices into a series of n points, evenly spread, first and last included."""
    if n <= max_frames:
        return list(range(n))
    step = (n - 1) / (max_frames - 1)
    return sorted({round(i * step) for i in range(max_frames)})


def thin(n: int, keep: int = 200, must: Sequence[int] = ()) -> list[int]:
    """Indices of ≤ ~keep points of an n-point series (for plotting), keeping ``must``."""
    if n <= keep:
        return list(range(n))
    step = math.ceil(n / keep)
    return sorted(set(range(0, n, step)) | {n - 1} | {i for i in must if 0 <= i < n})


def floor_q(q: float) -> str:
    """A backlog as the book prints it (⌊Q⌋, thousands separated) for a cursor label."""
    return num(math.floor(q + 1e-9 * max(1.0, abs(q))))


def _binned_bars(
    run: Any, class_a: Sequence[float] | None
) -> tuple[list[float], list[float], list[float], list[float]]:
    """At most ~150 bars: (centres, widths, class-A steps/s, class-B steps/s)."""
    n = len(run.arrivals)
    per = max(1, math.ceil(n / 150))
    xs, ws, y_a, y_b, t = [], [], [], [], 0.0
    for b in range(0, n, per):
        seg = range(b, min(n, b + per))
        width = sum(run.interval_s[k] for k in seg)
        a = sum(run.arrivals[k] for k in seg)
        li = sum(class_a[k] for k in seg) if class_a else 0.0
        xs.append(t + width / 2)
        ws.append(width)
        y_a.append(li / width)
        y_b.append((a - li) / width)
        t += width
    return xs, ws, y_a, y_b


def _backlog_layout(run: Any, y_a: list[float], y_b: list[float], capacity: float, height: int, title_y: str) -> dict:
    ymax = max(max((a + b for a, b in zip(y_a, y_b)), default=0), capacity) * 1.15
    lay = layout(
        axis(W["backlog_layout.axis"], range_=(0, max(run.times[-1], run.arrival_end) * 1.03 + 1)),
        axis(title_y, range_=(0, ymax)),
        height=height,
        margin=(64, 64, 48, 48),
        barmode="stack",
        bargap=0,
    )
    lay["yaxis2"] = axis(
        W["backlog_layout.axis_2"],
        overlaying="y",
        side="right",
        range_=(0, max(run.peak, 1.0) * 1.2),
        showgrid=False,
        rangemode="tozero",
    )
    with_refs(lay, hline(capacity, W.f("backlog_layout.hline", capacity=capacity), "backlog", dash="dash"))
    lay["annotations"][-1].update({"x": 0.01, "xanchor": "left"})
    if run.peak > 0:
        tp = run.times[run.queue.index(run.peak)] if run.peak in run.queue else run.times[-1]
        font = {"color": color("backlog"), "size": 13}
        lay["annotations"] += [
            {
                "x": r(tp),
                "y": r(run.peak),
                "xref": "x",
                "yref": "y2",
                "text": "(λw−μ)τ",
                "showarrow": True,
                "arrowhead": 2,
                "ax": -80,
                "ay": 0,
                "font": font,
            },
            {
                "x": r((tp + run.completion_s) / 2),
                "y": r(run.peak / 2),
                "xref": "x",
                "yref": "y2",
                "text": "÷ μ",
                "showarrow": False,
                "xanchor": "left",
                "font": font,
            },
        ]
    return lay


def backlog_figure(
    run: Any,
    class_a: Sequence[float] | None,
    capacity: float,
    *,
    height: int = 340,
    title_y: str = W["module"],
    duration: int = 150,
) -> dict:
    """例题 3-1 / 练习 3-2: bars = decode steps arriving per second (class A hatched over class B),
    dashed μ, Q(t) on the right axis; ▶ frames draw Q up to t. ``class_a[k]`` = class-A steps of interval k."""
    xs, ws, y_a, y_b = _binned_bars(run, class_a)
    peak_i = run.queue.index(run.peak) if run.peak in run.queue else len(run.queue) - 1
    fi = frame_indices(len(run.queue), 48)
    idx = thin(len(run.queue), 120, (peak_i, *fi))
    qt, qv = r([run.times[i] for i in idx]), r([run.queue[i] for i in idx])
    data = [
        bar(
            xs,
            y_a,
            W["backlog_figure.bar"],
            "decode",
            width=ws,
            marker={
                "color": color("decode_fill"),
                "line": {"width": 0},
                "pattern": {"shape": "/", "fgcolor": color("decode"), "size": 6, "solidity": 0.3},
            },
        ),
        bar(xs, y_b, W["backlog_figure.bar_2"], "decode", width=ws, opacity=0.9),
        line(qt, qv, W["backlog_figure.line"], "backlog", yaxis="y2", width=3),
        points(
            [qt[-1]],
            [qv[-1]],
            W["backlog_figure.points"],
            "ink",
            size=10,
            yaxis="y2",
            mode="markers+text",
            text=[f"t={decimals(qt[-1], 0, 's')} · Q={floor_q(qv[-1])}"],
            textposition="top left",
            showlegend=False,
        ),
    ]
    fig = figure(data, _backlog_layout(run, y_a, y_b, capacity, height, title_y))
    pos = {j: k for k, j in enumerate(idx)}
    frames = [
        frame(
            **{
                "积压 Q(t)": {"x": qt[: pos[i] + 1], "y": qv[: pos[i] + 1]},
                "当前": {
                    "x": [qt[pos[i]]],
                    "y": [qv[pos[i]]],
                    "text": [f"t={decimals(run.times[i], 0, 's')} · Q={floor_q(run.queue[i])}"],
                },
            }
        )
        for i in fi
    ]
    return animate(fig, frames, [decimals(run.times[i], 0) for i in fi], duration=duration, prefix="t = ")


def queue_spark(run: Any) -> dict:
    """A small filled Q(t) (the first fallacy)."""
    return figure(
        [
            line(
                run.times,
                run.queue,
                W["backlog_figure.line"],
                "backlog",
                fill="tozeroy",
                fillcolor=color("backlog_fill"),
            )
        ],
        layout(
            axis(W["backlog_layout.axis"]),
            axis(W["queue_spark.axis"]),
            height=200,
            legend=False,
            margin=(64, 16, 12, 40),
        ),
    )


# ---------------------------------------------------------------------------------------------
# The opener: two lanes with the same averages
# ---------------------------------------------------------------------------------------------


def _q_at(run: Any, t: float) -> float:
    """Q of a run at time t (the last recursion point at or before t)."""
    q = 0.0
    for tt, qq in zip(run.times, run.queue):
        if tt > t + 1e-9:
            break
        q = qq
    return q


def _demand_pct(run: Any, t: float) -> float:
    """Demand of the interval containing t, as % of capacity (0 after arrivals stop)."""
    acc = 0.0
    for a, d in zip(run.arrivals, run.interval_s):
        if acc <= t < acc + d:
            return 100 * a / d / run.capacity
        acc += d
    return 0.0


def _lane_bars(run: Any, cap: float, yax: str, legend: bool) -> list[dict]:
    xs, under, over, t = [], [], [], 0.0
    for a, d in zip(run.arrivals, run.interval_s):
        pct = 100 * a / d / cap
        xs.append(t + d / 2)
        under.append(min(pct, 100.0))
        over.append(max(pct - 100.0, 0.0))
        t += d
    xax = "x" if yax == "y" else "x2"
    return [
        bar(
            xs,
            under,
            W["lane_bars.bar"],
            "decode",
            xaxis=xax,
            yaxis=yax,
            showlegend=legend,
            width=1.0,
            legendgroup="d",
        ),
        bar(
            xs,
            over,
            W["lane_bars.bar_2"],
            "backlog",
            xaxis=xax,
            yaxis=yax,
            showlegend=legend,
            width=1.0,
            legendgroup="o",
        ),
    ]


def _lanes_layout(lanes: tuple[str, str], end_t: float, ymax: float, qmax: float, cap: float) -> dict:
    lay = layout(
        axis("", range_=(0, end_t + 2), showticklabels=False, anchor="y", matches="x2"),
        axis(W.f("lanes_layout.axis", v=lanes[0]), domain=[0.56, 1.0], range_=(0, ymax)),
        height=440,
        margin=(72, 64, 24, 48),
        barmode="stack",
        bargap=0,
    )
    lay["xaxis2"] = axis(W["lanes_layout.axis_2"], range_=(0, end_t + 2), anchor="y2")
    lay["yaxis2"] = axis(W.f("lanes_layout.axis_3", v=lanes[1]), domain=[0.0, 0.44], range_=(0, ymax), anchor="x2")
    lay["yaxis3"] = axis(
        W["backlog_layout.axis_2"], overlaying="y2", side="right", range_=(0, qmax), showgrid=False, anchor="x2"
    )
    lay["yaxis4"] = axis(W["lanes_layout.axis_4"], overlaying="y", side="right", range_=(0, qmax), showgrid=False)
    for yref in ("y", "y2"):
        lay.setdefault("shapes", []).append(
            {
                "type": "line",
                "xref": "paper",
                "yref": yref,
                "x0": 0,
                "x1": 1,
                "y0": 100,
                "y1": 100,
                "line": {"color": color("backlog"), "dash": "dash", "width": 1.5},
            }
        )
        lay.setdefault("annotations", []).append(
            {
                "x": 0.01,
                "xref": "paper",
                "y": 100,
                "yref": yref,
                "yanchor": "bottom",
                "xanchor": "left",
                "showarrow": False,
                "text": W.f("lanes_layout.text", cap=cap),
                "font": {"size": 12, "color": color("backlog")},
            }
        )
    return lay


def two_lanes(ru: Any, rs: Any, cap: float, lanes: tuple[str, str], utils: Sequence[float]) -> dict:
    """The opener: per lane, decode demand as % of capacity (the part over 100% in the backlog colour)
    and Q(t); ▶ moves a cursor along both lanes."""
    end_t = max(rs.times[-1], ru.times[-1], 140.0)
    ymax = max(100.0, *utils) * 1.18
    names = (W["two_lanes"], W["backlog_figure.line"], W["two_lanes_2"], W["two_lanes_3"])
    qs = [(thin(len(run.times), 150), run) for run in (ru, rs)]
    data = (
        _lane_bars(ru, cap, "y", True)
        + _lane_bars(rs, cap, "y2", False)
        + [
            line(
                [run.times[i] for i in ix],
                [run.queue[i] for i in ix],
                nm,
                "backlog",
                xaxis=xa,
                yaxis=ya,
                width=w,
                showlegend=legend,
                legendgroup="q",
            )
            for (ix, run), nm, xa, ya, w, legend in zip(qs, names, ("x", "x2"), ("y4", "y3"), (2.5, 3), (False, True))
        ]
        + [
            line(
                [end_t, end_t],
                [0, ymax * 0.92],
                nm,
                "ink",
                xaxis=xa,
                yaxis=ya,
                mode="lines+text",
                width=1.5,
                dash="dot",
                text=["", ""],
                textposition="top right",
                showlegend=False,
            )
            for nm, xa, ya in zip(names[2:], ("x", "x2"), ("y", "y2"))
        ]
    )
    fig = figure(data, _lanes_layout(lanes, end_t, ymax, max(rs.peak, ru.peak, 1.0) * 1.2, cap))
    q_traces = {nm: next(d for d in data if d["name"] == nm) for nm in names[:2]}
    frames, labels = [], []
    for t in [float(i) for i in frame_indices(int(end_t) + 1, 48)]:
        upd: dict[str, dict] = {}
        for q_name, c_name, run in ((names[0], names[2], ru), (names[1], names[3], rs)):
            qx, qy = q_traces[q_name]["x"], q_traces[q_name]["y"]
            k = bisect.bisect_right(qx, t + 1e-9)
            upd[q_name] = {"x": qx[:k], "y": qy[:k]}
            upd[c_name] = {
                "x": [t, t],
                "text": ["", f"{decimals(_demand_pct(run, t), 1, '%')} · Q={floor_q(_q_at(run, t))}"],
            }
        frames.append(frame(**upd))
        labels.append(decimals(t, 0))
    for d in data[-2:]:
        d["text"] = frames[-1]["by_name"][d["name"]]["text"]
    return animate(fig, frames, labels, duration=150, prefix="t = ")


# ---------------------------------------------------------------------------------------------
# 图 3-3 · waiting state occupies capacity
# ---------------------------------------------------------------------------------------------


def occupancy_figure(
    times: Sequence[float],
    occupancy: Sequence[float],
    m0: float,
    tau: float,
    plateau: float,
    horizon: float,
    one_label: str,
    plateau_label: str,
) -> dict:
    """图 3-3: one task's area M₀·τ (top), the stacked M(t) with its plateau λ·M₀·τ (bottom); ▶ draws M(t)."""
    data = [
        line(
            [0, 0, tau, tau, 0],
            [0, m0, m0, 0, 0],
            one_label,
            "state",
            fill="toself",
            fillcolor=color("state_fill"),
            xaxis="x",
            yaxis="y",
        ),
        line(
            times,
            occupancy,
            W["occupancy_figure.line"],
            "state",
            shape="hv",
            fill="tozeroy",
            fillcolor=color("state_fill_light"),
            xaxis="x2",
            yaxis="y2",
        ),
        line([0, horizon], [plateau, plateau], plateau_label, "ink", dash="dash", width=1.5, xaxis="x2", yaxis="y2"),
    ]
    lay = layout(
        axis("", range_=(0, horizon), showticklabels=False),
        axis("GiB", domain=[0.72, 1.0], range_=(0, m0 * 1.4)),
        height=380,
        margin=(56, 16, 24, 48),
    )
    lay["xaxis2"] = axis(W["backlog_layout.axis"], range_=(0, horizon), anchor="y2")
    lay["yaxis2"] = axis(
        W["occupancy_figure.axis"],
        domain=[0.0, 0.6],
        anchor="x2",
        range_=(0, max(max(occupancy, default=0), plateau, m0) * 1.15),
    )
    fig = figure(data, lay)
    rb, rm = r(list(times)), r(list(occupancy))
    frames, labels = [], []
    for i in range(41):
        t = horizon * i / 40
        k = bisect.bisect_right(list(times), t + 1e-9)
        frames.append(frame(**{"M(t):正在等待的任务占用": {"x": rb[:k] + [r(t)], "y": rm[:k] + [rm[k - 1]]}}))
        labels.append(decimals(t, 0))
    return animate(fig, frames, labels, duration=150, prefix="t = ")


def stacked_step_bytes(weight_gb: float, kv_gb: float, batch: int) -> dict:
    """One decode step's bytes: the shared weights plus the batch's KV reads and writes."""
    return figure(
        [
            bar(
                [W["stacked_step_bytes.bar"]],
                [weight_gb],
                W.f("stacked_step_bytes.bar_2", weight_gb=weight_gb),
                "decode",
                horizontal=True,
                text=[W.f("stacked_step_bytes.text", weight_gb=weight_gb)],
            ),
            bar(
                [W["stacked_step_bytes.bar"]],
                [kv_gb],
                W.f("stacked_step_bytes.bar_3", batch=batch, kv_gb=kv_gb),
                "state",
                horizontal=True,
                text=[f"KV {decimals(kv_gb, 2, 'GB')}"],
            ),
        ],
        layout(axis(W["stacked_step_bytes.axis"]), axis(""), height=170, barmode="stack", margin=(90, 16, 16, 44)),
    )


def rate_vs_demand(mu: float, demand: float, texts: Sequence[str]) -> dict:
    """One card's decode rate against a mix's mean demand (horizontal bars)."""
    return figure(
        [
            bar(
                [W["rate_vs_demand.bar"], W["rate_vs_demand.bar_2"]],
                [mu, demand],
                W["rate_vs_demand.bar_3"],
                ["decode", "backlog"],
                text=list(texts),
                horizontal=True,
            )
        ],
        layout(axis(W["rate_vs_demand.bar_3"]), axis(""), height=170, legend=False, margin=(80, 16, 16, 44)),
    )
