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
from ...words import words_for
from ..shared.ch3_train import formatter, n_params, qwen3_8b

W = words_for(__name__)


class LinearP(Params):
    m: int = slider(8192, ge=1, le=65536, step=1, label=W["linearp.m.label"], log=True, illustrative=True)
    k: int = slider(4096, ge=1, le=16384, step=1, label=W["linearp.k.label"], log=True, illustrative=True)
    n: int = slider(12288, ge=1, le=65536, step=1, label=W["linearp.n.label"], log=True, illustrative=True)
    freeze_w: bool = toggle(False, label=W["linearp.freeze_w.label"])
    need_input_grad: bool = toggle(True, label=W["linearp.need_input_grad.label"])


LINEAR_OUT = outputs(
    fwd_gflop=out(W["linear_out.fwd_gflop"], sig=5, sym="F_{fwd}"),
    dx_gflop=out(W["linear_out.dx_gflop"], sig=5, sym="F_{dX}"),
    dw_gflop=out(W["linear_out.dw_gflop"], sig=5, sym="F_{dW}"),
    total_gflop=out(W["linear_out.total_gflop"], sig=5, em=True, sym="F"),
    total_over_mkn=out(W["linear_out.total_over_mkn"], unit="", digits=0),
    dx_shape_elems=out(W["linear_out.dx_shape_elems"], unit=W["linear_out.unit"]),
    dw_shape_elems=out(W["linear_out.dw_shape_elems"], unit=W["linear_out.unit"]),
)


@card(
    "linear-3mm",
    title=W["linear_3mm.title"],
    section="3.4",
    kind="calculator",
    params=LinearP,
    outputs=LINEAR_OUT,
    lead=W["linear_3mm.lead"],
)
def linear_3mm(p: LinearP) -> View:
    o = T.linear_outputs(p.m, p.k, p.n, freeze_w=p.freeze_w, need_input_grad=p.need_input_grad)
    f, keys = formatter(LINEAR_OUT, o), ("fwd_gflop", "dx_gflop", "dw_gflop")
    fig = charts.bars(
        [W["linear_3mm.bars"], "dX=dY·Wᵀ", "dW=Xᵀ·dY"],
        [o[k] for k in keys],
        ["compute", "decode", "state"],
        "GFLOP",
        [f(k, "n") if o[k] else W["linear_3mm.bars_2"] for k in keys],
        name=W["linear_3mm.name"],
        height=280,
    )
    return View(
        o,
        headline="X: [[m|n]]×[[k|n]] · W: [[k|n]]×[[n|n]] · Y: [[m|n]]×[[n|n]]",
        figures=[
            Figure(
                fig,
                W["linear_3mm.figures"],
                W["linear_3mm.figures_2"],
                illustrative=True,
                draws=frozenset({"dw_gflop", "dx_gflop", "fwd_gflop", "total_over_mkn"}),
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
                W["linear_3mm.notes"],
                "formula",
            ),
            Note(W["linear_3mm.notes_2"]),
            Note(W["linear_3mm.notes_3"], "illustrative"),
        ],
    )


CARDS = {"h100-sxm": "H100 SXM(80 GB)", "rtx-pro-6000": "RTX PRO 6000(96 GB)", "a100-sxm": "A100 SXM(80 GB)"}
CARD_DATA = {"h100-sxm": "h100-sxm", "rtx-pro-6000": "rtx-pro-6000", "a100-sxm": "a100-80gb-sxm"}
CardId = gpu_type(list(CARDS))  # a preset, or a reader's own card (custom:GB,TB/s,TFLOP/s)


