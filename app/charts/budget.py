"""Figures of section 3.6 (training and serving budgets): the compute-optimal split against the
budget, the hold-out check and its seed strip, 图 3-28 (training as intercept, calls as slope) with its
iso-loss inset, the lifetime break-even, tokens per parameter, MoE total vs active parameters and
图 3-30 (A100-equivalent GPU-hours)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from ..calculators import scaling_law as sl
from ..format import compact, hover_number, sci
from ..words import words_for
from .theme import axis, bar, color, figure, hline, layout, line, points, vline, with_refs

W = words_for(__name__)


def _log_grid(lo: float, hi: float, n: int) -> list[float]:
    return [10 ** (math.log10(lo) + (math.log10(hi) - math.log10(lo)) * i / (n - 1)) for i in range(n)]


def _arrow(x0: float, y0: float, x1: float, y1: float, role: str) -> dict:
    return {
        "x": math.log10(x1),
        "y": math.log10(y1),
        "ax": math.log10(x0),
        "ay": math.log10(y0),
        "xref": "x",
        "yref": "y",
        "axref": "x",
        "ayref": "y",
        "showarrow": True,
        "arrowhead": 2,
        "arrowwidth": 2,
        "arrowcolor": color(role),
        "text": "",
    }


def split_figure(law: sl.Law, alpha: float, beta: float, c0: float, k: float, o: Mapping[str, float]) -> dict:
    """N_opt(C) and D_opt(C) on log–log axes, the old and new budgets marked, arrows for the split."""
    grid = _log_grid(1e18, 1e25, 36)
    ns = [sl.optimal_n(c, law.A, law.B, alpha, beta) for c in grid]
    c1 = c0 * k
    n0, n1, d0, d1 = o["n_opt_params"], o["n_opt_params_after"], o["d_opt_tokens"], o["d_opt_tokens_after"]
    lay = layout(axis(W["split_figure.axis"], log=True), axis(W["split_figure.axis_2"], log=True), height=340)
    lay["annotations"] = [_arrow(c0, n0, c1, n1, "state"), _arrow(c0, d0, c1, d1, "decode")]
    return figure(
        [
            line(grid, ns, W["split_figure.line"], "state"),
            line(grid, [c / (6 * n) for c, n in zip(grid, ns)], W["split_figure.line_2"], "decode"),
            points([c0, c0], [n0, d0], W["split_figure.points"], "ink", size=10),
            points([c1, c1], [n1, d1], W.f("split_figure.points_2", k=k), "accent", size=11),
        ],
        lay,
    )


def holdout_figure(
    context: Sequence[sl.Run], law: sl.Law, held: Sequence[sl.Run], pred: Sequence[float], fitted: Sequence[sl.Run]
) -> dict:
    """Loss against N: context runs (grey), the law at the two held-out D, the reader's fit points,
    the held-out points observed (filled) and predicted (open) with the residual between."""
    ngrid = _log_grid(1e7, 10**10.2, 41)
    traces = [
        points(
            [r.params for r in context],
            [r.loss for r in context],
            W["holdout_figure.points"],
            "idle",
            size=7,
            opacity=0.55,
            text=[r.run for r in context],
            hovertemplate=f"%{{text}}<br>N={hover_number('x', sig=3)} L={hover_number('y', digits=4)}<extra></extra>",
        ),
        line(ngrid, [sl.loss(law, n, 55e9) for n in ngrid], W["holdout_figure.line"], "prefill", dash="dot", width=2),
        line(ngrid, [sl.loss(law, n, 178e9) for n in ngrid], W["holdout_figure.line_2"], "decode", dash="dot", width=2),
    ]
    if fitted:
        traces.append(
            points(
                [r.params for r in fitted],
                [r.loss for r in fitted],
                W["holdout_figure.points_2"],
                "accent",
                size=10,
                symbol="diamond",
            )
        )
    h1, h2 = held
    traces += [
        points([h1.params, h2.params], [h1.loss, h2.loss], W["holdout_figure.points_3"], "backlog", size=12),
        points(
            [h1.params, h2.params], list(pred), W["holdout_figure.points_4"], "backlog", size=12, symbol="circle-open"
        ),
        line(
            [h1.params, h1.params, None, h2.params, h2.params],
            [h1.loss, pred[0], None, h2.loss, pred[1]],
            W["holdout_figure.line_3"],
            "backlog",
            width=2,
        ),
    ]
    return figure(
        traces,
        layout(
            axis(W["holdout_figure.axis"], log=True, range_=(7, 10.2)),
            axis(W["holdout_figure.axis_2"], range_=(2.2, 4.2)),
            height=380,
        ),
    )


def seed_strip(reruns: Sequence[sl.Run], held: sl.Run, pred: float) -> dict:
    """The same configuration under other seeds, beside the held-out run and the law's prediction."""
    y = "2.81B / 55B"
    return figure(
        [
            points(
                [r.loss for r in reruns], [y] * len(reruns), W.f("seed_strip.points", len=len(reruns)), "idle", size=11
            ),
            points([held.loss], [y], W.f("seed_strip.points_2", loss=held.loss), "backlog", size=12),
            points([pred], [y], W["seed_strip.points_3"], "backlog", size=12, symbol="circle-open"),
        ],
        layout(axis(W["holdout_figure.axis_2"]), axis(""), height=170, margin=(90, 16, 8, 44)),
    )


