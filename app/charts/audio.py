"""Real-time audio figures (3.3.3): 图 3-18 arrivals, planned and actual playout and the buffer B(t) (▶),
图 3-19 the three instants of an interruption, and a buffer fed slower than real time draining."""

from __future__ import annotations

import math
from typing import Any

from ..calculators import audio
from .theme import animate, axis, color, figure, frame, layout, line, points, r, vline, with_refs

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
    hover = "块 %{customdata} 到达 %{x:.0f} ms<extra></extra>"
    clock: dict[str, Any] = {"width": 1, "dash": "dot", "showlegend": False, "hoverinfo": "skip"}
    data = [
        points(*tr["到达"][:2], "到达", "decode", size=10, customdata=tr["到达"][2], hovertemplate=hover),
        points(
            *tr["迟到的块(示意)"][:2],
            "迟到的块(示意)",
            "backlog",
            size=12,
            customdata=tr["迟到的块(示意)"][2],
            hovertemplate=hover,
        ),
        line(*tr["实际播放"][:2], "实际播放", "decode", width=14),
        line(*tr["停顿"][:2], "停顿", "backlog", width=14),
        line(*tr["B(t) = A(t) − P(t)"][:2], "B(t) = A(t) − P(t)", "state", width=2.2, xaxis="x", yaxis="y2"),
        line(*tr["时钟"][:2], "时钟", "ink", **clock),
        line(*tr["时钟(余量)"][:2], "时钟(余量)", "ink", yaxis="y2", **clock),
    ]
    planned = [play_start_ms + k * chunk_ms for k in range(len(run.arrivals))]
    data.append(
        points(
            planned,
            [2] * len(planned),
            "原定播放",
            "ink",
            size=16,
            symbol="line-ns-open",
            hovertemplate="原定 %{x:.0f} ms<extra></extra>",
        )
    )
    lay = layout(
        axis("", range_=(0, t_end), anchor="y2", ticksuffix=" ms"),
        axis("", ticktext=["实际播放", "原定播放", "到达"], domain=[0.42, 1], **LANES),
        height=420,
        margin=(80, 16, 10, 44),
    )
    lay["yaxis2"] = axis("B(t) (ms 音频)", range_=(0, ymax), domain=[0, 0.32], anchor="x")
    fig = figure(data, lay)
    ts = [t_end * k / n_frames for k in range(1, n_frames + 1)]

    def at(t: float) -> dict:
        moving = _jitter_traces(run, chunk_s, late, t, ymax, curve)
        return frame(
            **{
                n: {"x": r(x), "y": r(y), **({"customdata": c} if n in ("到达", "迟到的块(示意)") else {})}
                for n, (x, y, c) in moving.items()
            }
        )

    return animate(fig, [at(t) for t in ts], [f"{t:.0f} ms" for t in ts], duration=160, prefix="t = ")


def interrupt_figure(run: audio.JitterRun, it: audio.Interrupt, poll_ms: float, discarded_ms: float) -> dict:
    """图 3-19: what has arrived and played until the mute; the device's command polls; the four instants
    (decided, backend stop, mute, release), labels staggered so they do not overlap (times in ms)."""
    mute = it.mute
    played = [(a * 1e3, min(b * 1e3, mute)) for a, b in zip(run.playout.starts, run.playout.ends) if a * 1e3 < mute]
    first_poll = max(0.0, math.floor((it.stop - 3 * poll_ms) / poll_ms) * poll_ms)
    polls = [first_poll + k * poll_ms for k in range(8) if first_poll + k * poll_ms <= it.release + poll_ms]
    lay = layout(
        axis("时间 (ms)", range_=(max(0.0, it.decided - 120), max(it.release, mute + discarded_ms) + 30)),
        axis("", ticktext=["设备播放", "设备检查指令", "到达"], **LANES),
        height=300,
        margin=(100, 16, 30, 44),
    )
    with_refs(
        lay,
        vline(it.decided, f"决定打断 {it.decided:g}", "ink", "dot"),
        vline(it.stop, f"后端停止 {it.stop:.0f}", "tools"),
        vline(mute, f"设备静音 {mute:.0f}", "backlog"),
        vline(it.release, f"释放 {it.release:.0f}", "state"),
    )
    for i, a in enumerate(lay["annotations"]):
        a.update(y=1 - 0.12 * i, yanchor="top", xanchor="left", bgcolor=color("label_bg"))
    arrived = [a * 1e3 for a in run.arrivals if a * 1e3 <= mute]
    return figure(
        [
            points(arrived, [3] * len(arrived), "到达(静音前)", "decode", size=10),
            points(polls, [2] * len(polls), "设备检查指令", "idle", size=14, symbol="line-ns-open"),
            line(*segments(played, 1), "已播放", "decode", width=14),
            line(
                *segments([(mute, mute + discarded_ms)] if discarded_ms > 0 else [], 1),
                "已到达但不再播放",
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
        line(ts, [b0 + rate * t for t in ts], "A(t) 已到达", "decode"),
        line(ts, ts, "P(t) 已播放", "idle"),
        line(ts, [audio.buffer_linear(b0, rate, t) for t in ts], "B(t) = A − P", "state", width=3),
    ]
    lay = layout(axis("时间 t (s)", range_=(0, t_max)), axis("音频时长 (s)"), height=320)
    if finite:
        traces.append(line([drain, t_max], [0, 0], "耗尽后:断断续续", "backlog", width=5))
        with_refs(lay, vline(drain, f"t = {drain:.3g} s 耗尽", "backlog"))
    return figure(traces, lay)
