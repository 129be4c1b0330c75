"""Section 3.4 训练的计算与状态需求: Y = XW 的三次矩阵乘、例题 3-3、图 3-20、三个数、图 3-23."""
from __future__ import annotations

from typing import Literal

from pydantic import field_validator

from ...calculators import training as T
from ...calculators.model_config import ModelShape, shape_of
from ...cards import Block, Figure, Note, Params, Stat, Table, View, card, choice, gpu_choice, gpu_type, slider, toggle
from ...charts import animate, axis, bar, figure, hline, layout, line, points, vline, with_refs
from ...charts.theme import color, r
from ...data import gpu, model_config

MODEL = "qwen3-8b"
GB, GIB, TERA, GIGA = 1e9, 2**30, 1e12, 1e9


def qwen3_8b() -> ModelShape:
    """Qwen3-8B's shape, derived from data/models/qwen3-8b.json."""
    return shape_of(model_config(MODEL))


# ============================================================== linear-3mm


class LinearP(Params):
    m: int = slider(8192, ge=1, le=65536, step=1, label="X 的行数 m(token)", log=True, illustrative=True)
    k: int = slider(4096, ge=1, le=16384, step=1, label="X 的列数 / W 的行数 k", log=True, illustrative=True)
    n: int = slider(12288, ge=1, le=65536, step=1, label="W 的列数 n", log=True, illustrative=True)
    freeze_w: bool = toggle(False, label="冻结 W(不算 dW)")
    need_input_grad: bool = toggle(True, label="更早的层要梯度(算 dX)")


def linear_outputs(p: LinearP) -> dict:
    lt = T.linear_train_flops(p.m, p.k, p.n, freeze_w=p.freeze_w, need_input_grad=p.need_input_grad)
    return {"fwd_gflop": lt.fwd / GIGA, "dx_gflop": lt.dx / GIGA, "dw_gflop": lt.dw / GIGA,
            "total_gflop": lt.total / GIGA, "total_over_mkn": lt.total / lt.mkn,
            "dw_shape_elems": p.k * p.n, "dx_shape_elems": p.m * p.k}


@card("linear-3mm", title="线性层 Y = XW:三次矩阵乘,运算量一样", section="3.4", kind="calculator",
      params=LinearP,
      lead="前向一次 Y = XW,反向还要 dX = dY·Wᵀ 和 dW = Xᵀ·dY。三次都是 m·k·n 个乘加;冻结 W 或不需要传梯度时各省一次。")
def linear_3mm(p: LinearP) -> View:
    o = linear_outputs(p)
    v = View(outputs=o, headline=f"X: {p.m:,}×{p.k:,} · W: {p.k:,}×{p.n:,} · Y: {p.m:,}×{p.n:,}")
    v.stat("fwd_gflop", "前向 Y = XW", "GFLOP", sig=5)
    v.stat("dx_gflop", "输入梯度 dX = dY·Wᵀ", "GFLOP", sig=5)
    v.stat("dw_gflop", "权重梯度 dW = Xᵀ·dY", "GFLOP", sig=5)
    v.stat("total_gflop", "合计", "GFLOP", sig=5, emphasis=True)
    v.stat("total_over_mkn", "合计 ÷ mkn", "", digits=0)
    v.stat("dx_shape_elems", "dX 形状 m×k(同 X)", "元素")
    v.stat("dw_shape_elems", "dW 形状 k×n(同 W)", "元素")
    names = ["前向 Y=XW", "dX=dY·Wᵀ", "dW=Xᵀ·dY"]
    vals = [o["fwd_gflop"], o["dx_gflop"], o["dw_gflop"]]
    fig = figure([bar(names, vals, "运算量", ["compute", "decode", "state"],
                      text=[f"{x:,.5g}" if x else "跳过" for x in vals])],
                 layout(axis(""), axis("GFLOP"), height=280, legend=False))
    v.figures.append(Figure(fig, "三次矩阵乘的运算量", illustrative=True,
                            summary=f"前向 {vals[0]:,.5g}、dX {vals[1]:,.5g}、dW {vals[2]:,.5g} GFLOP,"
                                    f"合计 {o['total_over_mkn']:.0f}·mkn。"))
    v.blocks.append(Block("diagrams/linear-3mm.html", {
        "m": p.m, "k": p.k, "n": p.n, "freeze_w": p.freeze_w, "need_input_grad": p.need_input_grad,
        "mats": _mat_boxes(p.m, p.k, p.n)}))
    v.notes = [
        Note("每次都含 $m\\cdot k\\cdot n$ 个乘加(2mkn FLOPs),三次合计 $6mkn$。所有训练 token 都经过同一组主要权重时,"
             "按 token 数 D 累加就是 $F_{train} \\approx 6ND$。", "formula"),
        Note("dW 要用前向时的 X,所以 X 得保留到反向;dX 要用 W。冻结 W 就省掉 dW,合计从 6mkn 降到 4mkn;只要更早的层还在训练,dX 照算。"
             "MoE 只计选中专家,注意力按查询—键配对另计(见图 3-23)。"),
        Note("矩阵尺寸只是示意(默认取 Qwen3-8B 一层 FFN 的 up 投影、8192 个 token)。", "illustrative"),
    ]
    return v


