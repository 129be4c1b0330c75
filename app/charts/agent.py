"""Figures and diagram geometry of multi-turn and agent work (3.2): prefix reuse bars, success-cost
dot grids and curves, the price-cut waterfall, Gantt lanes with a ▶ time cursor (the agent trace,
serial vs parallel tools), Amdahl bars and curve, the tool DAG and branch-tree layouts, CED work."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..calculators import prefix
from ..format import compact, decimals, hover_number, num
from ..words import joined, words_for
from .theme import (
    COLORS,
    animate,
    axis,
    bar,
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

# ---------------------------------------------------------------------------------------------
# Prefix reuse
# ---------------------------------------------------------------------------------------------


def edit_bars(
    kind: str,
    n: int,
    new_len: int,
    k: int,
    first: int,
    span: tuple[int, int],
    clickable: str | None,
    x0: float = 60,
    width: float = 900,
) -> dict:
    """Geometry of the before/after context bars of prefix-edit (SVG units): segments (x, w, role,
    label, a, b), the first-change tick and, for a positional edit, 20 clickable cells."""
    scale = width / max(n, new_len, 1)
    fc = min(first, n)
    if kind == "append":
        before = [(0, n, "state", W["edit_bars"])]
        after_label = W["edit_bars_2"]
    elif kind == "replace_summary":
        before = [
            (0, span[0], "state", W["edit_bars_3"]),
            (span[0], span[1], "removed", W["edit_bars_4"]),
            (span[1], n, "stale", W["edit_bars_5"]),
        ]
        after_label = W["edit_bars_6"]
    else:
        before = [(0, fc, "state", W["edit_bars_3"]), (fc, n, "stale", W["edit_bars_7"])]
        after_label = W["edit_bars_8"]
    after = [(0, k, "state", W["edit_bars_9"]), (k, new_len, "prefill", after_label)]

    def seg(lst: list) -> list[dict]:
        return [
            dict(x=x0 + a * scale, w=max((b - a) * scale, 0), role=ro, label=lb, a=a, b=b)
            for a, b, ro, lb in lst
            if b > a
        ]

    cells = (
        [
            dict(x=x0 + pos * scale, w=n / 20 * scale, pos=pos)
            for pos in (int(round(i * n / 20 / 10)) * 10 for i in range(20))
        ]
        if clickable
        else []
    )
    return {
        "before": seg(before),
        "after": seg(after),
        "tick": x0 + fc * scale,
        "cells": cells,
        "param": clickable,
        "x0": x0,
        "w": width,
        "colors": COLORS,
    }


def hit_bars(
    rounds: Sequence[str], hits: Sequence[int], misses: Sequence[int], inputs: Sequence[int], current: int
) -> dict:
    """Per round: hit K stacked under miss P, the selected round opaque."""
    op = [1.0 if i == current else 0.45 for i in range(len(rounds))]
    return figure(
        [
            bar(list(rounds), list(hits), W["hit_bars.bar"], "state", marker={"color": COLORS["state"], "opacity": op}),
            bar(
                list(rounds),
                list(misses),
                W["hit_bars.bar_2"],
                "prefill",
                marker={"color": COLORS["prefill"], "opacity": op},
                text=[f"I = {num(x)}" for x in inputs],
                textposition="outside",
            ),
        ],
        layout(axis(""), axis("token"), barmode="stack", height=300),
    )


def reuse_savings(rows: tuple[int, int], pairs: tuple[int, int]) -> dict:
    """Projection rows and attention pairs with the cached prefix vs a full prefill (log)."""
    cats = [W["reuse_savings"], W["reuse_savings_2"]]
    return figure(
        [
            bar(
                cats,
                [rows[0], pairs[0]],
                W["reuse_savings.bar"],
                "prefill",
                text=[num(rows[0]), num(pairs[0])],
                textposition="outside",
            ),
            bar(
                cats,
                [rows[1], pairs[1]],
                W["reuse_savings.bar_2"],
                "idle",
                text=[num(rows[1]), num(pairs[1])],
                textposition="outside",
            ),
        ],
        layout(axis(""), axis(W["reuse_savings.axis"], log=True, range_=(0, 7)), barmode="group", height=300),
    )


# ---------------------------------------------------------------------------------------------
# Cost per success
# ---------------------------------------------------------------------------------------------


def dot_grids(successes: tuple[int, int], totals: tuple[float, float]) -> dict:
    """Two 10 × 10 grids (old, new): a dot per success, a cross per failure (its cost counts too)."""
    traces = []
    for j, (nm, n, off) in enumerate(
        ((W["dot_grids.enumerate"], successes[0], 0), (W["dot_grids.enumerate_2"], successes[1], 12))
    ):
        cells = [(off + i % 10, 9 - i // 10, i < n) for i in range(100)]
        for ok, label, role, sym in (
            (True, W["dot_grids"], "decode", "circle"),
            (False, W["dot_grids_2"], "backlog", "x"),
        ):
            traces.append(
                points(
                    [x for x, _, g in cells if g == ok],
                    [y for _, y, g in cells if g == ok],
                    nm + " " + label,
                    role,
                    size=13,
                    symbol=sym,
                    showlegend=j == 0,
                    legendgroup="ok" if ok else "bad",
                    hovertemplate=nm
                    + ":"
                    + (W["dot_grids"] if ok else W["dot_grids.hovertemplate"])
                    + "<extra></extra>",
                )
            )
    traces[0]["name"], traces[1]["name"] = W["dot_grids"], W["dot_grids_3"]
    lay = layout(
        axis("", showticklabels=False, showgrid=False, range_=(-1, 22)),
        axis("", showticklabels=False, showgrid=False, range_=(-1.5, 10)),
        height=300,
    )
    lay["annotations"] = [
        {"x": x, "y": -1.2, "text": W.f("dot_grids.text", nm=nm, n=n, c=c), "showarrow": False, "font": {"size": 13}}
        for x, nm, n, c in (
            (4.5, W["dot_grids.enumerate"], successes[0], totals[0]),
            (16.5, W["dot_grids.enumerate_2"], successes[1], totals[1]),
        )
    ]
    return figure(traces, lay)


def success_curve(
    c2: float, p2_pct: float, c_new: float | None, c_old: float | None, breakeven_pct: float | None
) -> dict:
    """c₂/p₂ over p₂ (log), the old method's level and the break-even p₂."""
    grid = list(range(1, 101))
    refs = []
    if c_old is not None:
        refs.append(hline(c_old, W.f("success_curve.hline", c_old=c_old), "ink", log=True))
    if breakeven_pct is not None and breakeven_pct <= 100:
        refs.append(vline(breakeven_pct, W.f("success_curve.vline", breakeven_pct=breakeven_pct), "target"))
    data = [line(grid, [c2 / (x / 100) for x in grid], W["success_curve.line"], "decode")]
    if c_new is not None:
        data.append(points([p2_pct], [c_new], W.f("success_curve.points", p2_pct=p2_pct), "accent", size=11))
    return figure(
        data,
        with_refs(
            layout(
                axis(W["success_curve.axis"], range_=(0, 110)),
                axis(W["success_curve.axis_2"], log=True),
                height=300,
            ),
            *refs,
        ),
    )


