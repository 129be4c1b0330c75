"""Section 3.5 强化学习(RL): 图 3-24、组内相对优势、损失的平均方式、例题 3-4."""

from __future__ import annotations

from typing import Literal

from ...calculators import rl
from ...cards import Block, Figure, Note, Params, View, card, choice, number_list, slider, toggle
from ...charts import training as charts
from ...charts.theme import COLORS
from ...outputs import out, outputs
from ...trace import given
from ..shared.ch3_train import formatter, qwen3_8b

ROLES = [  # id, name, what it does, waits for, waited for by
    (
        "rollout",
        "策略生成(rollout)",
        "当前策略对一批提示生成回答",
        "权重同步送来的新权重(同步方案)",
        "反馈:没有回答就没东西可评",
    ),
    (
        "feedback",
        "反馈:规则 / 测试 / 工具环境",
        "可验证奖励按规则或测试打分(DeepSeek-R1);要操作的任务跑工具和环境",
        "生成完成的回答",
        "训练器:要拿到奖励才能算优势",
    ),
    (
        "reward",
        "奖励模型 / 参考模型",
        "奖励由另一个模型给时要再做一次推理;参考模型给 KL 用的概率",
        "生成完成的回答",
        "训练器",
    ),
    ("trainer", "训练器(更新)", "用保留样本做前反向并更新权重", "反馈和参考模型的结果", "权重同步"),
    ("sync", "权重同步", "把更新后的 BF16 权重发给生成副本", "训练器完成更新", "下一轮生成(同步方案)"),
    (
        "teacher",
        "教师模型(可选)",
        "多教师同策略蒸馏(DeepSeek V4-Flash):学生生成,教师在这些位置给出概率分布",
        "学生生成的轨迹",
        "训练器:要教师分布才能算蒸馏损失",
    ),
]


class LoopP(Params):
    mode: Literal["sync", "async"] = choice(
        "sync", {"sync": "同步:等新权重就绪再生成", "async": "异步:阶段可重叠"}, label="方案"
    )
    teacher: bool = toggle(False, label="加教师模型")


@card(
    "fig-3-24",
    title="先找数据的生产者和消费者",
    label="图 3-24",
    section="3.5",
    kind="diagram",
    params=LoopP,
    outputs=outputs(
        n_roles=out("角色数", unit="个"),
        overlap_allowed=out("阶段可重叠?", text={True: "可以(异步,要处理版本滞后)", False: "不可以(同步,等新权重)"}),
    ),
    lead="RL 把推理和训练接成一个环:生成 → 反馈 → 更新 → 同步 → 再生成。点一个角色,看它等谁、谁在等它。",
)
def fig_3_24(p: LoopP) -> View:
    roles = [x for x in ROLES if p.teacher or x[0] != "teacher"]
    o = {
        "n_roles": given(len(roles), "n", "个", "图 3-24 的角色(加教师模型时多一个)"),
        "overlap_allowed": p.mode == "async",
    }
    notes = [
        Note(
            "某个角色变慢,它后面的角色就得等。加教师模型,每条样本多一次前向,还要多存一份权重(见例题 3-4 的教师开关)。"
        ),
        Note(
            "同步方案:新权重就绪后才生成下一批。异步方案:下一批生成和本批更新重叠,样本可能由旧版本权重生成,要处理版本与滞后(第 10 章)。"
        ),
    ] + ([Note("箭头上的版本号 v_k、v_{k−1} 和滞后 1 个版本只是示意。", "illustrative")] if p.mode == "async" else [])
    return View(
        o,
        headline=("同步" if p.mode == "sync" else "异步") + " · [[n_roles|n]] 个角色",
        notes=notes,
        blocks=[Block("diagrams/fig-3-24.html", {"roles": roles, "mode": p.mode, "teacher": p.teacher, "C": COLORS})],
    )


class GroupP(Params):
    rewards: list[int] = number_list(
        [1, 0, 1, 0], ge=0, le=1, step=1, label="四条回答的奖励(1 对 / 0 错)", min_len=4, max_len=4, illustrative=True
    )


GROUP_OUT = outputs(
    mean_reward=out("组内平均奖励", unit="", digits=2, sym="r̄"),
    **{f"advantage_{i}": out(f"回答 {i} 的优势", unit="", digits=2, sym=f"A_{i}") for i in range(1, 5)},
    all_zero=out("学习信号归零?", text={True: "是:这组什么也没学到", False: "否:对的被推高,错的被压低"}),
    sum_abs_advantage=out("信号大小 Σ|A_i|", unit="", digits=2),
)


