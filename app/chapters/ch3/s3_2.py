"""Section 3.2 多轮交互与 Agent 任务: prefix reuse, cost per successful task, the agent trace,
Amdahl, tool dependencies and branch state, and the CED layer split."""

from __future__ import annotations

from typing import Any, Literal

from ...calculators import agent, amdahl, cost, dag, prefix
from ...calculators.units import KIB
from ...cards import Block, Figure, Note, Params, Table, View, card, choice, fixed, slider
from ...charts import agent as ch
from ...outputs import out, outputs
from ...trace import given
from ..shared import ch3_load as ld
from ..shared.ch3_load import SuccessParams, quiet, say


def kv_param() -> Any:
    return fixed(ld.KV_KIB, "每 token KV c_KV(Qwen3-8B,固定)", "KiB", sym="c_{KV}")


# === 3.2.1 prefix-edit and prefix-cache-4round =====================================================

EDITS = {"append": "末尾追加", "replace_summary": "摘要替换一段", "template_change": "改工具定义/模板"}


class PrefixEditParams(Params):
    context_tokens: int = slider(2000, ge=500, le=32000, step=100, label="已有上下文", unit="token", sym="n")
    edit: Literal["append", "replace_summary", "template_change"] = choice("append", EDITS, label="改动方式")
    append_tokens: int = slider(200, ge=0, le=4000, step=10, label="追加长度", unit="token", illustrative=True, sym="a")
    replace_start: int = slider(
        600, ge=0, le=32000, step=10, label="替换起点", unit="token 位置", illustrative=True, sym="t_0"
    )
    replace_end: int = slider(
        1400, ge=0, le=32000, step=10, label="替换终点(不含)", unit="token 位置", illustrative=True, sym="t_1"
    )
    summary_tokens: int = slider(
        150, ge=0, le=2000, step=10, label="摘要长度", unit="token", illustrative=True, sym="s"
    )
    template_pos: int = slider(
        40, ge=0, le=32000, step=10, label="模板/工具块起点", unit="token 位置", illustrative=True, sym="t_0"
    )
    template_delta_tokens: int = slider(
        0, ge=-500, le=500, step=10, label="模板长度变化", unit="token", illustrative=True, sym="Δ"
    )
    block_tokens: Literal["1", "16", "32"] = choice(
        "1", {"1": "1(逐 token)", "16": "16(vLLM)", "32": "32"}, label="缓存块大小 b", illustrative=True
    )
    kv_kib_per_token: float = kv_param()


PREFIX_EDIT = outputs(
    reused_tokens=out("可复用前缀 K", digits=0, em=True, sym="K"),
    recompute_tokens=out("需重算 P = 新长度 − K", digits=0, em=True, sym="P"),
    new_context_tokens=out("改后上下文长度", digits=0, sym="I"),
    reuse_pct=out("复用比例 K/新长度", digits=1),
    recompute_kv_mib=out("要重建的 KV", digits=1),
    resident_kv_mib=out("改后驻留 KV", digits=1),
)


@card(
    "prefix-edit",
    title="改了多少不要紧,改在哪儿才要紧",
    section="3.2",
    kind="diagram",
    params=PrefixEditParams,
    outputs=PREFIX_EDIT,
    lead="2,000 token 的上下文,改动落在末尾、中段还是开头?第一个变动的 token 之前的前缀能复用,之后的都要重算。点条形图可以挪改动位置。",
)
def prefix_edit(p: PrefixEditParams) -> View:
    n = p.context_tokens
    e = (
        prefix.edit_append(n, p.append_tokens)
        if p.edit == "append"
        else prefix.edit_template(n, p.template_pos, p.template_delta_tokens)
        if p.edit == "template_change"
        else prefix.edit_replace(n, p.replace_start, p.replace_end, p.summary_tokens)
    )
    o = prefix.edit_outputs(e, n, int(p.block_tokens), p.kv_kib_per_token * KIB)
    start = max(0, min(p.replace_start, n))
    clickable = {"replace_summary": "replace_start", "template_change": "template_pos"}.get(p.edit)
    bars = ch.edit_bars(
        p.edit,
        n,
        e.new_length,
        o["reused_tokens"],
        e.first_change,
        (start, max(start, min(p.replace_end, n))),
        clickable,
    )
    notes = [
        Note(
            "$P_i = I_i - K_i$,$S_i = K_i$:复用只省掉前缀的投影/FFN 重算;注意力仍要让新查询看完整前缀,之后的 decode 也要读全部上下文。",
            "formula",
        ),
        Note(
            "除 2,000 token 的已有上下文外,改动位置与长度都是示意值。追加保住前缀,但陈旧内容还在上下文里;摘要缩短上下文,却让替换点之后全部重建;"
            "模板一变,几乎从开头就失配。缓存如何重建见第 8 章。",
            "illustrative",
        ),
    ]
    if int(p.block_tokens) > 1:
        notes.append(
            Note(f"缓存按 {p.block_tokens} token 一块保存,K 向下取整到整块:第一个变动 token 所在的块也要重算。")
        )
    return View(
        o,
        headline="[[edit_label]] · 第一个变动 token 在位置 [[first]]",
        notes=notes,
        ctx={"edit_label": EDITS[p.edit], "first": min(e.first_change, n)},
        blocks=[
            Block(
                "diagrams/prefix-edit.html",
                {**bars, "edits": EDITS, "edit": p.edit, "n": n, "new_len": e.new_length, "k": o["reused_tokens"]},
            )
        ],
    )


