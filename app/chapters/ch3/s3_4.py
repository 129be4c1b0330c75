"""Section 3.4 训练的计算与状态需求: Y = XW 的三次矩阵乘、例题 3-3、图 3-20、三个数、图 3-23."""

from __future__ import annotations

from typing import Literal

from pydantic import ValidationInfo, field_validator

from ...calculators import training as T
from ...cards import Block, Figure, Note, Params, View, card, choice, slider, toggle
from ...charts import training as charts
from ...charts.theme import COLORS
from ...outputs import out, outputs
from ...params_domain import gpu_choice, gpu_of, gpu_type
from ...trace import given
from ..shared.ch3_train import formatter, n_params, qwen3_8b


class LinearP(Params):
    m: int = slider(8192, ge=1, le=65536, step=1, label="X 的行数 m(token)", log=True, illustrative=True)
    k: int = slider(4096, ge=1, le=16384, step=1, label="X 的列数 / W 的行数 k", log=True, illustrative=True)
    n: int = slider(12288, ge=1, le=65536, step=1, label="W 的列数 n", log=True, illustrative=True)
    freeze_w: bool = toggle(False, label="冻结 W(不算 dW)")
    need_input_grad: bool = toggle(True, label="更早的层要梯度(算 dX)")


LINEAR_OUT = outputs(
    fwd_gflop=out("前向 Y = XW", sig=5, sym="F_{fwd}"),
    dx_gflop=out("输入梯度 dX = dY·Wᵀ", sig=5, sym="F_{dX}"),
    dw_gflop=out("权重梯度 dW = Xᵀ·dY", sig=5, sym="F_{dW}"),
    total_gflop=out("合计", sig=5, em=True, sym="F"),
    total_over_mkn=out("合计 ÷ mkn", unit="", digits=0),
    dx_shape_elems=out("dX 形状 m×k(同 X)", unit="元素"),
    dw_shape_elems=out("dW 形状 k×n(同 W)", unit="元素"),
)


@card(
    "linear-3mm",
    title="线性层 Y = XW:三次矩阵乘,运算量一样",
    section="3.4",
    kind="calculator",
    params=LinearP,
    outputs=LINEAR_OUT,
    lead="前向一次 Y = XW,反向还要 dX = dY·Wᵀ 和 dW = Xᵀ·dY。三次都是 m·k·n 个乘加;冻结 W 或不需要传梯度时各省一次。",
)
def linear_3mm(p: LinearP) -> View:
    o = T.linear_outputs(p.m, p.k, p.n, freeze_w=p.freeze_w, need_input_grad=p.need_input_grad)
    f, keys = formatter(LINEAR_OUT, o), ("fwd_gflop", "dx_gflop", "dw_gflop")
    fig = charts.bars(
        ["前向 Y=XW", "dX=dY·Wᵀ", "dW=Xᵀ·dY"],
        [o[k] for k in keys],
        ["compute", "decode", "state"],
        "GFLOP",
        [f(k, "n") if o[k] else "跳过" for k in keys],
        name="运算量",
        height=280,
    )
    return View(
        o,
        headline="X: [[m|n]]×[[k|n]] · W: [[k|n]]×[[n|n]] · Y: [[m|n]]×[[n|n]]",
        figures=[
            Figure(
                fig,
                "三次矩阵乘的运算量",
                "前向 [[fwd_gflop|n]]、dX [[dx_gflop|n]]、dW [[dw_gflop]],合计 [[total_over_mkn|n]]·mkn。",
                illustrative=True,
            )
        ],
        blocks=[
            Block(
                "diagrams/linear-3mm.html",
                {
                    "m": p.m,
                    "k": p.k,
                    "n": p.n,
                    "freeze_w": p.freeze_w,
                    "C": COLORS,
                    "need_input_grad": p.need_input_grad,
                    "mats": charts.mat_boxes(p.m, p.k, p.n),
                },
            )
        ],
        notes=[
            Note(
                "每次都含 $m\\cdot k\\cdot n$ 个乘加(2mkn FLOPs),三次合计 $6mkn$。所有训练 token 都经过同一组主要权重时,按 token 数 D 累加就是 $F_{train} \\approx 6ND$。",
                "formula",
            ),
            Note(
                "dW 要用前向时的 X,所以 X 得保留到反向;dX 要用 W。冻结 W 就省掉 dW,合计从 6mkn 降到 4mkn;只要更早的层还在训练,dX 照算。MoE 只计选中专家,注意力按查询—键配对另计(见图 3-23)。"
            ),
            Note("矩阵尺寸只是示意(默认取 Qwen3-8B 一层 FFN 的 up 投影、8192 个 token)。", "illustrative"),
        ],
    )