def _mat_boxes(m: int, k: int, n: int) -> dict:
    """Box sizes for the three shape sketches (square-root scaled so extreme shapes stay visible)."""
    import math
    def s(x: int) -> float:
        return 14 + 66 * math.sqrt(math.log10(max(x, 1)) / math.log10(65536))
    return {"m": s(m), "k": s(k), "n": s(n)}


# ============================================================== eg-3-3

CardId = gpu_type(["h100-sxm", "rtx-pro-6000", "a100-sxm"])
CARD_DATA = {"h100-sxm": "h100-sxm", "rtx-pro-6000": "rtx-pro-6000", "a100-sxm": "a100-80gb-sxm"}


class StateP(Params):
    n_params: int | None = slider(None, ge=1_000_000, le=2_000_000_000_000, step=1, label="参数量 N(覆盖)",
                                  placeholder="Qwen3-8B 配置")
    weight_bytes: float = slider(2, ge=1, le=4, step=1, label="工作权重", unit="B/参数")
    grad_bytes: float = slider(4, ge=2, le=4, step=2, label="梯度", unit="B/参数")
    master_bytes: float = slider(4, ge=0, le=4, step=2, label="主权重", unit="B/参数")
    adam_m_bytes: float = slider(4, ge=0, le=4, step=2, label="Adam 一阶矩", unit="B/参数")
    adam_v_bytes: float = slider(4, ge=0, le=4, step=2, label="Adam 二阶矩", unit="B/参数")
    n_gpus: int = slider(1, ge=1, le=16, step=1, label="均分到 k 张卡", illustrative=True)
    gpu: CardId = gpu_choice("h100-sxm", {"h100-sxm": "H100 SXM(80 GB)", "rtx-pro-6000": "RTX PRO 6000(96 GB)",
                                      "a100-sxm": "A100 SXM(80 GB)"}, label="加速器", illustrative=True)


def state_outputs(n: int, p: StateP) -> dict:
    st = T.optimizer_state_bytes(n, p.weight_bytes, p.grad_bytes, p.master_bytes, p.adam_m_bytes, p.adam_v_bytes)
    cap_gb = gpu(CARD_DATA.get(p.gpu, p.gpu)).mem_gb   # a preset, or a reader's custom:GB,TB/s,TFLOP/s
    per = st.total / p.n_gpus / GB
    bf16 = T.optimizer_state_bytes(n, 2, 0, 0, 0, 0).total
    import math
    return {"n_params": n, "bytes_per_param": st.bytes_per_param, "ratio_vs_bf16": st.total / bf16,
            "total_gb": st.total / GB, "total_gib": st.total / GIB,
            "weights_gb": st.weights / GB, "grads_gb": st.grads / GB, "master_gb": st.master / GB,
            "adam_gb": st.adam / GB, "bf16_weights_gb": bf16 / GB, "per_gpu_gb": per,
            "fits_per_gpu": per <= cap_gb, "min_gpus_state_only": math.ceil(st.total / GB / cap_gb - 1e-12),
            "card_gb": cap_gb}


@card("eg-3-3", title="还没算激活,状态就超出一张卡", label="例题 3-3", section="3.4", kind="calculator",
      params=StateP,
      lead="Qwen3-8B 全参数训练:BF16 工作权重、FP32 梯度、FP32 主权重、Adam 两个矩,每参数 18 字节。还没算激活,一张 80 GB 卡就放不下。")