ROUNDS = [(700, 0, False), (1443, 1392, True), (1480, 1440, False), (1674, 1648, False)]  # (I_i, K_i, from the book?)
# Totals and round 2 are the book's recomputed values; rounds 1, 3, 4 are this page's 示意 split (whole 16-token hit blocks).


class FourRoundParams(Params):
    round_index: int = slider(2, ge=1, le=4, step=1, label="选中第几轮", sym="i")
    kv_kib_per_token: float = kv_param()


FOUR = outputs(
    total_input_tokens=out("四轮累计输入 ΣI", sym="ΣI"),
    total_hit_tokens=out("命中 ΣK", sym="ΣK"),
    total_miss_tokens=out("未命中 ΣP", sym="ΣP"),
    total_hit_pct=out("累计命中率", digits=1),
    input_tokens=out("第 [[round_index|n]] 轮输入 I", ill="ill", sym="I"),
    hit_tokens=out("命中 K = 恢复 S", ill="ill", sym="K"),
    new_tokens=out("新处理 P = I − K", ill="ill", em=True, sym="P"),
    hit_pct=out("本轮命中率", digits=1, ill="ill"),
    attn_pairs_pct=out("注意力配对:复用/不复用", digits=1, ill="ill"),
    resident_kv_mib=out("本轮驻留 KV", digits=1, ill="ill"),
    recompute_kv_mib=out("本轮新建 KV", digits=1, ill="ill"),
    restored_tokens=quiet("恢复 S", sym="S"),
    proj_rows_cached=quiet("投影/FFN 行(复用)", unit="行"),
    proj_rows_full=quiet("投影/FFN 行(不复用)", unit="行"),
    attn_pairs_cached=quiet("注意力配对(复用)", unit="对"),
    attn_pairs_full=quiet("注意力配对(不复用)", unit="对"),
)


@card(
    "prefix-cache-4round",
    title="四轮代码修复任务的缓存收益",
    section="3.2",
    kind="chart",
    params=FourRoundParams,
    outputs=FOUR,
    lead="思考模式开启的那条真实轨迹,按每轮输入复算缓存命中:命中的前缀不用重算投影和 FFN,但注意力和之后的 decode 仍要访问整个上下文。",
)
def prefix_cache_4round(p: FourRoundParams) -> View:
    src = ["示意" if not bk else "书中复算" for *_, bk in ROUNDS]
    inputs, hits = (
        [given(r[j], f"{sym}_{i}", "token", s + "拆分" * (s == "示意")) for i, (r, s) in enumerate(zip(ROUNDS, src), 1)]
        for j, sym in ((0, "I"), (1, "K"))
    )
    o = prefix.round_outputs(inputs, hits, p.round_index - 1, p.kv_kib_per_token * KIB)
    misses = [a - b for a, b in zip(inputs, hits)]
    xs = [f"第 {n} 轮" + ("" if bk else "(示意)") for n, (*_, bk) in enumerate(ROUNDS, 1)]
    ill = not ROUNDS[p.round_index - 1][2]
    return View(
        o,
        headline="四轮累计:输入 [[total_input_tokens|n]] · 命中 [[total_hit_tokens|n]] · 未命中 [[total_miss_tokens]]",
        ctx={"ill": ill},
        figures=[
            Figure(
                ch.hit_bars(xs, hits, misses, inputs, p.round_index - 1),
                "四轮输入:命中与未命中",
                "四轮共输入 [[total_input_tokens]],命中 [[total_hit_tokens|n]],未命中 [[total_miss_tokens|n]];第 2 轮 1,443 中命中 1,392,"
                "只新处理 51 个。第 1、3、4 轮的拆分为示意。",
                illustrative=True,
            ),
            Figure(
                ch.reuse_savings(
                    (o["proj_rows_cached"], o["proj_rows_full"]), (o["attn_pairs_cached"], o["attn_pairs_full"])
                ),
                f"第 {p.round_index} 轮:复用省下什么",
                "投影/FFN 只算 [[proj_rows_cached|n]] 行(不复用要 [[proj_rows_full|n]] 行);"
                "注意力配对 [[attn_pairs_cached|n]] 对,全量为 [[attn_pairs_full|n]] 对([[attn_pairs_pct]])。",
                illustrative=ill,
            ),
        ],
        tables=[
            Table(
                ["轮次", "输入 I", "命中 K", "新处理 P", "来源"],
                [[f"第 {n} 轮", a, b, a - b, s] for n, ((a, b, _), s) in enumerate(zip(ROUNDS, src), 1)]
                + [["合计", o["total_input_tokens"], o["total_hit_tokens"], o["total_miss_tokens"], "书中复算"]],
                illustrative_cells={(r, c) for r in (0, 2, 3) for c in (1, 2, 3)},
            )
        ],
        notes=[
            Note("注意力配对(因果):复用时 $P\\cdot K + P(P+1)/2$,不复用时 $I(I+1)/2$。", "formula"),
            Note(
                "书中只给出四轮合计与第 2 轮;第 1、3、4 轮是本页按合计凑出的示意拆分(命中为 16 token 整块,输入逐轮增长),不是实测。",
                "illustrative",
            ),
        ],
    )


# === 3.2.2 fig-3-9, price-cut-paradox, math-experiment-note ========================================