class StateP(Params):
    n_params: int | None = slider(
        None,
        ge=1_000_000,
        le=2_000_000_000_000,
        step=1,
        label=W["statep.n_params.label"],
        placeholder=W["statep.n_params.placeholder"],
    )
    weight_bytes: float = slider(
        2, ge=1, le=4, step=1, label=W["statep.weight_bytes.label"], unit=W["statep.weight_bytes.unit"], sym="b_w"
    )
    grad_bytes: float = slider(
        4, ge=2, le=4, step=2, label=W["statep.grad_bytes.label"], unit=W["statep.weight_bytes.unit"], sym="b_g"
    )
    master_bytes: float = slider(
        4, ge=0, le=4, step=2, label=W["statep.master_bytes.label"], unit=W["statep.weight_bytes.unit"], sym="b_{mst}"
    )
    adam_m_bytes: float = slider(
        4, ge=0, le=4, step=2, label=W["statep.adam_m_bytes.label"], unit=W["statep.weight_bytes.unit"], sym="b_m"
    )
    adam_v_bytes: float = slider(
        4, ge=0, le=4, step=2, label=W["statep.adam_v_bytes.label"], unit=W["statep.weight_bytes.unit"], sym="b_v"
    )
    n_gpus: int = slider(1, ge=1, le=16, step=1, label=W["statep.n_gpus.label"], illustrative=True, sym="k")
    gpu: CardId = gpu_choice("h100-sxm", CARDS, label=W["statep.gpu.label"], illustrative=True)  # type: ignore[valid-type]


STATE_OUT = outputs(
    n_params=out(W["state_out.n_params"], unit="", sym="N"),
    bytes_per_param=out(W["state_out.bytes_per_param"], unit="B", digits=0, em=True),
    ratio_vs_bf16=out(W["state_out.ratio_vs_bf16"], unit="×", sig=3),
    total_gb=out(W["state_out.total_gb"], digits=2, em=True, sym="M_{state}"),
    total_gib=out(W["state_out.total_gib"], digits=2, approx=True),
    weights_gb=out(W["statep.weight_bytes.label"], digits=2),
    grads_gb=out(W["statep.grad_bytes.label"], digits=2),
    master_gb=out(W["statep.master_bytes.label"], digits=2),
    adam_gb=out("Adam m + v", digits=2),
    bf16_weights_gb=out(W["state_out.bf16_weights_gb"], digits=2),
    per_gpu_gb=out(W["state_out.per_gpu_gb"], digits=2, ill=True),
    fits_per_gpu=out(W["state_out.fits_per_gpu"], ill=True, text={True: W["state_out.t"], False: W["state_out.t_2"]}),
    min_gpus_state_only=out(W["state_out.min_gpus_state_only"], unit=W["state_out.unit"], ill=True),
    card_gb=out(W["state_out.card_gb"], tile=False, sym="M_{card}"),
    headroom_gb=out(W["state_out.headroom_gb"], digits=1, tile=False),
)


@card(
    "eg-3-3",
    title=W["eg_3_3.title"],
    label=W["eg_3_3.label"],
    section="3.4",
    kind="calculator",
    params=StateP,
    outputs=STATE_OUT,
    lead=W["eg_3_3.lead"],
)
def eg_3_3(p: StateP) -> View:
    n = p.n_params if p.n_params is not None else n_params(qwen3_8b())
    each = (p.weight_bytes, p.grad_bytes, p.master_bytes, p.adam_m_bytes, p.adam_v_bytes)
    o = T.state_outputs(n, each, p.n_gpus, gpu_of(CARD_DATA.get(p.gpu) or p.gpu).mem_gb)
    o["headroom_gb"] = abs(o["card_gb"] - o["per_gpu_gb"])
    parts = zip(
        (W["eg_3_3.zip"], W["statep.grad_bytes.label"], W["eg_3_3.zip_2"], W["eg_3_3.zip_3"], W["eg_3_3.zip_4"]),
        each,
        ("compute", "decode", "prefill", "state", "tools"),
    )
    left = W["eg_3_3"] if o["card_gb"] >= o["per_gpu_gb"] else W["eg_3_3_2"]
    return View(
        o,
        headline=W["eg_3_3.headline"],
        figures=[
            Figure(
                charts.state_figure(n, list(parts), p.n_gpus, o["card_gb"]),
                W["eg_3_3.figures"],
                W["eg_3_3.figures_2"],
                illustrative=p.n_gpus > 1 or p.gpu != "h100-sxm",
                draws=frozenset(
                    {
                        "adam_gb",
                        "bf16_weights_gb",
                        "bytes_per_param",
                        "grads_gb",
                        "master_gb",
                        "min_gpus_state_only",
                        "weights_gb",
                    }
                ),
            )
        ],
        notes=[
            Note(W["eg_3_3.notes"], "formula"),
            Note(W.f("eg_3_3.notes_joined", a=W["eg_3_3.notes_2"], b=left)),
            Note(
                W["eg_3_3.notes_3"],
                "illustrative",
            ),
        ],
    )


