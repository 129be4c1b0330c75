"""Section 3.5 强化学习(RL): 图 3-24、组内相对优势、损失的平均方式、例题 3-4."""

from __future__ import annotations

from typing import Literal

from ...calculators import rl
from ...cards import Block, Figure, Note, Params, View, card, choice, number_list, slider, toggle
from ...charts import training as charts
from ...charts.theme import COLORS
from ...outputs import out, outputs
from ...trace import given
from ...words import words_for
from ..shared.ch3_train import formatter, qwen3_8b

W = words_for(__name__)

ROLES = [  # id, name, what it does, waits for, waited for by
    (
        "rollout",
        W["roles"],
        W["roles_2"],
        W["roles_3"],
        W["roles_4"],
    ),
    (
        "feedback",
        W["roles_5"],
        W["roles_6"],
        W["roles_7"],
        W["roles_8"],
    ),
    (
        "reward",
        W["roles_9"],
        W["roles_10"],
        W["roles_7"],
        W["roles_11"],
    ),
    ("trainer", W["roles_12"], W["roles_13"], W["roles_14"], W["roles_15"]),
    ("sync", W["roles_15"], W["roles_16"], W["roles_17"], W["roles_18"]),
    (
        "teacher",
        W["roles_19"],
        W["roles_20"],
        W["roles_21"],
        W["roles_22"],
    ),
]


class LoopP(Params):
    mode: Literal["sync", "async"] = choice(
        "sync", {"sync": W["loopp.mode.sync"], "async": W["loopp.mode.async"]}, label=W["loopp.mode.label"]
    )
    teacher: bool = toggle(False, label=W["loopp.teacher.label"])


@card(
    "fig-3-24",
    title=W["fig_3_24.title"],
    label=W["fig_3_24.label"],
    section="3.5",
    kind="diagram",
    params=LoopP,
    outputs=outputs(
        n_roles=out(W["fig_3_24.n_roles"], unit=W["fig_3_24.unit"]),
        overlap_allowed=out(W["fig_3_24.overlap_allowed"], text={True: W["fig_3_24.t"], False: W["fig_3_24.t_2"]}),
    ),
    lead=W["fig_3_24.lead"],
)
def fig_3_24(p: LoopP) -> View:
    roles = [x for x in ROLES if p.teacher or x[0] != "teacher"]
    o = {
        "n_roles": given(len(roles), "n", W["fig_3_24.unit"], W["fig_3_24.n_roles_2"]),
        "overlap_allowed": p.mode == "async",
    }
    notes = [
        Note(W["fig_3_24.note"]),
        Note(W["fig_3_24.note_2"]),
    ] + ([Note(W["fig_3_24.note_3"], "illustrative")] if p.mode == "async" else [])
    return View(
        o,
        headline=W.f(
            "fig_3_24.headline_joined",
            a=W["fig_3_24.headline"] if p.mode == "sync" else W["fig_3_24.headline_2"],
            b=W["fig_3_24.headline_3"],
        ),
        notes=notes,
        blocks=[Block("diagrams/fig-3-24.html", {"roles": roles, "mode": p.mode, "teacher": p.teacher, "C": COLORS})],
    )


class GroupP(Params):
    rewards: list[int] = number_list(
        [1, 0, 1, 0], ge=0, le=1, step=1, label=W["groupp.rewards.label"], min_len=4, max_len=4, illustrative=True
    )


GROUP_OUT = outputs(
    mean_reward=out(W["group_out.mean_reward"], unit="", digits=2, sym="r̄"),
    **{f"advantage_{i}": out(W.f("group_out.kw", i=i), unit="", digits=2, sym=f"A_{i}") for i in range(1, 5)},
    all_zero=out(W["group_out.all_zero"], text={True: W["group_out.t"], False: W["group_out.t_2"]}),
    sum_abs_advantage=out(W["group_out.sum_abs_advantage"], unit="", digits=2),
)


