"""Real-time audio figures (3.3.3): 图 3-18 arrivals, planned and actual playout and the buffer B(t) (▶),
图 3-19 the three instants of an interruption, and a buffer fed slower than real time draining."""

from __future__ import annotations

import math
from typing import Any

from ..calculators import audio
from ..format import decimals
from ..words import words_for
from .theme import animate, axis, color, figure, frame, layout, line, points, r, vline, with_refs

W = words_for(__name__)

LANES: dict[str, Any] = {"range_": (0.4, 3.6), "ticks": [1, 2, 3], "showgrid": False}


def segments(pairs: list[tuple[float, float]], y: float) -> tuple[list, list]:
    """Horizontal segments on one lane as one line trace (None breaks the line)."""
    xs: list = []
    ys: list = []
    for a, b in pairs:
        xs += [a, b, None]
        ys += [y, y, None]
    return xs, ys


def _jitter_traces(
    run: audio.JitterRun, chunk_s: float, late: int, t: float, ymax: float, curve: list[tuple[float, float]]
) -> dict[str, tuple[list, list, list]]:
    """Every moving trace of 图 3-18 at clock ``t`` (ms): name → (x, y, customdata); ``curve`` = B(t) in ms."""
    arr = [a * 1e3 for a in run.arrivals]
    po = run.playout
    cut = [(x, b) for x, b in curve if x <= t]
    if cut and cut[-1][0] < t <= curve[-1][0]:
        cut.append((t, audio.buffer_level(run.arrivals, po, chunk_s, t / 1e3) * 1e3))
    on = [k for k, a in enumerate(arr) if a <= t and k != late]
    ln = [k for k, a in enumerate(arr) if a <= t and k == late]
    play = segments([(a * 1e3, min(b * 1e3, t)) for a, b in zip(po.starts, po.ends) if a * 1e3 <= t], 1)
    stall = segments([(a * 1e3, min(b * 1e3, t)) for a, b in po.stalls if a * 1e3 <= t], 1)
    return {
        "到达": ([arr[k] for k in on], [3] * len(on), on),
        "迟到的块(示意)": ([arr[k] for k in ln], [3] * len(ln), ln),
        "实际播放": (*play, []),
        "停顿": (*stall, []),
        "B(t) = A(t) − P(t)": ([c[0] for c in cut], [c[1] for c in cut], []),
        "时钟": ([t, t], [0.4, 3.6], []),
        "时钟(余量)": ([t, t], [0, ymax], []),
    }


def jitter_figure(run: audio.JitterRun, chunk_ms: float, play_start_ms: float, late: int, n_frames: int = 20) -> dict:
    """图 3-18: arrivals, planned and actual playout, stalls and B(t) on a second axis; ▶ moves the clock."""
    chunk_s = chunk_ms / 1e3
    t_end = run.playout.ends[-1] * 1e3 + chunk_ms
    curve = [(x * 1e3, b * 1e3) for x, b in zip(*audio.buffer_curve(run.arrivals, run.playout, chunk_s))]
    ymax = max([b for _, b in curve] + [chunk_ms]) * 1.15
    tr = _jitter_traces(run, chunk_s, late, t_end, ymax, curve)
    hover = W["jitter_figure"]
    clock: dict[str, Any] = {"width": 1, "dash": "dot", "showlegend": False, "hoverinfo": "skip"}
    data = [
        points(
            *tr[W["jitter_figure.points"]][:2],
            W["jitter_figure.points"],
            "decode",
            size=10,
            customdata=tr[W["jitter_figure.points"]][2],
            hovertemplate=hover,
        ),
        points(
            *tr[W["jitter_figure.points_2"]][:2],
            W["jitter_figure.points_2"],
            "backlog",
            size=12,
            customdata=tr[W["jitter_figure.points_2"]][2],
            hovertemplate=hover,
        ),
        line(*tr[W["jitter_figure.line"]][:2], W["jitter_figure.line"], "decode", width=14),
        line(*tr[W["jitter_figure.line_2"]][:2], W["jitter_figure.line_2"], "backlog", width=14),
        line(*tr["B(t) = A(t) − P(t)"][:2], "B(t) = A(t) − P(t)", "state", width=2.2, xaxis="x", yaxis="y2"),
        line(*tr[W["jitter_figure.line_3"]][:2], W["jitter_figure.line_3"], "ink", **clock),
        line(*tr[W["jitter_figure.line_4"]][:2], W["jitter_figure.line_4"], "ink", yaxis="y2", **clock),
    ]
    planned = [play_start_ms + k * chunk_ms for k in range(len(run.arrivals))]
    data.append(
        points(
            planned,
            [2] * len(planned),
            W["jitter_figure.points_3"],
            "ink",
            size=16,
            symbol="line-ns-open",
            hovertemplate=W["jitter_figure.hovertemplate"],
        )
    )
    lay = layout(
        axis("", range_=(0, t_end), anchor="y2", ticksuffix=" ms"),
        axis(
            "",
            ticktext=[W["jitter_figure.line"], W["jitter_figure.points_3"], W["jitter_figure.points"]],
            domain=[0.42, 1],
            **LANES,
        ),
        height=420,
        margin=(80, 16, 10, 44),
    )
    lay["yaxis2"] = axis(W["jitter_figure.axis"], range_=(0, ymax), domain=[0, 0.32], anchor="x")
    fig = figure(data, lay)
    ts = [t_end * k / n_frames for k in range(1, n_frames + 1)]

    def at(t: float) -> dict:
        moving = _jitter_traces(run, chunk_s, late, t, ymax, curve)
        return frame(
            **{
                n: {
                    "x": r(x),
                    "y": r(y),
                    **({"customdata": c} if n in (W["jitter_figure.points"], W["jitter_figure.points_2"]) else {}),
                }
                for n, (x, y, c) in moving.items()
            }
        )

    return animate(fig, [at(t) for t in ts], [decimals(t, 0, "ms") for t in ts], duration=160, prefix="t = ")


