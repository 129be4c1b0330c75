"""Training and RL figures (3.4–3.5): plain bar charts, 图 3-20's schedule with activation lifetimes and
memory (▶), the long-lived state stack, the pairs of a packed sequence, 图 3-23's waterfall and the RL
cycle's cost line."""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..calculators import training as T
from ..format import compact, hover_number
from ..words import words_for
from .theme import animate, axis, bar, color, figure, frame, hline, layout, line, points, r, with_refs

W = words_for(__name__)


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
    xs = [W["state_figure"]] if k == 1 else [W.f("state_figure_2", v=i + 1) for i in range(k)]
    series = [(W.f("state_figure.part", name=name, b=b), [n * b / 1e9 / k] * k, role) for name, b, role in parts]
    return stacked(
        xs,
        series,
        "GB(10⁹ B)",
        refs=(hline(card_gb, W.f("state_figure.refs", card_gb=card_gb), "backlog", dash="dash"),),
    )


def _schedule_bars(sch: T.Schedule, kind: str, a: int) -> dict:
    ops = [x for x in sch.ops if x.kind == kind]
    return {
        "type": "bar",
        "orientation": "h",
        "name": W["schedule_bars.name"] if kind == "F" else W["schedule_bars.name_2"],
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
        "hovertemplate": f"%{{text}}: {hover_number('base', sig=3)} → {hover_number('x', sig=3)}<extra></extra>",
        "yaxis": "y",
    }


def _lifetimes(sch: T.Schedule, a: int, lane_cpu: int, total: float) -> list[dict]:
    lives = sch.lifetimes
    return [
        {
            "type": "bar",
            "orientation": "h",
            "name": W["lifetimes.name"],
            "y": [x.layer for x in lives],
            "base": r([x.start for x in lives]),
            "x": r([x.end - x.start for x in lives]),
            "width": 0.6,
            "marker": {"color": color("state"), "opacity": 0.75, "line": {"width": 1, "color": color("outline")}},
            "text": [f"μ{x.micro}" if a > 1 else "" for x in lives],
            "textposition": "inside",
            "hovertemplate": W["lifetimes.hovertemplate"],
            "yaxis": "y",
        },
        {
            "type": "bar",
            "orientation": "h",
            "name": W["lifetimes.name_2"],
            "y": [lane_cpu],
            "base": [0],
            "x": r([total * 0.7]),
            "width": 0.6,
            "text": [W["lifetimes.text"]],
            "textposition": "inside",
            "yaxis": "y",
            "marker": {"color": color("idle"), "pattern": {"shape": "/"}},
            "hovertemplate": W["lifetimes.hovertemplate_2"],
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
            **end[W["schedule_figure.t"]],
            "name": W["schedule_figure.t"],
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
            "name": W["schedule_figure.name"],
            "line": {"color": color("capacity"), "width": 1, "shape": "hv"},
            "fill": "tozeroy",
            "yaxis": "y2",
        },
        {
            "type": "scatter",
            "mode": "lines",
            "x": r(bps),
            "y": r(mem),
            "name": W["schedule_figure.name_2"],
            "line": {"color": color("state"), "width": 2, "shape": "hv"},
            "fill": "tonexty",
            "yaxis": "y2",
        },
        {
            "type": "scatter",
            "mode": "markers",
            **end[W["schedule_figure.t_2"]],
            "name": W["schedule_figure.t_2"],
            "showlegend": False,
            "marker": {"color": color("ink"), "size": 10},
            "yaxis": "y2",
        },
    ]
    lanes = (
        [W["schedule_figure"]]
        + [W.f("schedule_figure_2", i=i) for i in range(1, n_layers + 1)]
        + [W["schedule_figure_3"]]
    )
    lay = layout(
        axis(W["schedule_figure.axis"], range_=(0, total), anchor="y2"),
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
            "title": {"text": W["schedule_figure.text"]},
            "range": [0, (param_state + n_layers * act_full) * 1.1],
            "zeroline": False,
            "automargin": False,
        },
    )
    times = [total * i / n_frames for i in range(n_frames + 1)]
    return animate(
        figure(data, lay),
        [frame(**moving(t)) for t in times],
        [compact(t, 3) for t in times],
        duration=150,
        prefix="t = ",
    )


def pairs_figure(total: int, first: int, pairs: int, pairs_single: int) -> dict:
    """Causal pairs Σ L(L+1)/2 of two packed documents against the cut L₁, with one whole document."""
    xs = list(range(0, total + 1, 128))
    return figure(
        [
            line(xs, [T.packed_pairs([x, total - x]) for x in xs], W["pairs_figure.line"], "decode"),
            points([first], [pairs], W.f("pairs_figure.points", first=first), "accent", size=11),
        ],
        with_refs(
            layout(axis(W["pairs_figure.axis"], range_=(0, total)), axis(W["pairs_figure.axis_2"]), height=300),
            hline(pairs_single, W["pairs_figure.hline"], "ink"),
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
        "hovertemplate": f"%{{x}}: {hover_number('y', digits=3, sep=True)} TFLOP<extra></extra>",
    }
    return figure([wf], layout(axis(""), axis(W["waterfall.axis"], range_=(0, top * 1.15)), height=320, legend=False))


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
                W["cycle_figure.points"],
                "decode",
                size=10,
                text=[k for k, _ in presets],
                textposition="top left",
                mode="markers+text",
            ),
            points([n], [f_cycle], W.f("cycle_figure.points_2", n=n), "accent", size=13, symbol="diamond"),
        ],
        layout(
            axis(W["cycle_figure.axis"], range_=(0, nmax)),
            axis(W["cycle_figure.axis_2"], rangemode="tozero"),
            height=320,
        ),
    )


def items_stack(items: Sequence[tuple[str, float, str]], recompute: float | None) -> dict:
    """图 3-23's items stacked in one bar (TFLOP); a full recompute's forward hatched on top."""
    traces = [bar([W["items_stack.bar"]], [val], name, role) for name, val, role in items]
    if recompute is not None:
        traces.append(
            bar(
                [W["items_stack.bar"]],
                [recompute],
                W["items_stack.bar_2"],
                "idle",
                marker={"color": color("idle"), "pattern": {"shape": "/"}},
            )
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
