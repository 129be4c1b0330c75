"""Section 3.2 多轮交互与 Agent 任务: prefix reuse, cost per successful task, the agent trace,
Amdahl, tool dependencies and branch state, and the CED layer split."""
from __future__ import annotations

from typing import Literal

from ...calculators import amdahl, cost, dag, prefix
from ...calculators.model_config import shape_of
from ...cards import Block, Figure, Note, Params, Stat, Table, View, card, choice, slider
from ...charts import (COLORS, animate, axis, bar, figure, gantt_trace, hline, layout, line, points,
                       vline, with_refs)
from ...data import model_config

MIB = 2**20
KIB = 2**10
# Qwen3-8B: 36 layers × 8 KV heads × 128 × (K, V) × 2 B = 147,456 B = 144 KiB per context token
KV_BYTES = shape_of(model_config("qwen3-8b")).kv_bytes_per_token_bf16
KV_KIB = KV_BYTES / KIB


def kv_param():
    return slider(KV_KIB, ge=KV_KIB, le=KV_KIB, step=1, label="每 token KV c_KV(Qwen3-8B,固定)", unit="KiB")


def mib(tokens: float, kv_kib: float) -> float:
    """tokens × KV KiB per token → MiB."""
    return tokens * kv_kib * KIB / MIB


# =============================================================================================
# 3.2.1 prefix-edit
# =============================================================================================

EDITS = {"append": "末尾追加", "replace_summary": "摘要替换一段", "template_change": "改工具定义/模板"}


class PrefixEditParams(Params):
    context_tokens: int = slider(2000, ge=500, le=32000, step=100, label="已有上下文", unit="token")
    edit: Literal["append", "replace_summary", "template_change"] = choice("append", EDITS, label="改动方式")
    append_tokens: int = slider(200, ge=0, le=4000, step=10, label="追加长度", unit="token", illustrative=True)
    replace_start: int = slider(600, ge=0, le=32000, step=10, label="替换起点", unit="token 位置", illustrative=True)
    replace_end: int = slider(1400, ge=0, le=32000, step=10, label="替换终点(不含)", unit="token 位置",
                              illustrative=True)
    summary_tokens: int = slider(150, ge=0, le=2000, step=10, label="摘要长度", unit="token", illustrative=True)
    template_pos: int = slider(40, ge=0, le=32000, step=10, label="模板/工具块起点", unit="token 位置",
                               illustrative=True)
    template_delta_tokens: int = slider(0, ge=-500, le=500, step=10, label="模板长度变化", unit="token",
                                        illustrative=True)
    block_tokens: Literal["1", "16", "32"] = choice("1", {"1": "1(逐 token)", "16": "16(vLLM)", "32": "32"},
                                                    label="缓存块大小 b", illustrative=True)
    kv_kib_per_token: float = kv_param()


def prefix_edit_outputs(p: PrefixEditParams) -> tuple[dict, prefix.Edit]:
    n = p.context_tokens
    if p.edit == "append":
        e = prefix.edit_append(n, p.append_tokens)
    elif p.edit == "replace_summary":
        e = prefix.edit_replace(n, p.replace_start, p.replace_end, p.summary_tokens)
    else:
        e = prefix.edit_template(n, p.template_pos, p.template_delta_tokens)
    k = prefix.reused_tokens(e.first_change, e.new_length, int(p.block_tokens))
    pn = e.new_length - k
    o = {"reused_tokens": k, "recompute_tokens": pn, "new_context_tokens": e.new_length,
         "reuse_pct": 100 * k / e.new_length if e.new_length else 0.0,
         "recompute_kv_mib": mib(pn, p.kv_kib_per_token), "resident_kv_mib": mib(e.new_length, p.kv_kib_per_token)}
    return o, e


@card("prefix-edit", title="改了多少不要紧,改在哪儿才要紧", section="3.2", kind="diagram",
      params=PrefixEditParams,
      lead="2,000 token 的上下文,改动落在末尾、中段还是开头?第一个变动的 token 之前的前缀能复用,之后的都要重算。点条形图可以挪改动位置。")
def prefix_edit(p: PrefixEditParams) -> View:
    o, e = prefix_edit_outputs(p)
    n = p.context_tokens
    v = View(outputs=o, headline=f"{EDITS[p.edit]} · 第一个变动 token 在位置 {min(e.first_change, n):,}")
    v.stat("reused_tokens", "可复用前缀 K", "token", digits=0, emphasis=True)
    v.stat("recompute_tokens", "需重算 P = 新长度 − K", "token", digits=0, emphasis=True)
    v.stat("new_context_tokens", "改后上下文长度", "token", digits=0)
    v.stat("reuse_pct", "复用比例 K/新长度", "%", digits=1)
    v.stat("recompute_kv_mib", "要重建的 KV", "MiB", digits=1)
    v.stat("resident_kv_mib", "改后驻留 KV", "MiB", digits=1)

    # the SVG bar: scale both bars to the longer of old/new
    W, X0 = 900, 60
    scale = W / max(n, e.new_length, 1)
    fc = min(e.first_change, n)
    k = o["reused_tokens"]
    before = []   # (x0, x1, role, label)
    after = []
    if p.edit == "append":
        before.append((0, n, "state", "原前缀,全部保留"))
        after += [(0, k, "state", "复用"), (k, e.new_length, "prefill", "新增,需处理")]
    elif p.edit == "replace_summary":
        s = max(0, min(p.replace_start, n))
        t = max(s, min(p.replace_end, n))
        before += [(0, s, "state", "保留"), (s, t, "removed", "被替换"), (t, n, "stale", "之后的内容")]
        after += [(0, k, "state", "复用"), (k, e.new_length, "prefill", "摘要 + 其后,全部重算")]
    else:
        before += [(0, fc, "state", "保留"), (fc, n, "stale", "模板之后,全部失配")]
        after += [(0, k, "state", "复用"), (k, e.new_length, "prefill", "从模板起全部重算")]
    seg = lambda lst: [dict(x=X0 + a * scale, w=max((b - a) * scale, 0), role=r, label=lb, a=a, b=b)
                       for a, b, r, lb in lst if b > a]
    clickable = None
    if p.edit == "replace_summary":
        clickable = "replace_start"
    elif p.edit == "template_change":
        clickable = "template_pos"
    cells = []
    if clickable:
        for i in range(20):
            pos = int(round(i * n / 20 / 10)) * 10
            cells.append(dict(x=X0 + pos * scale, w=n / 20 * scale, pos=pos))
    v.blocks.append(Block("diagrams/prefix-edit.html", {
        "before": seg(before), "after": seg(after), "tick": X0 + fc * scale, "colors": COLORS,
        "edits": EDITS, "edit": p.edit, "cells": cells, "param": clickable, "n": n,
        "new_len": e.new_length, "k": k, "x0": X0, "w": W}))
    v.notes = [
        Note("$P_i = I_i - K_i$,$S_i = K_i$:复用只省掉前缀的投影/FFN 重算;注意力仍要让新查询看完整前缀,之后的 decode 也要读全部上下文。", "formula"),
        Note("除 2,000 token 的已有上下文外,改动位置与长度都是示意值。追加保住前缀,但陈旧内容还在上下文里;摘要缩短上下文,却让替换点之后全部重建;模板一变,几乎从开头就失配。缓存如何重建见第 8 章。", "illustrative"),
    ]
    if int(p.block_tokens) > 1:
        v.notes.append(Note(f"缓存按 {p.block_tokens} token 一块保存,K 向下取整到整块:第一个变动 token 所在的块也要重算。"))
    return v


# =============================================================================================
# 3.2.1 prefix-cache-4round
# =============================================================================================

# Four model calls of the thinking-mode repair trace. Totals and round 2 are the book's recomputed
# values; rounds 1, 3, 4 are this page's 示意 split (whole 16-token hit blocks, growing inputs).
ROUNDS = [  # (input I_i, hit K_i, from the book?)
    (700, 0, False),
    (1443, 1392, True),
    (1480, 1440, False),
    (1674, 1648, False),
]