def eg_3_3(p: StateP) -> View:
    n = p.n_params if p.n_params is not None else qwen3_8b().params_total
    o = state_outputs(n, p)
    cap = o.pop("card_gb")
    k = p.n_gpus
    parts = [("weights_gb", "BF16 工作权重", p.weight_bytes, "compute"), ("grads_gb", "梯度", p.grad_bytes, "decode"),
             ("master_gb", "FP32 主权重", p.master_bytes, "prefill"),
             ("adam_m", "Adam 一阶矩 m", p.adam_m_bytes, "state"), ("adam_v", "Adam 二阶矩 v", p.adam_v_bytes, "tools")]
    xs = ["不分片"] if k == 1 else [f"卡 {i + 1}" for i in range(k)]
    traces = [bar(xs, [n * b / GB / k] * k, f"{name}({b:g} B)", role) for _, name, b, role in parts]
    fig = figure(traces, with_refs(layout(axis(""), axis("GB(10⁹ B)"), height=320, barmode="stack"),
                                   hline(cap, f"单卡 {cap:g} GB", "backlog", dash="dash")))
    v = View(outputs=o, headline=f"N = {n:,} · {o['bytes_per_param']:g} B/参数 · 均分到 {k} 张卡")
    v.stat("n_params", "参数量 N", "")
    v.stat("bytes_per_param", "每参数字节", "B", digits=0, emphasis=True)
    v.stat("ratio_vs_bf16", "相当于 BF16 推理权重的", "×", sig=3)
    v.stats.append(Stat("total_gb", "长期状态合计", o["total_gb"], "GB", digits=2, emphasis=True,
                        book=f"≈ {o['total_gib']:,.2f} GiB"))
    v.stat("weights_gb", "工作权重", "GB", digits=2)
    v.stat("grads_gb", "梯度", "GB", digits=2)
    v.stat("master_gb", "主权重", "GB", digits=2)
    v.stat("adam_gb", "Adam m + v", "GB", digits=2)
    v.stat("bf16_weights_gb", "BF16 推理权重(9× 的基准)", "GB", digits=2)
    v.stat("per_gpu_gb", "每卡(均分)", "GB", digits=2, illustrative=True)
    v.stats.append(Stat("fits_per_gpu", "单卡放得下?", o["fits_per_gpu"], illustrative=True,
                        text=("放得下" if o["fits_per_gpu"] else "放不下") + f"(卡容量 {cap:g} GB)"))
    v.stat("min_gpus_state_only", "只装状态至少要", "张卡", illustrative=True)
    v.figures.append(Figure(fig, "长期训练状态(不含激活)", illustrative=k > 1 or p.gpu != "h100-sxm",
                            summary=f"合计 {o['total_gb']:,.2f} GB,均分到 {k} 张卡每卡 {o['per_gpu_gb']:,.2f} GB,"
                                    f"卡容量 {cap:g} GB。"))
    left = cap - o["per_gpu_gb"]
    v.notes = [
        Note("$M_{state} = N\\,(2 + 4 + 4 + 4 + 4)$ = 18 B/参数,是 BF16 推理权重 2 B/参数的 9 倍。", "formula"),
        Note("激活、临时工作区和生成用的 KV 都还没算。" + (
            f"即使均分到 {k} 张 {cap:g} GB 卡,每卡也只剩约 {left:.1f} GB 给它们。" if left >= 0 else
            f"均分到 {k} 张卡时每卡仍超出 {-left:.1f} GB。")),
        Note("“均分”只是把状态平均切给 k 张卡的粗略示意;真实的分片方式(ZeRO、FSDP 等)见第 10 章。所选加速器也只是示意。",
             "illustrative"),
    ]
    return v


# ============================================================== fig-3-20


class ActP(Params):
    n_layers: int = slider(4, ge=4, le=4, step=1, label="层数(书中 4 层)")
    micro_batches: int = slider(1, ge=1, le=8, step=1, label="micro-batch 数 a(1、2、4、8)")
    t_fwd: float = slider(1, ge=0.5, le=4, step=0.5, label="每层前向时长(整批)", unit="单位", illustrative=True)
    t_bwd: float = slider(2, ge=0.5, le=4, step=0.5, label="每层反向时长(整批)", unit="单位", illustrative=True)
    act_per_layer_full: float = slider(1, ge=1, le=1, step=1, label="每层激活(整批)", unit="单位", illustrative=True)
    param_state: float = slider(4, ge=4, le=4, step=1, label="参数状态", unit="单位", illustrative=True)


N_FRAMES = 40


@card("fig-3-20", title="激活的生命周期与 micro-batch", label="图 3-20", section="3.4", kind="animation",
      params=ActP,
      lead="一层的激活从它的前向结束一直留到对应反向用完。把一批拆成 a 个 micro-batch,激活峰值降到 1/a,总时长和数据量不变,参数状态始终驻留。按 ▶ 播放。")
