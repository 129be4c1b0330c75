"""Figures and diagram geometry of multi-turn and agent work (3.2): prefix reuse bars, success-cost
dot grids and curves, the price-cut waterfall, Gantt lanes with a ▶ time cursor (the agent trace,
serial vs parallel tools), Amdahl bars and curve, the tool DAG and branch-tree layouts, CED work."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..calculators import prefix
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
        before = [(0, n, "state", "原前缀,全部保留")]
        after_label = "新增,需处理"
    elif kind == "replace_summary":
        before = [
            (0, span[0], "state", "保留"),
            (span[0], span[1], "removed", "被替换"),
            (span[1], n, "stale", "之后的内容"),
        ]
        after_label = "摘要 + 其后,全部重算"
    else:
        before = [(0, fc, "state", "保留"), (fc, n, "stale", "模板之后,全部失配")]
        after_label = "从模板起全部重算"
    after = [(0, k, "state", "复用"), (k, new_len, "prefill", after_label)]

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
            bar(list(rounds), list(hits), "命中 K(恢复)", "state", marker={"color": COLORS["state"], "opacity": op}),
            bar(
                list(rounds),
                list(misses),
                "未命中 P(新处理)",
                "prefill",
                marker={"color": COLORS["prefill"], "opacity": op},
                text=[f"I = {x:,}" for x in inputs],
                textposition="outside",
            ),
        ],
        layout(axis(""), axis("token"), barmode="stack", height=300),
    )


def reuse_savings(rows: tuple[int, int], pairs: tuple[int, int]) -> dict:
    """Projection rows and attention pairs with the cached prefix vs a full prefill (log)."""
    cats = ["投影/FFN 行", "注意力配对"]
    return figure(
        [
            bar(
                cats,
                [rows[0], pairs[0]],
                "复用前缀",
                "prefill",
                text=[f"{rows[0]:,}", f"{pairs[0]:,}"],
                textposition="outside",
            ),
            bar(
                cats,
                [rows[1], pairs[1]],
                "不复用(全量 prefill)",
                "idle",
                text=[f"{rows[1]:,}", f"{pairs[1]:,}"],
                textposition="outside",
            ),
        ],
        layout(axis(""), axis("数量(对数)", log=True, range_=(0, 7)), barmode="group", height=300),
    )


# ---------------------------------------------------------------------------------------------
# Cost per success
# ---------------------------------------------------------------------------------------------


def dot_grids(successes: tuple[int, int], totals: tuple[float, float]) -> dict:
    """Two 10 × 10 grids (old, new): a dot per success, a cross per failure (its cost counts too)."""
    traces = []
    for j, (nm, n, off) in enumerate((("旧方法", successes[0], 0), ("新方法", successes[1], 12))):
        cells = [(off + i % 10, 9 - i // 10, i < n) for i in range(100)]
        for ok, label, role, sym in ((True, "成功", "decode", "circle"), (False, "失败(也花钱)", "backlog", "x")):
            traces.append(
                points(
                    [x for x, _, g in cells if g == ok],
                    [y for _, y, g in cells if g == ok],
                    f"{nm} {label}",
                    role,
                    size=13,
                    symbol=sym,
                    showlegend=j == 0,
                    legendgroup="ok" if ok else "bad",
                    hovertemplate=f"{nm}:{'成功' if ok else '失败,成本照计'}<extra></extra>",
                )
            )
    traces[0]["name"], traces[1]["name"] = "成功", "失败(成本照计)"
    lay = layout(
        axis("", showticklabels=False, showgrid=False, range_=(-1, 22)),
        axis("", showticklabels=False, showgrid=False, range_=(-1.5, 10)),
        height=300,
    )
    lay["annotations"] = [
        {"x": x, "y": -1.2, "text": f"{nm}:{n} 成功 / 总花费 {c:g}", "showarrow": False, "font": {"size": 13}}
        for x, nm, n, c in ((4.5, "旧方法", successes[0], totals[0]), (16.5, "新方法", successes[1], totals[1]))
    ]
    return figure(traces, lay)


def success_curve(
    c2: float, p2_pct: float, c_new: float | None, c_old: float | None, breakeven_pct: float | None
) -> dict:
    """c₂/p₂ over p₂ (log), the old method's level and the break-even p₂."""
    grid = list(range(1, 101))
    refs = []
    if c_old is not None:
        refs.append(hline(c_old, f"旧方法 {c_old:.2f}", "ink", log=True))
    if breakeven_pct is not None and breakeven_pct <= 100:
        refs.append(vline(breakeven_pct, f"持平 {breakeven_pct:.1f}%", "target"))
    data = [line(grid, [c2 / (x / 100) for x in grid], "新方法 c₂/p₂", "decode")]
    if c_new is not None:
        data.append(points([p2_pct], [c_new], f"当前 p₂ = {p2_pct:g}%", "accent", size=11))
    return figure(
        data,
        with_refs(
            layout(
                axis("新方法成功率 p₂ (%)", range_=(0, 110)),
                axis("每个成功任务的成本(单位,对数)", log=True),
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
        txt.append(f"{new:.3g}" if i == 0 else f"→ {new:.3g}")
        level = new
    xs.append("新模型")
    base.append(0.0)
    ht.append(level)
    roles.append("backlog" if level > 1 + 1e-12 else "decode")
    txt.append(f"{level:.3g}")
    return figure(
        [bar(xs, ht, "每个成功任务的相对成本", roles, base=base, text=txt, textposition="outside")],
        with_refs(layout(axis(""), axis("相对旧模型(= 1)"), height=320, legend=False), hline(1, "旧模型 = 1", "ink")),
    )


# ---------------------------------------------------------------------------------------------
# Gantt lanes with a ▶ time cursor
# ---------------------------------------------------------------------------------------------

CURSOR = "时间游标"


def multi_lane(items: Sequence[tuple[str, float, float]], name: str, role: str, text: Any = None, **kw: Any) -> dict:
    """A Gantt bar trace whose blocks sit on several lanes; hover gives each block's length."""
    t = gantt_trace("", [s for _, s, _ in items], [e for *_, e in items], name, role, text=text, **kw)
    t["y"] = [lane for lane, _, _ in items]
    t["hovertemplate"] = "%{y}:%{x:.3f} s(%{base:.3f} → %{customdata:.3f})<extra>" + name + "</extra>"
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
    animate(fig, frames, [f"{t:.1f}" for t in ts], duration=duration, prefix="t (s) = ")
    fig["layout"]["sliders"][0]["active"] = 0
    return fig


def trace_timeline(spans: Sequence[tuple[int, str, float, float]], outcomes: Sequence[str], total: float) -> dict:
    """The agent trace: model calls, tool runs and hand-offs on three lanes over the task's seconds."""
    lanes = {"model": "模型调用", "tools": "工具执行", "control": "控制与交接"}
    roles = {"model": "decode", "tools": "tools", "control": "idle"}
    data = []
    for what, lane in lanes.items():
        items = [(lane, a, b) for _, w, a, b in spans if w == what]
        text = (
            [f"{i + 1}·{outcomes[i]} {b - a:.3f} s" for i, w, a, b in spans if w == what] if what == "model" else None
        )
        data.append(multi_lane(items, lane, roles[what], text=text))
    names = {"model": "模型({})", "tools": "工具", "control": "交接"}
    labelled = [(a, b, f"第 {i + 1} 轮" + names[w].format(outcomes[i])) for i, w, a, b in spans]

    def label_at(t: float) -> str:
        return f"t = {t:.1f} s · " + next((s[2] for s in labelled if s[0] <= t < s[1]), "任务完成")

    return lanes_with_cursor(
        data, list(lanes.values()), "任务时间 (s)", total, total * 1.02, label_at, 52, height=280, left=96, duration=120
    )


def pass_bars(cats: Sequence[str], passed: Sequence[int], total: Sequence[int]) -> dict:
    """Checks passed / failed per run and check (stacked horizontal bars)."""
    return figure(
        [
            bar(
                list(cats),
                list(passed),
                "通过",
                "decode",
                horizontal=True,
                text=[f"{a}/{b}" for a, b in zip(passed, total)],
            ),
            bar(list(cats), [b - a for a, b in zip(passed, total)], "未通过", "backlog", horizontal=True),
        ],
        layout(
            axis(f"用例数(共 {max(total):,})", range_=(0, max(total))),
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
    cats = ["加速前", "加速后"]
    return figure(
        [
            bar(cats, [part, part / s], label, role, horizontal=True, text=[f"{part:.3f} s", f"{part / s:.3f} s"]),
            bar(cats, [rest, rest], "其余(不变)", "idle", horizontal=True, text=[f"{rest:.2f} s"] * 2),
        ],
        layout(
            axis("时间 (s)", range_=(0, total * 1.02)),
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
            line(grid, [overall(f, x) for x in grid], "整体加速", role),
            points([s], [now], f"s = {s:g}", "accent", size=11),
        ],
        with_refs(
            layout(axis("局部加速倍数 s", range_=(1, 20)), axis("整体加速 (×)"), height=280),
            hline(cap, f"上限 1/(1−f) = {cap:.3f}", "backlog", dash="dash"),
        ),
    )


# ---------------------------------------------------------------------------------------------
# Tools: DAG and serial/parallel timelines
# ---------------------------------------------------------------------------------------------

NODE_NAMES = {"model1": "模型", "tool_a": "工具 A", "tool_b": "工具 B", "model2": "模型"}


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
        "critical": " → ".join(NODE_NAMES[k] for k in schedule.critical),
        "critical_ids": " ".join(schedule.critical),
    }


def serial_parallel(
    m1: float, a: float, b: float, m2: float, peak: float, areas: tuple[float, float], serial_on: bool
) -> dict:
    """Serial and parallel schedules on a shared time axis with the state band under the tool spans;
    the selected schedule opaque; ▶ moves a cursor that says when each one finishes."""
    ser, par = m1 + a + b + m2, m1 + max(a, b) + m2
    lanes = ["串行", "串行 · 状态", "并行", "并行 · 工具 A", "并行 · 状态"]
    models = [("串行", 0, m1), ("串行", m1 + a + b, ser), ("并行", 0, m1), ("并行", m1 + max(a, b), par)]
    tools = [("串行", m1, m1 + a), ("串行", m1 + a, m1 + a + b), ("并行", m1, m1 + b), ("并行 · 工具 A", m1, m1 + a)]
    states = [("串行 · 状态", m1, m1 + a + b), ("并行 · 状态", m1, m1 + max(a, b))]
    data = [
        multi_lane(models, "模型调用", "decode", text=["模型"] * 4),
        multi_lane(tools, "工具", "tools", text=["A", "B", "B", "A"]),
        multi_lane(
            states,
            "状态驻留(等工具)",
            "state",
            text=[f"{peak:g} GiB × {w:g} s = {area:g} GiB·s" for w, area in zip((a + b, max(a, b)), areas)],
        ),
    ]
    for tr, items in zip(data, (models, tools, states)):
        tr["marker"]["opacity"] = [
            (1.0 if serial_on else 0.4) if it[0].startswith("串行") else (0.4 if serial_on else 1.0) for it in items
        ]

    def label_at(t: float) -> str:
        return (
            f"t = {t:.1f} s" + (" · 并行完成" if t >= par - 1e-9 else "") + (" · 串行完成" if t >= ser - 1e-9 else "")
        )

    return lanes_with_cursor(
        data,
        lanes,
        "时间 (s)",
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
                grid, [prefix.decoder_only_prompt_work(x, enc + dec) for x in grid], f"纯解码器 {enc + dec}P", "prefill"
            ),
            line(grid, [prefix.ced_prompt_work(x, enc, dec, resend) for x in grid], "CED", "decode", dash="dash"),
            points([p, p], list(now), f"当前 P = {p:,}", "accent", size=10),
        ],
        with_refs(
            layout(axis("提示 token 数 P(对数)", log=True), axis("专家层工作量(token·层,对数)", log=True), height=320),
            vline(resend, f"P = {resend}", log=True),
        ),
    )


def stacked_work(prompt: tuple[int, int], decode: int) -> dict:
    """Prompt plus output work of both structures (stacked bars)."""
    cats = ["纯解码器", "CED"]
    return figure(
        [bar(cats, list(prompt), "提示(prefill)", "prefill"), bar(cats, [decode, decode], "输出(decode)", "decode")],
        layout(axis(""), axis("专家层工作量(token·层)"), barmode="stack", height=300),
    )