@card(
    "group-advantage",
    title="相同奖励,学习信号归零 · 组内相对优势",
    section="3.5",
    kind="calculator",
    params=GroupP,
    outputs=GROUP_OUT,
    lead="同一提示的四条回答,点一条切换对错。优势 = 本条奖励 − 组内平均;四条全对或全错时,优势全为零。",
)
def group_advantage(p: GroupP) -> View:
    rw = list(p.rewards)
    o = rl.group_outputs([given(r, f"r_{i}", "", f"输入:回答 {i} 的奖励") for i, r in enumerate(rw, 1)])
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
        headline="奖励 " + " · ".join(str(x) for x in rw) + " · 组内平均 [[mean_reward|c]]",
        blocks=[Block("diagrams/group-advantage.html", {"tiles": tiles, "all_zero": o["all_zero"], "C": COLORS})],
        notes=[
            Note("$A_i = r_i - \\frac{1}{G}\\sum_j r_j$;策略梯度按 $A_i$ 加权,$A_i$ 全为 0 时梯度为 0。", "formula"),
            Note(
                "全对或全错时,生成、评分、更新都照样花了算力,这组却没给出“哪条更好”的信号。GRPO 还会再除以组内标准差:这改变信号大小,不改变全为零的情形。"
            ),
            Note("默认的对错组合(1, 0, 1, 0)是示意;点击回答切换。", "illustrative"),
        ],
    )


class LossP(Params):
    tokens_mb1: int = slider(
        100, ge=1, le=10000, step=1, label="micro-batch 1 的有效 token n₁", illustrative=True, sym="n_1"
    )
    tokens_mb2: int = slider(
        300, ge=1, le=10000, step=1, label="micro-batch 2 的有效 token n₂", illustrative=True, sym="n_2"
    )


LOSS_OUT = outputs(
    weight_global=out("整批平均:每 token", unit="", sig=3, sym="w"),
    weight_mb1_mean_of_means=out("均值的均值:MB1 每 token", unit="", sig=3, sym="w_1"),
    weight_mb2_mean_of_means=out("均值的均值:MB2 每 token", unit="", sig=3, sym="w_2"),
    mb1_overweight=out("MB1 的 token 被放大", unit="×", sig=3, em=True),
)


@card(
    "loss-average",
    title="损失的平均方式",
    section="3.5",
    kind="calculator",
    params=LossP,
    outputs=LOSS_OUT,
    lead="两个 micro-batch 的有效 token 数不同。正确做法是对整个 batch 的有效 token 求平均;先各自平均再平均,少的那个里每个 token 权重更大。",
)
def loss_average(p: LossP) -> View:
    o = rl.loss_outputs(p.tokens_mb1, p.tokens_mb2)
    fig = charts.stacked(
        ["MB1 的每个 token", "MB2 的每个 token"],
        [
            ("整个 batch 求平均(正确)", [o["weight_global"]] * 2, "compute"),
            ("先各自平均再平均", [o["weight_mb1_mean_of_means"], o["weight_mb2_mean_of_means"]], "backlog"),
        ],
        "每 token 权重",
        height=280,
        barmode="group",
    )
    return View(
        o,
        headline="n₁ = [[tokens_mb1|n]] · n₂ = [[tokens_mb2|n]]",
        figures=[
            Figure(
                fig,
                "两种平均方式下的每 token 权重",
                "整批平均每 token [[weight_global|c]];先各自平均时 MB1 "
                "[[weight_mb1_mean_of_means|c]]、MB2 [[weight_mb2_mean_of_means|c]]。",
                illustrative=True,
            )
        ],
        notes=[
            Note(
                "整批:每个 token 权重 $1/(n_1+n_2)$;先各自平均再平均:MB$_i$ 的 token 权重 $1/(2n_i)$。累计梯度时分母要用整个 batch 的有效 token 总数。",
                "formula",
            ),
            Note("两个 micro-batch 的 token 数是示意值。", "illustrative"),
        ],
    )


PRESETS = [("①", 1.0, "a = 1"), ("②", 0.5, "a = 1/2"), ("③", 0.25, "a = 1/4")]


class CycleP(Params):
    prompt_tokens: int = slider(1024, ge=64, le=8192, step=64, label="提示长度 P", unit="token")
    gen_tokens: int = slider(256, ge=2, le=4096, step=1, label="生成长度 G", unit="token")
    n_keep: int = slider(16, ge=1, le=256, step=1, label="每次更新保留样本 n_keep", unit="条")
    keep_ratio: float = slider(1, ge=0.05, le=1, step=0.01, label="保留比例 a(预设 ① 1 · ② 1/2 · ③ 1/4)")
    n_generate: int | None = slider(
        None, ge=1, le=1024, step=1, label="生成条数 n(覆盖)", unit="条", placeholder="⌈n_keep / a⌉"
    )
    teacher: bool = toggle(False, label="加同结构教师(每条前向一次)")
    replicas: int = slider(4, ge=1, le=16, step=1, label="接收 BF16 权重的副本数", sym="R")