def intercept_figure(o: Mapping[str, float], n_small: float, n_large: float) -> dict:
    """图 3-28: total GPU-hours C₀ + Q·c of the two models against lifetime calls Q (log–log), Q* marked."""
    q_star = o["q_star_calls"]
    inside = q_star is not None and 1e6 <= q_star <= 1e10
    qs = sorted(set(_log_grid(1e6, 1e10, 41)) | ({q_star} if inside else set()))

    def total(size: str, q: float) -> float:
        return o[f"train_gpu_h_{size}"] + q * o[f"call_gpu_s_{size}"] / 3600

    tr = [
        line(qs, [total("small", q) for q in qs], W.f("intercept_figure.line", sci=sci(n_small, 2)), "prefill"),
        line(qs, [total("large", q) for q in qs], W.f("intercept_figure.line_2", sci=sci(n_large, 2)), "decode"),
    ]
    refs = []
    if inside:
        tr.append(points([q_star], [total("small", q_star)], W["intercept_figure.points"], "accent", size=12))
        refs.append(vline(q_star, f"Q*≈{sci(q_star, 3)}", log=True))
    return figure(
        tr,
        with_refs(
            layout(
                axis(W["intercept_figure.axis"], log=True, range_=(6, 10)),
                axis(W["intercept_figure.axis_2"], log=True),
                height=340,
            ),
            *refs,
        ),
    )


def iso_loss_figure(law: sl.Law, target: float, sizes: Sequence[tuple[float, float | None]], boundary_b: float) -> dict:
    """Training tokens D(N) that reach L*: solid inside the data range (≤ ``boundary_b`` ×10⁹), dashed
    beyond (extrapolation); ``sizes`` = the two models' (N, D in 10⁹) where reachable."""
    ngrid = _log_grid(5e7, 3e9, 41)
    dd = [sl.tokens_for_loss(law, n, target) / 1e9 for n in ngrid]
    inside = [d if math.isfinite(d) and d <= boundary_b else None for d in dd]
    beyond = [d if math.isfinite(d) and d >= boundary_b else None for d in dd]
    for i in range(1, len(dd)):  # join the two segments at the boundary
        if inside[i] is None and inside[i - 1] is not None and beyond[i] is not None:
            beyond[i - 1] = inside[i - 1]
        if beyond[i - 1] is not None and inside[i] is not None and inside[i - 1] is None:
            inside[i - 1] = beyond[i - 1]
    pts = [(n, d) for n, d in sizes if d]
    return figure(
        [
            line(ngrid, inside, W["iso_loss_figure.line"], "ink"),
            line(ngrid, beyond, W.f("iso_loss_figure.line_2", boundary_b=boundary_b), "ink", dash="dash"),
            points([x for x, _ in pts], [y for _, y in pts], W["iso_loss_figure.points"], "accent", size=11),
        ],
        with_refs(
            layout(axis(W["holdout_figure.axis"], log=True), axis(W["iso_loss_figure.axis"], log=True), height=280),
            hline(boundary_b, W.f("iso_loss_figure.hline", boundary_b=boundary_b), "idle", log=True),
        ),
    )


