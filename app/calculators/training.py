"""Training workload: 6ND, the three matmuls of a linear layer, itemised training FLOPs with causal
attention, optimizer state per parameter, tokens per update, and the micro-batch activation schedule.

Base units: FLOPs, bytes, tokens. Model shapes come from ``model_config.shape_of`` (never typed in).
Convention (book ch 3.4): training FLOPs = 3 × forward matmul FLOPs; the optimizer update is not counted.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from ..trace import name, rule, tmin, tsum
from ..words import words_for
from .model_config import ModelShape, attn_flops_per_context_token

W = words_for(__name__)

# ---------------------------------------------------------------- rough estimate and one linear layer


def six_nd(n_params: float, tokens: float) -> float:
    """F_train ≈ 6·N·D."""
    return 6 * n_params * tokens


@dataclass(frozen=True)
class LinearTrain:
    fwd: float  # Y = XW, 2mkn
    dx: float  # dX = dY·Wᵀ, 2mkn (0 if no earlier layer needs gradients)
    dw: float  # dW = Xᵀ·dY, 2mkn (0 if W is frozen)
    mkn: float

    @property
    def total(self) -> float:
        return self.fwd + self.dx + self.dw


def linear_train_flops(m: int, k: int, n: int, *, freeze_w: bool = False, need_input_grad: bool = True) -> LinearTrain:
    """Y = XW (m×k · k×n): forward, dX and dW each 2mkn FLOPs (m·k·n multiply-adds); 6mkn in all."""
    mm = 2 * m * k * n
    dx, dw = (mm if need_input_grad else 0 * mm), (0 * mm if freeze_w else mm)
    return LinearTrain(name(mm, "F_{fwd}", "FLOP"), name(dx, "F_{dX}", "FLOP"), name(dw, "F_{dW}", "FLOP"), m * k * n)


def linear_outputs(m: int, k: int, n: int, *, freeze_w: bool = False, need_input_grad: bool = True) -> dict:
    """linear-3mm's outputs: the three matmuls in GFLOP, their total over m·k·n, the gradient shapes."""
    lt = linear_train_flops(m, k, n, freeze_w=freeze_w, need_input_grad=need_input_grad)
    return {
        "fwd_gflop": lt.fwd / 1e9,
        "dx_gflop": lt.dx / 1e9,
        "dw_gflop": lt.dw / 1e9,
        "total_gflop": lt.total / 1e9,
        "total_over_mkn": lt.total / lt.mkn,
        "dx_shape_elems": m * k,
        "dw_shape_elems": k * n,
    }


# ---------------------------------------------------------------- matrix shapes of a dense decoder


@dataclass(frozen=True)
class BlockMatmuls:
    """Weights one transformer block multiplies each row by (dense GQA decoder)."""

    q: int
    k: int
    v: int
    o: int
    ffn: int

    @property
    def total(self) -> int:
        return self.q + self.k + self.v + self.o + self.ffn


def block_matmuls(s: ModelShape) -> BlockMatmuls:
    """q = h·H·d, k = v = h·H_kv·d, o = H·d·h; FFN = the rest of the block's linear weights."""
    q = s.hidden * s.n_heads * s.head_dim
    kv = s.hidden * s.n_kv_heads * s.head_dim
    o = s.n_heads * s.head_dim * s.hidden
    per_block = s.active_linear_params // s.n_layers
    return BlockMatmuls(q, kv, kv, o, per_block - q - 2 * kv - o)


def causal_pairs(length: int) -> int:
    """Causal query–key pairs of one sequence, diagonal included: L(L+1)/2."""
    return length * (length + 1) // 2


def packed_pairs(lengths: Sequence[int]) -> int:
    """Independent documents packed with a block-diagonal mask: Σ L_i(L_i+1)/2."""
    return tsum(causal_pairs(x) for x in lengths)