@card(
    "group-advantage",
    title=W["group_advantage.title"],
    section="3.5",
    kind="calculator",
    params=GroupP,
    outputs=GROUP_OUT,
    lead=W["group_advantage.lead"],
)
def group_advantage(p: GroupP) -> View:
    rw = list(p.rewards)
    o = rl.group_outputs([given(r, f"r_{i}", "", W.f("group_advantage.given", i=i)) for i, r in enumerate(rw, 1)])
    f = formatter(GROUP_OUT, o)
    adv = [o[f"advantage_{i}"] for i in range(1, 5)]
    tiles = [
        {
            "i": i + 1,
            "reward": r,
            "adv": a,
            "adv_text": ("+" if a > 0 else "") + f(f"advantage_{i + 1}", "n") if a else "0",
            "href": "/cards/group-advantage?" + "&".join(f"rewards={1 - x if j == i else x}" for j, x in enumerate(rw)),
            "sel": "rewards",
            "index": i,
            "value": 1 - r,
        }
        for i, (r, a) in enumerate(zip(rw, adv))
    ]
    return View(
        o,
        headline=W.f(
            "group_advantage.headline_joined",
            a=W["group_advantage.headline"],
            rewards=" · ".join(str(x) for x in rw),
            b=W["group_advantage.headline_2"],
        ),
        blocks=[Block("diagrams/group-advantage.html", {"tiles": tiles, "all_zero": o["all_zero"], "C": COLORS})],
        notes=[
            Note(W["group_advantage.notes"], "formula"),
            Note(W["group_advantage.notes_2"]),
            Note(W["group_advantage.notes_3"], "illustrative"),
        ],
    )


class LossP(Params):
    tokens_mb1: int = slider(
        100, ge=1, le=10000, step=1, label=W["lossp.tokens_mb1.label"], illustrative=True, sym="n_1"
    )
    tokens_mb2: int = slider(
        300, ge=1, le=10000, step=1, label=W["lossp.tokens_mb2.label"], illustrative=True, sym="n_2"
    )


LOSS_OUT = outputs(
    weight_global=out(W["loss_out.weight_global"], unit="", sig=3, sym="w"),
    weight_mb1_mean_of_means=out(W["loss_out.weight_mb1_mean_of_means"], unit="", sig=3, sym="w_1"),
    weight_mb2_mean_of_means=out(W["loss_out.weight_mb2_mean_of_means"], unit="", sig=3, sym="w_2"),
    mb1_overweight=out(W["loss_out.mb1_overweight"], unit="×", sig=3, em=True),
)


@card(
    "loss-average",
    title=W["loss_average.title"],
    section="3.5",
    kind="calculator",
    params=LossP,
    outputs=LOSS_OUT,
    lead=W["loss_average.lead"],
)
def loss_average(p: LossP) -> View:
    o = rl.loss_outputs(p.tokens_mb1, p.tokens_mb2)
    fig = charts.stacked(
        [W["loss_average.stacked"], W["loss_average.stacked_2"]],
        [
            (W["loss_average.stacked_3"], [o["weight_global"]] * 2, "compute"),
            (W["loss_average.stacked_4"], [o["weight_mb1_mean_of_means"], o["weight_mb2_mean_of_means"]], "backlog"),
        ],
        W["loss_average.stacked_5"],
        height=280,
        barmode="group",
    )
    return View(
        o,
        headline="n₁ = [[tokens_mb1|n]] · n₂ = [[tokens_mb2|n]]",
        figures=[
            Figure(
                fig,
                W["loss_average.figures"],
                W["loss_average.figures_2"],
                illustrative=True,
                draws=frozenset({"weight_global", "weight_mb1_mean_of_means", "weight_mb2_mean_of_means"}),
            )
        ],
        notes=[
            Note(
                W["loss_average.notes"],
                "formula",
            ),
            Note(W["loss_average.notes_2"], "illustrative"),
        ],
    )


PRESETS = [("①", 1.0, "a = 1"), ("②", 0.5, "a = 1/2"), ("③", 0.25, "a = 1/4")]


class CycleP(Params):
    prompt_tokens: int = slider(1024, ge=64, le=8192, step=64, label=W["cyclep.prompt_tokens.label"], unit="token")
    gen_tokens: int = slider(256, ge=2, le=4096, step=1, label=W["cyclep.gen_tokens.label"], unit="token")
    n_keep: int = slider(16, ge=1, le=256, step=1, label=W["cyclep.n_keep.label"], unit=W["cyclep.n_keep.unit"])
    keep_ratio: float = slider(1, ge=0.05, le=1, step=0.01, label=W["cyclep.keep_ratio.label"])
    n_generate: int | None = slider(
        None,
        ge=1,
        le=1024,
        step=1,
        label=W["cyclep.n_generate.label"],
        unit=W["cyclep.n_keep.unit"],
        placeholder="⌈n_keep / a⌉",
    )
    teacher: bool = toggle(False, label=W["cyclep.teacher.label"])
    replicas: int = slider(4, ge=1, le=16, step=1, label=W["cyclep.replicas.label"], sym="R")