CARDS = {"h100-sxm": "H100 SXM(80 GB)", "rtx-pro-6000": "RTX PRO 6000(96 GB)", "a100-sxm": "A100 SXM(80 GB)"}
CARD_DATA = {"h100-sxm": "h100-sxm", "rtx-pro-6000": "rtx-pro-6000", "a100-sxm": "a100-80gb-sxm"}
CardId = gpu_type(list(CARDS))  # a preset, or a reader's own card (custom:GB,TB/s,TFLOP/s)


class StateP(Params):
    n_params: int | None = slider(
        None, ge=1_000_000, le=2_000_000_000_000, step=1, label="参数量 N(覆盖)", placeholder="Qwen3-8B 配置"
    )
    weight_bytes: float = slider(2, ge=1, le=4, step=1, label="工作权重", unit="B/参数", sym="b_w")
    grad_bytes: float = slider(4, ge=2, le=4, step=2, label="梯度", unit="B/参数", sym="b_g")
    master_bytes: float = slider(4, ge=0, le=4, step=2, label="主权重", unit="B/参数", sym="b_{mst}")
    adam_m_bytes: float = slider(4, ge=0, le=4, step=2, label="Adam 一阶矩", unit="B/参数", sym="b_m")
    adam_v_bytes: float = slider(4, ge=0, le=4, step=2, label="Adam 二阶矩", unit="B/参数", sym="b_v")
    n_gpus: int = slider(1, ge=1, le=16, step=1, label="均分到 k 张卡", illustrative=True, sym="k")
    gpu: CardId = gpu_choice("h100-sxm", CARDS, label="加速器", illustrative=True)  # type: ignore[valid-type]


STATE_OUT = outputs(
    n_params=out("参数量 N", unit="", sym="N"),
    bytes_per_param=out("每参数字节", unit="B", digits=0, em=True),
    ratio_vs_bf16=out("相当于 BF16 推理权重的", unit="×", sig=3),
    total_gb=out("长期状态合计", digits=2, em=True, sym="M_{state}"),
    total_gib=out("合计(二进制)", digits=2, approx=True),
    weights_gb=out("工作权重", digits=2),
    grads_gb=out("梯度", digits=2),
    master_gb=out("主权重", digits=2),
    adam_gb=out("Adam m + v", digits=2),
    bf16_weights_gb=out("BF16 推理权重(9× 的基准)", digits=2),
    per_gpu_gb=out("每卡(均分)", digits=2, ill=True),
    fits_per_gpu=out(
        "单卡放得下?", ill=True, text={True: "放得下(卡容量 [[card_gb]])", False: "放不下(卡容量 [[card_gb]])"}
    ),
    min_gpus_state_only=out("只装状态至少要", unit="张卡", ill=True),
    card_gb=out("卡容量", tile=False, sym="M_{card}"),
    headroom_gb=out("每卡余量(或超出)", digits=1, tile=False),
)


