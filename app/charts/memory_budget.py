"""Memory figures of 1.2.3: the two weight formats against one card's capacity, and 图 1-7's
per-card budget (weights + KV + workspace against each card's capacity, the excess marked)."""

from __future__ import annotations

from collections.abc import Sequence

from ..words import words_for
from .theme import COLORS, axis, bar, figure, hline, layout, line, with_refs

W = words_for(__name__)


def weight_formats(
    bf16_gb: float,
    parts: Sequence[float],
    totals_text: Sequence[str],
    part_text: str,
    cap_gb: float,
    cap_name: str,
    per_gpu: tuple[float, str] | None,
) -> dict:
    """BF16 against 8-bit group quantisation (8-bit linear weights + scales + parts kept in BF16),
    with a card's capacity and, optionally, the per-card share of BF16 split over n cards."""
    xs = ["BF16", W["weight_formats"]]
    fig = figure(
        [
            bar(xs, [bf16_gb, 0], W["weight_formats.bar"], "capacity"),
            bar(xs, [0, parts[0]], W["weight_formats.bar_2"], "read", text=["", part_text]),
            bar(xs, [0, parts[1]], W["weight_formats.bar_3"], "storage"),
            bar(
                xs,
                [0, parts[2]],
                W["weight_formats.bar_4"],
                "capacity",
                marker={"color": COLORS["capacity"], "pattern": {"shape": "/"}},
            ),
        ],
        with_refs(
            layout(
                dict(axis(""), tickvals=xs, ticktext=[x + f"<br><b>{t}</b>" for x, t in zip(xs, totals_text)]),
                axis(W["weight_formats.axis"], range_=(0, max(bf16_gb, cap_gb) * 1.12)),
                height=320,
                barmode="stack",
                margin=(56, 16, 16, 64),
            ),
            hline(cap_gb, cap_name, "over", dash="dash"),
        ),
    )
    if per_gpu is not None:
        y, text = per_gpu
        fig["layout"]["shapes"].append(
            {
                "type": "line",
                "xref": "x",
                "yref": "y",
                "x0": -0.4,
                "x1": 0.4,
                "y0": y,
                "y1": y,
                "line": {"color": COLORS["on_fill"], "width": 2, "dash": "dot"},
            }
        )
        fig["layout"]["annotations"].append(
            {
                "x": 0,
                "y": y,
                "xref": "x",
                "yref": "y",
                "showarrow": False,
                "yanchor": "top",
                "text": text,
                "font": {"color": COLORS["on_fill"], "size": 13},
            }
        )
    return fig


def card_budgets(cards: Sequence[str], weights: float, kv: float, ws: float, cap: float, texts: dict[str, str]) -> dict:
    """One stacked bar per card (GB) against its capacity, every card with the same even share; the
    part over capacity is shaded. ``texts``: "weights", "over", "capacity" labels as the card prints them."""
    n, tot = len(cards), weights + kv + ws
    xs = list(range(1, n + 1))
    data = [
        bar(xs, [weights] * n, W["card_budgets.bar"], "capacity", text=[texts["weights"]] * n, width=0.6),
        bar(xs, [kv] * n, W["card_budgets.bar_2"], "storage", width=0.6),
        bar(xs, [ws] * n, W["card_budgets.bar_3"], "waiting", width=0.6),
    ]
    data += [
        line(
            [x - 0.42, x + 0.42],
            [cap, cap],
            W["card_budgets.line"] if i == 0 else W.f("card_budgets.line_2", v=cards[i]),
            "ink",
            dash="dash",
            legendgroup="cap",
            showlegend=i == 0,
            hoverinfo="skip",
        )
        for i, x in enumerate(xs)
    ]
    over = tot > cap
    shapes = (
        [
            {
                "type": "rect",
                "xref": "x",
                "yref": "y",
                "x0": x - 0.3,
                "x1": x + 0.3,
                "y0": cap,
                "y1": tot,
                "fillcolor": COLORS["over_fill"],
                "line": {"color": COLORS["over"], "width": 2},
            }
            for x in xs
        ]
        if over
        else []
    )
    anns = [
        {
            "x": x,
            "y": tot if over else cap,
            "xref": "x",
            "yref": "y",
            "showarrow": False,
            "yanchor": "bottom",
            "text": texts["over"] if over else texts["capacity"],
            "font": {"color": COLORS["over"], "size": 13} if over else {"size": 12},
        }
        for x in xs
    ]
    pad = max(0.0, (3 - n) / 2)
    lay = layout(
        axis("", ticks=xs, ticktext=list(cards), range_=(0.5 - pad, n + 0.5 + pad)),
        axis(W["card_budgets.axis"], range_=(0, max(tot, cap) * 1.15)),
        height=340,
        barmode="stack",
    )
    lay["shapes"], lay["annotations"] = shapes, anns
    return figure(data, lay)