def waterfall(steps: Sequence[tuple[str, float]]) -> dict:
    """Relative cost multiplied factor by factor (old = 1), ending in a total bar; above 1 in the
    backlog colour."""
    xs, base, ht, roles, txt, level = [], [], [], [], [], 1.0
    for i, (nm, f) in enumerate(steps):
        new = f if i == 0 else level * f
        lo, hi = (0.0, new) if i == 0 else (min(level, new), max(level, new))
        xs.append(nm)
        base.append(lo)
        ht.append(hi - lo)
        roles.append("backlog" if new > 1 + 1e-12 else "decode")
        txt.append(compact(new, 3) if i == 0 else f"→ {compact(new, 3)}")
        level = new
    xs.append(W["waterfall.append"])
    base.append(0.0)
    ht.append(level)
    roles.append("backlog" if level > 1 + 1e-12 else "decode")
    txt.append(compact(level, 3))
    return figure(
        [bar(xs, ht, W["waterfall.bar"], roles, base=base, text=txt, textposition="outside")],
        with_refs(
            layout(axis(""), axis(W["waterfall.axis"]), height=320, legend=False), hline(1, W["waterfall.hline"], "ink")
        ),
    )


# ---------------------------------------------------------------------------------------------
# Gantt lanes with a ▶ time cursor
# ---------------------------------------------------------------------------------------------

CURSOR = W["cursor"]