def fig_3_20(p: ActP) -> View:
    a, nl = p.micro_batches, p.n_layers
    sch = T.microbatch_schedule(nl, a, p.t_fwd, p.t_bwd, p.act_per_layer_full)
    peak = sch.peak_activation
    o = {"peak_activation": peak, "peak_total": peak + p.param_state, "total_time": sch.total_time,
         "passes": a, "updates": 1, "peak_vs_full_batch": peak / (nl * p.act_per_layer_full)}
    total = sch.total_time
    lane_names = ["加速器"] + [f"激活 L{i}" for i in range(1, nl + 1)] + ["CPU 准备"]
    cpu_lane = nl + 1

    def blocks(kind: str) -> dict:
        ops = [x for x in sch.ops if x.kind == kind]
        return {"type": "bar", "orientation": "h", "name": "前向 F" if kind == "F" else "反向 B",
                "y": [0] * len(ops), "base": r([x.start for x in ops]), "x": r([x.end - x.start for x in ops]),
                "text": [f"{kind}{x.layer}" + (f"·{x.micro}" if a > 1 else "") for x in ops],
                "textposition": "inside", "insidetextanchor": "middle", "width": 0.8,
                "marker": {"color": color("compute" if kind == "F" else "accent"),
                           "line": {"width": 1, "color": "rgba(0,0,0,0.3)"}},
                "hovertemplate": "%{text}: %{base:.3g} → %{x:.3g}<extra></extra>", "yaxis": "y"}

    lives = sch.lifetimes
    life = {"type": "bar", "orientation": "h", "name": "激活驻留", "y": [x.layer for x in lives],
            "base": r([x.start for x in lives]), "x": r([x.end - x.start for x in lives]), "width": 0.6,
            "marker": {"color": color("state"), "opacity": 0.75, "line": {"width": 1, "color": "rgba(0,0,0,0.3)"}},
            "text": [f"μ{x.micro}" if a > 1 else "" for x in lives], "textposition": "inside",
            "hovertemplate": "L%{y} 激活: %{base:.3g} → 用完<extra></extra>", "yaxis": "y"}
    prep = {"type": "bar", "orientation": "h", "name": "CPU 准备下一批(双缓冲,示意)", "y": [cpu_lane],
            "base": [0], "x": r([total * 0.7]), "width": 0.6, "text": ["准备下一批输入"], "textposition": "inside",
            "marker": {"color": color("idle"), "pattern": {"shape": "/"}}, "yaxis": "y",
            "hovertemplate": "CPU 准备下一批(示意)<extra></extra>"}

    def cursor(t: float) -> dict:
        return {"type": "scatter", "mode": "lines", "x": [r(t), r(t)], "y": [-0.6, cpu_lane + 0.6],
                "name": "时刻", "showlegend": False, "line": {"color": color("ink"), "width": 2, "dash": "dot"},
                "yaxis": "y", "hoverinfo": "skip"}

    bps = sch.breakpoints()
    mem_x = bps
    mem_y = [p.param_state + sch.live_activation(t) for t in bps]
    band = {"type": "scatter", "mode": "lines", "x": r(mem_x), "y": [p.param_state] * len(mem_x), "name": "参数状态(常驻)",
            "line": {"color": color("capacity"), "width": 1, "shape": "hv"}, "fill": "tozeroy", "yaxis": "y2"}
    mem = {"type": "scatter", "mode": "lines", "x": r(mem_x), "y": r(mem_y), "name": "参数状态 + 激活",
           "line": {"color": color("state"), "width": 2, "shape": "hv"}, "fill": "tonexty", "yaxis": "y2"}

    def marker(t: float) -> dict:
        tt = min(t, total - 1e-9)
        return {"type": "scatter", "mode": "markers", "x": [r(t)], "y": [r(p.param_state + sch.live_activation(tt))],
                "name": "当前占用", "showlegend": False, "marker": {"color": color("ink"), "size": 10}, "yaxis": "y2"}

    ymax = p.param_state + nl * p.act_per_layer_full
    lay = layout(axis("时间(示意单位)", range_=(0, total), anchor="y2"), height=460,
                 margin=(86, 16, 24, 48), barmode="overlay",
                 yaxis={"domain": [0.42, 1], "tickvals": list(range(nl + 2)), "ticktext": lane_names,
                        "autorange": "reversed", "zeroline": False, "automargin": False},
                 yaxis2={"domain": [0, 0.32], "title": {"text": "显存(示意)"}, "range": [0, ymax * 1.1],
                         "zeroline": False, "automargin": False})
    fig = figure([blocks("F"), blocks("B"), life, prep, cursor(total), band, mem, marker(total)], lay)
    times = [total * i / N_FRAMES for i in range(N_FRAMES + 1)]
    frames = [{"data": [cursor(t), marker(t)], "traces": [4, 7]} for t in times]
    animate(fig, frames, [f"{t:.3g}" for t in times], duration=150, prefix="t = ")
    v = View(outputs=o, headline=f"{nl} 层 · a = {a} 个 micro-batch · 每批 1 次更新")
    def dg(x: float) -> int:
        return 0 if float(x).is_integer() else 3
    v.stat("peak_activation", "激活峰值", "单位", digits=dg(o["peak_activation"]), illustrative=True, emphasis=True)
    v.stat("peak_total", "峰值合计(含参数状态)", "单位", digits=dg(o["peak_total"]), illustrative=True)
    v.stat("peak_vs_full_batch", "峰值 ÷ 整批", "", digits=dg(o["peak_vs_full_batch"]))
    v.stat("total_time", "总时长", "单位", digits=dg(o["total_time"]), illustrative=True)
    v.stat("passes", "前反向次数", "次")
    v.stat("updates", "参数更新", "次")
    v.figures.append(Figure(fig, "图 3-20 · 执行顺序、激活寿命与显存", illustrative=True, animated=True,
                            summary=f"a = {a}:激活峰值 {peak:.3g} 单位(整批的 1/{a}),参数状态 {p.param_state:g} 单位常驻,"
                                    f"总时长 {total:.3g} 单位不变。"))
    v.notes = [
        Note("一层激活:从这层前向结束保留到它的反向用完;在第一个 micro-batch 的 F4 结束时,4 层的激活同时驻留。", "formula"),
        Note("a 个 micro-batch 依次在同一张卡上执行、梯度累计后更新一次;流水线并行把它们重叠起来(第 10 章)。"
             "CPU 准备下一批的“双缓冲”细节见第 5 章。"),
        Note("书中只给出 4 层;时长、激活大小与参数状态大小都是示意单位。", "illustrative"),
    ]
    return v


# ============================================================== doc-split-8192