class FourRoundParams(Params):
    round_index: int = slider(2, ge=1, le=4, step=1, label="选中第几轮")
    kv_kib_per_token: float = kv_param()


@card("prefix-cache-4round", title="四轮代码修复任务的缓存收益", section="3.2", kind="chart",
      params=FourRoundParams,
      lead="思考模式开启的那条真实轨迹,按每轮输入复算缓存命中:命中的前缀不用重算投影和 FFN,但注意力和之后的 decode 仍要访问整个上下文。")
def prefix_cache_4round(p: FourRoundParams) -> View:
    I = [r[0] for r in ROUNDS]
    K = [r[1] for r in ROUNDS]
    P = [prefix.new_tokens(i, k) for i, k in zip(I, K)]
    i, k = ROUNDS[p.round_index - 1][:2]
    pn = prefix.new_tokens(i, k)
    cached, full = prefix.attn_pairs_cached(pn, k), prefix.attn_pairs_full(i)
    o = {"total_input_tokens": sum(I), "total_hit_tokens": sum(K), "total_miss_tokens": sum(I) - sum(K),
         "total_hit_pct": 100 * sum(K) / sum(I),
         "input_tokens": i, "hit_tokens": k, "restored_tokens": k, "new_tokens": pn, "hit_pct": 100 * k / i,
         "proj_rows_cached": pn, "proj_rows_full": i, "attn_pairs_cached": cached, "attn_pairs_full": full,
         "attn_pairs_pct": 100 * cached / full,
         "resident_kv_mib": mib(i, p.kv_kib_per_token), "recompute_kv_mib": mib(pn, p.kv_kib_per_token)}
    ill = not ROUNDS[p.round_index - 1][2]
    v = View(outputs=o, headline=f"四轮累计:输入 {sum(I):,} · 命中 {sum(K):,} · 未命中 {sum(P):,} token")
    v.stat("total_input_tokens", "四轮累计输入 ΣI", "token")
    v.stat("total_hit_tokens", "命中 ΣK", "token")
    v.stat("total_miss_tokens", "未命中 ΣP", "token")
    v.stat("total_hit_pct", "累计命中率", "%", digits=1)
    v.stat("input_tokens", f"第 {p.round_index} 轮输入 I", "token", illustrative=ill)
    v.stat("hit_tokens", "命中 K = 恢复 S", "token", illustrative=ill)
    v.stat("new_tokens", "新处理 P = I − K", "token", illustrative=ill, emphasis=True)
    v.stat("hit_pct", "本轮命中率", "%", digits=1, illustrative=ill)
    v.stat("attn_pairs_pct", "注意力配对:复用/不复用", "%", digits=1, illustrative=ill)
    v.stat("resident_kv_mib", "本轮驻留 KV", "MiB", digits=1, illustrative=ill)
    v.stat("recompute_kv_mib", "本轮新建 KV", "MiB", digits=1, illustrative=ill)

    xs = [f"第 {n} 轮" + ("" if ROUNDS[n - 1][2] else "(示意)") for n in range(1, 5)]
    op = [1.0 if n == p.round_index else 0.45 for n in range(1, 5)]
    f1 = figure([
        bar(xs, K, "命中 K(恢复)", "state", marker={"color": COLORS["state"], "opacity": op}),
        bar(xs, P, "未命中 P(新处理)", "prefill", marker={"color": COLORS["prefill"], "opacity": op},
            text=[f"I = {x:,}" for x in I], textposition="outside"),
    ], layout(axis(""), axis("token"), barmode="stack", height=300))
    f2 = figure([
        bar(["投影/FFN 行", "注意力配对"], [pn, cached], "复用前缀", "prefill",
            text=[f"{pn:,}", f"{cached:,}"], textposition="outside"),
        bar(["投影/FFN 行", "注意力配对"], [i, full], "不复用(全量 prefill)", "idle",
            text=[f"{i:,}", f"{full:,}"], textposition="outside"),
    ], layout(axis(""), axis("数量(对数)", log=True, range_=(0, 7)), barmode="group", height=300))
    v.figures = [
        Figure(f1, "四轮输入:命中与未命中",
               f"四轮共输入 {sum(I):,} token,命中 {sum(K):,},未命中 {sum(P):,};第 2 轮 {I[1]:,} 中命中 {K[1]:,},只新处理 {P[1]} 个。"
               "第 1、3、4 轮的拆分为示意。", illustrative=True),
        Figure(f2, f"第 {p.round_index} 轮:复用省下什么",
               f"投影/FFN 只算 {pn:,} 行(不复用要 {i:,} 行);注意力配对 {cached:,} 对,全量为 {full:,} 对({o['attn_pairs_pct']:.1f}%)。",
               illustrative=ill),
    ]
    v.tables.append(Table(
        ["轮次", "输入 I", "命中 K", "新处理 P", "来源"],
        [[f"第 {n} 轮", a, b, a - b, "书中复算" if bk else "示意"] for n, (a, b, bk) in enumerate(ROUNDS, 1)]
        + [["合计", sum(I), sum(K), sum(P), "书中复算"]],
        illustrative_cells={(r, c) for r in (0, 2, 3) for c in (1, 2, 3)}))
    v.notes = [
        Note("注意力配对(因果):复用时 $P\\cdot K + P(P+1)/2$,不复用时 $I(I+1)/2$。", "formula"),
        Note("书中只给出四轮合计与第 2 轮;第 1、3、4 轮是本页按合计凑出的示意拆分(命中为 16 token 整块,输入逐轮增长),不是实测。", "illustrative"),
    ]
    return v


# =============================================================================================
# 3.2.2 fig-3-9 and price-cut-paradox
# =============================================================================================

class SuccessCostParams(Params):
    cost_old: float = slider(1, ge=0.1, le=10, step=0.1, label="旧方法每次成本 c₁", unit="单位")
    success_old_pct: float = slider(50, ge=0, le=100, step=1, label="旧方法成功率 p₁", unit="%")
    cost_new: float = slider(2, ge=0.1, le=10, step=0.1, label="新方法每次成本 c₂", unit="单位")
    success_new_pct: float = slider(80, ge=0, le=100, step=1, label="新方法成功率 p₂", unit="%")
    attempts: int = slider(100, ge=100, le=100, step=1, label="每种方法尝试次数(书中固定)", unit="次")


def success_outputs(c1: float, p1_pct: float, c2: float, p2_pct: float, attempts: int = 100) -> dict:
    """fig-3-9's outputs (catalog keys) for one setting; reused by 练习 3-3."""
    p1, p2 = p1_pct / 100, p2_pct / 100
    be = cost.breakeven_success(p1, c1, c2)
    return {
        "total_cost_old": attempts * c1, "total_cost_new": attempts * c2,
        "successes_old": round(attempts * p1), "successes_new": round(attempts * p2),
        "success_cost_old": cost.success_cost(c1, p1), "success_cost_new": cost.success_cost(c2, p2),
        "success_ratio": (p2 / p1) if p1 > 0 else None, "cost_ratio": c2 / c1,
        "new_cheaper": cost.new_cheaper(c1, p1, c2, p2),
        "breakeven_success_new_pct": None if be is None else 100 * be,
    }


def _fmt(x, d=2):
    return "—" if x is None else f"{x:,.{d}f}"


@card("fig-3-9", title="各尝试 100 次:失败也进分子", label="图 3-9", section="3.2", kind="calculator",
      params=SuccessCostParams, badges=(("练习 3-3", "ex-3-3"),),
      lead="两种方法各试 100 次。每一次尝试都花钱,失败的也算;只有成功的任务进分母。新方法更贵时,成功率要高出多少才划算?")