class ActP(Params):
    n_layers: int = slider(4, ge=4, le=4, step=1, label=W["actp.n_layers.label"], sym="L")
    micro_batches: int = slider(1, ge=1, le=8, step=1, label=W["actp.micro_batches.label"])
    t_fwd: float = slider(
        1, ge=0.5, le=4, step=0.5, label=W["actp.t_fwd.label"], unit=W["actp.t_fwd.unit"], illustrative=True, sym="t_F"
    )
    t_bwd: float = slider(
        2, ge=0.5, le=4, step=0.5, label=W["actp.t_bwd.label"], unit=W["actp.t_fwd.unit"], illustrative=True, sym="t_B"
    )
    act_per_layer_full: float = slider(
        1,
        ge=1,
        le=1,
        step=1,
        label=W["actp.act_per_layer_full.label"],
        unit=W["actp.t_fwd.unit"],
        illustrative=True,
        sym="m_{act}",
    )
    param_state: float = slider(
        4,
        ge=4,
        le=4,
        step=1,
        label=W["actp.param_state.label"],
        unit=W["actp.t_fwd.unit"],
        illustrative=True,
        sym="M_{param}",
    )


ACT_OUT = outputs(
    peak_activation=out(W["act_out.peak_activation"], unit=W["actp.t_fwd.unit"], ill=True, em=True, sym="M_{act}"),
    peak_total=out(W["act_out.peak_total"], unit=W["actp.t_fwd.unit"], ill=True),
    peak_vs_full_batch=out(W["act_out.peak_vs_full_batch"], unit=""),
    total_time=out(W["act_out.total_time"], unit=W["actp.t_fwd.unit"], ill=True, sym="T"),
    passes=out(W["act_out.passes"], unit=W["act_out.unit"]),
    updates=out(W["act_out.updates"], unit=W["act_out.unit"]),
)


@card(
    "fig-3-20",
    title=W["fig_3_20.title"],
    label=W["fig_3_20.label"],
    section="3.4",
    kind="animation",
    params=ActP,
    outputs=ACT_OUT,
    lead=W["fig_3_20.lead"],
)
def fig_3_20(p: ActP) -> View:
    a, nl, act = p.micro_batches, p.n_layers, p.act_per_layer_full
    sch = T.schedule_summary(nl, a, p.t_fwd, p.t_bwd, act)
    o = {
        "peak_activation": sch.M_act,
        "peak_total": sch.M_act + p.param_state,
        "total_time": sch.T,
        "passes": a,
        "updates": given(1, "n_{upd}", W["act_out.unit"], W["fig_3_20.updates"]),
        "peak_vs_full_batch": sch.M_act / (nl * act),
    }
    fig = charts.schedule_figure(T.microbatch_schedule(nl, a, p.t_fwd, p.t_bwd, act), nl, a, p.param_state, act)
    return View(
        o,
        headline=W["fig_3_20.headline"],
        figures=[
            Figure(
                fig,
                W["fig_3_20.figures"],
                W["fig_3_20.figures_2"],
                illustrative=True,
                animated=True,
                draws=frozenset(
                    {"passes", "peak_activation", "peak_total", "peak_vs_full_batch", "total_time", "updates"}
                ),
            )
        ],
        notes=[
            Note(
                W["fig_3_20.notes"],
                "formula",
            ),
            Note(W["fig_3_20.notes_2"]),
            Note(W["fig_3_20.notes_3"], "illustrative"),
        ],
    )