def split_outputs(s: ModelShape, total: int, first: int) -> dict:
    """doc-split-8192: one layer's forward over ``total`` tokens packed as two documents (first, rest):
    projections + FFN 2·N_blk·tokens, attention 4·H·d·Σ L_i(L_i+1)/2, against one whole document."""
    first = tmin(first, total)
    second = name(total - first, "L_2", "token")
    per_pair = name(attn_flops_per_pair_layer(s), "a_{pair}", "FLOP")
    lin = name(2 * block_linear_params(s) * total, "F_{lin}", "FLOP")
    pairs = name(packed_pairs([first, second]), "n_{pair}")
    single = name(causal_pairs(total), "n_{pair,1}")
    attn, attn1 = name(per_pair * pairs, "F_{attn}", "FLOP"), name(per_pair * single, "F_{attn,1}", "FLOP")
    return {
        "second_doc_tokens": second,
        "pairs": pairs,
        "pairs_single_doc": single,
        "attn_gflop": attn / 1e9,
        "linear_gflop": lin / 1e9,
        "layer_gflop": (attn + lin) / 1e9,
        "attn_share_pct": 100 * attn / (attn + lin),
        "layer_vs_single_doc_pct": 100 * (attn + lin) / (attn1 + lin),
        "single_attn_gflop": attn1 / 1e9,
        "single_attn_share_pct": 100 * attn1 / (attn1 + lin),
    }


def attn_flops_per_pair_layer(s: ModelShape) -> int:
    """QKᵀ + AV per causal pair in one layer, forward: 4·H·d (MLA: 2·H·(d_qk + d_v))."""
    if s.qk_head_dim or s.v_head_dim:
        return 2 * s.n_heads * ((s.qk_head_dim or s.head_dim) + (s.v_head_dim or s.head_dim))
    return 4 * s.n_heads * s.head_dim


