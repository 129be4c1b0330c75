"""Figures of the fit planner: one GPU's memory, part by part, against its usable share and capacity;
the decode step's time terms (read, compute, all-reduce) against the lower bound."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from ..format import hover_number
from ..words import words_for
from .theme import COLORS, axis, bar, figure, layout, line, r, rounded, vline, with_refs

W = words_for(__name__)

LANE = W["lane"]


def memory_breakdown(
    parts: Mapping[str, float],
    texts: Mapping[str, str],
    usable_gb: float,
    capacity_gb: float,
    labels: Mapping[str, str],
) -> dict:
    """A stacked horizontal bar (GB): weights, reserve, the batch's KV, then the KV room left (or the part
    over the usable share, shaded red) and the share the engine leaves alone; lines at η·M and M."""
    roles = {"weights": "capacity", "reserve": "waiting", "kv": "storage", "free": "state_fill", "outside": "rule_line"}
    used = parts["weights"] + parts["reserve"] + parts["kv"]
    shown = [k for k in roles if parts.get(k, 0) > 0 and (k != "outside" or used <= usable_gb)]  # η's remainder sits
    data = [
        bar(
            [LANE],
            [parts[k]],
            labels[k],
            roles[k],
            horizontal=True,
            text=[texts.get(k, "")],
            width=0.5,  # after a fit
            textposition="inside",
            insidetextanchor="middle",
            hovertemplate=labels[k] + f": {hover_number('x', sig=4)} GB<extra></extra>",
        )
        for k in shown
    ]
    top = max(used, capacity_gb) * 1.06
    lay = with_refs(
        layout(
            axis(W["memory_breakdown.axis"], range_=(0, top)),
            axis(""),
            height=220,
            barmode="stack",
            margin=(16, 16, 36, 48),
        ),
        vline(usable_gb, W.f("memory_breakdown.vline", usable_gb=usable_gb), "ink"),
        vline(
            capacity_gb,
            W.f("memory_breakdown.vline_2", capacity_gb=capacity_gb),
            "over" if used > capacity_gb else "ink",
            "dot",
        ),
    )
    # the two labels never overlap and never leave the chart (a phone is 390 px wide): η·M's above the plot,
    # ending at its line; M's inside the plot's top edge, ending at its line
    lay["annotations"][0]["xanchor"] = "right"
    lay["annotations"][1].update(xanchor="right", yanchor="top")
    if used > usable_gb:
        lay["shapes"].append(
            {
                "type": "rect",
                "xref": "x",
                "yref": "paper",
                "x0": usable_gb,
                "x1": used,
                "y0": 0.15,
                "y1": 0.85,
                "fillcolor": COLORS["over_fill"],
                "line": {"color": COLORS["over"], "width": 2},
            }
        )
    lay["yaxis"]["showticklabels"] = False
    return figure(data, lay)


def step_terms(
    names: Sequence[str],
    values_ms: Sequence[float],
    roles: Sequence[str],
    texts: Sequence[str],
    t_step_ms: float,
    step_text: str,
) -> dict:
    """The decode step's terms as horizontal bars (ms) with the lower bound max(read, compute) + all-reduce marked."""
    top = max([*values_ms, t_step_ms]) * 1.25
    lay = with_refs(
        layout(
            axis(W["step_terms.axis"], range_=(0, top)), axis(""), height=230, legend=False, margin=(150, 24, 36, 48)
        ),
        vline(t_step_ms, step_text, "accent"),
    )
    return figure(
        [
            bar(
                list(names),
                list(values_ms),
                W["step_terms.bar"],
                list(roles),
                horizontal=True,
                text=list(texts),
                textposition="outside",
                cliponaxis=False,
                width=0.55,
                hovertemplate=f"%{{y}}: {hover_number('x', sig=4)} ms<extra></extra>",
            )
        ],
        lay,
    )


def with_comm_bound(fig: dict, comm_ms: Sequence[float], step_ms: Sequence[float]) -> dict:
    """图 1-11 under tensor parallel: the all-reduce B·t_AR as its own line, and the bound line lifted to
    max(read, compute) + all-reduce (the y range widened to show both)."""
    for t in fig["data"]:
        if t.get("name") == W["with_comm_bound"]:
            t.update({"y": r(list(step_ms)), "name": W["with_comm_bound.name"]})
    fig["data"].insert(2, *rounded([line(fig["data"][0]["x"], comm_ms, "all-reduce T_AR", "network", dash="dot")]))
    lo, hi = fig["layout"]["yaxis"]["range"]
    lo = min(lo, math.log10(max(min(comm_ms), 1e-6)) - 0.15)
    hi = max(hi, math.log10(max(step_ms)) + 0.15)
    fig["layout"]["yaxis"]["range"] = [lo, hi]
    return fig