class SuccessCostParams(SuccessParams):
    attempts: int = fixed(100, "每种方法尝试次数(书中固定)", "次", sym="n")


FIG39 = outputs(
    total_cost_old=out("旧方法 100 次总花费", unit="单位", sig=4),
    total_cost_new=out("新方法 100 次总花费", unit="单位", sig=4),
    successes_old=out("旧方法成功数", unit="个"),
    successes_new=out("新方法成功数", unit="个"),
    success_cost_old=out("旧方法 C_success = c₁/p₁[[none_1]]", unit="单位", digits=2, em=True, sym="C_1"),
    success_cost_new=out("新方法 C_success = c₂/p₂[[none_2]]", unit="单位", digits=2, em=True, sym="C_2"),
    success_ratio=out("成功率之比 p₂/p₁", unit="×", digits=2),
    cost_ratio=out("单次成本之比 c₂/c₁", unit="×", digits=2),
    new_cheaper=out("新方法更省?", text={True: "更省", False: "不更省", None: "—"}),
    breakeven_success_new_pct=out("新方法持平所需成功率 p₁c₂/c₁[[be_note]]", digits=1, sym="p_2^*"),
)


@card(
    "fig-3-9",
    title="各尝试 100 次:失败也进分子",
    label="图 3-9",
    section="3.2",
    kind="calculator",
    params=SuccessCostParams,
    outputs=FIG39,
    badges=(("练习 3-3", "ex-3-3"),),
    lead="两种方法各试 100 次。每一次尝试都花钱,失败的也算;只有成功的任务进分母。新方法更贵时,成功率要高出多少才划算?",
)
def fig_3_9(p: SuccessCostParams) -> View:
    o = cost.success_outputs(p.cost_old, p.success_old_pct / 100, p.cost_new, p.success_new_pct / 100, p.attempts)
    be = o["breakeven_success_new_pct"]
    reach = be is not None and be <= 100 + 1e-9
    return View(
        o,
        headline="旧:[[cost_old]] × [[success_old_pct]] · 新:[[cost_new]] × [[success_new_pct]]",
        ctx={
            "be_note": "(p₁ = 0,无定义)" if be is None else "" if reach else "(无法持平,需 > 100%)",
            **{
                f"none_{i}": "" if o[f"success_cost_{k}"] is not None else "(无成功:只能报告花费与失败)"
                for i, k in ((1, "old"), (2, "new"))
            },
            "be_sum": say(FIG39, o, " [[breakeven_success_new_pct]]。") if reach else ":当前设定下不可达。",
        },
        figures=[
            Figure(
                ch.dot_grids((o["successes_old"], o["successes_new"]), (o["total_cost_old"], o["total_cost_new"])),
                "图 3-9 · 各尝试 100 次",
                "旧方法 [[successes_old|n]] 个成功、总花费 [[total_cost_old|n,c]];新方法 [[successes_new|n]] 个成功、总花费 [[total_cost_new|n,c]]。"
                "每个成功任务:旧 [[success_cost_old|n]],新 [[success_cost_new|n]]。",
            ),
            Figure(
                ch.success_curve(p.cost_new, p.success_new_pct, o["success_cost_new"], o["success_cost_old"], be),
                "新方法的成功成本随 p₂ 变化",
                "曲线 c₂/p₂ 与旧方法水平线相交处即持平成功率[[be_sum]]",
            ),
        ],
        notes=[
            Note(
                "$C_{success} = c/p$;新方法更省 $\\Leftrightarrow p_2/p_1 > c_2/c_1$;持平点 $p_2 = p_1 c_2 / c_1$。",
                "formula",
            ),
            Note(
                "分子是所有尝试的花费:失败的生成、工具测试、环境运行都算;分母只数通过检查的任务。“单位”是抽象成本单位。"
            ),
        ],
    )


class PriceCutParams(Params):
    price_ratio: float = slider(0.1, ge=0.01, le=2, step=0.01, label="新/旧 token 单价", unit="×", sym="r_{price}")
    token_ratio: float = slider(20, ge=0.5, le=50, step=0.5, label="新/旧 每次尝试 token 数", unit="×", sym="r_{token}")
    success_old_pct: float = slider(50, ge=1, le=100, step=1, label="旧模型成功率", unit="%", sym="p_{old}")
    success_new_pct: float = slider(80, ge=1, le=100, step=1, label="新模型成功率", unit="%", sym="p_{new}")


PRICE_CUT = outputs(
    attempt_cost_ratio=out("每次尝试成本 新/旧", unit="×", sig=3),
    success_ratio=out("成功率 新/旧", unit="×", sig=3),
    success_cost_ratio=out("每个成功任务成本 新/旧", unit="×", sig=3, em=True, sym="C_{new}/C_{old}"),
)