@card(
    "eg-3-3",
    title="还没算激活,状态就超出一张卡",
    label="例题 3-3",
    section="3.4",
    kind="calculator",
    params=StateP,
    outputs=STATE_OUT,
    lead="Qwen3-8B 全参数训练:BF16 工作权重、FP32 梯度、FP32 主权重、Adam 两个矩,每参数 18 字节。还没算激活,一张 80 GB 卡就放不下。",
)
def eg_3_3(p: StateP) -> View:
    n = p.n_params if p.n_params is not None else n_params(qwen3_8b())
    each = (p.weight_bytes, p.grad_bytes, p.master_bytes, p.adam_m_bytes, p.adam_v_bytes)
    o = T.state_outputs(n, each, p.n_gpus, gpu_of(CARD_DATA.get(p.gpu) or p.gpu).mem_gb)
    o["headroom_gb"] = abs(o["card_gb"] - o["per_gpu_gb"])
    parts = zip(
        ("BF16 工作权重", "梯度", "FP32 主权重", "Adam 一阶矩 m", "Adam 二阶矩 v"),
        each,
        ("compute", "decode", "prefill", "state", "tools"),
    )
    left = (
        "即使均分到 [[n_gpus|n]] 张 [[card_gb]] 卡,每卡也只剩约 [[headroom_gb]] 给它们。"
        if o["card_gb"] >= o["per_gpu_gb"]
        else "均分到 [[n_gpus|n]] 张卡时每卡仍超出 [[headroom_gb]]。"
    )
    return View(
        o,
        headline="N = [[n_params|n]] · [[bytes_per_param|n]] B/参数 · 均分到 [[n_gpus|n]] 张卡",
        figures=[
            Figure(
                charts.state_figure(n, list(parts), p.n_gpus, o["card_gb"]),
                "长期训练状态(不含激活)",
                "合计 [[total_gb]],均分到 [[n_gpus|n]] 张卡每卡 [[per_gpu_gb]],卡容量 [[card_gb]]。",
                illustrative=p.n_gpus > 1 or p.gpu != "h100-sxm",
            )
        ],
        notes=[
            Note("$M_{state} = N\\,(2 + 4 + 4 + 4 + 4)$ = 18 B/参数,是 BF16 推理权重 2 B/参数的 9 倍。", "formula"),
            Note("激活、临时工作区和生成用的 KV 都还没算。" + left),
            Note(
                "“均分”只是把状态平均切给 k 张卡的粗略示意;真实的分片方式(ZeRO、FSDP 等)见第 10 章。所选加速器也只是示意。",
                "illustrative",
            ),
        ],
    )


class ActP(Params):
    n_layers: int = slider(4, ge=4, le=4, step=1, label="层数(书中 4 层)", sym="L")
    micro_batches: int = slider(1, ge=1, le=8, step=1, label="micro-batch 数 a(1、2、4、8)")
    t_fwd: float = slider(
        1, ge=0.5, le=4, step=0.5, label="每层前向时长(整批)", unit="单位", illustrative=True, sym="t_F"
    )
    t_bwd: float = slider(
        2, ge=0.5, le=4, step=0.5, label="每层反向时长(整批)", unit="单位", illustrative=True, sym="t_B"
    )
    act_per_layer_full: float = slider(
        1, ge=1, le=1, step=1, label="每层激活(整批)", unit="单位", illustrative=True, sym="m_{act}"
    )
    param_state: float = slider(
        4, ge=4, le=4, step=1, label="参数状态", unit="单位", illustrative=True, sym="M_{param}"
    )


ACT_OUT = outputs(
    peak_activation=out("激活峰值", unit="单位", ill=True, em=True, sym="M_{act}"),
    peak_total=out("峰值合计(含参数状态)", unit="单位", ill=True),
    peak_vs_full_batch=out("峰值 ÷ 整批", unit=""),
    total_time=out("总时长", unit="单位", ill=True, sym="T"),
    passes=out("前反向次数", unit="次"),
    updates=out("参数更新", unit="次"),
)