class SplitP(Params):
    total_tokens: int = slider(8192, ge=8192, le=8192, step=1, label="打包长度(书中 8192)", unit="token")
    first_doc_tokens: int = slider(4096, ge=0, le=8192, step=128, label="第一份文档长度 L₁", unit="token",
                                   illustrative=True)


def split_outputs(s: ModelShape, total: int, first: int) -> dict:
    first = min(first, total)
    second = total - first
    per_pair = T.attn_flops_per_pair_layer(s)
    lin = 2.0 * T.block_matmuls(s).total * total
    pairs = T.packed_pairs([first, second])
    single = T.causal_pairs(total)
    attn, attn1 = per_pair * pairs, per_pair * single
    return {"second_doc_tokens": second, "pairs": pairs, "pairs_single_doc": single,
            "attn_gflop": attn / GIGA, "linear_gflop": lin / GIGA, "layer_gflop": (attn + lin) / GIGA,
            "attn_share_pct": 100 * attn / (attn + lin),
            "layer_vs_single_doc_pct": 100 * (attn + lin) / (attn1 + lin),
            "_single_attn_gflop": attn1 / GIGA, "_single_share_pct": 100 * attn1 / (attn1 + lin)}


@card("doc-split-8192", title="同样 8192 个 token,切法不同,注意力工作不同", section="3.4", kind="calculator",
      params=SplitP,
      lead="两份独立文档打包成 8192 个 token。投影和 FFN 处理的行数一样,因果注意力的查询—键配对却随切法变。看 Qwen3-8B 的一层。")
def doc_split_8192(p: SplitP) -> View:
    s = qwen3_8b()
    o = split_outputs(s, p.total_tokens, p.first_doc_tokens)
    single_attn, single_share = o.pop("_single_attn_gflop"), o.pop("_single_share_pct")
    xs = list(range(0, p.total_tokens + 1, 128))
    ys = [T.packed_pairs([x, p.total_tokens - x]) for x in xs]
    left = figure([
        line(xs, ys, "配对数 Σ L(L+1)/2", "decode"),
        points([p.first_doc_tokens], [o["pairs"]], f"当前 L₁={p.first_doc_tokens}", "accent", size=11),
    ], with_refs(layout(axis("第一份文档长度 L₁(token)", range_=(0, p.total_tokens)), axis("查询—键配对"), height=300),
                 hline(o["pairs_single_doc"], "一份 8192 文档", "ink")))
    cats = [f"当前切法", "一份文档"]
    right = figure([
        bar(cats, [o["linear_gflop"]] * 2, "投影 + FFN", "compute"),
        bar(cats, [o["attn_gflop"], single_attn], "注意力 QKᵀ + AV", "decode"),
    ], layout(axis(""), axis("GFLOP(一层前向)"), height=300, barmode="stack"))
    v = View(outputs=o, headline=f"L₁ = {p.first_doc_tokens:,} · L₂ = {o['second_doc_tokens']:,}")
    v.stat("second_doc_tokens", "第二份 L₂ = 8192 − L₁", "token")
    v.stat("pairs", "查询—键配对", "")
    v.stat("pairs_single_doc", "一份 8192 文档的配对", "")
    v.stat("attn_gflop", "注意力(一层前向)", "GFLOP", digits=2)
    v.stat("linear_gflop", "投影 + FFN(一层前向)", "GFLOP", digits=2)
    v.stat("layer_gflop", "一层合计", "GFLOP", digits=2, emphasis=True)
    v.stat("attn_share_pct", "注意力占比", "%", digits=1)
    v.stat("layer_vs_single_doc_pct", "相对一份 8192 文档", "%", digits=1)
    v.figures = [
        Figure(left, "配对数随切点变化", illustrative=True,
               summary=f"L₁ = {p.first_doc_tokens}:{o['pairs']:,} 对;一份文档 {o['pairs_single_doc']:,} 对;对半切最少。"),
        Figure(right, "一层的前向运算量", summary=f"投影 + FFN 恒为 {o['linear_gflop']:,.2f} GFLOP;注意力 {o['attn_gflop']:,.2f}"
               f"(一份文档 {single_attn:,.2f}),占比 {o['attn_share_pct']:.1f}% vs {single_share:.1f}%。"),
    ]
    v.notes = [
        Note("配对 $= \\sum_i L_i(L_i+1)/2$;一层注意力 $4\\cdot H d\\cdot$配对 $= 4\\cdot 4096\\cdot$配对;"
             "投影 + FFN $= 2\\cdot 192{,}937{,}984\\cdot 8192$。", "formula"),
        Note("整层增幅取决于注意力原本的占比;训练时前反向都乘 3,占比不变。打包时要用块对角 mask,配对才是 ΣL(L+1)/2;"
             "不加 mask,配对就和一份 8192 文档一样。"),
        Note("默认切点 4096 是示意;书中没有给出具体切法。", "illustrative"),
    ]
    return v


# ============================================================== update-tokens