@card(
    "price-cut-paradox",
    title="单价降到 1/10,成功成本反而涨",
    section="3.2",
    kind="calculator",
    params=PriceCutParams,
    outputs=PRICE_CUT,
    lead="新模型每 token 便宜到 1/10,但每次尝试多想了 20 倍 token,成功率从 50% 升到 80%。只算模型成本,每个成功任务是更便宜还是更贵?",
)
def price_cut_paradox(p: PriceCutParams) -> View:
    o = cost.price_cut_outputs(p.price_ratio, p.token_ratio, p.success_old_pct / 100, p.success_new_pct / 100)
    steps = [
        ("旧模型", 1.0),
        (f"单价 ×{p.price_ratio:g}", p.price_ratio),
        (f"token ×{p.token_ratio:g}", p.token_ratio),
        (f"成功率 ×{p.success_old_pct:g}/{p.success_new_pct:g}", p.success_old_pct / p.success_new_pct),
    ]
    return View(
        o,
        headline="[[price_ratio|n]] × [[token_ratio|n]] × [[p_old]]/[[p_new]] = [[success_cost_ratio|n,c]]",
        ctx={"p_old": f"{p.success_old_pct / 100:g}", "p_new": f"{p.success_new_pct / 100:g}"},
        figures=[
            Figure(
                ch.waterfall(steps),
                "逐项相乘:单价、token 数、成功率",
                "1 × [[price_ratio|n]] × [[token_ratio|n]] × [[success_old_pct|n]]/[[success_new_pct|n]] = [[success_cost_ratio|n,c]];"
                "高于 1 的柱用积压/超限色。",
            )
        ],
        notes=[
            Note(
                "$\\dfrac{C_{new}}{C_{old}} = \\dfrac{\\text{单价}_{new}}{\\text{单价}_{old}} \\times \\dfrac{\\text{token}_{new}}{\\text{token}_{old}}"
                " \\times \\dfrac{p_{old}}{p_{new}}$",
                "formula",
            ),
            Note(
                "只计模型调用成本,并假定重试分布稳定。降价、提质与成功成本上涨可以同时发生;注意 0.5 在分子(旧)、0.8 在分母(新)。"
            ),
        ],
    )


MATH_NOTE = {
    "problems": ("题目数", "道", "n", 4),
    "cap_before_tokens": ("放宽前输出上限", "token", "L_0", 1024),
    "cap_after_tokens": ("放宽后输出上限", "token", "L_1", 4096),
    "rounds": ("尝试轮数", "轮", "r", 2),
    "passed": ("通过评分的最终答案", "份", "k", 0),
}
MATH = outputs(
    **{k: out(lab, unit=u, em=k == "passed", sym=sym) for k, (lab, u, sym, _) in MATH_NOTE.items()},
    cap_ratio=out("上限放宽", unit="×", digits=0),
    success_cost=out("每个成功任务的成本", text=lambda v: "无定义(0 个成功)"),
)


@card(
    "math-experiment-note",
    title="延长生成不等于做对",
    section="3.2",
    kind="table",
    outputs=MATH,
    lead="一次数学题实验:输出上限放宽到 4 倍,两轮尝试后仍没有一份最终答案通过评分。这一批只能报告花了多少、为什么失败。",
)
def math_experiment_note(p: Params) -> View:
    o: dict = {k: given(v, sym, u, "书中实验记录") for k, (_, u, sym, v) in MATH_NOTE.items()}
    o.update(
        cap_ratio=o["cap_after_tokens"] / o["cap_before_tokens"], success_cost=cost.batch_success_cost(1.0, o["passed"])
    )
    rows = [
        [lab, say(MATH, o, t)]
        for lab, t in (
            ("题目", "[[problems|n]] 道数学题,每题采样多份回答"),
            ("输出上限", "[[cap_before_tokens|n]] → [[cap_after_tokens]]"),
            ("尝试", "[[rounds]]"),
            ("通过评分", "[[passed]]"),
        )
    ]
    return View(
        o,
        blocks=[Block("diagrams/math-experiment-note.html", {})],
        tables=[
            Table(
                ["实验记录", "内容"],
                [*rows, ["应报告", "消耗的资源与失败原因,而非成功成本"]],
                title="实验记录(每题采样份数书中未给出,此处不列)",
            ),
            Table(
                ["错误类型", "说明", "该调整什么"],
                [
                    ["格式对,数值错", "输出结构合格,但解题算错", "解题过程 / 生成方式"],
                    ["数值对,缺字段", "答案算对了,却缺少评分要的字段", "输出约束 / 格式要求"],
                ],
                title="检查答案时分开统计两类错误",
            ),
        ],
    )


# === 3.2.3 agent-trace, agent-thinking-table and eg-3-2 (Amdahl) ===================================

TRACE_ROUNDS = ld.AGENT[
    "rounds_illustrative"
]  # (outcome, model s, tools s, control s): 示意, columns sum to the totals
TRACE = outputs(
    total_s=out("任务总时间", digits=3, em=True, sym="T"),
    model_s=out("模型调用合计", digits=3, sym="T_{model}"),
    tools_s=out("工具执行合计", digits=3, sym="T_{tools}"),
    control_s=out("控制与交接(差额)", digits=3, sym="T_{ctl}"),
    rounds=out("模型轮数", unit="轮"),
    model_pct=out("模型占比", digits=1),
    tools_pct=out("工具占比", digits=2),
    **{
        f"round_{k}_s_sum": quiet(f"各轮{lab}之和", unit="s", digits=3, sym=f"Σ{k[0]}")
        for k, lab in (("model", "模型"), ("tool", "工具"), ("control", "交接"))
    },
)