class SplitP(Params):
    total_tokens: int = slider(
        8192, ge=8192, le=8192, step=1, label=W["splitp.total_tokens.label"], unit="token", sym="P"
    )
    first_doc_tokens: int = slider(
        4096,
        ge=0,
        le=8192,
        step=128,
        label=W["splitp.first_doc_tokens.label"],
        unit="token",
        illustrative=True,
        sym="L_1",
    )


SPLIT_OUT = outputs(
    second_doc_tokens=out(W["split_out.second_doc_tokens"], unit="token", sym="L_2"),
    pairs=out(W["split_out.pairs"], unit="", sym="n_{pair}"),
    pairs_single_doc=out(W["split_out.pairs_single_doc"], unit=""),
    attn_gflop=out(W["split_out.attn_gflop"], digits=2, sym="F_{attn}"),
    linear_gflop=out(W["split_out.linear_gflop"], digits=2, sym="F_{lin}"),
    layer_gflop=out(W["split_out.layer_gflop"], digits=2, em=True),
    attn_share_pct=out(W["split_out.attn_share_pct"], digits=1),
    layer_vs_single_doc_pct=out(W["split_out.layer_vs_single_doc_pct"], digits=1),
    single_attn_gflop=out(W["split_out.single_attn_gflop"], digits=2, tile=False),
    single_attn_share_pct=out(W["split_out.single_attn_share_pct"], digits=1, tile=False),
)


@card(
    "doc-split-8192",
    title=W["doc_split_8192.title"],
    section="3.4",
    kind="calculator",
    params=SplitP,
    outputs=SPLIT_OUT,
    lead=W["doc_split_8192.lead"],
)
def doc_split_8192(p: SplitP) -> View:
    o = T.split_outputs(qwen3_8b(), p.total_tokens, p.first_doc_tokens)
    right = charts.stacked(
        [W["doc_split_8192.stacked"], W["doc_split_8192.stacked_2"]],
        [
            (W["doc_split_8192.stacked_3"], [o["linear_gflop"]] * 2, "compute"),
            (W["doc_split_8192.stacked_4"], [o["attn_gflop"], o["single_attn_gflop"]], "decode"),
        ],
        W["doc_split_8192.stacked_5"],
        height=300,
    )
    return View(
        o,
        headline="L₁ = [[first_doc_tokens|n]] · L₂ = [[second_doc_tokens|n]]",
        figures=[
            Figure(
                charts.pairs_figure(p.total_tokens, p.first_doc_tokens, o["pairs"], o["pairs_single_doc"]),
                W["doc_split_8192.figures"],
                W["doc_split_8192.figures_2"],
                illustrative=True,
                draws=frozenset({"pairs", "pairs_single_doc", "second_doc_tokens"}),
            ),
            Figure(
                right,
                W["doc_split_8192.figures_3"],
                W["doc_split_8192.figures_4"],
                draws=frozenset({"attn_gflop", "linear_gflop"}),
            ),
        ],
        notes=[
            Note(
                W["doc_split_8192.notes"],
                "formula",
            ),
            Note(W["doc_split_8192.notes_2"]),
            Note(W["doc_split_8192.notes_3"], "illustrative"),
        ],
    )


class UpdateP(Params):
    micro_batches: int = slider(8, ge=1, le=64, step=1, label=W["updatep.micro_batches.label"])
    seqs_per_micro: int = slider(
        2,
        ge=1,
        le=32,
        step=1,
        label=W["updatep.seqs_per_micro.label"],
        unit=W["updatep.seqs_per_micro.unit"],
        sym=W["updatep.seqs_per_micro.label"],
    )
    seq_len: int = slider(4096, ge=512, le=32768, step=512, label=W["updatep.seq_len.label"], unit="token")
    label_tokens: int = slider(1024, ge=0, le=32768, step=1, label=W["updatep.label_tokens.label"], unit="token")
    cross_field_rules = (W["updatep"],)

    @field_validator("label_tokens")
    @classmethod
    def _label_le_len(cls, v: int, info: ValidationInfo) -> int:
        P = info.data.get("seq_len")
        if P is not None and v > P:
            raise ValueError(W.f("updatep.label_le_len.valueerror", p=P))
        return v