class UpdateP(Params):
    micro_batches: int = slider(8, ge=1, le=64, step=1, label="micro-batch 数 a")
    seqs_per_micro: int = slider(2, ge=1, le=32, step=1, label="每个 micro-batch 的序列数 B_μ", unit="条")
    seq_len: int = slider(4096, ge=512, le=32768, step=512, label="序列长度 P", unit="token")
    label_tokens: int = slider(1024, ge=0, le=32768, step=1, label="每条监督 token P_label", unit="token")
    cross_field_rules = ("label_tokens ≤ seq_len(监督 token 不超过序列长度)",)

    @field_validator("label_tokens")
    @classmethod
    def _label_le_len(cls, v: int, info) -> int:
        P = info.data.get("seq_len")
        if P is not None and v > P:
            raise ValueError(f"监督 token 不能超过序列长度 P = {P}")
        return v


def update_outputs(p) -> dict:
    u = T.update_tokens(p.micro_batches, p.seqs_per_micro, p.seq_len, p.label_tokens)
    return {"input_tokens": u.input_tokens, "supervised_tokens": u.supervised_tokens,
            "loss_denominator": u.supervised_tokens, "fwd_bwd_passes": u.passes, "sequences": u.sequences,
            "qwen3_general_tokens_min": 30e12, "qwen3_general_seq_len": 4096,
            "qwen3_reasoning_tokens": 5e12, "qwen3_long_seq_len": 32768}


@card("update-tokens", title="一次更新读多少、监督多少", section="3.4", kind="calculator", params=UpdateP,
      badges=(("练习 3-6", "ex-3-6"),),
      lead="预训练、中期训练和 SFT 都能用三个数描述:每次更新读多少 token、其中多少参与损失、累计几个 micro-batch 才更新一次。默认是练习 3-6 的设置。")
def update_tokens(p: UpdateP) -> View:
    o = update_outputs(p)
    fig = figure([bar(["读入 a·B_μ·P", "监督 a·B_μ·P_label"], [o["input_tokens"], o["supervised_tokens"]],
                      "每次更新", ["prefill", "state"],
                      text=[f"{o['input_tokens']:,}", f"{o['supervised_tokens']:,}"])],
                 layout(axis(""), axis("token / 次更新"), height=260, legend=False))
    v = View(outputs=o, headline=f"a = {p.micro_batches} · B_μ = {p.seqs_per_micro} · P = {p.seq_len:,} · P_label = {p.label_tokens:,}")
    v.stat("input_tokens", "每次更新读入", "token", emphasis=True)
    v.stat("supervised_tokens", "每次更新监督", "token", emphasis=True)
    v.stat("loss_denominator", "损失归一化分母", "token")
    v.stat("fwd_bwd_passes", "前反向次数", "次")
    v.stat("sequences", "序列数 a·B_μ", "条")
    v.figures.append(Figure(fig, "读入 vs 监督", summary=f"每次更新读 {o['input_tokens']:,} 个 token,"
                                                        f"其中 {o['supervised_tokens']:,} 个算损失。"))
    shown = min(p.micro_batches, 16)
    v.blocks.append(Block("diagrams/update-tokens.html", {
        "a": p.micro_batches, "shown": shown, "b_mu": p.seqs_per_micro, "P": p.seq_len, "label": p.label_tokens,
        "frac": p.label_tokens / p.seq_len}))
    v.notes = [
        Note("读入 $= a\\cdot B_\\mu\\cdot P$,监督 $= a\\cdot B_\\mu\\cdot P_{label}$;a 个 micro-batch 各做一次前反向,最后更新一次。", "formula"),
        Note("增大 a 会把更新 batch 变大,同时把一次更新拆成更多次前反向。损失分母要用整个 batch 的有效 token 数,见 3.5 节“损失的平均方式”。"),
        Note("Qwen3 的阶段:通用阶段在 4096 长度上训练超过 30 万亿 token;再加约 5 万亿 STEM、代码、推理与合成数据;"
             "长上下文阶段把长度扩到 32768。", "book"),
    ]
    return v


# ============================================================== sft-tokens


class SftP(Params):
    system_tokens: int = slider(300, ge=0, le=8192, step=1, label="系统提示", unit="token", illustrative=True)
    question_tokens: int = slider(200, ge=0, le=8192, step=1, label="问题", unit="token", illustrative=True)
    tool_tokens: int = slider(1500, ge=0, le=32768, step=1, label="工具结果", unit="token", illustrative=True)
    answer_tokens: int = slider(500, ge=1, le=8192, step=1, label="回答(监督)", unit="token", illustrative=True)
    vocab_proj: Literal["all", "supervised"] = choice("all", {"all": "只屏蔽损失(全部行做词表投影)",
                                                             "supervised": "只对监督行做词表投影"}, label="词表投影")


def sft_outputs(s: ModelShape, p: SftP) -> dict:
    rows = p.system_tokens + p.question_tokens + p.tool_tokens + p.answer_tokens
    sup = p.answer_tokens
    proj = rows if p.vocab_proj == "all" else sup
    tr = T.itemised_train_flops(s, 1, rows, lm_rows_per_seq=proj)
    return {"input_tokens": rows, "supervised_tokens": sup, "lm_head_tflop": T.lm_head_flops(s, proj) / TERA,
            "lm_head_waste_tflop": T.lm_head_flops(s, rows - sup) / TERA if p.vocab_proj == "all" else 0.0,
            "train_tflop": tr.total / TERA}