def multi_lane(items: Sequence[tuple[str, float, float]], name: str, role: str, text: Any = None, **kw: Any) -> dict:
    """A Gantt bar trace whose blocks sit on several lanes; hover gives each block's length."""
    t = gantt_trace("", [s for _, s, _ in items], [e for *_, e in items], name, role, text=text, **kw)
    t["y"] = [lane for lane, _, _ in items]
    t["hovertemplate"] = (
        f"%{{y}}:{hover_number('x', digits=3)} s({hover_number('base', digits=3)}"
        f" → {hover_number('customdata', digits=3)})<extra>" + name + "</extra>"
    )
    return t


def cursor(t: float, y0: str, y1: str, label: str) -> dict:
    return {
        "type": "scatter",
        "mode": "lines+text",
        "x": [r(float(t))] * 2,  # rounded as figure() rounds the traces (frames are built apart)
        "y": [y0, y1],
        "text": ["", label],
        "textposition": "bottom right",
        "name": CURSOR,
        "showlegend": False,
        "hoverinfo": "skip",
        "line": {"color": COLORS["accent"], "width": 2, "dash": "dot"},
        "textfont": {"color": COLORS["accent"], "size": 13},
    }


def lanes_with_cursor(
    data: list[dict],
    lanes: Sequence[str],
    x_title: str,
    sweep: float,
    x_max: float,
    label_at: Any,
    n_frames: int,
    *,
    height: int,
    left: int,
    duration: int,
) -> dict:
    """Lanes (top to bottom) of Gantt traces plus a cursor that ▶ moves from 0 to ``sweep``;
    ``label_at(t)`` is the cursor's text. The time slider starts at 0."""
    fig = figure(
        data + [cursor(0, lanes[0], lanes[-1], "t = 0 s")],
        layout(
            axis(x_title, range_=(0, x_max)),
            axis("", autorange="reversed", categoryorder="array", categoryarray=list(lanes)),
            height=height,
            barmode="overlay",
            margin=(left, 16, 16, 48),
        ),
    )
    ts = [sweep * i / (n_frames - 1) if n_frames > 1 else 0.0 for i in range(n_frames)]
    frames = [
        frame(
            **{
                CURSOR: {
                    k: v for k, v in cursor(t, lanes[0], lanes[-1], label_at(t)).items() if k in ("x", "y", "text")
                }
            }
        )
        for t in ts
    ]
    animate(fig, frames, [decimals(t, 1) for t in ts], duration=duration, prefix="t (s) = ")
    fig["layout"]["sliders"][0]["active"] = 0
    return fig


def trace_timeline(spans: Sequence[tuple[int, str, float, float]], outcomes: Sequence[str], total: float) -> dict:
    """The agent trace: model calls, tool runs and hand-offs on three lanes over the task's seconds."""
    lanes = {
        "model": W["trace_timeline.model"],
        "tools": W["trace_timeline.tools"],
        "control": W["trace_timeline.control"],
    }
    roles = {"model": "decode", "tools": "tools", "control": "idle"}
    data = []
    for what, lane in lanes.items():
        items = [(lane, a, b) for _, w, a, b in spans if w == what]
        text = (
            [f"{i + 1}·" + outcomes[i] + f" {decimals(b - a, 3, 's')}" for i, w, a, b in spans if w == what]
            if what == "model"
            else None
        )
        data.append(multi_lane(items, lane, roles[what], text=text))
    names = {
        "model": W["trace_timeline.model_2"],
        "tools": W["trace_timeline.tools_2"],
        "control": W["trace_timeline.control_2"],
    }
    labelled = [(a, b, W.f("trace_timeline", v=i + 1) + names[w].format(outcomes[i])) for i, w, a, b in spans]

    def label_at(t: float) -> str:
        return f"t = {decimals(t, 1, 's')} · " + next(
            (s[2] for s in labelled if s[0] <= t < s[1]), W["trace_timeline.label_at.next"]
        )

    return lanes_with_cursor(
        data,
        list(lanes.values()),
        W["trace_timeline.lanes_with_cursor"],
        total,
        total * 1.02,
        label_at,
        52,
        height=280,
        left=96,
        duration=120,
    )


def pass_bars(cats: Sequence[str], passed: Sequence[int], total: Sequence[int]) -> dict:
    """Checks passed / failed per run and check (stacked horizontal bars)."""
    return figure(
        [
            bar(
                list(cats),
                list(passed),
                W["pass_bars.bar"],
                "decode",
                horizontal=True,
                text=[f"{a}/{b}" for a, b in zip(passed, total)],
            ),
            bar(list(cats), [b - a for a, b in zip(passed, total)], W["pass_bars.bar_2"], "backlog", horizontal=True),
        ],
        layout(
            axis(W.f("pass_bars.axis", max=max(total)), range_=(0, max(total))),
            axis("", autorange="reversed"),
            barmode="stack",
            height=260,
            margin=(130, 16, 16, 48),
        ),
    )