@card(
    "agent-trace",
    title="代码任务轨迹 · 修复区间合并函数(思考模式开启)",
    section="3.2",
    kind="animation",
    outputs=TRACE,
    lead="一个代码 Agent 修一个区间合并函数:四轮模型调用之间夹着写文件、跑测试。按 ▶ 沿 76.5 s 走一遍,看时间花在哪儿。",
)
def agent_trace(p: Params) -> View:
    parts = [
        tuple(given(x, f"{w}_{i}", "s", "示意拆分") for x, w in zip(r[1:], ("m", "t", "c")))
        for i, r in enumerate(TRACE_ROUNDS, 1)
    ]
    totals = [
        given(v, s, "s", ld.MEASURED)
        for v, s in ((ld.TRACE_TOTAL_S, "T"), (ld.TRACE_MODEL_S, "T_{model}"), (ld.TRACE_TOOLS_S, "T_{tools}"))
    ]
    o = {
        **agent.trace_outputs(totals[0], totals[1], totals[2], parts),
        "rounds": given(len(TRACE_ROUNDS), "n", "轮", ld.MEASURED),
    }
    spans = agent.round_spans([tuple(r[1:]) for r in TRACE_ROUNDS])
    s = [
        say(TRACE, o, f"[[{k}]]")
        for k in (
            "total_s",
            "model_s",
            "tools_s",
            "control_s",
            "round_model_s_sum",
            "round_tool_s_sum",
            "round_control_s_sum",
        )
    ]
    rows = [
        [f"第 {n} 轮", what, f"{m:.3f} s" + ("(由 47.5% 反推)" if n == 1 else ""), f"{t:.3f} s", f"{c:.3f} s"]
        for n, (what, m, t, c) in enumerate(TRACE_ROUNDS, 1)
    ] + [["合计", "", *s[4:]]]
    return View(
        o,
        headline="任务总时间 [[total_s]],模型调用占 [[model_pct]]",
        figures=[
            Figure(
                ch.trace_timeline(spans, [r[0] for r in TRACE_ROUNDS], ld.TRACE_TOTAL_S),
                "代码任务轨迹(各轮拆分为示意)",
                "总 [[total_s]]:模型 [[model_s]],工具 [[tools_s]],交接 [[control_s]];工具与交接的条在这个尺度上几乎看不见。",
                illustrative=True,
                animated=True,
            )
        ],
        tables=[
            Table(
                ["项目", "耗时"],
                [[lab, x] for lab, x in zip(("任务总时间", "模型调用合计", "工具执行合计", "控制与交接(差额)"), s)],
                title="实测合计",
            ),
            Table(
                ["轮次", "结果", "模型", "工具", "交接"],
                rows,
                title="各轮拆分(示意,列和等于实测合计)",
                illustrative_cells={(r, c) for r in range(4) for c in (2, 3, 4)},
            ),
        ],
        notes=[
            Note(
                "书中只给四项合计;各轮的模型、工具和交接时长都没有印出,图中位置为示意。第 1 轮模型 36.37 s 由例题 3-2 的“约 47.5%”反推。",
                "illustrative",
            ),
            Note("首轮输出被截断,这段等待同样算进任务时间。"),
        ],
    )


THINKING = ld.AGENT["thinking"]
THINK = outputs(
    off_rounds_sum=out(
        "关闭时的轮数:读文件 [[off_read_file|n]] + 改写 [[off_rewrite|n]] + 跑测试 [[off_run_tests|n]]",
        unit="轮",
        sym="n_{off}",
    ),
    off_cache_hit_pct=out("关闭时缓存命中率", digits=1, approx=True),
    check_pass_pct_off=out("关闭时原定检查通过率", unit="%", digits=1),
    alias_pass_pct_on=out("开启时无别名检查通过率", unit="%", digits=1),
    alias_fail_on=out("开启时仍与输入共享子列表", unit="例", em=True),
    ms_per_output_token_off=quiet("关闭时每输出 token 的模型时间", unit="ms", digits=1),
    ms_per_output_token_on=quiet("开启时每输出 token 的模型时间", unit="ms", digits=1),
    **{
        k: quiet(k, unit="s" if "time_s" in k else "", digits=3 if "time_s" in k else None)
        for k in THINKING
        if k != "off_cache_hit_pct"
    },
)


@card(
    "agent-thinking-table",
    title="思考模式关闭 / 开启",
    section="3.2",
    kind="table",
    aliases=("tab-agent-thinking",),
    outputs=THINK,
    lead="同一个修复任务,关掉思考跑了 12 轮仍没修好;打开思考 4 轮就让原定检查全过,但多加一项无别名检查就露了馅。",
)
def agent_thinking_table(p: Params) -> View:
    o = {
        k: given(v, k, "%" if k.endswith("pct") else "s" if "time_s" in k else "", "书中表格(实测)")
        for k, v in THINKING.items()
    }
    o.update(agent.thinking_outputs(o))
    rows = [
        [lab, *(say(THINK, o, t.format(m=m)) for m in ("off", "on"))]
        for lab, t in (
            ("模型调用轮数", "[[model_rounds_{m}|n]]"),
            ("总输出 token", "[[output_tokens_{m}|n]]"),
            ("模型调用实际耗时之和", "[[model_time_s_{m}]]"),
            ("工具执行实际耗时之和", "[[tool_time_s_{m}]]"),
            ("返回值正确 + 输入不变", "[[check_pass_{m}|n]]/[[check_total_{m}|n]]"),
            ("额外检查:返回子列表无别名", "[[alias_pass_{m}|n]]/[[alias_total_{m}|n]]"),
            ("每输出 token 的模型时间(推算)", "[[ms_per_output_token_{m}]]"),
        )
    ]
    keys = [
        (f"{c}_pass_{m}", f"{c}_total_{m}")
        for c, m in (("check", "off"), ("check", "on"), ("alias", "off"), ("alias", "on"))
    ]
    fig = ch.pass_bars(
        ["关闭 · 原定检查", "开启 · 原定检查", "关闭 · 无别名", "开启 · 无别名"],
        [o[a] for a, _ in keys],
        [o[b] for _, b in keys],
    )
    return View(
        o,
        tables=[Table(["观察", "思考模式关闭", "思考模式开启"], rows, title="同一修复任务的两次运行")],
        figures=[
            Figure(
                fig,
                "检查通过数",
                "关闭思考:原定检查 [[check_pass_off|n]]/1013,无别名 [[alias_pass_off|n]]/1013;开启:"
                "原定检查 [[check_pass_on|n]]/1013,无别名 [[alias_pass_on|n]]/1013,另 [[alias_fail_on|n]] 例仍共享子列表。",
            )
        ],
        notes=[
            Note("每输出 token 的模型时间(13.156 s ÷ 765、76.294 s ÷ 2,733)是本页推算,书中未印。"),
            Note("完成标准必须写成可以执行的检查:原定两项全过,不等于任务完成。", "warn"),
        ],
    )


