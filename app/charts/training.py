"""Training and RL figures (3.4–3.5): plain bar charts, 图 3-20's schedule with activation lifetimes and
memory (▶), the long-lived state stack, the pairs of a packed sequence, 图 3-23's waterfall and the RL
cycle's cost line."""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..calculators import training as T
from .theme import animate, axis, bar, color, figure, frame, hline, layout, line, points, r, with_refs


def bars(
    names: Sequence[str],
    values: Sequence[float],
    roles: Sequence[str] | str,
    y_title: str,
    texts: Sequence[str],
    name: str = "",
    height: int = 260,
) -> dict:
    """One series of bars with their values printed (no legend)."""
    return figure(
        [bar(names, values, name or y_title, roles, text=texts)],
        layout(axis(""), axis(y_title), height=height, legend=False),
    )


def stacked(
    cats: Sequence[str],
    series: Sequence[tuple[str, Sequence[float], str]],
    y_title: str,
    height: int = 320,
    refs: tuple = (),
    barmode: str = "stack",
) -> dict:
    """Stacked (or grouped) bars: (name, values per category, colour role) per series; optional reference lines."""
    lay = layout(axis(""), axis(y_title), height=height, barmode=barmode)
    return figure([bar(cats, vals, name, role) for name, vals, role in series], with_refs(lay, *refs) if refs else lay)


def mat_boxes(m: int, k: int, n: int) -> dict:
    """Box sizes (px) of the three shape sketches of Y = XW, square-root scaled so extreme shapes stay visible."""

    def s(x: int) -> float:
        return 14 + 66 * math.sqrt(math.log10(max(x, 1)) / math.log10(65536))

    return {"m": s(m), "k": s(k), "n": s(n)}


def state_figure(n: float, parts: Sequence[tuple[str, float, str]], k: int, card_gb: float) -> dict:
    """例题 3-3: the state per card (GB) stacked part by part, split evenly over k cards, against one card."""
    xs = ["不分片"] if k == 1 else [f"卡 {i + 1}" for i in range(k)]
    series = [(f"{name}({b:g} B)", [n * b / 1e9 / k] * k, role) for name, b, role in parts]
    return stacked(xs, series, "GB(10⁹ B)", refs=(hline(card_gb, f"单卡 {card_gb:g} GB", "backlog", dash="dash"),))


def _schedule_bars(sch: T.Schedule, kind: str, a: int) -> dict:
    ops = [x for x in sch.ops if x.kind == kind]
    return {
        "type": "bar",
        "orientation": "h",
        "name": "前向 F" if kind == "F" else "反向 B",
        "y": [0] * len(ops),
        "base": r([x.start for x in ops]),
        "x": r([x.end - x.start for x in ops]),
        "width": 0.8,
        "text": [f"{kind}{x.layer}" + (f"·{x.micro}" if a > 1 else "") for x in ops],
        "textposition": "inside",
        "insidetextanchor": "middle",
        "marker": {
            "color": color("compute" if kind == "F" else "accent"),
            "line": {"width": 1, "color": color("outline")},
        },
        "hovertemplate": "%{text}: %{base:.3g} → %{x:.3g}<extra></extra>",
        "yaxis": "y",
    }


def _lifetimes(sch: T.Schedule, a: int, lane_cpu: int, total: float) -> list[dict]:
    lives = sch.lifetimes
    return [
        {
            "type": "bar",
            "orientation": "h",
            "name": "激活驻留",
            "y": [x.layer for x in lives],
            "base": r([x.start for x in lives]),
            "x": r([x.end - x.start for x in lives]),
            "width": 0.6,
            "marker": {"color": color("state"), "opacity": 0.75, "line": {"width": 1, "color": color("outline")}},
            "text": [f"μ{x.micro}" if a > 1 else "" for x in lives],
            "textposition": "inside",
            "hovertemplate": "L%{y} 激活: %{base:.3g} → 用完<extra></extra>",
            "yaxis": "y",
        },
        {
            "type": "bar",
            "orientation": "h",
            "name": "CPU 准备下一批(双缓冲,示意)",
            "y": [lane_cpu],
            "base": [0],
            "x": r([total * 0.7]),
            "width": 0.6,
            "text": ["准备下一批输入"],
            "textposition": "inside",
            "yaxis": "y",
            "marker": {"color": color("idle"), "pattern": {"shape": "/"}},
            "hovertemplate": "CPU 准备下一批(示意)<extra></extra>",
        },
    ]