def interrupt_figure(run: audio.JitterRun, it: audio.Interrupt, poll_ms: float, discarded_ms: float) -> dict:
    """图 3-19: what has arrived and played until the mute; the device's command polls; the four instants
    (decided, backend stop, mute, release), labels staggered so they do not overlap (times in ms)."""
    mute = it.mute
    played = [(a * 1e3, min(b * 1e3, mute)) for a, b in zip(run.playout.starts, run.playout.ends) if a * 1e3 < mute]
    first_poll = max(0.0, math.floor((it.stop - 3 * poll_ms) / poll_ms) * poll_ms)
    polls = [first_poll + k * poll_ms for k in range(8) if first_poll + k * poll_ms <= it.release + poll_ms]
    lay = layout(
        axis(
            W["interrupt_figure.axis"], range_=(max(0.0, it.decided - 120), max(it.release, mute + discarded_ms) + 30)
        ),
        axis(
            "",
            ticktext=[W["interrupt_figure.ticktext"], W["interrupt_figure.ticktext_2"], W["jitter_figure.points"]],
            **LANES,
        ),
        height=300,
        margin=(100, 16, 30, 44),
    )
    with_refs(
        lay,
        vline(it.decided, W.f("interrupt_figure.vline", decided=it.decided), "ink", "dot"),
        vline(it.stop, W.f("interrupt_figure.vline_2", stop=it.stop), "tools"),
        vline(mute, W.f("interrupt_figure.vline_3", mute=mute), "backlog"),
        vline(it.release, W.f("interrupt_figure.vline_4", release=it.release), "state"),
    )
    for i, a in enumerate(lay["annotations"]):
        a.update(y=1 - 0.12 * i, yanchor="top", xanchor="left", bgcolor=color("label_bg"))
    arrived = [a * 1e3 for a in run.arrivals if a * 1e3 <= mute]
    return figure(
        [
            points(arrived, [3] * len(arrived), W["interrupt_figure.points"], "decode", size=10),
            points(polls, [2] * len(polls), W["interrupt_figure.ticktext_2"], "idle", size=14, symbol="line-ns-open"),
            line(*segments(played, 1), W["interrupt_figure.line"], "decode", width=14),
            line(
                *segments([(mute, mute + discarded_ms)] if discarded_ms > 0 else [], 1),
                W["interrupt_figure.line_2"],
                "idle",
                width=14,
                dash="dot",
            ),
        ],
        lay,
    )


def drain_figure(b0: float, rate: float, drain: float) -> dict:
    """A(t) = B₀ + r·t, P(t) = t and B(t) = A − P falling at 1 − r until it empties at ``drain`` (s)."""
    finite = math.isfinite(drain)
    t_max = max(drain * 1.3 if finite and drain > 0 else 10.0, 1.0)
    t_stop = min(drain, t_max) if finite else t_max
    ts = [t_stop * k / 40 for k in range(41)]
    traces = [
        line(ts, [b0 + rate * t for t in ts], W["drain_figure.line"], "decode"),
        line(ts, ts, W["drain_figure.line_2"], "idle"),
        line(ts, [audio.buffer_linear(b0, rate, t) for t in ts], "B(t) = A − P", "state", width=3),
    ]
    lay = layout(axis(W["drain_figure.axis"], range_=(0, t_max)), axis(W["drain_figure.axis_2"]), height=320)
    if finite:
        traces.append(line([drain, t_max], [0, 0], W["drain_figure.line_3"], "backlog", width=5))
        with_refs(lay, vline(drain, W.f("drain_figure.vline", drain=drain), "backlog"))
    return figure(traces, lay)
