"""Multimodal figures (3.3.1–3.3.2): the patch grid of an image, the sizes of its three forms, the
speech model's two nested loops (▶) and image generation's cost and denoising loop (▶)."""

from __future__ import annotations

import math
import random

import numpy as np

from ..calculators import multimodal as mm
from ..words import words_for
from .theme import animate, axis, bar, color, figure, frame, layout, line, points

W = words_for(__name__)


def patch_grid(h: int, w: int, patch: int, merge: int, box: int = 300) -> dict:
    """SVG geometry of an image with its patch grid and r×r merge groups (too dense: merge groups only)."""
    s = box / max(h, w)
    px, mx = patch * s, patch * merge * s
    cols, rows = w // patch, h // patch
    dense = max(cols, rows) > 64
    return {
        "iw": round(w * s, 2),
        "ih": round(h * s, 2),
        "dense": dense,
        "cols": cols,
        "rows": rows,
        "patch_v": [] if dense else [round(i * px, 2) for i in range(1, cols) if i % merge],
        "patch_h": [] if dense else [round(j * px, 2) for j in range(1, rows) if j % merge],
        "merge_v": [round(i * mx, 2) for i in range(1, w // (patch * merge))],
        "merge_h": [round(j * mx, 2) for j in range(1, h // (patch * merge))],
        "tcols": cols // merge,
        "trows": rows // merge,
        "one_token": round(mx, 2),
    }


def sizes_figure(bars: list[tuple[str, float, str, str]]) -> dict:
    """Horizontal bars (name, MiB, colour role, label text) of the forms one image takes."""
    names, vals, roles, texts = (list(x) for x in zip(*bars))
    return figure(
        [bar(names, vals, W["sizes_figure.bar"], roles, horizontal=True, text=texts, cliponaxis=False)],
        layout(
            axis("MiB"),
            axis("", autorange="reversed"),
            height=60 + 52 * len(names),
            legend=False,
            margin=(170, 70, 10, 44),
        ),
    )


def speech_figure(frames: int, n_state: int, n_codebook: int, counter: list[str], shown: int = 12) -> dict:
    """Fish Audio S2 Pro's loops: per frame one slow step, ``n_state`` + ``n_codebook`` fast forwards and
    a codec waveform (示意); ▶ adds one frame at a time. ``counter[k]`` is the caption after k frames."""
    shown = min(frames, shown)
    per = n_state + n_codebook
    slot = per + 1.0
    sx: list = []
    sy: list = []
    fx0: list = []
    fx: list = []
    wx: list = []
    wy: list = []
    for f in range(shown):
        x0 = f * slot
        sx += [x0, round(x0 + per - 0.1, 2), None]
        sy += [2, 2, None]
        fx0 += [round(x0 + 0.45 + j, 2) for j in range(n_state)]
        fx += [round(x0 + 0.45 + n_state + j, 2) for j in range(n_codebook)]
        wx += [round(x0 + i * (per - 0.1) / 8, 2) for i in range(9)] + [None]
        wy += [round(0.25 * math.sin(i * 2.4 + f * 1.3), 3) if i not in (0, 8) else 0 for i in range(9)] + [None]
    names = (W["speech_figure"], W["speech_figure_2"], W["speech_figure_3"], W["speech_figure_4"], W["speech_figure_5"])

    def upto(k: int) -> dict:
        return dict(
            zip(
                names,
                (
                    {"x": sx[: 3 * k], "y": sy[: 3 * k]},
                    {"x": fx0[: n_state * k], "y": [1] * (n_state * k)},
                    {"x": fx[: n_codebook * k], "y": [1] * (n_codebook * k)},
                    {"x": wx[: 10 * k], "y": wy[: 10 * k]},
                    {"x": [0], "y": [2.75], "text": [counter[k]]},
                ),
            )
        )

    full = upto(shown)
    fig = figure(
        [
            line(sx, sy, names[0], "state", width=18),
            points(fx0, full[names[1]]["y"], names[1], "prefill", size=11, symbol="square"),
            points(fx, full[names[2]]["y"], names[2], "decode", size=11, symbol="square"),
            line(wx, wy, names[3], "tools", width=1.8),
            {
                "type": "scatter",
                "mode": "text",
                **full[names[4]],
                "textposition": "middle right",
                "showlegend": False,
                "name": names[4],
                "hoverinfo": "skip",
                "textfont": {"size": 13},
            },
        ],
        layout(
            axis(
                W["speech_figure.axis"],
                range_=(-0.5, max(shown, 1) * slot + 0.5),
                showticklabels=False,
            ),
            axis(
                "",
                range_=(-0.6, 3.1),
                ticks=[0, 1, 2],
                ticktext=[W["speech_figure.ticktext"], W["speech_figure.ticktext_2"], W["speech_figure.ticktext_3"]],
                showgrid=False,
            ),
            height=300,
            margin=(90, 16, 10, 36),
        ),
    )
    return animate(
        fig,
        [frame(**upto(k)) for k in range(1, shown + 1)],
        [W.f("speech_figure.animate", k=k) for k in range(1, shown + 1)],
        duration=450,
    )


def image_cost_figure(
    sides: list[int], totals: list[float], linear: list[float], cur_side: float, cur_total: float, cur_label: str
) -> dict:
    """Total denoising FLOPs against the side of a square image, with the n_v-proportional line."""
    return figure(
        [
            line(sides, totals, W["image_cost_figure.line"], "compute"),
            line(sides, linear, W["image_cost_figure.line_2"], "idle", dash="dot"),
            points([cur_side], [cur_total], cur_label, "accent", size=11),
        ],
        layout(
            axis(W["image_cost_figure.axis"]),
            axis(W["image_cost_figure.axis_2"], log=True, exponentformat="power"),
            height=320,
        ),
    )


LATENT_GRID = 12  # the 示意 picture: 12×12 dots stand for the latent grid
_CELLS = [(i, j) for j in range(LATENT_GRID) for i in range(LATENT_GRID)]
_rng = random.Random(7)
_NOISE = [(_rng.gauss(0, 1), _rng.gauss(0, 1)) for _ in _CELLS]
_COLORS = [
    round(
        math.cos(6 * math.hypot((i + 0.5) / LATENT_GRID - 0.5, (j + 0.5) / LATENT_GRID - 0.5))
        + 0.6 * ((j + 0.5) / LATENT_GRID - 0.5),
        2,
    )
    for i, j in _CELLS
]


_GRID_XY = np.array(_CELLS, dtype=float)
_NOISE_XY = np.array(_NOISE)


def _latent_xy(a: float) -> tuple[list[float], list[float]]:
    """Each latent dot drifts from noise (a = 0) to its grid place (a = 1)."""
    xy = np.round(_GRID_XY + (1 - a) * 1.8 * _NOISE_XY, 2)
    return xy[:, 0].tolist(), xy[:, 1].tolist()


def denoise_figure(captions: list[str], labels: list[str]) -> dict:
    """▶ the same latent grid updated step after step (picture 示意); frame k shows ``captions[k]``."""
    n = len(captions) - 1

    def at(k: int) -> dict:
        xs, ys = _latent_xy(k / n if n else 1.0)
        return {
            "latent 位置(示意)": {"x": xs, "y": ys},
            "计数": {"x": [-2], "y": [LATENT_GRID + 1.2], "text": [captions[k]]},
        }

    last = at(n)
    fig = figure(
        [
            {
                "type": "scatter",
                "mode": "markers",
                **last[W["denoise_figure.t"]],
                "name": W["denoise_figure.t"],
                "hoverinfo": "skip",
                "showlegend": False,
                "marker": {"size": 16, "symbol": "square", "color": _COLORS, "colorscale": color("sequential")},
            },
            {
                "type": "scatter",
                "mode": "text",
                **last[W["speech_figure_5"]],
                "showlegend": False,
                "hoverinfo": "skip",
                "textposition": "middle right",
                "name": W["speech_figure_5"],
                "textfont": {"size": 13},
            },
        ],
        layout(
            axis("", range_=(-3, LATENT_GRID + 2), visible=False),
            axis("", range_=(-3, LATENT_GRID + 2.2), visible=False, scaleanchor="x"),
            height=360,
            legend=False,
            margin=(10, 10, 10, 10),
        ),
    )
    return animate(fig, [frame(**at(k)) for k in range(n + 1)], labels, duration=220, prefix=W["denoise_figure.prefix"])


def dit_total_flops(s: mm.DiTShape, side: int, steps: int, branches: int, text_tokens: int) -> float:
    """n_s·n_b·F_step of a square image (for the cost curve)."""
    return mm.image_gen_flops(
        steps, branches, mm.dit_forward_flops(s, mm.latent_positions(side, side, s), text_tokens).total
    )


def aoi_timeline(
    event_s: float,
    interval_s: float,
    actions: list[tuple[float, float]],
    popup_start: float,
    width: float = 760.0,
    x0: float = 150.0,
) -> dict:
    """SVG geometry of the AOI timeline (示意): actions, a short pop-up, screenshots after each action and
    continuous observations every ``interval_s`` (at most ~200 drawn), with which of them see the pop-up."""
    pop = (popup_start, popup_start + event_s)
    window = max(4.0, pop[1] + 0.3)
    sx = (width - x0 - 20) / window

    def X(t: float) -> float:
        return round(x0 + t * sx, 2)

    obs = [k * interval_s for k in range(int(window / interval_s) + 1)]
    stride = max(1, math.ceil(len(obs) / 200))
    shots = [{"x": X(b), "hit": pop[0] <= b <= pop[1]} for _, b in actions]
    return {
        "W": width,
        "x0": x0,
        "actions": [{"x": X(a), "w": round((b - a) * sx, 2)} for a, b in actions],
        "popup": {"x": X(pop[0]), "w": max(2.0, round((pop[1] - pop[0]) * sx, 2))},
        "ticks": [{"x": X(t), "hit": pop[0] <= t <= pop[1]} for t in obs[::stride]],
        "shots": shots,
        "caught": any(pop[0] <= t <= pop[1] for t in obs),
        "shot_caught": any(s["hit"] for s in shots),
        "seconds": [{"x": X(t), "t": t} for t in range(int(window) + 1)],
        "stride": stride,
    }
