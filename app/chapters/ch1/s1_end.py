"""Chapter 1 end matter: 谬误与陷阱 (four fallacies) and 本章数字速查 (Qwen3-8B quick numbers and the
lower-bound calculator built on them)."""
from __future__ import annotations

import math

from ...calculators import decode, roofline
from ...calculators.model_config import shape_of, weight_bytes
from ...cards import Block, Figure, Note, Params, Stat, Table, View, card, choice, slider
from ...params_domain import gpu_choice
from ...charts import axis, bar, figure, layout
from ...data import gpu, gpu_options, model_config
from ...format import num
from ...calculators.roofline import step_outputs
from ..shared.ch1 import GpuId, StepParams, effective_rates

GIB = 2**30
KIB = 2**10
MIB = 2**20
WORKSPACE_BYTES = 2 * GIB        # fallacy 2: workspace + runtime reserve per card (catalog value)


def _qwen3():
    return shape_of(model_config("qwen3-8b"))


# ---------------------------------------------------------------------------------------------
# 谬误与陷阱
# ---------------------------------------------------------------------------------------------


class FallacyParams(Params):
    context_tokens: int = slider(2048, ge=128, le=32768, step=128, label="每请求上下文(误区二用)",
                                 unit="token", illustrative=True)


@card("fallacies", title="谬误与陷阱 · 四个常见误区", section="1.end", kind="diagram", params=FallacyParams,
      lead="四个听上去很自然的判断,每一个都能用本章的数字拆穿。点开每张卡片看反驳和证据。")
def fallacies(p: FallacyParams) -> View:
    # ① compute × 2 on 例题 1-1
    base = StepParams()
    bw, peak = effective_rates(base)
    n = base.params_billion * 1e9
    s1 = step_outputs(n, base.bytes_per_param, base.batch, bw, peak, base.target_ms)
    s2 = step_outputs(n, base.bytes_per_param, base.batch, bw, 2 * peak, base.target_ms)
    # ② the real 70B in 8-bit on one H100, plus KV
    s70 = shape_of(model_config("deepseek-r1-distill-llama-70b"))
    h100 = gpu("h100-sxm")
    w8 = weight_bytes(s70, "w8-g128")
    kv = decode.kv_bytes(s70, p.context_tokens)
    free = h100.mem_bytes - w8
    fit = max(0, math.floor((free - WORKSPACE_BYTES) / kv))
    b_ceil = math.ceil(roofline.b_star(base.bytes_per_param, bw, peak))
    o = {
        "compute_x2_t_step_ms": s2["t_step_ms"], "compute_x2_speedup": s1["t_step_ms"] / s2["t_step_ms"],
        "free_after_weights_gb": free / 1e9, "kv_per_request_gb": kv / 1e9, "requests_fit": fit,
        "kv_for_b_star_gb": b_ceil * kv / 1e9,
    }
    items = [
        {"id": "compute", "claim": "峰值算力翻倍,执行速度就翻倍",
         "rebuttal": "先看瓶颈在哪一项。例题 1-1 里读权重的下界远大于计算下界,算力翻倍只缩短了本来就很短的那一段;"
                     "如果只加速了整体中的一部分,还得用 Amdahl 定律算收益上限。",
         "facts": [f"算力 ×2 后单步下界仍是 {o['compute_x2_t_step_ms']:.2f} ms",
                   f"加速比 {o['compute_x2_speedup']:.3f}×"],
         "links": [("例题 1-1", "eg-1-1"), ("Amdahl 定律", "amdahl-team")]},
        {"id": "memory", "claim": "显存放得下权重,就能支持目标并发",
         "rebuttal": "权重只是常驻数据的一部分:每个请求的上下文状态、计算工作区和运行时预留也要占显存,多卡部署还要一张一张地核算。",
         "facts": [f"H100 放下 8 比特 70B 权重后剩 {o['free_after_weights_gb']:.2f} GB",
                   f"每请求 {p.context_tokens} token 的 KV 约 {o['kv_per_request_gb']:.3g} GB(示意上下文)",
                   f"再留 2 GiB 工作区,只容得下 {fit} 个请求",
                   f"B* ≈ {b_ceil} 个请求的 KV 要 {o['kv_for_b_star_gb']:.1f} GB"],
         "links": [("图 1-7 显存预算", "fig-1-7")]},
        {"id": "faster", "claim": "比旧实现快三成,优化就成功了",
         "rebuttal": "不知道极限在哪,就分不清这三成是已经逼近上限,还是离上限差着一个数量级。先算出下界,再按 1.3.4 的顺序查差距是漏项还是开销。",
         "facts": ["Qwen3-8B 单请求实测 26.5 ms,下界 8.62 ms:还差约三倍"],
         "links": [("差距分析", "gap-analysis")]},
        {"id": "throughput", "claim": "吞吐提高,每个用户就等得更短",
         "rebuttal": "批内复用摊薄的是每个输出分到的读取开销;每个请求照样要排队、照样要等整批算完一步。吞吐和响应时间要一起报。",
         "facts": [f"例题 1-1:B = 8 时吞吐 {step_outputs(n, 1, 8, bw, peak, 10)['throughput_tok_s']:.0f} token/s,"
                   f"整批一步仍是 {s1['t_step_ms']:.2f} ms"],
         "links": [("图 1-10", "fig-1-10"), ("图 1-13 / 1-14", "fig-1-13")]},
    ]
    v = View(outputs=o)
    v.blocks.append(Block("diagrams/fallacies.html", {"items": items}))
    v.stat("compute_x2_t_step_ms", "误区一 · 算力 ×2 后单步下界", "ms", digits=2)
    v.stat("compute_x2_speedup", "误区一 · 加速比", "×", digits=3)
    v.stat("free_after_weights_gb", "误区二 · 放下权重后剩余", "GB", digits=2)
    v.stats.append(Stat("kv_per_request_gb", "误区二 · 每请求 KV", o["kv_per_request_gb"], "GB", sig=3, illustrative=True))
    v.stats.append(Stat("requests_fit", "误区二 · 还能容纳的请求数", fit, "个", illustrative=True))
    v.stats.append(Stat("kv_for_b_star_gb", "误区二 · 148 个请求的 KV", o["kv_for_b_star_gb"], "GB", sig=3, illustrative=True))
    v.notes = [
        Note(f"误区二的上下文长度({p.context_tokens} token)和 2 GiB 工作区是示意值,书中只说“远装不下 148 条请求的 KV”。", "illustrative"),
    ]
    return v


