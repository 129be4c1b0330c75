"""图 1-3 / 1-4: one request from the client to the streamed answer. A lane of stages, the KV cache
as a growing bar and the streamed tokens, with ▶ frames (before prefill, after prefill, after each
decode step) that address traces by name."""

from __future__ import annotations

from typing import Any

from ..calculators import request_path as rp
from ..calculators.units import MIB
from ..words import words_for
from .theme import COLORS, animate, axis, figure, frame, layout, rounded

W = words_for(__name__)

STAGES = [
    (0.0, W["stages"]),
    (1.6, W["stages_2"]),
    (3.2, W["stages_3"]),
    (4.8, W["stages_4"]),
    (6.4, "prefill"),
    (8.0, W["stages_5"]),
    (9.6, W["stages_6"]),
]  # x position on the stage lane, label


def stage_of(frame_no: int) -> tuple[list[int], str]:
    """Stage indices lit at a frame, and its caption."""
    if frame_no == 0:
        return [0, 1, 2, 3], W["stage_of"]
    if frame_no == 1:
        return [4, 6], W["stage_of_2"]
    return [5, 6], W.f("stage_of_3", v=frame_no - 1, frame_no=frame_no)


def _dynamic(inp: int, out: int, k: int, kv_per_token: float) -> list[dict]:
    """The six traces that change from frame to frame (示意 bar scale: the input's KV takes 4 units,
    the decoded tokens 6 units in all)."""
    kv_tok, emitted = rp.frame_state(inp, out, k)
    lit, caption = stage_of(k)
    w_in, w_tok = 4.0, 6.0 / max(out - 1, 1)
    gen = max(kv_tok - inp, 0) if kv_tok else 0
    tok_x = [(i + 0.5) * 10.0 / out for i in range(emitted)]
    kv_txt = W["dynamic"] if not kv_tok else W.f("dynamic_2", kv_tok=kv_tok, v=kv_tok * kv_per_token / MIB)
    return [
        {"type": "scatter", "mode": "markers", "x": [STAGES[i][0] for i in lit], "y": [2.4] * len(lit)},
        {"type": "scatter", "mode": "lines", "x": [0, w_in] if kv_tok else [None, None], "y": [1.2, 1.2]},
        {"type": "scatter", "mode": "lines", "x": [w_in, w_in + gen * w_tok] if gen else [None, None], "y": [1.2, 1.2]},
        {"type": "scatter", "mode": "markers", "x": tok_x or [None], "y": [0.3] * len(tok_x) if tok_x else [None]},
        {"type": "scatter", "mode": "text", "x": [0], "y": [1.62], "text": [kv_txt]},
        {"type": "scatter", "mode": "text", "x": [0], "y": [2.95], "text": [caption]},
    ]


def request_animation(inp: int, out: int, frame_no: int, kv_per_token: float) -> dict:
    """The stage lane, KV bar and streamed tokens at ``frame_no``, with one ▶ frame per step."""
    static = {
        "type": "scatter",
        "mode": "markers+text",
        "x": [s[0] for s in STAGES],
        "y": [2.4] * len(STAGES),
        "text": [s[1] for s in STAGES],
        "textposition": "bottom center",
        "name": W["request_animation.name"],
        "marker": {"size": 16, "color": COLORS["waiting"], "symbol": "circle"},
        "hoverinfo": "text",
    }
    path = {
        "type": "scatter",
        "mode": "lines",
        "x": [STAGES[0][0], STAGES[-1][0]],
        "y": [2.4, 2.4],
        "line": {"color": COLORS["waiting"], "width": 2},
        "hoverinfo": "skip",
        "name": W["request_animation.name_2"],
    }
    hidden = {"hoverinfo": "skip", "showlegend": False, "textposition": "middle right"}
    styles: list[dict[str, Any]] = [
        {
            "marker": {
                "size": 26,
                "color": COLORS["accent"],
                "symbol": "circle-open",
                "line": {"width": 4, "color": COLORS["accent"]},
            },
            "hoverinfo": "skip",
        },
        {"line": {"color": COLORS["capacity"], "width": 26}},
        {"line": {"color": COLORS["read"], "width": 26}},
        {"marker": {"size": 14, "color": COLORS["compute"], "symbol": "square"}},
        {**hidden, "textfont": {"size": 15}},
        {**hidden, "textfont": {"size": 14}},
    ]
    names = [
        W["request_animation"],
        W.f("request_animation_2", inp=inp),
        W["request_animation_3"],
        W["request_animation_4"],
        W["request_animation_5"],
        W["request_animation_6"],
    ]
    dyn = [dict(t, name=n, **s) for t, n, s in zip(_dynamic(inp, out, frame_no, kv_per_token), names, styles)]
    lay = layout(
        axis("", range_=(-0.4, 10.6), showticklabels=False, showgrid=False),
        axis(
            "",
            range_=(-0.3, 3.2),
            ticks=[0.3, 1.2, 2.4],
            ticktext=[W["request_animation.ticktext"], W["request_animation.ticktext_2"], W["request_animation.name"]],
            showgrid=False,
        ),
        height=300,
        margin=(72, 16, 16, 40),
    )
    fig = figure([path, static] + dyn, lay)
    # each frame's numbers rounded for the wire as figure() rounds the first ones (4.857142857142857 → 4.8571)
    frames = [frame(**dict(zip(names, rounded(_dynamic(inp, out, k, kv_per_token))))) for k in range(out + 1)]
    animate(
        fig,
        frames,
        [W["request_animation.animate"], "prefill"] + [f"d{k - 1}" for k in range(2, out + 1)],
        duration=600,
        prefix=W["request_animation.prefix"],
    )
    fig["layout"]["sliders"][0]["active"] = frame_no
    return fig