def lifetime_figure(delta_train_gpu_h: float, saving_gpu_s: float, tasks: float, q_star: float | None) -> dict:
    """The part of the two lifetime costs that differs: extra training (flat) vs extra serving Q·Δc."""
    marked = [q_star] if q_star and 1e6 <= q_star <= 1e11 else []  # Q* inside the axis range
    qs = sorted({*_log_grid(1e6, 1e11, 51), tasks, *marked})
    marks = [q for q in (2e8, 1e9) if q != tasks]
    tr = [
        line(qs, [delta_train_gpu_h] * len(qs), W["lifetime_figure.line"], "prefill"),
        line(qs, [q * saving_gpu_s / 3600 for q in qs], W["lifetime_figure.line_2"], "decode"),
        points(marks, [q * saving_gpu_s / 3600 for q in marks], W["lifetime_figure.points"], "ink", size=9),
        points(
            [tasks],
            [tasks * saving_gpu_s / 3600],
            W.f("lifetime_figure.points_2", sci=sci(tasks, 3)),
            "accent",
            size=12,
        ),
    ]
    refs = [vline(q, f"Q*≈{sci(q, 3)}", log=True) for q in marked]
    return figure(
        tr,
        with_refs(
            layout(
                axis(W["lifetime_figure.axis"], log=True, range_=(6, 11)),
                axis(W["lifetime_figure.axis_2"], log=True),
                height=330,
            ),
            *refs,
        ),
    )


def tokens_per_param_figure(
    names: Sequence[str], d_over_n: Sequence[float], texts: Sequence[str], per_param: float
) -> dict:
    """Training tokens per parameter of each model (log bars) against the compute-optimal line."""
    return figure(
        [bar(names, d_over_n, "D/N", "decode", text=texts)],
        with_refs(
            layout(axis(""), axis(W["tokens_per_param_figure.axis"], log=True), height=280, legend=False),
            hline(per_param, f"Chinchilla {compact(per_param)}", "target", dash="dash", log=True),
        ),
    )


def moe_params_figure(models: Sequence[Mapping]) -> dict:
    """Total (capacity) vs active-per-token (compute) parameters of MoE models, 10⁹, log."""
    names = [m["name"] for m in models]
    return figure(
        [
            bar(names, [m["total_params"] / 1e9 for m in models], W["moe_params_figure.bar"], "state"),
            bar(names, [m["active_params"] / 1e9 for m in models], W["moe_params_figure.bar_2"], "prefill"),
        ],
        layout(axis(""), axis(W["moe_params_figure.axis"], log=True), height=290, barmode="group"),
    )


def a100_figure(
    reports: Sequence[Mapping], equiv: Sequence[float], gpu_names: Mapping[str, str], roles: Mapping[str, str]
) -> tuple[dict, str]:
    """图 3-30: reported GPU-hours as A100 equivalents, horizontal log bars coloured by the original GPU;
    and the figure's one-line summary."""
    labels = [W.f("a100_figure.label", model=r["model"], gpu=gpu_names[r["gpu"]], scope=r["scope"]) for r in reports]
    traces = []
    for g in roles:
        idx = [i for i, r in enumerate(reports) if r["gpu"] == g]
        if idx:
            traces.append(
                bar(
                    [labels[i] for i in idx],
                    [equiv[i] for i in idx],
                    W.f("a100_figure.bar", v=gpu_names[g]),
                    roles[g],
                    horizontal=True,
                    text=[sci(equiv[i], 3) for i in idx],
                )
            )
    fig = figure(
        traces,
        layout(
            axis(W["a100_figure.axis"], log=True),
            axis("", categoryorder="array", categoryarray=labels),
            height=320,
            margin=(260, 16, 16, 48),
        ),
    )
    return fig, "; ".join(f"{r['model']} {sci(x, 3)}" for r, x in zip(reports, equiv)) + W["a100_figure"]