@card(
    "fig-3-20",
    title="激活的生命周期与 micro-batch",
    label="图 3-20",
    section="3.4",
    kind="animation",
    params=ActP,
    outputs=ACT_OUT,
    lead="一层的激活从它的前向结束一直留到对应反向用完。把一批拆成 a 个 micro-batch,激活峰值降到 1/a,总时长和数据量不变,参数状态始终驻留。按 ▶ 播放。",
)
def fig_3_20(p: ActP) -> View:
    a, nl, act = p.micro_batches, p.n_layers, p.act_per_layer_full
    sch = T.schedule_summary(nl, a, p.t_fwd, p.t_bwd, act)
    o = {
        "peak_activation": sch.M_act,
        "peak_total": sch.M_act + p.param_state,
        "total_time": sch.T,
        "passes": a,
        "updates": given(1, "n_{upd}", "次", "书中:梯度累计后每批更新一次"),
        "peak_vs_full_batch": sch.M_act / (nl * act),
    }
    fig = charts.schedule_figure(T.microbatch_schedule(nl, a, p.t_fwd, p.t_bwd, act), nl, a, p.param_state, act)
    return View(
        o,
        headline="[[n_layers|n]] 层 · a = [[micro_batches|n]] 个 micro-batch · 每批 1 次更新",
        figures=[
            Figure(
                fig,
                "图 3-20 · 执行顺序、激活寿命与显存",
                "a = [[micro_batches|n]]:激活峰值 [[peak_activation]](整批的 1/[[micro_batches|n]]),"
                "参数状态 [[param_state]]常驻,总时长 [[total_time]]不变。",
                illustrative=True,
                animated=True,
            )
        ],
        notes=[
            Note(
                "一层激活:从这层前向结束保留到它的反向用完;在第一个 micro-batch 的 F4 结束时,4 层的激活同时驻留。",
                "formula",
            ),
            Note(
                "a 个 micro-batch 依次在同一张卡上执行、梯度累计后更新一次;流水线并行把它们重叠起来(第 10 章)。CPU 准备下一批的“双缓冲”细节见第 5 章。"
            ),
            Note("书中只给出 4 层;时长、激活大小与参数状态大小都是示意单位。", "illustrative"),
        ],
    )


class SplitP(Params):
    total_tokens: int = slider(8192, ge=8192, le=8192, step=1, label="打包长度(书中 8192)", unit="token", sym="P")
    first_doc_tokens: int = slider(
        4096, ge=0, le=8192, step=128, label="第一份文档长度 L₁", unit="token", illustrative=True, sym="L_1"
    )


SPLIT_OUT = outputs(
    second_doc_tokens=out("第二份 L₂ = 8192 − L₁", unit="token", sym="L_2"),
    pairs=out("查询—键配对", unit="", sym="n_{pair}"),
    pairs_single_doc=out("一份 8192 文档的配对", unit=""),
    attn_gflop=out("注意力(一层前向)", digits=2, sym="F_{attn}"),
    linear_gflop=out("投影 + FFN(一层前向)", digits=2, sym="F_{lin}"),
    layer_gflop=out("一层合计", digits=2, em=True),
    attn_share_pct=out("注意力占比", digits=1),
    layer_vs_single_doc_pct=out("相对一份 8192 文档", digits=1),
    single_attn_gflop=out("一份文档的注意力", digits=2, tile=False),
    single_attn_share_pct=out("一份文档的注意力占比", digits=1, tile=False),
)