def schedule_figure(
    sch: T.Schedule, n_layers: int, a: int, param_state: float, act_full: float, n_frames: int = 40
) -> dict:
    """图 3-20: F/B blocks on the accelerator, each layer's activation lifetime, CPU prefetch (示意), and
    parameter state + live activation below; ▶ moves a time cursor and the current-use marker."""
    total, lane_cpu = sch.total_time, n_layers + 1

    def moving(t: float) -> dict:
        use = param_state + sch.live_activation(min(t, total - 1e-9))
        return {"时刻": {"x": [r(t), r(t)], "y": [-0.6, lane_cpu + 0.6]}, "当前占用": {"x": [r(t)], "y": [r(use)]}}

    end = moving(total)
    bps = sch.breakpoints()
    mem = [param_state + sch.live_activation(t) for t in bps]
    data = [
        _schedule_bars(sch, "F", a),
        _schedule_bars(sch, "B", a),
        *_lifetimes(sch, a, lane_cpu, total),
        {
            "type": "scatter",
            "mode": "lines",
            **end["时刻"],
            "name": "时刻",
            "showlegend": False,
            "yaxis": "y",
            "line": {"color": color("ink"), "width": 2, "dash": "dot"},
            "hoverinfo": "skip",
        },
        {
            "type": "scatter",
            "mode": "lines",
            "x": r(bps),
            "y": [param_state] * len(bps),
            "name": "参数状态(常驻)",
            "line": {"color": color("capacity"), "width": 1, "shape": "hv"},
            "fill": "tozeroy",
            "yaxis": "y2",
        },
        {
            "type": "scatter",
            "mode": "lines",
            "x": r(bps),
            "y": r(mem),
            "name": "参数状态 + 激活",
            "line": {"color": color("state"), "width": 2, "shape": "hv"},
            "fill": "tonexty",
            "yaxis": "y2",
        },
        {
            "type": "scatter",
            "mode": "markers",
            **end["当前占用"],
            "name": "当前占用",
            "showlegend": False,
            "marker": {"color": color("ink"), "size": 10},
            "yaxis": "y2",
        },
    ]
    lanes = ["加速器"] + [f"激活 L{i}" for i in range(1, n_layers + 1)] + ["CPU 准备"]
    lay = layout(
        axis("时间(示意单位)", range_=(0, total), anchor="y2"),
        height=460,
        margin=(86, 16, 24, 48),
        barmode="overlay",
        yaxis={
            "domain": [0.42, 1],
            "tickvals": list(range(n_layers + 2)),
            "ticktext": lanes,
            "autorange": "reversed",
            "zeroline": False,
            "automargin": False,
        },
        yaxis2={
            "domain": [0, 0.32],
            "title": {"text": "显存(示意)"},
            "range": [0, (param_state + n_layers * act_full) * 1.1],
            "zeroline": False,
            "automargin": False,
        },
    )
    times = [total * i / n_frames for i in range(n_frames + 1)]
    return animate(
        figure(data, lay), [frame(**moving(t)) for t in times], [f"{t:.3g}" for t in times], duration=150, prefix="t = "
    )


def pairs_figure(total: int, first: int, pairs: int, pairs_single: int) -> dict:
    """Causal pairs Σ L(L+1)/2 of two packed documents against the cut L₁, with one whole document."""
    xs = list(range(0, total + 1, 128))
    return figure(
        [
            line(xs, [T.packed_pairs([x, total - x]) for x in xs], "配对数 Σ L(L+1)/2", "decode"),
            points([first], [pairs], f"当前 L₁={first}", "accent", size=11),
        ],
        with_refs(
            layout(axis("第一份文档长度 L₁(token)", range_=(0, total)), axis("查询—键配对"), height=300),
            hline(pairs_single, "一份 8192 文档", "ink"),
        ),
    )


def waterfall(steps: Sequence[tuple[str, float, float, str, str]], top: float) -> dict:
    """图 3-23: bars (name, base, height, colour role, label) from 6ND to the itemised total (TFLOP)."""
    names, bases, heights, roles, texts = (list(x) for x in zip(*steps))
    wf = {
        "type": "bar",
        "name": "TFLOP",
        "x": names,
        "y": r(heights),
        "base": r(bases),
        "marker": {"color": [color(x) for x in roles]},
        "text": texts,
        "textposition": "outside",
        "cliponaxis": False,
        "hovertemplate": "%{x}: %{y:,.3f} TFLOP<extra></extra>",
    }
    return figure([wf], layout(axis(""), axis("TFLOP(前反向)", range_=(0, top * 1.15)), height=320, legend=False))


def cycle_figure(per: float, f_u: float, presets: Sequence[tuple[str, int]], n: int, f_cycle: float) -> dict:
    """F_cycle(n) = n·per + F_u as a line, the presets ①②③ and the current n on it (TFLOP)."""
    nmax = max([n, *(m for _, m in presets)]) * 1.15
    pn = [m for _, m in presets]
    return figure(
        [
            line([0, nmax], [f_u, f_u + per * nmax], "F_cycle(n)", "ink"),
            points(
                pn,
                [f_u + per * x for x in pn],
                "预设 ①②③",
                "decode",
                size=10,
                text=[k for k, _ in presets],
                textposition="top left",
                mode="markers+text",
            ),
            points([n], [f_cycle], f"当前 n = {n}", "accent", size=13, symbol="diamond"),
        ],
        layout(axis("生成条数 n", range_=(0, nmax)), axis("周期总运算量(TFLOP)", rangemode="tozero"), height=320),
    )


def items_stack(items: Sequence[tuple[str, float, str]], recompute: float | None) -> dict:
    """图 3-23's items stacked in one bar (TFLOP); a full recompute's forward hatched on top."""
    traces = [bar(["逐项"], [val], name, role) for name, val, role in items]
    if recompute is not None:
        traces.append(
            bar(["逐项"], [recompute], "重计算前向", "idle", marker={"color": color("idle"), "pattern": {"shape": "/"}})
        )
    return figure(traces, layout(axis(""), axis("TFLOP"), height=320, barmode="stack", margin=(56, 16, 16, 48)))


def token_strip(segments: Sequence[tuple[str, int, str]], supervised: str, width: float = 960) -> list[dict]:
    """An SFT sample as a strip of segments (name, tokens, colour role), widths proportional to tokens."""
    total, x, strip = sum(n for _, n, _ in segments), 0.0, []
    for name, n, role in segments:
        w = width * n / total
        strip.append({"name": name, "n": n, "x": x, "w": w, "color": color(role), "sup": name == supervised})
        x += w
    return strip