@card("sft-tokens", title="SFT:读的 token ≠ 算损失的 token", section="3.4", kind="calculator", params=SftP,
      lead="一条 SFT 样本里常常只有回答算损失,但系统提示、问题、工具结果都要过主干给回答提供上下文。只在损失里屏蔽,词表投影照样算。")
def sft_tokens(p: SftP) -> View:
    s = qwen3_8b()
    o = sft_outputs(s, p)
    other = "supervised" if p.vocab_proj == "all" else "all"
    o2 = sft_outputs(s, p.model_copy(update={"vocab_proj": other}))
    by_mode = {p.vocab_proj: o, other: o2}
    fig = figure([bar(["只屏蔽损失", "只投影监督行"],
                      [by_mode["all"]["lm_head_tflop"], by_mode["supervised"]["lm_head_tflop"]], "词表投影(前反向)",
                      ["backlog", "compute"],
                      text=[f"{by_mode['all']['lm_head_tflop']:.3f}", f"{by_mode['supervised']['lm_head_tflop']:.3f}"])],
                 layout(axis(""), axis("TFLOP"), height=260, legend=False))
    v = View(outputs=o, headline=f"{o['input_tokens']:,} 行过主干 · {o['supervised_tokens']:,} 行算损失")
    v.stat("input_tokens", "过主干的行", "token")
    v.stat("supervised_tokens", "监督 token", "token")
    v.stat("lm_head_tflop", "词表投影(前反向)", "TFLOP", digits=3, emphasis=True)
    v.stat("lm_head_waste_tflop", "花在不监督行上的", "TFLOP", digits=3)
    v.stat("train_tflop", "整条样本训练(前反向)", "TFLOP", digits=3)
    segs = [("系统提示", p.system_tokens, "idle"), ("问题", p.question_tokens, "prefill"),
            ("工具结果", p.tool_tokens, "tools"), ("回答", p.answer_tokens, "state")]
    tot = o["input_tokens"]
    x = 0.0
    strip = []
    for name, n, role in segs:
        w = 960 * n / tot
        strip.append({"name": name, "n": n, "x": x, "w": w, "color": color(role), "sup": name == "回答"})
        x += w
    v.blocks.append(Block("diagrams/sft-tokens.html", {"segs": strip, "mode": p.vocab_proj}))
    v.figures.append(Figure(fig, "两种做法的词表投影运算量", illustrative=True,
                            summary=f"只屏蔽损失 {by_mode['all']['lm_head_tflop']:.3f} TFLOP,"
                                    f"只投影监督行 {by_mode['supervised']['lm_head_tflop']:.3f} TFLOP。"))
    v.notes = [
        Note("词表投影 $= 6\\cdot 4096\\cdot 151{,}936$ FLOPs/行(前反向);整条样本 = 3 × 前向(投影、FFN、注意力、词表投影)。", "formula"),
        Note("只在损失里屏蔽不监督的 token,却没跳过它们的词表投影,这些矩阵乘照样执行:运算量不变。"),
        Note("只训练部分参数时,要存梯度和优化器状态的参数变少;但梯度仍要穿过冻结模块传到更早的可训练模块,输入梯度照算。"),
        Note("四段长度都是示意值。", "illustrative"),
    ]
    return v


# ============================================================== fig-3-23


class ItemP(Params):
    batch: int = slider(1, ge=1, le=16, step=1, label="序列数 B", unit="条")
    seq_len: int = slider(8192, ge=512, le=32768, step=512, label="序列长度 P", unit="token")
    recompute: bool = toggle(False, label="全量重计算")


def itemised_outputs(s: ModelShape, batch: int, seq_len: int, recompute: bool) -> dict:
    it = T.itemised_train_flops(s, batch, seq_len, recompute=recompute)
    return {"six_nd_tflop": it.six_nd / TERA, "qo_proj_tflop": it.qo_proj / TERA, "kv_proj_tflop": it.kv_proj / TERA,
            "ffn_tflop": it.ffn / TERA, "lm_head_tflop": it.lm_head / TERA, "attention_tflop": it.attention / TERA,
            "embed_excluded_tflop": it.embed_excluded / TERA, "norms_excluded_tflop": it.norms_excluded / TERA,
            "recompute_tflop": it.recompute / TERA, "itemized_tflop": it.total / TERA,
            "over_6nd_pct": 100 * it.over_6nd, "attention_share_pct": 100 * it.attention_share}


@card("fig-3-23", title="Qwen3-8B,B=1,P=8192,全参数训练,无重计算", label="图 3-23", section="3.4", kind="chart",
      params=ItemP,
      lead="从 6ND 粗算走到逐项核算:粗算漏了注意力(查询与上下文的矩阵乘不对应任何参数),又多算了不做矩阵乘的词嵌入。")