CYCLE_OUT = outputs(
    seq_tokens=out("教师强制输入长 P + G − 1", unit="token"),
    decode_steps_per_response=out("每条 decode 步数 G − 1", unit="步"),
    update_input_tokens=out("每轮更新输入", unit="token"),
    update_supervised_tokens=out("每轮更新监督", unit="token"),
    f_g_tflop=out("生成每条 f_g", digits=3, sym="f_g"),
    f_r_tflop=out("参考前向每条 f_r", digits=3, sym="f_r"),
    fg_plus_fr_tflop=out("每多生成一条 f_g + f_r", digits=3, approx=True, em=True),
    f_u_tflop=out("一次更新 F_u = 3·n_keep·f_r", digits=3, em=True, sym="F_u"),
    n_generate=out("生成条数 n", unit="条", sym="n"),
    teacher_tflop=out("教师前向 n·f_r", digits=3),
    f_cycle_tflop=out("周期总量 F_cycle", digits=2, em=True, sym="F_{cycle}"),
    weight_sync_gb=out("权重同步 副本数 × 2 B × N", digits=2),
    cycle_slope_tflop=out("每多生成一条的周期增量", digits=3, tile=False),
)


@card(
    "eg-3-4",
    title="保留比例下降,为保住 16 条更新样本要多算多少",
    label="例题 3-4",
    section="3.5",
    kind="calculator",
    params=CycleP,
    badges=(("练习 3-7", "ex-3-7"),),
    outputs=CYCLE_OUT,
    lead="Qwen3-8B,提示 1024、生成 256 token,等长、不提前停、不共享前缀。保留比例 a 下降时,要生成约 16/a 条才能凑够 16 条更新样本。",
)
def eg_3_4(p: CycleP) -> View:
    n = p.n_generate if p.n_generate is not None else rl.n_generate(p.n_keep, p.keep_ratio)
    c = rl.rl_cycle(qwen3_8b(), p.prompt_tokens, p.gen_tokens, p.n_keep, n, teacher=p.teacher, replicas=p.replicas)
    o = rl.cycle_outputs(c)
    o["cycle_slope_tflop"] = (c.f_g + c.f_r * (2 if p.teacher else 1)) / 1e12
    presets = [(k, rl.n_generate(p.n_keep, a)) for k, a, _ in PRESETS]
    bars = presets + [("当前", n)] * (n not in [m for _, m in presets])
    cats, ns = [f"{k} n={m}" for k, m in bars], [m for _, m in bars]
    series = [
        ("生成 n·f_g", [m * o["f_g_tflop"] for m in ns], "decode"),
        ("参考 / 评分 n·f_r", [m * o["f_r_tflop"] for m in ns], "tools"),
        ("更新 F_u", [o["f_u_tflop"]] * len(ns), "compute"),
    ]
    series += [("教师 n·f_r", [m * o["f_r_tflop"] for m in ns], "state")] if p.teacher else []
    return View(
        o,
        headline="P = [[prompt_tokens|n]] · G = [[gen_tokens|n]] · 保留 [[n_keep|n]] 条 · a = [[keep_ratio|n]] · 生成 [[n_generate|n]] 条",
        figures=[
            Figure(
                charts.cycle_figure(o["cycle_slope_tflop"], o["f_u_tflop"], presets, n, o["f_cycle_tflop"]),
                "F_cycle 随生成条数线性增长",
                "斜率 [[cycle_slope_tflop|n]] TFLOP/条,截距 F_u = [[f_u_tflop]];n = [[n_generate|n]] 时 [[f_cycle_tflop]]。",
            ),
            Figure(
                charts.stacked(cats, series, "TFLOP"),
                "各预设的构成",
                "生成、参考、更新(与教师)堆叠;保留比例越低,生成与参考越占大头。",
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
                "$n_{generate} \\approx \\lceil n_{keep}/a \\rceil$,$F_{cycle}(n) = n(f_g + f_r) + F_u$,$F_u = 3\\,n_{keep} f_r$。",
                "formula",
            ),
            Note(
                "词表投影行数的假设(正是它让 38.411 与 952.416 精确出现):生成只对产生输出的 256 行做词表投影(prefill 的最后一行 + 255 个 decode 行);参考前向和训练用教师强制,对全部 1279 行都做词表投影,"
                "即使损失只用其中 256 行。两边都按全部行算会得到 39.684,都按 256 行算得 37.137。"
            ),
            Note(
                "其余假设:回答等长、不提前停、不共享前缀;每条生成 = 1 次 prefill + 255 次 decode,第 j 步看到 P + j + 1 个 token,所以生成与教师强制的因果配对数相同(818,560)。更新只计前反向,不计优化器。"
            ),
            Note("生成逐 token 推进,评分和训练一次处理许多 token:矩阵形状不同,估时间时要分开算,不能只看 FLOPs 合计。"),
            Note(
                "预设编号 ①②③ 是本页的安排:书中只说练习 3-7 用“预设 ③”;这里让 ② 为 32 条、③ 为 64 条,正是练习 3-7 的两个起点。"
            ),
        ],
    )