_QWEN3 = W["qwen3"]
UPDATE_OUT = outputs(
    input_tokens=out(W["update_out.input_tokens"], unit="token", em=True),
    supervised_tokens=out(W["update_out.supervised_tokens"], unit="token", em=True),
    loss_denominator=out(W["update_out.loss_denominator"], unit="token"),
    fwd_bwd_passes=out(W["act_out.passes"], unit=W["act_out.unit"]),
    sequences=out(W["update_out.sequences"], unit=W["updatep.seqs_per_micro.unit"]),
    qwen3_general_tokens_min=out(W["update_out.qwen3_general_tokens_min"], unit="token", tile=False),
    qwen3_general_seq_len=out(W["update_out.qwen3_general_seq_len"], unit="token", tile=False),
    qwen3_reasoning_tokens=out(W["update_out.qwen3_reasoning_tokens"], unit="token", tile=False),
    qwen3_long_seq_len=out(W["update_out.qwen3_long_seq_len"], unit="token", tile=False),
)


@card(
    "update-tokens",
    title=W["update_tokens.title"],
    section="3.4",
    kind="calculator",
    params=UpdateP,
    outputs=UPDATE_OUT,
    badges=((W["update_tokens.badges"], "ex-3-6"),),
    lead=W["update_tokens.lead"],
)
def update_tokens(p: UpdateP) -> View:
    o = {
        **T.update_outputs(p.micro_batches, p.seqs_per_micro, p.seq_len, p.label_tokens),
        "qwen3_general_tokens_min": given(30e12, W["update_tokens.qwen3_general_tokens_min"], "token", _QWEN3),
        "qwen3_general_seq_len": given(4096, W["update_tokens.qwen3_general_seq_len"], "token", _QWEN3),
        "qwen3_reasoning_tokens": given(5e12, W["update_tokens.qwen3_reasoning_tokens"], "token", _QWEN3),
        "qwen3_long_seq_len": given(32768, W["update_tokens.qwen3_long_seq_len"], "token", _QWEN3),
    }
    f = formatter(UPDATE_OUT, o)
    fig = charts.bars(
        [W["update_tokens.bars"], W["update_tokens.bars_2"]],
        [o["input_tokens"], o["supervised_tokens"]],
        ["prefill", "state"],
        W["update_tokens.bars_3"],
        [f("input_tokens", "n"), f("supervised_tokens", "n")],
        name=W["update_tokens.name"],
    )
    return View(
        o,
        headline="a = [[micro_batches|n]] · B_μ = [[seqs_per_micro|n]] · P = [[seq_len|n]] · P_label = [[label_tokens|n]]",
        figures=[
            Figure(
                fig,
                W["update_tokens.figures"],
                W["update_tokens.figures_2"],
                draws=frozenset(
                    {"fwd_bwd_passes", "input_tokens", "loss_denominator", "sequences", "supervised_tokens"}
                ),
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
                W["update_tokens.notes"],
                "formula",
            ),
            Note(W["update_tokens.notes_2"]),
            Note(
                W["update_tokens.notes_3"],
                "book",
            ),
        ],
    )


class SftP(Params):
    system_tokens: int = slider(
        300, ge=0, le=8192, step=1, label=W["sftp.system_tokens.label"], unit="token", illustrative=True, sym="T_{sys}"
    )
    question_tokens: int = slider(
        200, ge=0, le=8192, step=1, label=W["sftp.question_tokens.label"], unit="token", illustrative=True, sym="T_q"
    )
    tool_tokens: int = slider(
        1500, ge=0, le=32768, step=1, label=W["sftp.tool_tokens.label"], unit="token", illustrative=True, sym="T_{tool}"
    )
    answer_tokens: int = slider(
        500, ge=1, le=8192, step=1, label=W["sftp.answer_tokens.label"], unit="token", illustrative=True, sym="T_{ans}"
    )
    vocab_proj: Literal["all", "supervised"] = choice(
        "all",
        {"all": W["sftp.vocab_proj.all"], "supervised": W["sftp.vocab_proj.supervised"]},
        label=W["sftp.vocab_proj.label"],
    )