# ---------------------------------------------------------------------------------------------
# Amdahl
# ---------------------------------------------------------------------------------------------


def speedup_bars(label: str, role: str, part: float, s: float, rest: float, total: float) -> dict:
    """Before/after: the sped-up part and the unchanged rest (stacked horizontal bars)."""
    cats = [W["speedup_bars"], W["speedup_bars_2"]]
    return figure(
        [
            bar(
                cats,
                [part, part / s],
                label,
                role,
                horizontal=True,
                text=[decimals(part, 3, "s"), decimals(part / s, 3, "s")],
            ),
            bar(cats, [rest, rest], W["speedup_bars.bar"], "idle", horizontal=True, text=[decimals(rest, 2, "s")] * 2),
        ],
        layout(
            axis(W["speedup_bars.axis"], range_=(0, total * 1.02)),
            axis("", autorange="reversed"),
            barmode="stack",
            height=220,
            margin=(70, 16, 16, 48),
        ),
    )


def speedup_curve(overall: Any, f: float, s: float, now: float, cap: float, role: str) -> dict:
    """Overall speed-up 1/((1 − f) + f/s) for s in 1…20 with the ceiling 1/(1 − f)."""
    grid = [1 + 19 * i / 60 for i in range(61)]
    return figure(
        [
            line(grid, [overall(f, x) for x in grid], W["speedup_curve.line"], role),
            points([s], [now], f"s = {compact(s)}", "accent", size=11),
        ],
        with_refs(
            layout(axis(W["speedup_curve.axis"], range_=(1, 20)), axis(W["speedup_curve.axis_2"]), height=280),
            hline(cap, W.f("speedup_curve.hline", cap=cap), "backlog", dash="dash"),
        ),
    )


# ---------------------------------------------------------------------------------------------
# Tools: DAG and serial/parallel timelines
# ---------------------------------------------------------------------------------------------

NODE_NAMES = {
    "model1": W["node_names.model1"],
    "tool_a": W["node_names.tool_a"],
    "tool_b": W["node_names.tool_b"],
    "model2": W["node_names.model1"],
}


def dag_layout(schedule: Any, durations: dict[str, float], serial: bool) -> dict:
    """SVG geometry of model → tools → model in the form the schedule takes, critical path marked."""
    crit = set(schedule.critical)
    crit_edges = set(zip(schedule.critical, schedule.critical[1:]))
    if serial:
        pos = {"model1": (110, 110), "tool_a": (350, 110), "tool_b": (590, 110), "model2": (830, 110)}
        edges = [("model1", "tool_a"), ("tool_a", "tool_b"), ("tool_b", "model2")]
    else:
        pos = {"model1": (130, 110), "tool_a": (470, 45), "tool_b": (470, 175), "model2": (810, 110)}
        edges = [("model1", "tool_a"), ("model1", "tool_b"), ("tool_a", "model2"), ("tool_b", "model2")]
    nodes = [
        dict(
            id=k,
            x=x,
            y=y,
            name=NODE_NAMES[k],
            dur=durations[k],
            crit=k in crit,
            role="decode" if k.startswith("model") else "tools",
            slack=schedule.slack[k],
            start=schedule.start[k],
        )
        for k, (x, y) in pos.items()
    ]
    return {
        "nodes": nodes,
        "colors": COLORS,
        "length": schedule.length,
        "edges": [
            dict(x1=pos[u][0], y1=pos[u][1], x2=pos[w][0], y2=pos[w][1], crit=(u, w) in crit_edges) for u, w in edges
        ],
        "critical": joined(" → ", (NODE_NAMES[k] for k in schedule.critical)),
        "critical_ids": " ".join(schedule.critical),
    }