TARGETS = {"first_round": "首轮模型调用", "tools": "全部工具执行"}


class AmdahlParams(Params):
    target: Literal["first_round", "tools"] = choice("first_round", TARGETS, label="加速哪一部分")
    speedup: float = slider(2, ge=1, le=20, step=0.5, label="局部加速倍数 s", unit="×")
    total_s: float = fixed(ld.TRACE_TOTAL_S, "任务总时间(实测,固定)", "s", sym="T")
    first_round_s: float = fixed(ld.FIRST_ROUND_S, "首轮模型时间(由 47.5% 反推,固定)", "s", sym="T_{first}")
    tools_s: float = fixed(ld.TRACE_TOOLS_S, "工具合计(实测,固定)", "s", sym="T_{tools}")


EG32 = outputs(
    part_s=out("被加速部分([[target_label]])", digits=3),
    part_pct=out("占比 f", sig=3, approx="is_first", sym="f"),
    rest_s=out("不变的其余部分", sig=3, approx="is_first"),
    new_total_s=out("加速后总时间", sig=4, em=True, sym="T_{new}"),
    saved_s=out("节省", digits=3),
    saved_pct=out("节省比例", sig=3, em=True),
    overall_speedup=out("整体加速", unit="×", digits=3, sym="S"),
    cap_speedup=out("Amdahl 上限 1/(1−f)", unit="×", digits=3, sym="S_{max}"),
)


@card(
    "eg-3-2",
    title="Amdahl:加速首轮能省多少",
    label="例题 3-2",
    section="3.2",
    kind="calculator",
    params=AmdahlParams,
    outputs=EG32,
    badges=(("练习 3-4 后半", "ex-3-4"),),
    lead="76.510 s 的任务里挑一部分加速:首轮模型调用,或全部工具。局部快了 s 倍,整体能快多少,上限又在哪儿?",
)
def eg_3_2(p: AmdahlParams) -> View:
    first = p.target == "first_round"
    part = p.first_round_s if first else p.tools_s
    o = amdahl.part_outputs(p.total_s, part, p.speedup)
    role, label = ("decode" if first else "tools"), TARGETS[p.target]
    ctx = {
        "is_first": first,
        "target_label": label + (" · 由 47.5% 反推" if first else ""),
        "total": f"{p.total_s:.3f} s",
        "part_new": f"{part / p.speedup:.3f} s",
        "target": label,
    }
    return View(
        o,
        headline="[[target]] × [[speedup|n]]:[[total]] → [[new_total_s|d2]]",
        ctx=ctx,
        figures=[
            Figure(
                ch.speedup_bars(label, role, part, p.speedup, o["rest_s"], p.total_s),
                "加速前后的总时间",
                "[[target]]从 [[part_s]] 变为 [[part_new]],其余 [[rest_s|d2]] 不变;总时间 [[new_total_s|d3]]。",
            ),
            Figure(
                ch.speedup_curve(
                    amdahl.speedup, part / p.total_s, p.speedup, o["overall_speedup"], o["cap_speedup"], role
                ),
                "整体加速随局部倍数变化",
                "f = [[part_pct|d2]] 时,s 再大整体加速也不超过 [[cap_speedup]];当前 s = [[speedup|n]] 得 [[overall_speedup]]。",
            ),
        ],
        notes=[
            Note("$T_{new} = (1-f)T + fT/s$,整体加速 $1/((1-f)+f/s)$,上限 $1/(1-f)$。", "formula"),
            Note(
                "书中没有印首轮时间;取 36.37 s 才能同时得到“约 47.5%”“约 23.8%”“其余约 40.1 s”(36.36–36.38 s 都可以,用 0.475 × 76.51 会得出 40.2 s)。"
            ),
            Note("收益被这一部分原来所占的比例封顶:工具只占约 0.1%,加速再多也几乎看不出来。"),
        ],
    )


# === 3.2.4 fig-3-11 (tool dependency), fig-3-13 (branches), fig-3-14 (CED) =========================

MODES = {"parallel": "并行(A ∥ B,工具相互独立)", "serial": "串行(A → B,B 等 A)"}