@card(
    "doc-split-8192",
    title="同样 8192 个 token,切法不同,注意力工作不同",
    section="3.4",
    kind="calculator",
    params=SplitP,
    outputs=SPLIT_OUT,
    lead="两份独立文档打包成 8192 个 token。投影和 FFN 处理的行数一样,因果注意力的查询—键配对却随切法变。看 Qwen3-8B 的一层。",
)
def doc_split_8192(p: SplitP) -> View:
    o = T.split_outputs(qwen3_8b(), p.total_tokens, p.first_doc_tokens)
    right = charts.stacked(
        ["当前切法", "一份文档"],
        [
            ("投影 + FFN", [o["linear_gflop"]] * 2, "compute"),
            ("注意力 QKᵀ + AV", [o["attn_gflop"], o["single_attn_gflop"]], "decode"),
        ],
        "GFLOP(一层前向)",
        height=300,
    )
    return View(
        o,
        headline="L₁ = [[first_doc_tokens|n]] · L₂ = [[second_doc_tokens|n]]",
        figures=[
            Figure(
                charts.pairs_figure(p.total_tokens, p.first_doc_tokens, o["pairs"], o["pairs_single_doc"]),
                "配对数随切点变化",
                "L₁ = [[first_doc_tokens|n]]:[[pairs|n]] 对;一份文档 [[pairs_single_doc|n]] 对;对半切最少。",
                illustrative=True,
            ),
            Figure(
                right,
                "一层的前向运算量",
                "投影 + FFN 恒为 [[linear_gflop]];注意力 [[attn_gflop|n]](一份文档 [[single_attn_gflop|n]]),"
                "占比 [[attn_share_pct]] vs [[single_attn_share_pct]]。",
            ),
        ],
        notes=[
            Note(
                "配对 $= \\sum_i L_i(L_i+1)/2$;一层注意力 $4\\cdot H d\\cdot$配对 $= 4\\cdot 4096\\cdot$配对;"
                "投影 + FFN $= 2\\cdot 192{,}937{,}984\\cdot 8192$。",
                "formula",
            ),
            Note(
                "整层增幅取决于注意力原本的占比;训练时前反向都乘 3,占比不变。打包时要用块对角 mask,配对才是 ΣL(L+1)/2;不加 mask,配对就和一份 8192 文档一样。"
            ),
            Note("默认切点 4096 是示意;书中没有给出具体切法。", "illustrative"),
        ],
    )


class UpdateP(Params):
    micro_batches: int = slider(8, ge=1, le=64, step=1, label="micro-batch 数 a")
    seqs_per_micro: int = slider(2, ge=1, le=32, step=1, label="每个 micro-batch 的序列数 B_μ", unit="条")
    seq_len: int = slider(4096, ge=512, le=32768, step=512, label="序列长度 P", unit="token")
    label_tokens: int = slider(1024, ge=0, le=32768, step=1, label="每条监督 token P_label", unit="token")
    cross_field_rules = ("label_tokens ≤ seq_len(监督 token 不超过序列长度)",)

    @field_validator("label_tokens")
    @classmethod
    def _label_le_len(cls, v: int, info: ValidationInfo) -> int:
        P = info.data.get("seq_len")
        if P is not None and v > P:
            raise ValueError(f"监督 token 不能超过序列长度 P = {P}")
        return v


_QWEN3 = "书中:Qwen3 的训练阶段"
UPDATE_OUT = outputs(
    input_tokens=out("每次更新读入", unit="token", em=True),
    supervised_tokens=out("每次更新监督", unit="token", em=True),
    loss_denominator=out("损失归一化分母", unit="token"),
    fwd_bwd_passes=out("前反向次数", unit="次"),
    sequences=out("序列数 a·B_μ", unit="条"),
    qwen3_general_tokens_min=out("通用阶段训练 token(超过)", unit="token", tile=False),
    qwen3_general_seq_len=out("通用阶段长度", unit="token", tile=False),
    qwen3_reasoning_tokens=out("推理等数据", unit="token", tile=False),
    qwen3_long_seq_len=out("长上下文阶段长度", unit="token", tile=False),
)