def fig_3_23(p: ItemP) -> View:
    s = qwen3_8b()
    o = itemised_outputs(s, p.batch, p.seq_len, p.recompute)
    six, emb, nrm, att = o["six_nd_tflop"], o["embed_excluded_tflop"], o["norms_excluded_tflop"], o["attention_tflop"]
    rec = o["recompute_tflop"]
    names = ["6ND 粗算", "− 词嵌入", "− 归一化", "+ 注意力"] + (["+ 重计算前向"] if p.recompute else []) + ["逐项合计"]
    bases = [0, six - emb, six - emb - nrm, six - emb - nrm]
    heights = [six, emb, nrm, att]
    roles = ["ink", "backlog", "backlog", "decode"]
    if p.recompute:
        bases.append(six - emb - nrm + att)
        heights.append(rec)
        roles.append("idle")
    bases.append(0)
    heights.append(o["itemized_tflop"])
    roles.append("accent")
    wf = {"type": "bar", "name": "TFLOP", "x": names, "y": r(heights), "base": r(bases),
          "marker": {"color": [color(x) for x in roles]},
          "text": [f"{h:,.3f}" for h in heights], "textposition": "outside", "cliponaxis": False,
          "hovertemplate": "%{x}: %{y:,.3f} TFLOP<extra></extra>"}
    top = max(six, o["itemized_tflop"])
    left = figure([wf], layout(axis(""), axis("TFLOP(前反向)", range_=(0, top * 1.15)), height=320, legend=False))
    items = [("Q/O 投影", o["qo_proj_tflop"], "prefill"), ("K/V 投影", o["kv_proj_tflop"], "tools"),
             ("FFN", o["ffn_tflop"], "compute"), ("词表投影", o["lm_head_tflop"], "state"),
             ("注意力", att, "decode")]
    stack = [bar(["逐项"], [val], name, role) for name, val, role in items]
    if p.recompute:
        stack.append(bar(["逐项"], [rec], "重计算前向", "idle", marker={"color": color("idle"), "pattern": {"shape": "/"}}))
    right = figure(stack, layout(axis(""), axis("TFLOP"), height=320, barmode="stack", margin=(56, 16, 16, 48)))
    v = View(outputs=o, headline=f"Qwen3-8B · B = {p.batch} · P = {p.seq_len:,}" + (" · 全量重计算" if p.recompute else " · 无重计算"))
    v.stat("six_nd_tflop", "6ND 粗算", "TFLOP", digits=3)
    v.stat("qo_proj_tflop", "Q/O 投影", "TFLOP", digits=3)
    v.stat("kv_proj_tflop", "K/V 投影", "TFLOP", digits=3)
    v.stat("ffn_tflop", "FFN", "TFLOP", digits=3)
    v.stat("lm_head_tflop", "词表投影(全部行)", "TFLOP", digits=3)
    v.stat("attention_tflop", "注意力 QKᵀ + AV(前反向)", "TFLOP", digits=3, emphasis=True)
    v.stat("embed_excluded_tflop", "6ND 多算的词嵌入", "TFLOP", digits=3)
    v.stat("norms_excluded_tflop", "6ND 多算的归一化", "TFLOP", digits=3)
    v.stat("recompute_tflop", "重计算前向", "TFLOP", digits=2)
    v.stat("itemized_tflop", "逐项合计", "TFLOP", digits=3, emphasis=True)
    v.stat("over_6nd_pct", "比 6ND 高", "%", digits=2, approx=True)
    v.stat("attention_share_pct", "注意力占逐项合计", "%", digits=1)
    v.figures = [
        Figure(left, "图 3-23 · 从 6ND 到逐项核算(瀑布)",
               summary=f"6ND {six:,.3f} − 词嵌入 {emb:,.3f} − 归一化 {nrm:,.3f} + 注意力 {att:,.3f}"
                       + (f" + 重计算 {rec:,.2f}" if p.recompute else "")
                       + f" = {o['itemized_tflop']:,.3f} TFLOP,比 6ND {o['over_6nd_pct']:+.2f}%。"),
        Figure(right, "逐项构成", summary="Q/O、K/V、FFN、词表投影、注意力五项堆叠。"),
    ]
    v.notes = [
        Note("投影 $6\\,n_L(q+k+v+o+\\mathrm{FFN})\\,BP$ + 词表 $6\\,hV\\,BP$ + 注意力 $3\\cdot 4 n_L H d\\cdot B\\,P(P+1)/2$;"
             "6ND 用总参数 8,190,735,360(含不做矩阵乘的词嵌入与归一化)。", "formula"),
        Note("这一差距来自模型本身,与实现无关;衡量利用率(MFU)时只能用修正后的下界。"
             "只屏蔽标签而仍对全部 token 做词表投影,运算量不变。"),
        Note("参数投影随行数涨,注意力随配对数涨,优化器更新随参数量 × 更新次数涨(图中未计)。序列越短注意力占比越小:"
             "B = 2、P = 4096 时逐项合计反而比 6ND 低 0.23%。用重计算省显存,重做的前向要加回 F_train。"),
        Note("新增的前向操作(上下文压缩、mHC、MoE 选中的专家)都会带来各自的反向。"),
    ]
    return v