# ---------------------------------------------------------------------------------------------
# Qwen3-8B 的关键数字
# ---------------------------------------------------------------------------------------------


@card("tab-qwen3-8b", title="Qwen3-8B 的关键数字", section="1.end", kind="table",
      lead="BF16 权重、激活和 KV,并发 1。prefill 一次处理全部已有输入并给出第一个输出;decode 每次只送入一个新 token,靠已存的 KV 接着生成。")
def tab_qwen3_8b(p: Params) -> View:
    q = decode.quick_numbers(_qwen3())
    o = {
        "n_params": q.n_params, "weights_gb": q.weights_bytes / 1e9,
        "kv_per_token_kib": q.kv_per_token_bytes / KIB, "kv_context_mib": q.kv_context_bytes / MIB,
        "kv_context_gb": q.kv_context_bytes / 1e9, "prefill_tflop": q.prefill_flops / 1e12,
        "decode_gflop": q.decode_flops / 1e9, "decode_weight_read_gb": q.decode_weight_read_bytes / 1e9,
        "decode_kv_read_gb": q.decode_kv_read_bytes / 1e9,
    }
    rows = [
        ["完整 BF16 权重", f"{o['weights_gb']:.2f} GB", "判断加载要多少显存"],
        ["每个上下文 token 的全模型 KV", f"{o['kv_per_token_kib']:.0f} KiB", "× 上下文长度 = 单请求的 KV 容量"],
        ["2048 token 上下文的 KV", f"{o['kv_context_mib']:.0f} MiB", f"约 {o['kv_context_gb']:.3f} GB,随独立请求数线性增加"],
        ["2048 token prefill 的矩阵运算", f"{o['prefill_tflop']:.2f} TFLOP", "÷ 矩阵算力 = 计算时间下界"],
        ["一步 decode 的矩阵运算", f"{o['decode_gflop']:.2f} GFLOP", "只输入一个 token,另外要访问已有上下文"],
        ["一步 decode 的主要权重读取", f"{o['decode_weight_read_gb']:.2f} GB", "权重读一遍;嵌入表只读当前 token 那一行"],
        ["一步 decode 的旧 KV 读取", f"{o['decode_kv_read_gb']:.3f} GB", "每份上下文的 KV 读一遍"],
    ]
    v = View(outputs=o, headline=f"Qwen3-8B · {q.n_params:,} 个参数 · BF16 · 并发 1")
    v.tables.append(Table(columns=["模型需求", "数值", "怎么用"], rows=rows,
                          note="全部由公开 config.json 的形状算出:36 层、hidden 4096、32 个 query 头、8 个 KV 头、head_dim 128、FFN 12288、词表 151936。"))
    v.notes = [
        Note("约定:prefill 对全部 2048 个 token 跑每个线性层,LM head 只算最后一个 token,因果注意力里第 i 个 token 看 i 个 token;"
             "decode 在 2048 个缓存 token 上做注意力、LM head 算一次;每步权重读取算整个模型,但嵌入表只读一行。"),
        Note("$F_{decode} = 2(L_{lin} + LM) + 4 \\cdot 36 \\cdot 32 \\cdot 128 \\cdot n_{ctx}$;"
             "$F_{prefill} = 2 L_{lin} n + 2 LM + 4 \\cdot 36 \\cdot 32 \\cdot 128 \\cdot n(n+1)/2$", "formula"),
    ]
    return v