@card(
    "update-tokens",
    title="一次更新读多少、监督多少",
    section="3.4",
    kind="calculator",
    params=UpdateP,
    outputs=UPDATE_OUT,
    badges=(("练习 3-6", "ex-3-6"),),
    lead="预训练、中期训练和 SFT 都能用三个数描述:每次更新读多少 token、其中多少参与损失、累计几个 micro-batch 才更新一次。默认是练习 3-6 的设置。",
)
def update_tokens(p: UpdateP) -> View:
    o = {
        **T.update_outputs(p.micro_batches, p.seqs_per_micro, p.seq_len, p.label_tokens),
        "qwen3_general_tokens_min": given(30e12, "D_{通用}", "token", _QWEN3),
        "qwen3_general_seq_len": given(4096, "P_{通用}", "token", _QWEN3),
        "qwen3_reasoning_tokens": given(5e12, "D_{推理}", "token", _QWEN3),
        "qwen3_long_seq_len": given(32768, "P_{长}", "token", _QWEN3),
    }
    f = formatter(UPDATE_OUT, o)
    fig = charts.bars(
        ["读入 a·B_μ·P", "监督 a·B_μ·P_label"],
        [o["input_tokens"], o["supervised_tokens"]],
        ["prefill", "state"],
        "token / 次更新",
        [f("input_tokens", "n"), f("supervised_tokens", "n")],
        name="每次更新",
    )
    return View(
        o,
        headline="a = [[micro_batches|n]] · B_μ = [[seqs_per_micro|n]] · P = [[seq_len|n]] · P_label = [[label_tokens|n]]",
        figures=[
            Figure(
                fig, "读入 vs 监督", "每次更新读 [[input_tokens|n]] 个 token,其中 [[supervised_tokens|n]] 个算损失。"
            )
        ],
        blocks=[
            Block(
                "diagrams/update-tokens.html",
                {
                    "a": p.micro_batches,
                    "shown": min(p.micro_batches, 16),
                    "b_mu": p.seqs_per_micro,
                    "P": p.seq_len,
                    "label": p.label_tokens,
                    "frac": p.label_tokens / p.seq_len,
                    "C": COLORS,
                },
            )
        ],
        notes=[
            Note(
                "读入 $= a\\cdot B_\\mu\\cdot P$,监督 $= a\\cdot B_\\mu\\cdot P_{label}$;a 个 micro-batch 各做一次前反向,最后更新一次。",
                "formula",
            ),
            Note(
                "增大 a 会把更新 batch 变大,同时把一次更新拆成更多次前反向。损失分母要用整个 batch 的有效 token 数,见 3.5 节“损失的平均方式”。"
            ),
            Note(
                "Qwen3 的阶段:通用阶段在 4096 长度上训练超过 30 万亿 token;再加约 5 万亿 STEM、代码、推理与合成数据;长上下文阶段把长度扩到 32768。",
                "book",
            ),
        ],
    )


class SftP(Params):
    system_tokens: int = slider(
        300, ge=0, le=8192, step=1, label="系统提示", unit="token", illustrative=True, sym="T_{sys}"
    )
    question_tokens: int = slider(200, ge=0, le=8192, step=1, label="问题", unit="token", illustrative=True, sym="T_q")
    tool_tokens: int = slider(
        1500, ge=0, le=32768, step=1, label="工具结果", unit="token", illustrative=True, sym="T_{tool}"
    )
    answer_tokens: int = slider(
        500, ge=1, le=8192, step=1, label="回答(监督)", unit="token", illustrative=True, sym="T_{ans}"
    )
    vocab_proj: Literal["all", "supervised"] = choice(
        "all", {"all": "只屏蔽损失(全部行做词表投影)", "supervised": "只对监督行做词表投影"}, label="词表投影"
    )


SFT_OUT = outputs(
    input_tokens=out("过主干的行", unit="token"),
    supervised_tokens=out("监督 token", unit="token"),
    lm_head_tflop=out("词表投影(前反向)", digits=3, em=True, sym="F_{head}"),
    lm_head_waste_tflop=out("花在不监督行上的", digits=3),
    train_tflop=out("整条样本训练(前反向)", digits=3),
    lm_head_all_rows_tflop=out("只屏蔽损失时的词表投影", digits=3, tile=False),
    lm_head_supervised_rows_tflop=out("只投影监督行时的词表投影", digits=3, tile=False),
)
SEGMENTS = (
    ("系统提示", "system_tokens", "idle"),
    ("问题", "question_tokens", "prefill"),
    ("工具结果", "tool_tokens", "tools"),
    ("回答", "answer_tokens", "state"),
)