class ToolDagParams(Params):
    model1_s: float = slider(2, ge=0.5, le=30, step=0.5, label="第一次模型调用", unit="s", sym="m_1")
    tool_a_s: float = slider(6, ge=0, le=60, step=0.5, label="工具 A", unit="s", sym="a")
    tool_b_s: float = slider(10, ge=0, le=60, step=0.5, label="工具 B", unit="s", sym="b")
    model2_s: float = slider(3, ge=0.5, le=30, step=0.5, label="第二次模型调用", unit="s", sym="m_2")
    mode: Literal["parallel", "serial"] = choice("parallel", MODES, label="突出显示的调度")
    state_gib: float = slider(1, ge=0.25, le=8, step=0.25, label="等工具时占用的状态 M", unit="GiB")
    n_tasks: int = slider(1, ge=1, le=100, step=1, label="同时等待的任务数", unit="个", sym="n")


FIG311 = outputs(
    serial_s=out("串行总时间 m₁+a+b+m₂", sym="T_{ser}"),
    parallel_s=out("并行总时间 m₁+max(a,b)+m₂", sym="T_{par}"),
    critical_path_s=out("关键路径([[mode_label]])", em=True),
    saved_s=out("并行省下"),
    tool_work_s=out("工具总工作量 a+b(不变)"),
    wait_s=out("等工具的时长"),
    gib_s_serial=out("状态面积 · 串行", unit="GiB·s"),
    gib_s_parallel=out("状态面积 · 并行", unit="GiB·s"),
    gib_s=out("状态面积 · 选中调度", unit="GiB·s", em=True),
    peak_gib=out("同时占用的状态 n·M"),
)


@card(
    "fig-3-11",
    title="工具有没有依赖",
    label="图 3-11 / 3-12",
    section="3.2",
    kind="animation",
    params=ToolDagParams,
    outputs=FIG311,
    aliases=("fig-3-12",),
    badges=(("练习 3-4 设定", "ex-3-4"),),
    lead="模型 2 s → 工具 A 6 s、工具 B 10 s → 模型 3 s。两个工具一个接一个跑,还是同时跑?关键路径决定任务最早何时完成,等待时长决定状态占多久。",
)
def fig_3_11(p: ToolDagParams) -> View:
    m1, a, b, m2 = p.model1_s, p.tool_a_s, p.tool_b_s, p.model2_s
    o = dag.tool_wait_outputs(m1, a, b, m2, p.mode == "parallel", p.state_gib, p.n_tasks)
    sel = dag.model_tools_model(m1, a, b, m2, dependent=p.mode == "serial")
    dur = {"model1": m1, "tool_a": a, "tool_b": b, "model2": m2}
    fig = ch.serial_parallel(m1, a, b, m2, o["peak_gib"], (o["gib_s_serial"], o["gib_s_parallel"]), p.mode == "serial")
    return View(
        o,
        headline="串行 [[serial_s|c]] · 并行 [[parallel_s|c]] · 工具总工作量 [[tool_work_s|c]]",
        ctx={"mode_label": "并行" if p.mode == "parallel" else "串行"},
        blocks=[
            Block(
                "diagrams/fig-3-11.html",
                {**ch.dag_layout(sel, dur, p.mode == "serial"), "mode": p.mode, "modes": MODES},
            )
        ],
        figures=[
            Figure(
                fig,
                "串行与并行的时间线",
                "串行 [[serial_s|c]],并行 [[parallel_s|c]],工具总工作量都是 [[tool_work_s|c]];"
                "等工具时占 [[peak_gib|c]],状态面积串行 [[gib_s_serial|n,c]]、并行 [[gib_s_parallel|c]]。",
                animated=True,
            )
        ],
        notes=[
            Note("串行路径时间相加,独立分支同时开始,汇合点等较慢的一支;累计最长的路径即关键路径。", "formula"),
            Note("状态只在等工具返回时计入(模型调用期间不计),多个任务同时等待时按任务累加:面积 = n·M·等待时长。"),
            Note("书中把两张图放在同一个标题下,本卡不区分哪张是图 3-11、哪张是图 3-12。"),
        ],
    )


class BranchParams(Params):
    h0_tokens: int = slider(
        2000, ge=0, le=32000, step=100, label="共享前缀 H₀", unit="token", illustrative=True, sym="H_0"
    )
    n_branches: int = slider(3, ge=1, le=16, step=1, label="分支数 k", illustrative=True)
    branch_tokens: int = slider(500, ge=0, le=8000, step=50, label="每个分支长度 h", unit="token", illustrative=True)
    kv_kib_per_token: float = kv_param()
    running_branches: int | None = slider(
        None, ge=0, le=16, step=1, label="仍在运行的分支(点图中分支切换)", placeholder="全部", sym="r"
    )


FIG313 = outputs(
    shared_tokens=out("共享时总 token H₀ + Σh", ill=True),
    shared_mib=out("共享时总状态", digits=1, em=True, ill=True),
    unshared_tokens=out("不共享 Σ(H₀ + h)", ill=True),
    unshared_mib=out("不共享时总状态", digits=1, ill=True),
    saved_mib=out("共享省下", digits=1, ill=True),
    serial_peak_mib=out("串行(一次一支)峰值", digits=1, ill=True),
    resident_now_mib=out("当前驻留([[running_branches_now|n]]/[[n_branches|n]] 支运行中)", digits=1, ill=True),
    running_branches_now=quiet("仍在运行的分支", unit="支"),
)