# ---------------------------------------------------------------------------------------------
# 用速查数字估下界
# ---------------------------------------------------------------------------------------------


class QuickParams(Params):
    gpu: GpuId = gpu_choice("rtx-pro-6000", gpu_options(), label="加速器")
    context_tokens: int = slider(2048, ge=128, le=32768, step=128, label="decode 上下文长度", unit="token")


@card("quick-bounds", title="用速查数字估下界", section="1.end", kind="calculator", params=QuickParams,
      badges=(("速查表", "tab-qwen3-8b"),),
      lead="把速查表里的数字除以算力或带宽,就得到 prefill 与 decode 的时间下界。换加速器、改上下文看哪一项变。")
def quick_bounds(p: QuickParams) -> View:
    s = _qwen3()
    g = gpu(p.gpu)
    q = decode.quick_numbers(s, context=p.context_tokens, prefill_tokens=2048)
    d = decode.tpot_bound(q.decode_flops, q.decode_weight_read_bytes, q.decode_kv_read_bytes, 1, g.bw_bytes_s, g.flops)
    o = {
        "prefill_tflop": q.prefill_flops / 1e12, "prefill_compute_ms": q.prefill_flops / g.flops * 1e3,
        "decode_gflop": q.decode_flops / 1e9, "decode_read_gb": q.decode_read_bytes / 1e9,
        "decode_compute_ms": d.t_compute * 1e3, "decode_memory_ms": d.t_mem * 1e3, "decode_lb_ms": d.t_step * 1e3,
        "fits": q.weights_bytes + q.kv_context_bytes <= g.mem_bytes,
    }
    names = ["prefill · 计算 F/Π", "decode · 计算 F/Π", "decode · 读取 R/β"]
    vals = [o["prefill_compute_ms"], o["decode_compute_ms"], o["decode_memory_ms"]]
    fig = figure([bar(names, vals, "时间下界", ["compute", "compute", "read"], horizontal=True,
                      text=[f"{num(x, sig=3)} ms" for x in vals])],
                 layout(axis("时间下界 (ms,对数)", log=True), axis("", autorange="reversed"), height=240,
                        legend=False, margin=(150, 16, 16, 48)))
    v = View(outputs=o, headline=f"{g.name} · prefill 2048 token · decode 上下文 {p.context_tokens} token")
    v.stat("prefill_tflop", "prefill 运算(2048 token)", "TFLOP", digits=2)
    v.stat("prefill_compute_ms", "prefill 计算下界", "ms", sig=4)
    v.stat("decode_gflop", "decode 运算", "GFLOP", digits=2)
    v.stat("decode_read_gb", "decode 读取(权重 + 旧 KV)", "GB", digits=2)
    v.stat("decode_compute_ms", "decode 计算项", "ms", sig=3)
    v.stat("decode_memory_ms", "decode 读取项", "ms", digits=2)
    v.stat("decode_lb_ms", "decode 单步下界", "ms", digits=2, emphasis=True)
    v.stats.append(Stat("fits", "权重 + 一份 KV 放得下?", o["fits"],
                        text=("放得下" if o["fits"] else "放不下") + f" {(q.weights_bytes + q.kv_context_bytes) / 1e9:.2f}/{g.mem_gb:g} GB"))
    v.figures.append(Figure(fig, "各阶段的时间下界",
                            f"prefill 计算下界 {o['prefill_compute_ms']:.4g} ms;decode 计算 {o['decode_compute_ms']:.3g} ms,"
                            f"读取 {o['decode_memory_ms']:.2f} ms,较大者是读取。"))
    v.notes = [
        Note("prefill 固定为 2048 token 输入:注意力部分不随长度线性变化,这里不外推。decode 的旧 KV 读取按 144 KiB × 上下文换算,"
             "注意力运算也随上下文线性增加(影响很小)。完整执行还要沿算子顺序加上其他运算、实际访存和启动时间。"),
        Note("prefill 一次处理大量输入,矩阵运算多;单请求 decode 一次只处理一个 token,却仍要把权重和上下文读一遍。"
             "加算力、加带宽、加大批内复用,作用在不同的时间项上。"),
    ]
    return v