@card(
    "sft-tokens",
    title="SFT:读的 token ≠ 算损失的 token",
    section="3.4",
    kind="calculator",
    params=SftP,
    outputs=SFT_OUT,
    lead="一条 SFT 样本里常常只有回答算损失,但系统提示、问题、工具结果都要过主干给回答提供上下文。只在损失里屏蔽,词表投影照样算。",
)
def sft_tokens(p: SftP) -> View:
    s, segs = qwen3_8b(), tuple(getattr(p, k) for _, k, _ in SEGMENTS)
    both = {mode: T.sft_outputs(s, segs, p.answer_tokens, mode)["lm_head_tflop"] for mode in (True, False)}
    o = {
        **T.sft_outputs(s, segs, p.answer_tokens, p.vocab_proj == "all"),
        "lm_head_all_rows_tflop": both[True],
        "lm_head_supervised_rows_tflop": both[False],
    }
    f = formatter(SFT_OUT, o)
    fig = charts.bars(
        ["只屏蔽损失", "只投影监督行"],
        list(both.values()),
        ["backlog", "compute"],
        "TFLOP",
        [f("lm_head_all_rows_tflop", "n"), f("lm_head_supervised_rows_tflop", "n")],
        name="词表投影(前反向)",
    )
    strip = charts.token_strip([(name, getattr(p, k), role) for name, k, role in SEGMENTS], "回答")
    return View(
        o,
        headline="[[input_tokens|n]] 行过主干 · [[supervised_tokens|n]] 行算损失",
        blocks=[Block("diagrams/sft-tokens.html", {"segs": strip, "mode": p.vocab_proj, "C": COLORS})],
        figures=[
            Figure(
                fig,
                "两种做法的词表投影运算量",
                "只屏蔽损失 [[lm_head_all_rows_tflop]],只投影监督行 [[lm_head_supervised_rows_tflop]]。",
                illustrative=True,
            )
        ],
        notes=[
            Note(
                "词表投影 $= 6\\cdot 4096\\cdot 151{,}936$ FLOPs/行(前反向);整条样本 = 3 × 前向(投影、FFN、注意力、词表投影)。",
                "formula",
            ),
            Note("只在损失里屏蔽不监督的 token,却没跳过它们的词表投影,这些矩阵乘照样执行:运算量不变。"),
            Note(
                "只训练部分参数时,要存梯度和优化器状态的参数变少;但梯度仍要穿过冻结模块传到更早的可训练模块,输入梯度照算。"
            ),
            Note("四段长度都是示意值。", "illustrative"),
        ],
    )


class ItemP(Params):
    batch: int = slider(1, ge=1, le=16, step=1, label="序列数 B", unit="条")
    seq_len: int = slider(8192, ge=512, le=32768, step=512, label="序列长度 P", unit="token")
    recompute: bool = toggle(False, label="全量重计算")


ITEM_OUT = outputs(
    six_nd_tflop=out("6ND 粗算", digits=3, sym="6ND"),
    qo_proj_tflop=out("Q/O 投影", digits=3),
    kv_proj_tflop=out("K/V 投影", digits=3),
    ffn_tflop=out("FFN", digits=3),
    lm_head_tflop=out("词表投影(全部行)", digits=3),
    attention_tflop=out("注意力 QKᵀ + AV(前反向)", digits=3, em=True, sym="F_{attn}"),
    embed_excluded_tflop=out("6ND 多算的词嵌入", digits=3),
    norms_excluded_tflop=out("6ND 多算的归一化", digits=3),
    recompute_tflop=out("重计算前向", digits=2),
    itemized_tflop=out("逐项合计", digits=3, em=True, sym="F_{train}"),
    over_6nd_pct=out("比 6ND 高", digits=2, approx=True),
    under_6nd_pct=out("比 6ND 低", digits=2, tile=False),  # the prose's 反而低约 …
    attention_share_pct=out("注意力占逐项合计", digits=1),
)


