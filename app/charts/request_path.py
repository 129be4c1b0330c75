"""图 1-3 / 1-4: one request from the client to the streamed answer. A lane of stages, the KV cache
as a growing bar and the streamed tokens, with ▶ frames (before prefill, after prefill, after each
decode step) that address traces by name."""

from __future__ import annotations

from typing import Any

from ..calculators import request_path as rp
from ..calculators.units import MIB
from .theme import COLORS, animate, axis, figure, frame, layout, rounded

STAGES = [
    (0.0, "客户端"),
    (1.6, "服务入口"),
    (3.2, "路由器"),
    (4.8, "分词器"),
    (6.4, "prefill"),
    (8.0, "decode 循环"),
    (9.6, "流式返回"),
]  # x position on the stage lane, label


def stage_of(frame_no: int) -> tuple[list[int], str]:
    """Stage indices lit at a frame, and its caption."""
    if frame_no == 0:
        return [0, 1, 2, 3], "请求进入:入口 → 路由器选实例 → 分词"
    if frame_no == 1:
        return [4, 6], "prefill:一次处理全部输入,写入 KV,送出第 1 个 token"
    return [5, 6], f"decode 第 {frame_no - 1} 步:读旧 KV、追加 1 个,送出第 {frame_no} 个 token"


def _dynamic(inp: int, out: int, k: int, kv_per_token: float) -> list[dict]:
    """The six traces that change from frame to frame (示意 bar scale: the input's KV takes 4 units,
    the decoded tokens 6 units in all)."""
    kv_tok, emitted = rp.frame_state(inp, out, k)
    lit, caption = stage_of(k)
    w_in, w_tok = 4.0, 6.0 / max(out - 1, 1)
    gen = max(kv_tok - inp, 0) if kv_tok else 0
    tok_x = [(i + 0.5) * 10.0 / out for i in range(emitted)]
    kv_txt = "KV 缓存:—" if not kv_tok else f"KV 缓存:{kv_tok:,} token · {kv_tok * kv_per_token / MIB:,.0f} MiB"
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
        "name": "阶段",
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
        "name": "请求路径",
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
        "当前阶段",
        f"输入的 KV({inp:,} token,示意长度)",
        "decode 追加的 KV",
        "已流式送出的 token",
        "KV 标签",
        "说明",
    ]
    dyn = [dict(t, name=n, **s) for t, n, s in zip(_dynamic(inp, out, frame_no, kv_per_token), names, styles)]
    lay = layout(
        axis("", range_=(-0.4, 10.6), showticklabels=False, showgrid=False),
        axis("", range_=(-0.3, 3.2), ticks=[0.3, 1.2, 2.4], ticktext=["已输出", "KV 缓存", "阶段"], showgrid=False),
        height=300,
        margin=(72, 16, 16, 40),
    )
    fig = figure([path, static] + dyn, lay)
    # each frame's numbers rounded for the wire as figure() rounds the first ones (4.857142857142857 → 4.8571)
    frames = [frame(**dict(zip(names, rounded(_dynamic(inp, out, k, kv_per_token))))) for k in range(out + 1)]
    animate(fig, frames, ["前", "prefill"] + [f"d{k - 1}" for k in range(2, out + 1)], duration=600, prefix="帧:")
    fig["layout"]["sliders"][0]["active"] = frame_no
    return fig