def serial_parallel(
    m1: float, a: float, b: float, m2: float, peak: float, areas: tuple[float, float], serial_on: bool
) -> dict:
    """Serial and parallel schedules on a shared time axis with the state band under the tool spans;
    the selected schedule opaque; ▶ moves a cursor that says when each one finishes."""
    ser, par = m1 + a + b + m2, m1 + max(a, b) + m2
    lanes = [
        W["serial_parallel"],
        W["serial_parallel_2"],
        W["serial_parallel_3"],
        W["serial_parallel_4"],
        W["serial_parallel_5"],
    ]
    models = [
        (W["serial_parallel"], 0, m1),
        (W["serial_parallel"], m1 + a + b, ser),
        (W["serial_parallel_3"], 0, m1),
        (W["serial_parallel_3"], m1 + max(a, b), par),
    ]
    tools = [
        (W["serial_parallel"], m1, m1 + a),
        (W["serial_parallel"], m1 + a, m1 + a + b),
        (W["serial_parallel_3"], m1, m1 + b),
        (W["serial_parallel_4"], m1, m1 + a),
    ]
    states = [(W["serial_parallel_2"], m1, m1 + a + b), (W["serial_parallel_5"], m1, m1 + max(a, b))]
    data = [
        multi_lane(models, W["trace_timeline.model"], "decode", text=[W["node_names.model1"]] * 4),
        multi_lane(tools, W["trace_timeline.tools_2"], "tools", text=["A", "B", "B", "A"]),
        multi_lane(
            states,
            W["serial_parallel.multi_lane"],
            "state",
            text=[
                f"{compact(peak, unit='GiB')} × {compact(w, unit='s')} = {compact(area, unit='GiB·s')}"
                for w, area in zip((a + b, max(a, b)), areas)
            ],
        ),
    ]
    for tr, items in zip(data, (models, tools, states)):
        tr["marker"]["opacity"] = [
            (1.0 if serial_on else 0.4) if it[0].startswith(W["serial_parallel"]) else (0.4 if serial_on else 1.0)
            for it in items
        ]

    def label_at(t: float) -> str:
        return (
            f"t = {decimals(t, 1, 's')}"
            + (W["serial_parallel.label_at"] if t >= par - 1e-9 else "")
            + (W["serial_parallel.label_at_2"] if t >= ser - 1e-9 else "")
        )

    return lanes_with_cursor(
        data,
        lanes,
        W["speedup_bars.axis"],
        ser,
        ser * 1.03,
        label_at,
        min(60, int(ser / 0.5) + 1),
        height=320,
        left=110,
        duration=150,
    )


# ---------------------------------------------------------------------------------------------
# Branches and CED
# ---------------------------------------------------------------------------------------------


def branch_tree(h0: int, h: int, k: int, running: int, x0: float = 40, width: float = 880) -> dict:
    """SVG geometry of a shared trunk H₀ with k branches of h tokens; clicking a running branch
    finishes it (and those below), a finished one restarts up to it."""
    span = max(h0 + h, 1)
    trunk_w, br_w = max(width * 0.62 * h0 / span, 6), max(width * 0.62 * h / span, 6)
    top, gap = 30, 40
    branches = [dict(i=i + 1, y=top + gap * i, on=i < running, target=i if i < running else i + 1) for i in range(k)]
    return {
        "x0": x0,
        "trunk_w": trunk_w,
        "br_w": br_w,
        "bx": x0 + trunk_w + 60,
        "mid": top + gap * (k - 1) / 2,
        "height": top * 2 + gap * max(k - 1, 0) + 20,
        "branches": branches,
        "colors": COLORS,
    }


def ced_work(p: int, enc: int, dec: int, resend: int, now: tuple[int, int]) -> dict:
    """Prompt work over P (log–log): decoder-only (L_enc + L_dec)·P against CED L_enc·P + L_dec·min(P, resend)."""
    grid = sorted({round(2 ** (17 * i / 59)) for i in range(60)} | {128, p})
    return figure(
        [
            line(
                grid,
                [prefix.decoder_only_prompt_work(x, enc + dec) for x in grid],
                W.f("ced_work.line", v=enc + dec),
                "prefill",
            ),
            line(grid, [prefix.ced_prompt_work(x, enc, dec, resend) for x in grid], "CED", "decode", dash="dash"),
            points([p, p], list(now), W.f("ced_work.points", p=p), "accent", size=10),
        ],
        with_refs(
            layout(axis(W["ced_work.axis"], log=True), axis(W["ced_work.axis_2"], log=True), height=320),
            vline(resend, f"P = {resend}", log=True),
        ),
    )


def stacked_work(prompt: tuple[int, int], decode: int) -> dict:
    """Prompt plus output work of both structures (stacked bars)."""
    cats = [W["stacked_work"], "CED"]
    return figure(
        [
            bar(cats, list(prompt), W["stacked_work.bar"], "prefill"),
            bar(cats, [decode, decode], W["stacked_work.bar_2"], "decode"),
        ],
        layout(axis(""), axis(W["stacked_work.axis"]), barmode="stack", height=300),
    )