def block_linear_params(s: ModelShape) -> int:
    """Linear weights one row passes through in one block: N_blk = N_lin,act / L."""
    return name(s.active_linear_params // s.n_layers, "N_{blk}")


def lm_head_flops(s: ModelShape, rows: float, *, train: bool = True) -> float:
    """Vocabulary projection over ``rows`` rows: 2·h·V per row forward, ×3 with backward."""
    return (6 if train else 2) * s.lm_head_matrix_params * rows


def teacher_forced_forward_flops(s: ModelShape, length: int, lm_rows: int | None = None) -> float:
    """One forward over a known sequence: 2·(block matmuls)·L + 2·(h·V)·rows + 4·n_L·H·d·L(L+1)/2.
    ``lm_rows`` defaults to every row (reference model, reward model, training)."""
    rows = length if lm_rows is None else lm_rows
    return (
        2 * s.active_linear_params * length
        + 2 * s.lm_head_matrix_params * rows
        + attn_flops_per_context_token(s) * causal_pairs(length)
    )


@dataclass(frozen=True)
class ItemisedTrain:
    """Training FLOPs of B sequences of length P, item by item (fwd + bwd = 3 × forward)."""

    six_nd: float
    qo_proj: float
    kv_proj: float
    ffn: float
    lm_head: float
    attention: float
    embed_excluded: float
    norms_excluded: float
    recompute: float

    @property
    def items(self) -> float:
        return self.qo_proj + self.kv_proj + self.ffn + self.lm_head + self.attention

    @property
    def total(self) -> float:
        return name(self.items + self.recompute, "F_{train}", "FLOP")

    @property
    def over_6nd(self) -> float:
        return self.total / self.six_nd - 1.0

    @property
    def attention_share(self) -> float:
        return self.attention / self.total


def itemised_train_flops(
    s: ModelShape, batch: int, seq_len: int, *, recompute: bool = False, lm_rows_per_seq: int | None = None
) -> ItemisedTrain:
    """Items: 6·n_L·(q+o)·BP, 6·n_L·(k+v)·BP, 6·n_L·FFN·BP, 6·(h·V)·rows, 3·4·n_L·H·d·B·P(P+1)/2;
    6ND = 6·N_total·BP also counts the input embedding and the norms, which do no matmul per token.
    Full recompute adds one more forward (= items/3)."""
    bp = name(batch * seq_len, "D", "token")
    bm = block_matmuls(s)
    L = s.n_layers
    rows = bp if lm_rows_per_seq is None else batch * lm_rows_per_seq
    attn = 3 * attn_flops_per_context_token(s) * batch * causal_pairs(seq_len)
    it = ItemisedTrain(
        six_nd=name(six_nd(name(s.params_total, "N"), bp), "6ND", "FLOP"),
        qo_proj=name(6 * L * (bm.q + bm.o) * bp, "F_{QO}", "FLOP"),
        kv_proj=name(6 * L * (bm.k + bm.v) * bp, "F_{KV}", "FLOP"),
        ffn=name(6 * L * bm.ffn * bp, "F_{FFN}", "FLOP"),
        lm_head=name(lm_head_flops(s, rows), "F_{head}", "FLOP"),
        attention=name(attn, "F_{attn}", "FLOP"),
        embed_excluded=name(6 * s.embedding_params * bp, "F_{emb}", "FLOP"),
        norms_excluded=name(6 * s.other_params * bp, "F_{norm}", "FLOP"),
        recompute=0.0,
    )
    # × 0 without recompute, so its formula still shows
    return replace(it, recompute=name(it.items / 3 * int(recompute), "F_{rec}", "FLOP"))


def itemised_outputs(s: ModelShape, batch: int, seq_len: int, recompute: bool = False) -> dict:
    """图 3-23's outputs (TFLOP, %): the items, 6ND, the total and how far it is from 6ND."""
    it = itemised_train_flops(s, batch, seq_len, recompute=recompute)
    items = {
        k: getattr(it, k) / 1e12
        for k in (
            "six_nd",
            "qo_proj",
            "kv_proj",
            "ffn",
            "lm_head",
            "attention",
            "embed_excluded",
            "norms_excluded",
            "recompute",
        )
    }
    return {
        **{f"{k}_tflop": v for k, v in items.items()},
        "itemized_tflop": it.total / 1e12,
        "over_6nd_pct": 100 * it.over_6nd,
        "attention_share_pct": 100 * it.attention_share,
    }


# ---------------------------------------------------------------- state and tokens per update


@dataclass(frozen=True)
class OptimizerState:
    n_params: int
    weights: float
    grads: float
    master: float
    adam: float

    @property
    def total(self) -> float:
        return self.weights + self.grads + self.master + self.adam

    @property
    def bytes_per_param(self) -> float:
        return self.total / self.n_params


def optimizer_state_bytes(
    n_params: int, weight_b: float = 2, grad_b: float = 4, master_b: float = 4, adam_m_b: float = 4, adam_v_b: float = 4
) -> OptimizerState:
    """Long-lived training state, unsharded: N·(2 + 4 + 4 + 4 + 4) = 18 B/param for BF16 + FP32 Adam."""
    n = n_params
    return OptimizerState(n, n * weight_b, n * grad_b, n * master_b, n * (adam_m_b + adam_v_b))


def state_outputs(
    n_params: int, bytes_each: tuple[float, float, float, float, float], n_gpus: int, card_gb: float
) -> dict:
    """例题 3-3's outputs: long-lived state N·Σb (GB, GiB), its parts, 9× BF16 weights, the even split
    over k cards against one card's capacity, and ⌈M_state/M_card⌉."""
    st = optimizer_state_bytes(n_params, *bytes_each)
    total = name(st.total, "M_{state}", "B")
    bf16 = name(n_params * 2, "M_{BF16}", "B")
    per = total / n_gpus / 1e9
    return {
        "n_params": n_params,
        "bytes_per_param": total / n_params,
        "ratio_vs_bf16": total / bf16,
        "total_gb": total / 1e9,
        "total_gib": total / 2**30,
        "weights_gb": st.weights / 1e9,
        "grads_gb": st.grads / 1e9,
        "master_gb": st.master / 1e9,
        "adam_gb": st.adam / 1e9,
        "bf16_weights_gb": bf16 / 1e9,
        "per_gpu_gb": per,
        "fits_per_gpu": per <= card_gb,
        "min_gpus_state_only": math.ceil(total / (card_gb * 1e9)),
        "card_gb": card_gb,
    }


@dataclass(frozen=True)
class UpdateTokens:
    input_tokens: int  # a·B_μ·P
    supervised_tokens: int  # a·B_μ·P_label (the loss denominator)
    passes: int  # a forward/backward passes per update
    sequences: int  # a·B_μ


def update_tokens(micro_batches: int, seqs_per_micro: int, seq_len: int, label_tokens: int) -> UpdateTokens:
    """Tokens read per update a·B_μ·P; supervised a·B_μ·P_label; a passes, one update."""
    seqs = name(micro_batches * seqs_per_micro, "n_{seq}")
    return UpdateTokens(seqs * seq_len, seqs * label_tokens, micro_batches, seqs)


def update_outputs(micro_batches: int, seqs_per_micro: int, seq_len: int, label_tokens: int) -> dict:
    """update-tokens / 练习 3-6: tokens read and supervised per update (the loss denominator), passes, sequences."""
    u = update_tokens(micro_batches, seqs_per_micro, seq_len, label_tokens)
    return {
        "input_tokens": u.input_tokens,
        "supervised_tokens": u.supervised_tokens,
        "loss_denominator": u.supervised_tokens,
        "fwd_bwd_passes": u.passes,
        "sequences": u.sequences,
    }


def sft_outputs(s: ModelShape, segments: tuple[int, ...], supervised: int, project_all: bool) -> dict:
    """sft-tokens: every segment's rows pass the trunk; the vocabulary projection runs on every row
    (loss masked only) or on the supervised rows; the waste is 6hV on the unsupervised rows."""
    rows = name(tsum(segments), "P", "token")
    proj = rows if project_all else supervised
    tr = itemised_train_flops(s, 1, rows, lm_rows_per_seq=proj)
    waste = lm_head_flops(s, rows - supervised if project_all else 0)
    return {
        "input_tokens": rows,
        "supervised_tokens": supervised,
        "lm_head_tflop": lm_head_flops(s, proj) / 1e12,
        "lm_head_waste_tflop": waste / 1e12,
        "train_tflop": tr.total / 1e12,
    }


# ---------------------------------------------------------------- micro-batch activation schedule


@dataclass(frozen=True)
class Op:
    kind: str  # "F" or "B"
    layer: int  # 1-based
    micro: int  # 1-based
    start: float
    end: float


@dataclass(frozen=True)
class Lifetime:
    layer: int
    micro: int
    start: float  # end of the layer's forward
    end: float  # end of the layer's backward
    size: float


@dataclass
class Schedule:
    ops: list[Op] = field(default_factory=list)
    lifetimes: list[Lifetime] = field(default_factory=list)
    total_time: float = 0.0

    def live_activation(self, t: float) -> float:
        """Activation held at time t (a lifetime holds on [start, end))."""
        return sum(x.size for x in self.lifetimes if x.start <= t < x.end)

    def breakpoints(self) -> list[float]:
        return sorted({0.0, self.total_time, *(x.start for x in self.lifetimes), *(x.end for x in self.lifetimes)})

    @property
    def peak_activation(self) -> float:
        return max((self.live_activation(t) for t in self.breakpoints()), default=0.0)


def microbatch_schedule(
    n_layers: int, micro_batches: int, t_fwd: float, t_bwd: float, act_per_layer_full: float
) -> Schedule:
    """a micro-batches back to back on one device: F1…Fn then Bn…B1 per micro-batch, each taking 1/a
    of the full batch's per-layer time; a layer's activation (act/a) lives from the end of its forward
    to the end of its backward. Peak = n_layers·act/a; length n_layers·(t_fwd + t_bwd)."""
    a = micro_batches
    tf, tb, act = t_fwd / a, t_bwd / a, act_per_layer_full / a
    sch = Schedule()
    t = 0.0
    for mb in range(1, a + 1):
        f_end: dict[int, float] = {}
        for layer in range(1, n_layers + 1):
            sch.ops.append(Op("F", layer, mb, t, t + tf))
            t += tf
            f_end[layer] = t
        for layer in range(n_layers, 0, -1):
            sch.ops.append(Op("B", layer, mb, t, t + tb))
            t += tb
            sch.lifetimes.append(Lifetime(layer, mb, f_end[layer], t, act))
    sch.total_time = t
    return sch


@dataclass(frozen=True)
class ScheduleSummary:
    """Peak activation and total time of a schedule; the field names are the book's symbols (shown in derivations)."""

    M_act: float
    T: float


@rule(W["a_micro_batch_f1_f_l_b_l_b1.rule"])
def schedule_summary(
    n_layers: int, micro_batches: int, t_fwd: float, t_bwd: float, act_per_layer_full: float
) -> ScheduleSummary:
    """Peak activation and total time of :func:`microbatch_schedule`."""
    sch = microbatch_schedule(n_layers, micro_batches, t_fwd, t_bwd, act_per_layer_full)
    return ScheduleSummary(sch.peak_activation, sch.total_time)


def ceil_div(x: float, y: float) -> int:
    """⌈x/y⌉ robust to float noise (16/0.05 = 320.000…06 → 320): the quotient is rounded to 9 decimals first."""
    return math.ceil(round(x / y, 9))
