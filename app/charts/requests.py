"""Figures of one request (3.1): the prefill-then-decode call timeline with the resident KV (▶ call
by call), the context staircase, rows per weight read against the turning point, the event
timeline of 图 3-2, 练习 3-1's count bars and the nearest-rank percentile of three columns."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..calculators.units import KIB, MIB
from ..format import num, with_unit
from ..words import words_for
from .backlog import thin
from .theme import (
    animate,
    axis,
    bar,
    color,
    figure,
    frame,
    gantt_trace,
    hline,
    layout,
    line,
    points,
    r,
    vline,
    with_refs,
)

W = words_for(__name__)


def _decode_blocks(n_dec: int, pw: float, gap: float) -> tuple[list[int], list[float], float]:
    """Decodes drawn (the first 20 and last 20 when there are more than 40), their starts, the x end."""
    shown = list(range(n_dec)) if n_dec <= 40 else list(range(20)) + list(range(n_dec - 20, n_dec))
    starts, x = [], pw + 0.4
    for i in range(len(shown)):
        if n_dec > 40 and i == 20:
            x += gap
        starts.append(x)
        x += 1.0
    return shown, starts, max(x, pw + 2) + 0.5


def call_timeline(n_dec: int, p: int, kv_tokens: Callable[[int | None], int], kib_per_token: float) -> dict:
    """图 3-1: one wide prefill block, then a block per decode; under it the resident KV bar.
    ▶ lights the calls one by one. ``kv_tokens(j)`` = KV tokens after decode j (None: after the prefill)."""

    def kv_text(tokens: int) -> str:
        return f"KV {num(tokens)} token · {with_unit(tokens * kib_per_token * KIB / MIB, 'MiB', 1)}"

    pw, gap = 6.0, 2.5
    shown, starts, xmax = _decode_blocks(n_dec, pw, gap)
    ends = [s + 0.85 for s in starts]
    kv_after = [kv_tokens(None)] + [kv_tokens(j) for j in shown]
    kv_max = kv_tokens(n_dec - 1) if n_dec else kv_tokens(None)
    done = f"decode × {num(n_dec)}"
    data = [
        gantt_trace(
            W["call_timeline.gantt_trace"], [0], [pw], f"prefill(P = {num(p)} token)", "prefill", text=["prefill"]
        ),
        gantt_trace(
            W["call_timeline.gantt_trace"],
            starts,
            ends,
            W["call_timeline.gantt_trace_2"],
            "decode",
            opacity=0.25,
            showlegend=False,
        ),
        gantt_trace(W["call_timeline.gantt_trace"], starts, ends, done, "decode"),
        bar(
            ["KV"],
            [kv_max],
            W["call_timeline.bar"],
            "state",
            horizontal=True,
            text=[kv_text(kv_max)],
            xaxis="x2",
            yaxis="y2",
        ),
    ]
    lay = layout(
        axis("", range_=(0, xmax), showticklabels=False),
        axis("", domain=[0.42, 1.0]),
        height=300,
        margin=(56, 16, 40, 40),
        barmode="overlay",
    )
    lay["xaxis2"] = axis("", anchor="y2", range_=(0, kv_max * 1.05), showticklabels=False)
    lay["yaxis2"] = axis("", domain=[0.0, 0.22], anchor="x2")
    if n_dec > 40:
        lay["annotations"] = [
            {
                "x": starts[20] - gap / 2,
                "y": W["call_timeline.gantt_trace"],
                "xref": "x",
                "yref": "y",
                "yshift": -30,
                "text": W.f("call_timeline.text", v=n_dec - 40),
                "showarrow": False,
                "font": {"size": 12},
            }
        ]
    fig = figure(data, lay)
    rs, re_ = r(starts), r(ends)
    widths = r([e - s for s, e in zip(starts, ends)])
    frames = [
        frame(
            **{
                done: {
                    "base": rs[:k],
                    "x": widths[:k],
                    "y": [W["call_timeline.gantt_trace"]] * k,
                    "customdata": re_[:k],
                },
                "驻留 KV": {"x": [kv_after[k]], "text": [kv_text(kv_after[k])]},
            }
        )
        for k in range(len(shown) + 1)
    ]
    labels = ["prefill"] + [f"d{j}" for j in shown]
    return animate(fig, frames, labels, duration=120, prefix=W["call_timeline.prefix"])


def context_staircase(ctx: Sequence[int]) -> dict:
    """Context present when each call starts (0 = the prefill, then decode j at index j + 1)."""
    idx = thin(len(ctx), 200)
    return figure(
        [
            line(
                idx,
                [ctx[i] for i in idx],
                W["context_staircase.line"],
                "state",
                shape="hv",
                fill="tozeroy",
                fillcolor=color("state_fill_light"),
            )
        ],
        layout(
            axis(W["context_staircase.axis"]),
            axis(W["context_staircase.axis_2"], rangemode="tozero"),
            height=260,
            legend=False,
        ),
    )


def rows_per_read(prefill_rows: int, decode_rows: int, ridge: float) -> dict:
    """Rows multiplied per weight read (log) against the turning point B*."""
    return figure(
        [
            bar(
                ["prefill", "decode"],
                [prefill_rows, decode_rows],
                W["rows_per_read.bar"],
                ["prefill", "decode"],
                text=[num(prefill_rows), num(decode_rows)],
            )
        ],
        with_refs(
            layout(axis(""), axis(W["rows_per_read.axis"], log=True), height=260, legend=False),
            hline(ridge, W.f("rows_per_read.hline", ridge=ridge), "ink", dash="dash", log=True),
        ),
    )


def request_events(queue: float, t1: float, tg: float, gap: float, g: int, thinking: int, audio: bool, o: dict) -> dict:
    """图 3-2: queue, prefill and decode on one lane; TTFT, full request and one token gap as bars
    under it; the first useful / audible output when thinking tokens or an audio delay are set (ms)."""
    lane = W["request_events"]
    data = [
        gantt_trace(lane, [0], [queue], W["request_events.gantt_trace"], "idle", text=[W["request_events.text"]]),
        gantt_trace(lane, [queue], [t1], "prefill", "prefill", text=["prefill"]),
        gantt_trace(lane, [t1], [tg], W.f("request_events.gantt_trace_2", v=g - 1), "decode", text=["decode"]),
    ]
    if thinking:
        data.append(
            gantt_trace(
                lane,
                [t1],
                [min(o["first_useful_ms"], tg)],
                W["request_events.gantt_trace_3"],
                "decode",
                opacity=0.45,
                marker={"color": color("decode"), "pattern": {"shape": "x", "fgcolor": color("on_fill")}},
            )
        )
    data += [
        gantt_trace(
            "TTFT",
            [0],
            [o["ttft_ms"]],
            "T_TTFT = t₁ − t_a",
            "ink",
            text=[f"TTFT {with_unit(o['ttft_ms'], 'ms', 0)}"],
            opacity=0.75,
            width=0.35,
        ),
        gantt_trace(
            W["request_events.gantt_trace_4"],
            [0],
            [o["request_ms"]],
            "T_request = t_G − t_a",
            "ink",
            text=[W.f("request_events.text_2", v=o["request_ms"])],
            opacity=0.55,
            width=0.35,
        ),
        gantt_trace(
            W["request_events.gantt_trace_5"],
            [t1],
            [t1 + gap],
            "T_token = (t_G − t₁)/(G−1)",
            "decode",
            text=[with_unit(o["token_ms"], "ms", 1)],
            width=0.35,
            textposition="outside",
        ),
    ]
    if thinking or audio:
        data.append(
            gantt_trace(
                W["request_events.gantt_trace_6"],
                [0],
                [o["first_audible_ms"]],
                W["request_events.gantt_trace_7"],
                "accent",
                text=[with_unit(o["first_audible_ms"], "ms", 0)],
                opacity=0.6,
                width=0.35,
            )
        )
    lay = layout(
        axis(W["request_events.axis"], range_=(0, max(tg, o["first_audible_ms"]) * 1.05)),
        axis("", autorange="reversed"),
        height=300,
        margin=(96, 16, 24, 48),
        barmode="overlay",
    )
    return figure(data, with_refs(lay, vline(0, "t_a", "ink"), vline(t1, "t₁", "ink"), vline(tg, "t_G", "ink")))


def grouped_counts(
    cats: Sequence[str],
    series: Sequence[tuple[str, str, Sequence[float]]],
    y_title: str,
    *,
    log: bool = False,
    label: Callable[[float], str] = num,
    height: int = 280,
) -> dict:
    """Grouped bars, one series per (name, role, values), each bar labelled with its value (``label``: its text)."""
    return figure(
        [bar(list(cats), list(v), nm, role, text=[label(x) for x in v]) for nm, role, v in series],
        layout(axis(""), axis(y_title, log=log), height=height, barmode="group", legend=len(series) > 1),
    )


def ranked_columns(
    cols: dict[str, list[float]],
    titles: dict[str, tuple[str, str]],
    rank: int,
    picks: dict[str, tuple[float, int]],
    q_pct: int,
) -> dict:
    """Each column sorted on its own (three side-by-side panels, rank on x) with the nearest-rank pick circled."""
    traces = []
    for ci, (key, vals) in enumerate(cols.items()):
        ranked = sorted(((v, i) for i, v in enumerate(vals)), key=lambda x: x[0])
        ax = "" if ci == 0 else str(ci + 1)
        val, i0 = picks[key]
        traces.append(
            points(
                list(range(1, len(vals) + 1)),
                [x for x, _ in ranked],
                titles[key][0],
                ["idle", "prefill", "decode"][ci],
                size=8,
                xaxis=f"x{ax}",
                yaxis=f"y{ax}",
                text=[f"#{j + 1}" for _, j in ranked],
                hovertemplate=W["ranked_columns.hovertemplate"],
            )
        )
        traces.append(
            points(
                [rank],
                [val],
                f"p{q_pct}",
                "backlog",
                size=16,
                symbol="circle-open",
                xaxis=f"x{ax}",
                yaxis=f"y{ax}",
                showlegend=ci == 0,
                mode="markers+text",
                text=[W.f("ranked_columns.text", v=i0 + 1)],
                textposition="middle left",
            )
        )
    lay = layout(
        axis(W["ranked_columns.axis"], domain=[0, 0.28]),
        axis(W["ranked_columns.axis_2"]),
        height=300,
        margin=(56, 16, 24, 44),
    )
    for k, (dom, title) in enumerate(
        (([0.36, 0.64], "TTFT (ms)"), ([0.72, 1.0], W["ranked_columns.enumerate"])), start=2
    ):
        lay[f"xaxis{k}"] = axis(W["ranked_columns.axis"], domain=dom, anchor=f"y{k}")
        lay[f"yaxis{k}"] = axis(title, anchor=f"x{k}")
    return figure(traces, lay)