@card(
    "fig-3-23",
    title="Qwen3-8B,B=1,P=8192,全参数训练,无重计算",
    label="图 3-23",
    section="3.4",
    kind="chart",
    params=ItemP,
    outputs=ITEM_OUT,
    lead="从 6ND 粗算走到逐项核算:粗算漏了注意力(查询与上下文的矩阵乘不对应任何参数),又多算了不做矩阵乘的词嵌入。",
)
def fig_3_23(p: ItemP) -> View:
    o = T.itemised_outputs(qwen3_8b(), p.batch, p.seq_len, p.recompute)
    o["under_6nd_pct"] = -o["over_6nd_pct"]
    f = formatter(ITEM_OUT, o)
    six, emb, nrm, att = (
        o[k] for k in ("six_nd_tflop", "embed_excluded_tflop", "norms_excluded_tflop", "attention_tflop")
    )
    steps = [
        ("6ND 粗算", 0, six, "ink", "six_nd_tflop"),
        ("− 词嵌入", six - emb, emb, "backlog", "embed_excluded_tflop"),
        ("− 归一化", six - emb - nrm, nrm, "backlog", "norms_excluded_tflop"),
        ("+ 注意力", six - emb - nrm, att, "decode", "attention_tflop"),
        *[("+ 重计算前向", six - emb - nrm + att, o["recompute_tflop"], "idle", "recompute_tflop")] * p.recompute,
        ("逐项合计", 0, o["itemized_tflop"], "accent", "itemized_tflop"),
    ]
    items = [
        ("Q/O 投影", o["qo_proj_tflop"], "prefill"),
        ("K/V 投影", o["kv_proj_tflop"], "tools"),
        ("FFN", o["ffn_tflop"], "compute"),
        ("词表投影", o["lm_head_tflop"], "state"),
        ("注意力", att, "decode"),
    ]
    rec = " + 重计算 [[recompute_tflop|n]]" if p.recompute else ""
    return View(
        o,
        headline="Qwen3-8B · B = [[batch|n]] · P = [[seq_len|n]]" + (" · 全量重计算" if p.recompute else " · 无重计算"),
        ctx={"sign": "+" if o["over_6nd_pct"] >= 0 else ""},
        figures=[
            Figure(
                charts.waterfall(
                    [(n, b, h, role, f(k, "n,d3")) for n, b, h, role, k in steps], max(six, o["itemized_tflop"])
                ),
                "图 3-23 · 从 6ND 到逐项核算(瀑布)",
                "6ND [[six_nd_tflop|n]] − 词嵌入 [[embed_excluded_tflop|n]] − 归一化 "
                "[[norms_excluded_tflop|n]] + 注意力 [[attention_tflop|n]]"
                + rec
                + " = [[itemized_tflop]],比 6ND [[sign]][[over_6nd_pct]]。",
            ),
            Figure(
                charts.items_stack(items, o["recompute_tflop"] if p.recompute else None),
                "逐项构成",
                "Q/O、K/V、FFN、词表投影、注意力五项堆叠。",
            ),
        ],
        notes=[
            Note(
                "投影 $6\\,n_L(q+k+v+o+\\mathrm{FFN})\\,BP$ + 词表 $6\\,hV\\,BP$ + 注意力 $3\\cdot 4 n_L H d\\cdot B\\,P(P+1)/2$;"
                "6ND 用总参数 8,190,735,360(含不做矩阵乘的词嵌入与归一化)。",
                "formula",
            ),
            Note(
                "这一差距来自模型本身,与实现无关;衡量利用率(MFU)时只能用修正后的下界。只屏蔽标签而仍对全部 token 做词表投影,运算量不变。"
            ),
            Note(
                "参数投影随行数涨,注意力随配对数涨,优化器更新随参数量 × 更新次数涨(图中未计)。序列越短注意力占比越小:B = 2、P = 4096 时逐项合计反而比 6ND 低 0.23%。用重计算省显存,重做的前向要加回 F_train。"
            ),
            Note("新增的前向操作(上下文压缩、mHC、MoE 选中的专家)都会带来各自的反向。"),
        ],
    )