SFT_OUT = outputs(
    input_tokens=out(W["sft_out.input_tokens"], unit="token"),
    supervised_tokens=out(W["sft_out.supervised_tokens"], unit="token"),
    lm_head_tflop=out(W["sft_out.lm_head_tflop"], digits=3, em=True, sym="F_{head}"),
    lm_head_waste_tflop=out(W["sft_out.lm_head_waste_tflop"], digits=3),
    train_tflop=out(W["sft_out.train_tflop"], digits=3),
    lm_head_all_rows_tflop=out(W["sft_out.lm_head_all_rows_tflop"], digits=3, tile=False),
    lm_head_supervised_rows_tflop=out(W["sft_out.lm_head_supervised_rows_tflop"], digits=3, tile=False),
)
SEGMENTS = (
    (W["sftp.system_tokens.label"], "system_tokens", "idle"),
    (W["sftp.question_tokens.label"], "question_tokens", "prefill"),
    (W["sftp.tool_tokens.label"], "tool_tokens", "tools"),
    (W["segments"], "answer_tokens", "state"),
)


@card(
    "sft-tokens",
    title=W["sft_tokens.title"],
    section="3.4",
    kind="calculator",
    params=SftP,
    outputs=SFT_OUT,
    lead=W["sft_tokens.lead"],
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
        [W["sft_tokens.bars"], W["sft_tokens.bars_2"]],
        list(both.values()),
        ["backlog", "compute"],
        "TFLOP",
        [f("lm_head_all_rows_tflop", "n"), f("lm_head_supervised_rows_tflop", "n")],
        name=W["sft_out.lm_head_tflop"],
    )
    strip = charts.token_strip([(name, getattr(p, k), role) for name, k, role in SEGMENTS], W["segments"])
    return View(
        o,
        headline=W["sft_tokens.headline"],
        blocks=[Block("diagrams/sft-tokens.html", {"segs": strip, "mode": p.vocab_proj, "C": COLORS})],
        figures=[
            Figure(
                fig,
                W["sft_tokens.figures"],
                W["sft_tokens.figures_2"],
                illustrative=True,
                draws=frozenset({"lm_head_tflop", "lm_head_waste_tflop", "supervised_tokens"}),
            )
        ],
        notes=[
            Note(
                W["sft_tokens.notes"],
                "formula",
            ),
            Note(W["sft_tokens.notes_2"]),
            Note(W["sft_tokens.notes_3"]),
            Note(W["sft_tokens.notes_4"], "illustrative"),
        ],
    )


class ItemP(Params):
    batch: int = slider(1, ge=1, le=16, step=1, label=W["itemp.batch.label"], unit=W["updatep.seqs_per_micro.unit"])
    seq_len: int = slider(8192, ge=512, le=32768, step=512, label=W["updatep.seq_len.label"], unit="token")
    recompute: bool = toggle(False, label=W["itemp.recompute.label"])


ITEM_OUT = outputs(
    six_nd_tflop=out(W["item_out.six_nd_tflop"], digits=3, sym="6ND"),
    qo_proj_tflop=out(W["item_out.qo_proj_tflop"], digits=3),
    kv_proj_tflop=out(W["item_out.kv_proj_tflop"], digits=3),
    ffn_tflop=out("FFN", digits=3),
    lm_head_tflop=out(W["item_out.lm_head_tflop"], digits=3),
    attention_tflop=out(W["item_out.attention_tflop"], digits=3, em=True, sym="F_{attn}"),
    embed_excluded_tflop=out(W["item_out.embed_excluded_tflop"], digits=3),
    norms_excluded_tflop=out(W["item_out.norms_excluded_tflop"], digits=3),
    recompute_tflop=out(W["item_out.recompute_tflop"], digits=2),
    itemized_tflop=out(W["item_out.itemized_tflop"], digits=3, em=True, sym="F_{train}"),
    over_6nd_pct=out(W["item_out.over_6nd_pct"], digits=2, approx=True),
    under_6nd_pct=out(W["item_out.under_6nd_pct"], digits=2, tile=False),  # the prose's 反而低约 …
    attention_share_pct=out(W["item_out.attention_share_pct"], digits=1),
)