@card(
    "fig-3-13",
    title="分支共享前缀",
    label="图 3-13",
    section="3.2",
    kind="diagram",
    params=BranchParams,
    outputs=FIG313,
    lead="一段共享前缀 H₀ 分出 k 个分支。前缀只存一份时总状态是 c_KV(H₀ + Σh);并行跑分支缩短关键路径,却让所有分支的状态同时驻留。点分支可切换它是否仍在运行。",
)
def fig_3_13(p: BranchParams) -> View:
    running = p.n_branches if p.running_branches is None else min(p.running_branches, p.n_branches)
    o = prefix.branch_outputs(p.h0_tokens, p.n_branches, p.branch_tokens, running, p.kv_kib_per_token * KIB)
    tree = ch.branch_tree(p.h0_tokens, p.branch_tokens, p.n_branches, running)
    return View(
        o,
        headline="H₀ = [[h0_tokens|n]] · k = [[n_branches|n]] · h = [[branch_tokens|n]] token(示意)",
        blocks=[
            Block(
                "diagrams/fig-3-13.html",
                {
                    **tree,
                    "h0": p.h0_tokens,
                    "h": p.branch_tokens,
                    "running": running,
                    "k": p.n_branches,
                    "shared": say(FIG313, o, "[[shared_mib]]"),
                    "now": say(FIG313, o, "[[resident_now_mib]]"),
                },
            )
        ],
        notes=[
            Note(
                f"共享:$c_{{KV}}(H_0 + \\sum h_i)$;不共享:$c_{{KV}}\\sum(H_0 + h_i)$;$c_{{KV}}$ = {p.kv_kib_per_token:g} KiB/token(Qwen3-8B)。",
                "formula",
            ),
            Note("H₀、k、h 都是示意长度(书中注明“长度为示意”);只有 c_KV 是书中数值。", "illustrative"),
            Note("并行跑分支缩短关键路径,也让更多分支的状态同时占内存;串行一次只留 H₀ + h。"),
        ],
    )


class CedParams(Params):
    input_tokens: int = slider(
        8192, ge=1, le=131072, step=1, label="未命中缓存的提示 P", unit="token", log=True, illustrative=True
    )
    output_tokens: int = slider(256, ge=1, le=8192, step=1, label="输出 G", unit="token", illustrative=True)
    encoder_layers: int = fixed(20, "编码器层数(固定)", sym="L_{enc}")
    decoder_layers: int = fixed(20, "解码器层数(固定)", sym="L_{dec}")
    resend_tokens: int = fixed(128, "重新送入解码器的提示末尾(固定)", "token", sym="P_{re}")


FIG314 = outputs(
    prompt_work_decoder_only=out("纯解码器 [[L]]P", unit="token·层", ill=True, sym="W_{dec}"),
    prompt_work_ced=out(
        "CED [[encoder_layers|n]]P + [[decoder_layers|n]]·min(P,[[resend_tokens|n]])",
        unit="token·层",
        ill=True,
        sym="W_{CED}",
    ),
    prompt_ratio=out("提示部分 CED/纯解码器", unit="×", digits=3, em=True, ill=True),
    prompt_saved_pct=out("提示部分省下", digits=1, ill=True),
    decode_work_both=out("输出部分(两者相同)[[L]](G−1)", unit="token·层", ill=True, sym="W_{out}"),
    total_ratio=out("含输出的总比", unit="×", digits=3, ill=True),
)


@card(
    "fig-3-14",
    title="负载推动结构:V4.1 Flash 的 CED",
    label="图 3-14",
    section="3.2",
    kind="chart",
    params=CedParams,
    outputs=FIG314,
    lead="Agent 请求常是“前缀未命中、输入长、输出短”。V4.1 Flash 让大部分提示只走 20 层编码器,末尾最多 128 token 再进 20 层解码器。只比专家层,提示的工作量差多少?",
)
def fig_3_14(p: CedParams) -> View:
    enc, dec, re_ = p.encoder_layers, p.decoder_layers, p.resend_tokens
    o = prefix.ced_outputs(p.input_tokens, p.output_tokens, enc, dec, re_)
    f1 = ch.ced_work(p.input_tokens, enc, dec, re_, (o["prompt_work_decoder_only"], o["prompt_work_ced"]))
    return View(
        o,
        headline="P = [[input_tokens|n]] · G = [[output_tokens|n]](示意)",
        ctx={"L": enc + dec},
        figures=[
            Figure(
                f1,
                "提示工作量随 P 变化",
                "P ≤ [[resend_tokens|n]] 时两条线重合,之后 CED 的比值趋向 1/2;P = [[input_tokens|n]] 时 "
                "[[prompt_work_ced|n]] 对 [[prompt_work_decoder_only|n]]([[prompt_ratio|n]])。",
                illustrative=True,
            ),
            Figure(
                ch.stacked_work((o["prompt_work_decoder_only"], o["prompt_work_ced"]), o["decode_work_both"]),
                "加上输出部分",
                "输出 [[output_tokens|n]] token 两者都走全部 [[L]] 层([[decode_work_both|n]]);合计比 [[total_ratio|n]]。",
                illustrative=True,
            ),
        ],
        notes=[
            Note(
                "工作量单位是“一个 token 经过一层专家层”;两种结构的 top-k 相同,所以与专家层 FLOPs 成正比。注意力等其他层不在比较之内。",
                "formula",
            ),
            Note(
                "P 与 G 的默认值是示意;书中只给公式 $40P$ 对 $20P + 20\\min(P,128)$。V4.1 的结构细节见第 2 章。",
                "illustrative",
            ),
        ],
    )