CYCLE_OUT = outputs(
    seq_tokens=out(W["cycle_out.seq_tokens"], unit="token"),
    decode_steps_per_response=out(W["cycle_out.decode_steps_per_response"], unit=W["cycle_out.unit"]),
    update_input_tokens=out(W["cycle_out.update_input_tokens"], unit="token"),
    update_supervised_tokens=out(W["cycle_out.update_supervised_tokens"], unit="token"),
    f_g_tflop=out(W["cycle_out.f_g_tflop"], digits=3, sym="f_g"),
    f_r_tflop=out(W["cycle_out.f_r_tflop"], digits=3, sym="f_r"),
    fg_plus_fr_tflop=out(W["cycle_out.fg_plus_fr_tflop"], digits=3, approx=True, em=True),
    f_u_tflop=out(W["cycle_out.f_u_tflop"], digits=3, em=True, sym="F_u"),
    n_generate=out(W["cycle_out.n_generate"], unit=W["cyclep.n_keep.unit"], sym="n"),
    teacher_tflop=out(W["cycle_out.teacher_tflop"], digits=3),
    f_cycle_tflop=out(W["cycle_out.f_cycle_tflop"], digits=2, em=True, sym="F_{cycle}"),
    weight_sync_gb=out(W["cycle_out.weight_sync_gb"], digits=2),
    cycle_slope_tflop=out(W["cycle_out.cycle_slope_tflop"], digits=3, tile=False),
)


@card(
    "eg-3-4",
    title=W["eg_3_4.title"],
    label=W["eg_3_4.label"],
    section="3.5",
    kind="calculator",
    params=CycleP,
    badges=((W["eg_3_4.badges"], "ex-3-7"),),
    outputs=CYCLE_OUT,
    lead=W["eg_3_4.lead"],
)
def eg_3_4(p: CycleP) -> View:
    n = p.n_generate if p.n_generate is not None else rl.n_generate(p.n_keep, p.keep_ratio)
    c = rl.rl_cycle(qwen3_8b(), p.prompt_tokens, p.gen_tokens, p.n_keep, n, teacher=p.teacher, replicas=p.replicas)
    o = rl.cycle_outputs(c)
    o["cycle_slope_tflop"] = (c.f_g + c.f_r * (2 if p.teacher else 1)) / 1e12
    presets = [(k, rl.n_generate(p.n_keep, a)) for k, a, _ in PRESETS]
    bars = presets + [(W["eg_3_4"], n)] * (n not in [m for _, m in presets])
    cats, ns = [k + f" n={m}" for k, m in bars], [m for _, m in bars]  # k: words, said in the edition served
    series = [
        (W["eg_3_4_2"], [m * o["f_g_tflop"] for m in ns], "decode"),
        (W["eg_3_4_3"], [m * o["f_r_tflop"] for m in ns], "tools"),
        (W["eg_3_4_4"], [o["f_u_tflop"]] * len(ns), "compute"),
    ]
    series += [(W["eg_3_4_5"], [m * o["f_r_tflop"] for m in ns], "state")] if p.teacher else []
    return View(
        o,
        headline=W["eg_3_4.headline"],
        figures=[
            Figure(
                charts.cycle_figure(o["cycle_slope_tflop"], o["f_u_tflop"], presets, n, o["f_cycle_tflop"]),
                W["eg_3_4.figures"],
                W["eg_3_4.figures_2"],
                draws=frozenset(
                    {
                        "decode_steps_per_response",
                        "f_cycle_tflop",
                        "f_u_tflop",
                        "n_generate",
                        "update_supervised_tokens",
                    }
                ),
            ),
            Figure(
                charts.stacked(cats, series, "TFLOP"),
                W["eg_3_4.figures_3"],
                W["eg_3_4.figures_4"],
                draws=frozenset(
                    {
                        "decode_steps_per_response",
                        "f_g_tflop",
                        "f_r_tflop",
                        "f_u_tflop",
                        "n_generate",
                        "update_supervised_tokens",
                    }
                ),
            ),
        ],
        blocks=[
            Block(
                "diagrams/eg-3-4.html",
                {"presets": [(k, a, t, m) for (k, a, t), (_, m) in zip(PRESETS, presets)], "current": p.keep_ratio},
            )
        ],
        notes=[
            Note(
                W["eg_3_4.notes"],
                "formula",
            ),
            Note(W["eg_3_4.notes_2"], when="defaults"),
            Note(W["eg_3_4.notes_3"]),
            Note(W["eg_3_4.notes_4"]),
            Note(W["eg_3_4.notes_5"]),
        ],
    )