def fig_3_9(p: SuccessCostParams) -> View:
    o = success_outputs(p.cost_old, p.success_old_pct, p.cost_new, p.success_new_pct, p.attempts)
    be = o["breakeven_success_new_pct"]
    v = View(outputs=o, headline=f"旧:{p.cost_old:g} 单位 × {p.success_old_pct:g}% · 新:{p.cost_new:g} 单位 × {p.success_new_pct:g}%")
    v.stat("total_cost_old", "旧方法 100 次总花费", "单位", sig=4)
    v.stat("total_cost_new", "新方法 100 次总花费", "单位", sig=4)
    v.stat("successes_old", "旧方法成功数", "个")
    v.stat("successes_new", "新方法成功数", "个")
    for key, lab, n in (("success_cost_old", "旧方法 C_success = c₁/p₁", o["successes_old"]),
                        ("success_cost_new", "新方法 C_success = c₂/p₂", o["successes_new"])):
        if o[key] is None:
            v.stats.append(Stat(key, lab, None, text="无成功:只能报告花费与失败", emphasis=True))
        else:
            v.stat(key, lab, "单位", digits=2, emphasis=True)
    v.stat("success_ratio", "成功率之比 p₂/p₁", "×", digits=2)
    v.stat("cost_ratio", "单次成本之比 c₂/c₁", "×", digits=2)
    v.stats.append(Stat("new_cheaper", "新方法更省?", o["new_cheaper"],
                        text="—" if o["new_cheaper"] is None else ("更省" if o["new_cheaper"] else "不更省")))
    if be is None:
        v.stats.append(Stat("breakeven_success_new_pct", "新方法持平所需成功率", None, text="—(p₁ = 0)"))
    elif be > 100 + 1e-9:
        v.stats.append(Stat("breakeven_success_new_pct", "新方法持平所需成功率", be, text="无法持平(需 > 100%)"))
    else:
        v.stat("breakeven_success_new_pct", "新方法持平所需成功率 p₁c₂/c₁", "%", digits=1)

    # 10 × 10 dot grids
    traces = []
    for j, (name, n, off) in enumerate((("旧方法", o["successes_old"], 0), ("新方法", o["successes_new"], 12))):
        xs = [off + i % 10 for i in range(100)]
        ys = [9 - i // 10 for i in range(100)]
        ok = [i < n for i in range(100)]
        traces.append(points([x for x, g in zip(xs, ok) if g], [y for y, g in zip(ys, ok) if g],
                             f"{name} 成功", "decode", size=13, showlegend=j == 0,
                             legendgroup="ok", hovertemplate=f"{name}:成功<extra></extra>"))
        traces.append(points([x for x, g in zip(xs, ok) if not g], [y for y, g in zip(ys, ok) if not g],
                             f"{name} 失败(也花钱)", "backlog", size=13, symbol="x", showlegend=j == 0,
                             legendgroup="bad", hovertemplate=f"{name}:失败,成本照计<extra></extra>"))
    traces[0]["name"], traces[1]["name"] = "成功", "失败(成本照计)"
    lay = layout(axis("", showticklabels=False, showgrid=False, range_=(-1, 22)),
                 axis("", showticklabels=False, showgrid=False, range_=(-1.5, 10)), height=300)
    lay["annotations"] = [
        {"x": 4.5, "y": -1.2, "text": f"旧方法:{o['successes_old']} 成功 / 总花费 {o['total_cost_old']:g}",
         "showarrow": False, "font": {"size": 13}},
        {"x": 16.5, "y": -1.2, "text": f"新方法:{o['successes_new']} 成功 / 总花费 {o['total_cost_new']:g}",
         "showarrow": False, "font": {"size": 13}}]
    f1 = figure(traces, lay)

    grid = [x for x in range(1, 101)]
    ys = [p.cost_new / (x / 100) for x in grid]
    refs = []
    if o["success_cost_old"] is not None:
        refs.append(hline(o["success_cost_old"], f"旧方法 {o['success_cost_old']:.2f}", "ink", log=True))
    if be is not None and be <= 100:
        refs.append(vline(be, f"持平 {be:.1f}%", "target"))
    data2 = [line(grid, ys, "新方法 c₂/p₂", "decode")]
    if o["success_cost_new"] is not None:
        data2.append(points([p.success_new_pct], [o["success_cost_new"]], f"当前 p₂ = {p.success_new_pct:g}%", "accent", size=11))
    f2 = figure(data2, with_refs(layout(axis("新方法成功率 p₂ (%)", range_=(0, 110)),
                                        axis("每个成功任务的成本(单位,对数)", log=True), height=300), *refs))
    v.figures = [
        Figure(f1, "图 3-9 · 各尝试 100 次",
               f"旧方法 {o['successes_old']} 个成功、总花费 {o['total_cost_old']:g};新方法 {o['successes_new']} 个成功、"
               f"总花费 {o['total_cost_new']:g}。每个成功任务:旧 {_fmt(o['success_cost_old'])},新 {_fmt(o['success_cost_new'])}。"),
        Figure(f2, "新方法的成功成本随 p₂ 变化",
               f"曲线 c₂/p₂ 与旧方法水平线相交处即持平成功率" + (f" {be:.1f}%。" if be is not None and be <= 100 else ":当前设定下不可达。")),
    ]
    v.notes = [
        Note("$C_{success} = c/p$;新方法更省 $\\Leftrightarrow p_2/p_1 > c_2/c_1$;持平点 $p_2 = p_1 c_2 / c_1$。", "formula"),
        Note("分子是所有尝试的花费:失败的生成、工具测试、环境运行都算;分母只数通过检查的任务。“单位”是抽象成本单位。"),
    ]
    return v


class PriceCutParams(Params):
    price_ratio: float = slider(0.1, ge=0.01, le=2, step=0.01, label="新/旧 token 单价", unit="×")
    token_ratio: float = slider(20, ge=0.5, le=50, step=0.5, label="新/旧 每次尝试 token 数", unit="×")
    success_old_pct: float = slider(50, ge=1, le=100, step=1, label="旧模型成功率", unit="%")
    success_new_pct: float = slider(80, ge=1, le=100, step=1, label="新模型成功率", unit="%")


def price_cut_outputs(price_ratio: float, token_ratio: float, p_old_pct: float, p_new_pct: float) -> dict:
    return {"attempt_cost_ratio": price_ratio * token_ratio,
            "success_ratio": p_new_pct / p_old_pct,
            "success_cost_ratio": cost.success_cost_ratio(price_ratio, token_ratio, p_old_pct / 100, p_new_pct / 100)}


@card("price-cut-paradox", title="单价降到 1/10,成功成本反而涨", section="3.2", kind="calculator",
      params=PriceCutParams,
      lead="新模型每 token 便宜到 1/10,但每次尝试多想了 20 倍 token,成功率从 50% 升到 80%。只算模型成本,每个成功任务是更便宜还是更贵?")
def price_cut_paradox(p: PriceCutParams) -> View:
    o = price_cut_outputs(p.price_ratio, p.token_ratio, p.success_old_pct, p.success_new_pct)
    v = View(outputs=o, headline=f"{p.price_ratio:g} × {p.token_ratio:g} × {p.success_old_pct / 100:g}/{p.success_new_pct / 100:g} = {o['success_cost_ratio']:.3g}")
    v.stat("attempt_cost_ratio", "每次尝试成本 新/旧", "×", sig=3)
    v.stat("success_ratio", "成功率 新/旧", "×", sig=3)
    v.stat("success_cost_ratio", "每个成功任务成本 新/旧", "×", sig=3, emphasis=True)
    steps = [("旧模型", 1.0), (f"单价 ×{p.price_ratio:g}", p.price_ratio), (f"token ×{p.token_ratio:g}", p.token_ratio),
             (f"成功率 ×{p.success_old_pct:g}/{p.success_new_pct:g}", p.success_old_pct / p.success_new_pct)]
    xs, base, ht, cols, txt = [], [], [], [], []
    level = 1.0
    for i, (name, f) in enumerate(steps):
        new = f if i == 0 else level * f
        lo, hi = (0.0, new) if i == 0 else (min(level, new), max(level, new))
        xs.append(name)
        base.append(lo)
        ht.append(hi - lo)
        cols.append("backlog" if new > 1 + 1e-12 else "decode")
        txt.append(f"{new:.3g}" if i == 0 else f"→ {new:.3g}")
        level = new
    xs.append("新模型")
    base.append(0.0)
    ht.append(level)
    cols.append("backlog" if level > 1 + 1e-12 else "decode")
    txt.append(f"{level:.3g}")
    fig = figure([bar(xs, ht, "每个成功任务的相对成本", cols, base=base, text=txt, textposition="outside")],
                 with_refs(layout(axis(""), axis("相对旧模型(= 1)"), height=320, legend=False),
                           hline(1, "旧模型 = 1", "ink")))
    v.figures = [Figure(fig, "逐项相乘:单价、token 数、成功率",
                        f"1 × {p.price_ratio:g} × {p.token_ratio:g} × {p.success_old_pct:g}/{p.success_new_pct:g} = "
                        f"{o['success_cost_ratio']:.3g};高于 1 的柱用积压/超限色。")]
    v.notes = [
        Note("$\\dfrac{C_{new}}{C_{old}} = \\dfrac{\\text{单价}_{new}}{\\text{单价}_{old}} \\times \\dfrac{\\text{token}_{new}}{\\text{token}_{old}} \\times \\dfrac{p_{old}}{p_{new}}$", "formula"),
        Note("只计模型调用成本,并假定重试分布稳定。降价、提质与成功成本上涨可以同时发生;注意 0.5 在分子(旧)、0.8 在分母(新)。"),
    ]
    return v


# =============================================================================================
# 3.2.2 math-experiment-note
# =============================================================================================

MATH_NOTE = {"problems": 4, "cap_before_tokens": 1024, "cap_after_tokens": 4096, "rounds": 2, "passed": 0}


@card("math-experiment-note", title="延长生成不等于做对", section="3.2", kind="table",
      lead="一次数学题实验:输出上限放宽到 4 倍,两轮尝试后仍没有一份最终答案通过评分。这一批只能报告花了多少、为什么失败。")
def math_experiment_note(p: Params) -> View:
    d = MATH_NOTE
    o = dict(d, cap_ratio=d["cap_after_tokens"] / d["cap_before_tokens"],
             success_cost=cost.batch_success_cost(1.0, d["passed"]))
    v = View(outputs=o)
    v.stat("problems", "题目数", "道")
    v.stats.append(Stat("cap_before_tokens", "输出上限", o["cap_before_tokens"],
                        text=f"{o['cap_before_tokens']:,} → {o['cap_after_tokens']:,} token"))
    v.stat("cap_ratio", "上限放宽", "×", digits=0)
    v.stat("rounds", "尝试轮数", "轮")
    v.stat("passed", "通过评分的最终答案", "份", emphasis=True)
    v.stats.append(Stat("success_cost", "每个成功任务的成本", None, text="无定义(0 个成功)"))
    v.tables.append(Table(["实验记录", "内容"], [
        ["题目", f"{d['problems']} 道数学题,每题采样多份回答"],
        ["输出上限", f"{d['cap_before_tokens']:,} → {d['cap_after_tokens']:,} token"],
        ["尝试", f"{d['rounds']} 轮"],
        ["通过评分", f"{d['passed']} 份"],
        ["应报告", "消耗的资源与失败原因,而非成功成本"],
    ], title="实验记录(每题采样份数书中未给出,此处不列)"))
    v.tables.append(Table(["错误类型", "说明", "该调整什么"], [
        ["格式对,数值错", "输出结构合格,但解题算错", "解题过程 / 生成方式"],
        ["数值对,缺字段", "答案算对了,却缺少评分要的字段", "输出约束 / 格式要求"],
    ], title="检查答案时分开统计两类错误"))
    v.blocks.append(Block("diagrams/math-experiment-note.html", {}))
    return v


# =============================================================================================
# 3.2.3 agent-trace and agent-thinking-table
# =============================================================================================

# Measured totals of the thinking-mode repair task (the book's table).
TRACE_TOTAL_S = 76.510
TRACE_MODEL_S = 76.294
TRACE_TOOLS_S = 0.078
FIRST_ROUND_S = 36.37  # not printed: reconstructed from “约 47.5% / 23.8% / 40.1 s” (any of 36.36–36.38 fits)
# Per-round split: 示意 (the book gives only the totals); columns sum exactly to them.
TRACE_ROUNDS = [  # (outcome, model s, tools s, control s)
    ("输出截断", FIRST_ROUND_S, 0.0, 0.040),
    ("写文件", 19.50, 0.004, 0.035),
    ("运行测试", 13.20, 0.074, 0.033),
    ("结束", 7.224, 0.0, 0.030),
]
LANES = ["模型调用", "工具执行", "控制与交接"]


def trace_outputs() -> dict:
    ctrl = TRACE_TOTAL_S - TRACE_MODEL_S - TRACE_TOOLS_S
    return {"total_s": TRACE_TOTAL_S, "model_s": TRACE_MODEL_S, "tools_s": TRACE_TOOLS_S, "control_s": ctrl,
            "rounds": len(TRACE_ROUNDS), "model_pct": 100 * TRACE_MODEL_S / TRACE_TOTAL_S,
            "tools_pct": 100 * TRACE_TOOLS_S / TRACE_TOTAL_S,
            "round_model_s_sum": sum(r[1] for r in TRACE_ROUNDS),
            "round_tool_s_sum": sum(r[2] for r in TRACE_ROUNDS),
            "round_control_s_sum": sum(r[3] for r in TRACE_ROUNDS)}


def multi_lane(items: list[tuple[str, float, float]], name: str, role: str, text=None, **kw) -> dict:
    """A Gantt bar trace whose blocks sit on several lanes; hover gives each block's length."""
    t = gantt_trace("", [s for _, s, _ in items], [e for *_, e in items], name, role, text=text, **kw)
    t["y"] = [lane for lane, _, _ in items]
    t["hovertemplate"] = "%{y}:%{x:.3f} s(%{base:.3f} → %{customdata:.3f})<extra>" + name + "</extra>"
    return t


def cursor(t: float, y0: str, y1: str, label: str) -> dict:
    return {"type": "scatter", "mode": "lines+text", "x": [round(t, 3), round(t, 3)], "y": [y0, y1],
            "text": ["", label], "textposition": "bottom right", "name": "时间游标", "showlegend": False,
            "hoverinfo": "skip", "line": {"color": COLORS["accent"], "width": 2, "dash": "dot"},
            "textfont": {"color": COLORS["accent"], "size": 13}}


@card("agent-trace", title="代码任务轨迹 · 修复区间合并函数(思考模式开启)", section="3.2", kind="animation",
      lead="一个代码 Agent 修一个区间合并函数:四轮模型调用之间夹着写文件、跑测试。按 ▶ 沿 76.5 s 走一遍,看时间花在哪儿。")
def agent_trace(p: Params) -> View:
    o = trace_outputs()
    t = 0.0
    model, tools, ctrl, spans = [], [], [], []
    for n, (what, m, tl, c) in enumerate(TRACE_ROUNDS, 1):
        model.append(("模型调用", t, t + m))
        spans.append((t, t + m, f"第 {n} 轮模型({what})"))
        t += m
        if tl:
            tools.append(("工具执行", t, t + tl))
            spans.append((t, t + tl, f"第 {n} 轮工具"))
            t += tl
        ctrl.append(("控制与交接", t, t + c))
        spans.append((t, t + c, f"第 {n} 轮交接"))
        t += c
    labels = [f"{n}·{r[0]} {r[1]:.3f} s" for n, r in enumerate(TRACE_ROUNDS, 1)]
    data = [
        multi_lane(model, "模型调用", "decode", text=labels),
        multi_lane(tools, "工具执行", "tools"),
        multi_lane(ctrl, "控制与交接", "idle"),
        cursor(0, LANES[0], LANES[-1], "t = 0 s"),
    ]
    total = o["total_s"]
    lay = layout(axis("任务时间 (s)", range_=(0, total * 1.02)),
                 axis("", autorange="reversed", categoryorder="array", categoryarray=LANES),
                 height=280, barmode="overlay", margin=(96, 16, 16, 48))
    fig = figure(data, lay)
    nfr = 52
    frames, flabels = [], []
    for i in range(nfr):
        tt = total * i / (nfr - 1)
        what = next((s[2] for s in spans if s[0] <= tt < s[1]), "任务完成")
        frames.append({"data": [cursor(tt, LANES[0], LANES[-1], f"t = {tt:.1f} s · {what}")], "traces": [3]})
        flabels.append(f"{tt:.1f}")
    animate(fig, frames, flabels, duration=120, prefix="t (s) = ")
    lay["sliders"][0]["active"] = 0

    v = View(outputs=o, headline=f"任务总时间 {total:.3f} s,模型调用占 {o['model_pct']:.1f}%")
    v.stat("total_s", "任务总时间", "s", digits=3, emphasis=True)
    v.stat("model_s", "模型调用合计", "s", digits=3)
    v.stat("tools_s", "工具执行合计", "s", digits=3)
    v.stat("control_s", "控制与交接(差额)", "s", digits=3)
    v.stat("rounds", "模型轮数", "轮")
    v.stat("model_pct", "模型占比", "%", digits=1)
    v.stat("tools_pct", "工具占比", "%", digits=2)
    v.figures.append(Figure(fig, "代码任务轨迹(各轮拆分为示意)",
                            f"总 {total:.3f} s:模型 {o['model_s']:.3f} s,工具 {o['tools_s']:.3f} s,交接 {o['control_s']:.3f} s;"
                            "工具与交接的条在这个尺度上几乎看不见。", illustrative=True, animated=True))
    v.tables.append(Table(["项目", "耗时"], [
        ["任务总时间", f"{o['total_s']:.3f} s"], ["模型调用合计", f"{o['model_s']:.3f} s"],
        ["工具执行合计", f"{o['tools_s']:.3f} s"], ["控制与交接(差额)", f"{o['control_s']:.3f} s"]],
        title="实测合计"))
    rows = [[f"第 {n} 轮", what, f"{m:.3f} s" + ("(由 47.5% 反推)" if n == 1 else ""), f"{tl:.3f} s", f"{c:.3f} s"]
            for n, (what, m, tl, c) in enumerate(TRACE_ROUNDS, 1)]
    rows.append(["合计", "", f"{o['round_model_s_sum']:.3f} s", f"{o['round_tool_s_sum']:.3f} s", f"{o['round_control_s_sum']:.3f} s"])
    v.tables.append(Table(["轮次", "结果", "模型", "工具", "交接"], rows, title="各轮拆分(示意,列和等于实测合计)",
                          illustrative_cells={(r, c) for r in range(4) for c in (2, 3, 4)}))
    v.notes = [
        Note("书中只给四项合计;各轮的模型、工具和交接时长都没有印出,图中位置为示意。第 1 轮模型 36.37 s 由例题 3-2 的“约 47.5%”反推。", "illustrative"),
        Note("首轮输出被截断,这段等待同样算进任务时间。"),
    ]
    return v


THINKING = {
    "model_rounds_off": 12, "model_rounds_on": 4,
    "output_tokens_off": 765, "output_tokens_on": 2733,
    "model_time_s_off": 13.156, "model_time_s_on": 76.294,
    "tool_time_s_off": 0.476, "tool_time_s_on": 0.078,
    "check_pass_off": 315, "check_pass_on": 1013, "check_total_off": 1013, "check_total_on": 1013,
    "alias_pass_off": 1, "alias_pass_on": 710, "alias_total_off": 1013, "alias_total_on": 1013,
    "off_read_file": 1, "off_rewrite": 5, "off_run_tests": 6, "off_cache_hit_pct": 83.4,
}


@card("agent-thinking-table", title="思考模式关闭 / 开启", section="3.2", kind="table",
      aliases=("tab-agent-thinking",),
      lead="同一个修复任务,关掉思考跑了 12 轮仍没修好;打开思考 4 轮就让原定检查全过,但多加一项无别名检查就露了馅。")
def agent_thinking_table(p: Params) -> View:
    d = THINKING
    o = dict(d)
    o["off_rounds_sum"] = d["off_read_file"] + d["off_rewrite"] + d["off_run_tests"]
    o["alias_fail_on"] = d["alias_total_on"] - d["alias_pass_on"]
    o["ms_per_output_token_off"] = 1000 * d["model_time_s_off"] / d["output_tokens_off"]
    o["ms_per_output_token_on"] = 1000 * d["model_time_s_on"] / d["output_tokens_on"]
    o["check_pass_pct_off"] = 100 * d["check_pass_off"] / d["check_total_off"]
    o["alias_pass_pct_on"] = 100 * d["alias_pass_on"] / d["alias_total_on"]
    v = View(outputs=o)
    v.tables.append(Table(["观察", "思考模式关闭", "思考模式开启"], [
        ["模型调用轮数", d["model_rounds_off"], d["model_rounds_on"]],
        ["总输出 token", d["output_tokens_off"], d["output_tokens_on"]],
        ["模型调用实际耗时之和", f"{d['model_time_s_off']:.3f} s", f"{d['model_time_s_on']:.3f} s"],
        ["工具执行实际耗时之和", f"{d['tool_time_s_off']:.3f} s", f"{d['tool_time_s_on']:.3f} s"],
        ["返回值正确 + 输入不变", f"{d['check_pass_off']}/{d['check_total_off']}", f"{d['check_pass_on']:,}/{d['check_total_on']:,}"],
        ["额外检查:返回子列表无别名", f"{d['alias_pass_off']}/{d['alias_total_off']:,}", f"{d['alias_pass_on']}/{d['alias_total_on']:,}"],
        ["每输出 token 的模型时间(推算)", f"{o['ms_per_output_token_off']:.1f} ms", f"{o['ms_per_output_token_on']:.1f} ms"],
    ], title="同一修复任务的两次运行"))
    v.stats.append(Stat("off_rounds_sum", "关闭时 12 轮的构成", o["off_rounds_sum"],
                        text=f"读文件 {d['off_read_file']} + 改写 {d['off_rewrite']} + 跑测试 {d['off_run_tests']} = {o['off_rounds_sum']}"))
    v.stat("off_cache_hit_pct", "关闭时缓存命中率", "%", digits=1, approx=True)
    v.stat("check_pass_pct_off", "关闭时原定检查通过率", "%", digits=1)
    v.stat("alias_pass_pct_on", "开启时无别名检查通过率", "%", digits=1)
    v.stat("alias_fail_on", "开启时仍与输入共享子列表", "例", emphasis=True)
    cats = ["关闭 · 原定检查", "开启 · 原定检查", "关闭 · 无别名", "开启 · 无别名"]
    passed = [d["check_pass_off"], d["check_pass_on"], d["alias_pass_off"], d["alias_pass_on"]]
    total = [d["check_total_off"], d["check_total_on"], d["alias_total_off"], d["alias_total_on"]]
    fig = figure([
        bar(cats, passed, "通过", "decode", horizontal=True, text=[f"{a}/{b}" for a, b in zip(passed, total)]),
        bar(cats, [b - a for a, b in zip(passed, total)], "未通过", "backlog", horizontal=True),
    ], layout(axis("用例数(共 1,013)", range_=(0, 1013)), axis("", autorange="reversed"),
              barmode="stack", height=260, margin=(130, 16, 16, 48)))
    v.figures.append(Figure(fig, "检查通过数",
                            f"关闭思考:原定检查 {d['check_pass_off']}/1013,无别名 {d['alias_pass_off']}/1013;开启:"
                            f"原定检查 {d['check_pass_on']}/1013,无别名 {d['alias_pass_on']}/1013,另 {o['alias_fail_on']} 例仍共享子列表。"))
    v.notes = [
        Note("每输出 token 的模型时间(13.156 s ÷ 765、76.294 s ÷ 2,733)是本页推算,书中未印。"),
        Note("完成标准必须写成可以执行的检查:原定两项全过,不等于任务完成。", "warn"),
    ]
    return v


# =============================================================================================
# 3.2.3 eg-3-2 (Amdahl)
# =============================================================================================

TARGETS = {"first_round": "首轮模型调用", "tools": "全部工具执行"}


class AmdahlParams(Params):
    target: Literal["first_round", "tools"] = choice("first_round", TARGETS, label="加速哪一部分")
    speedup: float = slider(2, ge=1, le=20, step=0.5, label="局部加速倍数 s", unit="×")
    total_s: float = slider(TRACE_TOTAL_S, ge=TRACE_TOTAL_S, le=TRACE_TOTAL_S, step=0.001, label="任务总时间(实测,固定)", unit="s")
    first_round_s: float = slider(FIRST_ROUND_S, ge=FIRST_ROUND_S, le=FIRST_ROUND_S, step=0.01,
                                  label="首轮模型时间(由 47.5% 反推,固定)", unit="s")
    tools_s: float = slider(TRACE_TOOLS_S, ge=TRACE_TOOLS_S, le=TRACE_TOOLS_S, step=0.001, label="工具合计(实测,固定)", unit="s")


def amdahl_outputs(total: float, part: float, s: float) -> dict:
    """eg-3-2's outputs for a part of ``part`` seconds sped up s×; reused by 练习 3-4."""
    f = part / total
    new = amdahl.new_time(total, part, s)
    return {"part_s": part, "part_pct": 100 * f, "rest_s": total - part, "new_total_s": new,
            "saved_s": total - new, "saved_pct": 100 * (total - new) / total,
            "overall_speedup": amdahl.speedup(f, s), "cap_speedup": amdahl.limit(f)}


@card("eg-3-2", title="Amdahl:加速首轮能省多少", label="例题 3-2", section="3.2", kind="calculator",
      params=AmdahlParams, badges=(("练习 3-4 后半", "ex-3-4"),),
      lead="76.510 s 的任务里挑一部分加速:首轮模型调用,或全部工具。局部快了 s 倍,整体能快多少,上限又在哪儿?")
def eg_3_2(p: AmdahlParams) -> View:
    part = p.first_round_s if p.target == "first_round" else p.tools_s
    o = amdahl_outputs(p.total_s, part, p.speedup)
    role = "decode" if p.target == "first_round" else "tools"
    v = View(outputs=o, headline=f"{TARGETS[p.target]} × {p.speedup:g}:{p.total_s:.3f} s → {o['new_total_s']:.2f} s")
    v.stat("part_s", f"被加速部分({TARGETS[p.target]})", "s", digits=3,
           book="由 47.5% 反推" if p.target == "first_round" else "")
    v.stat("part_pct", "占比 f", "%", digits=1 if p.target == "first_round" else 2, approx=p.target == "first_round")
    v.stat("rest_s", "不变的其余部分", "s", digits=1 if p.target == "first_round" else 3, approx=p.target == "first_round")
    v.stat("new_total_s", "加速后总时间", "s", digits=2 if p.target == "first_round" else 3, emphasis=True)
    v.stat("saved_s", "节省", "s", digits=3)
    v.stat("saved_pct", "节省比例", "%", digits=1 if o["saved_pct"] >= 1 else 2, emphasis=True)
    v.stat("overall_speedup", "整体加速", "×", digits=3)
    v.stat("cap_speedup", "Amdahl 上限 1/(1−f)", "×", digits=3)
    cats = ["加速前", "加速后"]
    f1 = figure([
        bar(cats, [part, part / p.speedup], TARGETS[p.target], role, horizontal=True,
            text=[f"{part:.3f} s", f"{part / p.speedup:.3f} s"]),
        bar(cats, [o["rest_s"], o["rest_s"]], "其余(不变)", "idle", horizontal=True,
            text=[f"{o['rest_s']:.2f} s"] * 2),
    ], layout(axis("时间 (s)", range_=(0, p.total_s * 1.02)), axis("", autorange="reversed"),
              barmode="stack", height=220, margin=(70, 16, 16, 48)))
    grid = [1 + 19 * i / 60 for i in range(61)]
    cap = o["cap_speedup"]
    f2 = figure([
        line(grid, [amdahl.speedup(o["part_pct"] / 100, s) for s in grid], "整体加速", role),
        points([p.speedup], [o["overall_speedup"]], f"s = {p.speedup:g}", "accent", size=11),
    ], with_refs(layout(axis("局部加速倍数 s", range_=(1, 20)), axis("整体加速 (×)"), height=280),
                 hline(cap, f"上限 1/(1−f) = {cap:.3f}", "backlog", dash="dash")))
    v.figures = [
        Figure(f1, "加速前后的总时间",
               f"{TARGETS[p.target]}从 {part:.3f} s 变为 {part / p.speedup:.3f} s,其余 {o['rest_s']:.2f} s 不变;总时间 {o['new_total_s']:.3f} s。"),
        Figure(f2, "整体加速随局部倍数变化",
               f"f = {o['part_pct']:.2f}% 时,s 再大整体加速也不超过 {cap:.3f}×;当前 s = {p.speedup:g} 得 {o['overall_speedup']:.3f}×。"),
    ]
    v.notes = [
        Note("$T_{new} = (1-f)T + fT/s$,整体加速 $1/((1-f)+f/s)$,上限 $1/(1-f)$。", "formula"),
        Note("书中没有印首轮时间;取 36.37 s 才能同时得到“约 47.5%”“约 23.8%”“其余约 40.1 s”(36.36–36.38 s 都可以,用 0.475 × 76.51 会得出 40.2 s)。"),
        Note("收益被这一部分原来所占的比例封顶:工具只占约 0.1%,加速再多也几乎看不出来。"),
    ]
    return v


# =============================================================================================
# 3.2.4 fig-3-11 (tool dependency, critical path)
# =============================================================================================

MODES = {"parallel": "并行(A ∥ B,工具相互独立)", "serial": "串行(A → B,B 等 A)"}


class ToolDagParams(Params):
    model1_s: float = slider(2, ge=0.5, le=30, step=0.5, label="第一次模型调用", unit="s")
    tool_a_s: float = slider(6, ge=0, le=60, step=0.5, label="工具 A", unit="s")
    tool_b_s: float = slider(10, ge=0, le=60, step=0.5, label="工具 B", unit="s")
    model2_s: float = slider(3, ge=0.5, le=30, step=0.5, label="第二次模型调用", unit="s")
    mode: Literal["parallel", "serial"] = choice("parallel", MODES, label="突出显示的调度")
    state_gib: float = slider(1, ge=0.25, le=8, step=0.25, label="等工具时占用的状态 M", unit="GiB")
    n_tasks: int = slider(1, ge=1, le=100, step=1, label="同时等待的任务数", unit="个")


def tool_outputs(m1: float, a: float, b: float, m2: float, mode: str, state: float, n: int
                 ) -> tuple[dict, dag.Schedule, dag.Schedule]:
    """fig-3-11's outputs; reused by 练习 3-4."""
    ser = dag.model_tools_model(m1, a, b, m2, dependent=True)
    par = dag.model_tools_model(m1, a, b, m2, dependent=False)
    wait_ser, wait_par = a + b, max(a, b)
    o = {"serial_s": ser.length, "parallel_s": par.length,
         "critical_path_s": par.length if mode == "parallel" else ser.length,
         "saved_s": ser.length - par.length, "tool_work_s": a + b,
         "wait_s": wait_par if mode == "parallel" else wait_ser,
         "gib_s_serial": dag.wait_area(n, state, wait_ser), "gib_s_parallel": dag.wait_area(n, state, wait_par),
         "peak_gib": n * state}
    o["gib_s"] = o["gib_s_parallel"] if mode == "parallel" else o["gib_s_serial"]
    return o, ser, par


NODE_NAMES = {"model1": "模型", "tool_a": "工具 A", "tool_b": "工具 B", "model2": "模型"}


@card("fig-3-11", title="工具有没有依赖", label="图 3-11 / 3-12", section="3.2", kind="animation",
      params=ToolDagParams, aliases=("fig-3-12",), badges=(("练习 3-4 设定", "ex-3-4"),),
      lead="模型 2 s → 工具 A 6 s、工具 B 10 s → 模型 3 s。两个工具一个接一个跑,还是同时跑?关键路径决定任务最早何时完成,等待时长决定状态占多久。")
def fig_3_11(p: ToolDagParams) -> View:
    o, ser, par = tool_outputs(p.model1_s, p.tool_a_s, p.tool_b_s, p.model2_s, p.mode, p.state_gib, p.n_tasks)
    sel = par if p.mode == "parallel" else ser
    v = View(outputs=o, headline=f"串行 {o['serial_s']:g} s · 并行 {o['parallel_s']:g} s · 工具总工作量 {o['tool_work_s']:g} s")
    v.stat("serial_s", "串行总时间 m₁+a+b+m₂", "s")
    v.stat("parallel_s", "并行总时间 m₁+max(a,b)+m₂", "s")
    v.stat("critical_path_s", f"关键路径({'并行' if p.mode == 'parallel' else '串行'})", "s", emphasis=True)
    v.stat("saved_s", "并行省下", "s")
    v.stat("tool_work_s", "工具总工作量 a+b(不变)", "s")
    v.stat("wait_s", "等工具的时长", "s")
    v.stat("gib_s_serial", "状态面积 · 串行", "GiB·s")
    v.stat("gib_s_parallel", "状态面积 · 并行", "GiB·s")
    v.stat("gib_s", "状态面积 · 选中调度", "GiB·s", emphasis=True)
    v.stat("peak_gib", "同时占用的状态 n·M", "GiB")

    # DAG (SVG), drawn in the form `mode` selects
    crit = set(sel.critical)
    crit_edges = {(u, w) for u, w in zip(sel.critical, sel.critical[1:])}
    if p.mode == "serial":
        pos = {"model1": (110, 110), "tool_a": (350, 110), "tool_b": (590, 110), "model2": (830, 110)}
        edges = [("model1", "tool_a"), ("tool_a", "tool_b"), ("tool_b", "model2")]
    else:
        pos = {"model1": (130, 110), "tool_a": (470, 45), "tool_b": (470, 175), "model2": (810, 110)}
        edges = [("model1", "tool_a"), ("model1", "tool_b"), ("tool_a", "model2"), ("tool_b", "model2")]
    dur = {"model1": p.model1_s, "tool_a": p.tool_a_s, "tool_b": p.tool_b_s, "model2": p.model2_s}
    nodes = [dict(id=k, x=x, y=y, name=NODE_NAMES[k], dur=dur[k], crit=k in crit,
                  role="decode" if k.startswith("model") else "tools",
                  slack=sel.slack[k], start=sel.start[k]) for k, (x, y) in pos.items()]
    v.blocks.append(Block("diagrams/fig-3-11.html", {
        "nodes": nodes, "edges": [dict(x1=pos[u][0], y1=pos[u][1], x2=pos[w][0], y2=pos[w][1], crit=(u, w) in crit_edges)
                                  for u, w in edges],
        "colors": COLORS, "mode": p.mode, "modes": MODES, "length": sel.length,
        "critical": " → ".join(NODE_NAMES[k] for k in sel.critical), "critical_ids": " ".join(sel.critical)}))

    # Gantt: serial and parallel rows on a shared axis, state band under the tool spans
    m1, a, b, m2 = p.model1_s, p.tool_a_s, p.tool_b_s, p.model2_s
    L = ["串行", "串行 · 状态", "并行", "并行 · 工具 A", "并行 · 状态"]
    on_s, on_p = (1.0, 0.4) if p.mode == "serial" else (0.4, 1.0)
    models = [("串行", 0, m1), ("串行", m1 + a + b, o["serial_s"]), ("并行", 0, m1), ("并行", m1 + max(a, b), o["parallel_s"])]
    tools = [("串行", m1, m1 + a), ("串行", m1 + a, m1 + a + b), ("并行", m1, m1 + b), ("并行 · 工具 A", m1, m1 + a)]
    states = [("串行 · 状态", m1, m1 + a + b), ("并行 · 状态", m1, m1 + max(a, b))]
    op = lambda items: [on_s if it[0].startswith("串行") else on_p for it in items]
    data = [
        multi_lane(models, "模型调用", "decode", text=["模型", "模型", "模型", "模型"]),
        multi_lane(tools, "工具", "tools", text=["A", "B", "B", "A"]),
        multi_lane(states, "状态驻留(等工具)", "state",
                   text=[f"{o['peak_gib']:g} GiB × {a + b:g} s = {o['gib_s_serial']:g} GiB·s",
                         f"{o['peak_gib']:g} GiB × {max(a, b):g} s = {o['gib_s_parallel']:g} GiB·s"]),
    ]
    for tr, items in zip(data, (models, tools, states)):
        tr["marker"]["opacity"] = op(items)
    data.append(cursor(0, L[0], L[-1], "t = 0 s"))
    xmax = o["serial_s"]
    lay = layout(axis("时间 (s)", range_=(0, xmax * 1.03)),
                 axis("", autorange="reversed", categoryorder="array", categoryarray=L),
                 height=320, barmode="overlay", margin=(110, 16, 16, 48))
    fig = figure(data, lay)
    nfr = min(60, int(xmax / 0.5) + 1)
    frames, labels = [], []
    for i in range(nfr):
        t = xmax * i / (nfr - 1) if nfr > 1 else 0
        s_done = "串行完成" if t >= o["serial_s"] - 1e-9 else ""
        p_done = "并行完成" if t >= o["parallel_s"] - 1e-9 else ""
        msg = f"t = {t:.1f} s" + (f" · {p_done}" if p_done else "") + (f" · {s_done}" if s_done else "")
        frames.append({"data": [cursor(t, L[0], L[-1], msg)], "traces": [3]})
        labels.append(f"{t:.1f}")
    animate(fig, frames, labels, duration=150, prefix="t (s) = ")
    lay["sliders"][0]["active"] = 0
    v.figures.append(Figure(fig, "串行与并行的时间线",
                            f"串行 {o['serial_s']:g} s,并行 {o['parallel_s']:g} s,工具总工作量都是 {o['tool_work_s']:g} s;"
                            f"等工具时占 {o['peak_gib']:g} GiB,状态面积串行 {o['gib_s_serial']:g}、并行 {o['gib_s_parallel']:g} GiB·s。",
                            animated=True))
    v.notes = [
        Note("串行路径时间相加,独立分支同时开始,汇合点等较慢的一支;累计最长的路径即关键路径。", "formula"),
        Note("状态只在等工具返回时计入(模型调用期间不计),多个任务同时等待时按任务累加:面积 = n·M·等待时长。"),
        Note("书中把两张图放在同一个标题下,本卡不区分哪张是图 3-11、哪张是图 3-12。"),
    ]
    return v


# =============================================================================================
# 3.2.4 fig-3-13 (branches on a shared prefix)
# =============================================================================================

class BranchParams(Params):
    h0_tokens: int = slider(2000, ge=0, le=32000, step=100, label="共享前缀 H₀", unit="token", illustrative=True)
    n_branches: int = slider(3, ge=1, le=16, step=1, label="分支数 k", illustrative=True)
    branch_tokens: int = slider(500, ge=0, le=8000, step=50, label="每个分支长度 h", unit="token", illustrative=True)
    kv_kib_per_token: float = kv_param()
    running_branches: int | None = slider(None, ge=0, le=16, step=1, label="仍在运行的分支(点图中分支切换)",
                                          placeholder="全部")


@card("fig-3-13", title="分支共享前缀", label="图 3-13", section="3.2", kind="diagram", params=BranchParams,
      lead="一段共享前缀 H₀ 分出 k 个分支。前缀只存一份时总状态是 c_KV(H₀ + Σh);并行跑分支缩短关键路径,却让所有分支的状态同时驻留。点分支可切换它是否仍在运行。")
def fig_3_13(p: BranchParams) -> View:
    hs = [p.branch_tokens] * p.n_branches
    b = prefix.branch_state(p.h0_tokens, hs)
    c = p.kv_kib_per_token
    running = p.n_branches if p.running_branches is None else min(p.running_branches, p.n_branches)
    now_tokens = p.h0_tokens + running * p.branch_tokens
    o = {"shared_tokens": b.shared_tokens, "shared_mib": mib(b.shared_tokens, c),
         "unshared_tokens": b.unshared_tokens, "unshared_mib": mib(b.unshared_tokens, c),
         "saved_mib": mib(b.unshared_tokens - b.shared_tokens, c),
         "serial_peak_mib": mib(b.serial_peak_tokens, c),
         "running_branches_now": running, "resident_now_mib": mib(now_tokens, c)}
    v = View(outputs=o, headline=f"H₀ = {p.h0_tokens:,} · k = {p.n_branches} · h = {p.branch_tokens:,} token(示意)")
    v.stat("shared_tokens", "共享时总 token H₀ + Σh", "token", illustrative=True)
    v.stat("shared_mib", "共享时总状态", "MiB", digits=1, emphasis=True, illustrative=True)
    v.stat("unshared_tokens", "不共享 Σ(H₀ + h)", "token", illustrative=True)
    v.stat("unshared_mib", "不共享时总状态", "MiB", digits=1, illustrative=True)
    v.stat("saved_mib", "共享省下", "MiB", digits=1, illustrative=True)
    v.stat("serial_peak_mib", "串行(一次一支)峰值", "MiB", digits=1, illustrative=True)
    v.stat("resident_now_mib", f"当前驻留({running}/{p.n_branches} 支运行中)", "MiB", digits=1, illustrative=True)
    # tree geometry
    X0, W = 40, 880
    span = max(p.h0_tokens + p.branch_tokens, 1)
    trunk_w = W * 0.62 * p.h0_tokens / span if span else 0
    br_w = W * 0.62 * p.branch_tokens / span if span else 0
    trunk_w = max(trunk_w, 6)
    br_w = max(br_w, 6)
    top, gap = 30, 40
    height = top * 2 + gap * max(p.n_branches - 1, 0) + 20
    mid = top + gap * (p.n_branches - 1) / 2
    bx = X0 + trunk_w + 60
    branches = []
    for i in range(p.n_branches):
        y = top + gap * i
        on = i < running
        # clicking a running branch finishes it (and those below); clicking a finished one restarts up to it
        target = i if on else i + 1
        branches.append(dict(i=i + 1, y=y, on=on, target=target))
    v.blocks.append(Block("diagrams/fig-3-13.html", {
        "x0": X0, "trunk_w": trunk_w, "br_w": br_w, "bx": bx, "mid": mid, "height": height,
        "branches": branches, "colors": COLORS, "h0": p.h0_tokens, "h": p.branch_tokens,
        "shared_mib": o["shared_mib"], "now_mib": o["resident_now_mib"], "running": running, "k": p.n_branches}))
    v.notes = [
        Note(f"共享:$c_{{KV}}(H_0 + \\sum h_i)$;不共享:$c_{{KV}}\\sum(H_0 + h_i)$;$c_{{KV}}$ = {c:g} KiB/token(Qwen3-8B)。", "formula"),
        Note("H₀、k、h 都是示意长度(书中注明“长度为示意”);只有 c_KV 是书中数值。", "illustrative"),
        Note("并行跑分支缩短关键路径,也让更多分支的状态同时占内存;串行一次只留 H₀ + h。"),
    ]
    return v


# =============================================================================================
# 3.2.4 fig-3-14 (CED)
# =============================================================================================

class CedParams(Params):
    input_tokens: int = slider(8192, ge=1, le=131072, step=1, label="未命中缓存的提示 P", unit="token", log=True,
                               illustrative=True)
    output_tokens: int = slider(256, ge=1, le=8192, step=1, label="输出 G", unit="token", illustrative=True)
    encoder_layers: int = slider(20, ge=20, le=20, step=1, label="编码器层数(固定)")
    decoder_layers: int = slider(20, ge=20, le=20, step=1, label="解码器层数(固定)")
    resend_tokens: int = slider(128, ge=128, le=128, step=1, label="重新送入解码器的提示末尾(固定)", unit="token")


@card("fig-3-14", title="负载推动结构:V4.1 Flash 的 CED", label="图 3-14", section="3.2", kind="chart",
      params=CedParams,
      lead="Agent 请求常是“前缀未命中、输入长、输出短”。V4.1 Flash 让大部分提示只走 20 层编码器,末尾最多 128 token 再进 20 层解码器。只比专家层,提示的工作量差多少?")
def fig_3_14(p: CedParams) -> View:
    L = p.encoder_layers + p.decoder_layers
    P, G = p.input_tokens, p.output_tokens
    do = prefix.decoder_only_prompt_work(P, L)
    ced = prefix.ced_prompt_work(P, p.encoder_layers, p.decoder_layers, p.resend_tokens)
    dec = prefix.decode_work(G, L)
    o = {"prompt_work_decoder_only": do, "prompt_work_ced": ced, "prompt_ratio": ced / do,
         "prompt_saved_pct": 100 * (1 - ced / do), "decode_work_both": dec,
         "total_ratio": (ced + dec) / (do + dec)}
    v = View(outputs=o, headline=f"P = {P:,} · G = {G:,}(示意)")
    v.stat("prompt_work_decoder_only", f"纯解码器 {L}P", "token·层", illustrative=True)
    v.stat("prompt_work_ced", f"CED {p.encoder_layers}P + {p.decoder_layers}·min(P,{p.resend_tokens})", "token·层", illustrative=True)
    v.stat("prompt_ratio", "提示部分 CED/纯解码器", "×", digits=3, emphasis=True, illustrative=True)
    v.stat("prompt_saved_pct", "提示部分省下", "%", digits=1, illustrative=True)
    v.stat("decode_work_both", f"输出部分(两者相同){L}(G−1)", "token·层", illustrative=True)
    v.stat("total_ratio", "含输出的总比", "×", digits=3, illustrative=True)
    grid = sorted({round(2 ** (17 * i / 59)) for i in range(60)} | {128, P})
    f1 = figure([
        line(grid, [prefix.decoder_only_prompt_work(x, L) for x in grid], f"纯解码器 {L}P", "prefill"),
        line(grid, [prefix.ced_prompt_work(x, p.encoder_layers, p.decoder_layers, p.resend_tokens) for x in grid],
             "CED", "decode", dash="dash"),
        points([P, P], [do, ced], f"当前 P = {P:,}", "accent", size=10),
    ], with_refs(layout(axis("提示 token 数 P(对数)", log=True), axis("专家层工作量(token·层,对数)", log=True), height=320),
                 vline(p.resend_tokens, f"P = {p.resend_tokens}", log=True)))
    f2 = figure([
        bar(["纯解码器", "CED"], [do, ced], "提示(prefill)", "prefill"),
        bar(["纯解码器", "CED"], [dec, dec], "输出(decode)", "decode"),
    ], layout(axis(""), axis("专家层工作量(token·层)"), barmode="stack", height=300))
    v.figures = [
        Figure(f1, "提示工作量随 P 变化",
               f"P ≤ {p.resend_tokens} 时两条线重合,之后 CED 的比值趋向 1/2;P = {P:,} 时 {ced:,} 对 {do:,}({o['prompt_ratio']:.3f})。",
               illustrative=True),
        Figure(f2, "加上输出部分",
               f"输出 {G:,} token 两者都走全部 {L} 层({dec:,});合计比 {o['total_ratio']:.3f}。", illustrative=True),
    ]
    v.notes = [
        Note("工作量单位是“一个 token 经过一层专家层”;两种结构的 top-k 相同,所以与专家层 FLOPs 成正比。注意力等其他层不在比较之内。", "formula"),
        Note("P 与 G 的默认值是示意;书中只给公式 $40P$ 对 $20P + 20\\min(P,128)$。V4.1 的结构细节见第 2 章。", "illustrative"),
    ]
    return v