@card(
    "fig-3-23",
    title=W["fig_3_23.title"],
    label=W["fig_3_23.label"],
    section="3.4",
    kind="chart",
    params=ItemP,
    outputs=ITEM_OUT,
    lead=W["fig_3_23.lead"],
)
def fig_3_23(p: ItemP) -> View:
    o = T.itemised_outputs(qwen3_8b(), p.batch, p.seq_len, p.recompute)
    o["under_6nd_pct"] = -o["over_6nd_pct"]
    f = formatter(ITEM_OUT, o)
    six, emb, nrm, att = (
        o[k] for k in ("six_nd_tflop", "embed_excluded_tflop", "norms_excluded_tflop", "attention_tflop")
    )
    steps = [
        (W["item_out.six_nd_tflop"], 0, six, "ink", "six_nd_tflop"),
        (W["fig_3_23"], six - emb, emb, "backlog", "embed_excluded_tflop"),
        (W["fig_3_23_2"], six - emb - nrm, nrm, "backlog", "norms_excluded_tflop"),
        (W["fig_3_23_3"], six - emb - nrm, att, "decode", "attention_tflop"),
        *[(W["fig_3_23_4"], six - emb - nrm + att, o["recompute_tflop"], "idle", "recompute_tflop")] * p.recompute,
        (W["item_out.itemized_tflop"], 0, o["itemized_tflop"], "accent", "itemized_tflop"),
    ]
    items = [
        (W["item_out.qo_proj_tflop"], o["qo_proj_tflop"], "prefill"),
        (W["item_out.kv_proj_tflop"], o["kv_proj_tflop"], "tools"),
        ("FFN", o["ffn_tflop"], "compute"),
        (W["sftp.vocab_proj.label"], o["lm_head_tflop"], "state"),
        (W["fig_3_23_5"], att, "decode"),
    ]
    rec = W["fig_3_23_6"] if p.recompute else ""
    return View(
        o,
        headline="Qwen3-8B · B = [[batch|n]] · P = [[seq_len|n]]"
        + (W["fig_3_23.headline"] if p.recompute else W["fig_3_23.headline_2"]),
        ctx={"sign": "+" if o["over_6nd_pct"] >= 0 else ""},
        figures=[
            Figure(
                charts.waterfall(
                    [(n, b, h, role, f(k, "n,d3")) for n, b, h, role, k in steps], max(six, o["itemized_tflop"])
                ),
                W["fig_3_23.figures"],
                W.f("fig_3_23.figures_joined", a=W["fig_3_23.figures_2"], b=rec, c=W["fig_3_23.figures_3"]),
                draws=frozenset(
                    {
                        "attention_tflop",
                        "embed_excluded_tflop",
                        "itemized_tflop",
                        "lm_head_tflop",
                        "norms_excluded_tflop",
                        "six_nd_tflop",
                    }
                ),
            ),
            Figure(
                charts.items_stack(items, o["recompute_tflop"] if p.recompute else None),
                W["fig_3_23.figures_4"],
                W["fig_3_23.figures_5"],
                draws=frozenset(
                    {
                        "attention_tflop",
                        "embed_excluded_tflop",
                        "ffn_tflop",
                        "kv_proj_tflop",
                        "lm_head_tflop",
                        "qo_proj_tflop",
                    }
                ),
            ),
        ],
        notes=[
            Note(
                W["fig_3_23.notes"],
                "formula",
            ),
            Note(W["fig_3_23.notes_2"]),
            Note(W["fig_3_23.notes_3"]),
            Note(W["fig_3_23.notes_4"]),
        ],
    )
