"""Tensor parallelism (tp ranks on one model) and MoE reads, per GPU, in base units (bytes, FLOPs, s).

What is split and what is replicated:

* weights: every weight split evenly over the tp ranks (column/row-parallel matrices, vocab-parallel
  embedding and LM head); the norms (< 0.01 % of the weights) are counted as split too;
* KV cache, GQA: the KV heads are split, each rank holds ceil(n_kv/tp) of them; when tp > n_kv a head is
  replicated on tp/n_kv ranks (each rank still holds one) and ``kv_heads_replicated`` says so;
* KV cache, MLA: the compressed latent (kv_lora_rank + qk_rope_head_dim values per layer) has no heads to
  split, so every rank holds all of it;
* sliding-window / chunked layers keep at most ``sliding_window`` tokens (``seq_kv_bytes``); linear-attention
  layers keep no per-token KV but a constant state per sequence, split over the ranks with its heads;
* weights in the checkpoint's own format (``stored``): the stored bytes over tp; a step reads the stored
  bytes of everything but the experts it does not touch;
* activations: after attention and after the MLP each rank's partial sum is all-reduced (ring):
  2·(tp−1)/tp × hidden × bytes per element per token, twice per layer.

MoE: memory holds every expert (total parameters); one token reads and computes its top-k experts
(active parameters); a batch of B tokens touches E·(1−(1−k/E)^B) distinct experts per MoE layer on
average, so the weight read grows with the batch.

Numbers are plain ints and floats so that a card's derivation can trace them (``app.trace``). Byte counts
stay exact all the same: every bytes-per-value is a dyadic fraction (33/64, 9/16 …) and tp a power of two
up to 8, so products and quotients below 2⁵³/512 bytes are exact binary floats."""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..trace import given, name, tmax, tmin
from ..words import words_for
from .formats import UNQUANTISED_BYTES, kv_width, weight_bytes, weight_width
from .model_config import KV_DTYPE_BYTES, ModelShape, decode_flops

W = words_for(__name__)

ACTIVATION_BYTES = 2  # all-reduced activations are BF16


def check_tp(tp: int) -> int:
    if isinstance(tp, bool) or not isinstance(tp, int) or tp < 1:
        raise ValueError(W.f("check_tp.valueerror", tp=tp))
    return tp


def weight_bytes_per_gpu(s: ModelShape, weight_format: str, tp: int) -> float:
    """W_gpu = (N_lin · b_W + (N_emb + N_head + N_norm) · 2 B) / tp — all experts, split evenly. ``stored``:
    the checkpoint's own bytes (``model_config.stored_bytes``) / tp."""
    if weight_format == "stored":
        return name(stored_total(s) / check_tp(tp), "W_{gpu}", "B")
    other = s.embedding_params + s.lm_head_params + s.other_params
    return name(weight_bytes(s.linear_params, other, weight_format) / check_tp(tp), "W_{gpu}", "B")


def stored_total(s: ModelShape) -> int:
    """The checkpoint's bytes as a traced input (BF16 when the shape has none recorded)."""
    return given(s.stored_bytes or 2 * s.params_total, "W_{ckpt}", "B", source=s.stored_label or "BF16")


def link_for_tp(topology: str | None, link_bytes_s: float | None, peer_bytes_s: float | None, tp: int) -> float | None:
    """β_link per GPU at ``tp``: a switched fabric (NVSwitch) or a PCIe link gives the per-GPU link at any tp;
    a point-to-point mesh (Infinity Fabric) gives only the tp − 1 links to the other ranks."""
    if topology == "mesh" and peer_bytes_s and check_tp(tp) > 1:
        return name((tp - 1) * peer_bytes_s, "β_{link}", "B/s")
    return link_bytes_s


def kv_heads_per_gpu(n_kv_heads: int, tp: int) -> tuple[int, bool]:
    """(ceil(n_kv/tp), replicated?) — a rank never holds less than one head; tp > n_kv replicates heads."""
    return name(math.ceil(n_kv_heads / check_tp(tp)), "n_{kv,gpu}"), tp > n_kv_heads


@dataclass(frozen=True)
class KvPerGpu:
    full_bytes_per_token: float  # layers that keep every token
    window_bytes_per_token: float  # sliding-window layers (kept for at most `window` tokens)
    window: int | None
    heads_per_gpu: int  # KV heads one rank holds (MLA: 0, the latent is not split)
    replicated: bool  # GQA heads replicated (tp > n_kv) or MLA latent on every rank
    state_bytes: float = 0.0  # constant per-sequence state on one rank (linear-attention layers)

    @property
    def bytes_per_token(self) -> float:
        """Every layer counted (a token within the window of every sliding layer)."""
        if not self.window_bytes_per_token:
            return self.full_bytes_per_token
        return name(self.full_bytes_per_token + self.window_bytes_per_token, "kv_{gpu}", "B")


def kv_per_gpu(s: ModelShape, kv_format: str, tp: int) -> KvPerGpu:
    """KV bytes per token on one rank: GQA 2·ceil(n_kv/tp)·head_dim values per layer; MLA the whole latent."""
    bpv = kv_width(kv_format)
    state = state_per_gpu(s, tp)
    if s.mla:
        latent_values = s.kv_bytes_per_token_bf16 / KV_DTYPE_BYTES  # L · (kv_lora_rank + rope) values
        heads = given(0, "n_{kv,gpu}", source=W["kv_per_gpu.source"])
        return KvPerGpu(name(latent_values * bpv, "kv_{gpu}", "B"), 0.0, None, heads, check_tp(tp) > 1, state)
    heads, replicated = kv_heads_per_gpu(s.n_kv_heads, tp)
    per_layer = 2 * heads * s.head_dim * bpv
    L = s.attention_layers
    if not s.n_sliding_layers:
        return KvPerGpu(name(L * per_layer, "kv_{gpu}", "B"), 0.0, None, heads, replicated, state)
    full = name((L - s.n_sliding_layers) * per_layer, "kv_{full}", "B")
    win = name(s.n_sliding_layers * per_layer, "kv_{win}", "B")
    return KvPerGpu(full, win, s.sliding_window, heads, replicated, state)


def state_per_gpu(s: ModelShape, tp: int) -> float:
    """A linear-attention model's constant per-sequence state on one rank: split with its heads over tp."""
    if not s.state_bytes_per_sequence:
        return 0.0
    return name(s.state_bytes_per_sequence / check_tp(tp), "S_{seq,gpu}", "B")


def seq_kv_bytes(kv: KvPerGpu, context_tokens: int) -> float:
    """One sequence of n tokens on one rank: full·n + window·min(n, W) (+ the constant state of a hybrid)."""
    if not kv.window:
        held = kv.full_bytes_per_token * context_tokens
    else:
        held = kv.full_bytes_per_token * context_tokens + kv.window_bytes_per_token * tmin(context_tokens, kv.window)
    return held + kv.state_bytes if kv.state_bytes else held


def allreduce_bytes_per_token_per_layer(hidden: int, tp: int, elem_bytes: int = ACTIVATION_BYTES) -> float:
    """Ring all-reduce traffic per rank: 2 · 2·(tp−1)/tp · hidden · bytes (after attention and after the MLP)."""
    return 2 * (2 * (check_tp(tp) - 1) / tp) * hidden * elem_bytes


NO_COMM = W["no_comm"]
NO_COMM_TIME = given(0.0, "T_{AR}", "s", source=NO_COMM)  # an input leaf: one for every tp = 1 state


def allreduce_time(tokens: int, s: ModelShape, tp: int, link_bytes_s: float | None) -> float:
    """T_AR = tokens · L · allreduce bytes per token per layer / link bandwidth (one direction); 0 at tp = 1."""
    if tp == 1:
        return NO_COMM_TIME
    if not link_bytes_s:
        raise ValueError(W["allreduce_time.valueerror"])
    traffic = name(allreduce_bytes_per_token_per_layer(s.hidden, tp), "V_{AR}", "B")
    return name(tokens * s.n_layers * traffic / link_bytes_s, "T_{AR}", "s")


def expected_distinct_experts(n_experts: int, top_k: int, batch: int) -> float:
    """Distinct experts a batch of B tokens touches in one MoE layer: E·(1 − (1 − k/E)^B)."""
    return name(n_experts * (1 - (1 - top_k / n_experts) ** batch), "E_B")


def params_per_expert(s: ModelShape) -> int:
    """One routed expert's matrices: (linear − active linear) / (MoE layers · (E − k))."""
    idle = s.n_moe_layers * (s.n_experts - s.experts_per_token)
    return name((s.linear_params - s.active_linear_params) // idle, "N_{exp}") if idle else 0


def weight_read_bytes_per_gpu(s: ModelShape, weight_format: str, tp: int, batch: int) -> float:
    """One decode step of B tokens: (active linear + MoE layers·(distinct(B) − k)·expert) · b_W
    + (LM head + norms + embedding rows read) · 2 B, over tp. The embedding table is read whole only when tied.
    ``stored``: the checkpoint's bytes less the experts the batch does not touch (at their stored bytes) and
    less the embedding table but the rows read."""
    if weight_format == "stored":
        return stored_read_bytes_per_gpu(s, tp, batch)
    linear: float = s.active_linear_params
    if s.n_experts:
        extra = expected_distinct_experts(s.n_experts, s.experts_per_token, batch) - s.experts_per_token
        linear = linear + s.n_moe_layers * extra * params_per_expert(s)
    emb_read = s.embedding_params if s.tied else s.hidden
    other = s.lm_head_params + s.other_params + emb_read
    return name((linear * weight_width(weight_format) + other * UNQUANTISED_BYTES) / check_tp(tp), "R_{W,gpu}", "B")


def stored_read_bytes_per_gpu(s: ModelShape, tp: int, batch: int) -> float:
    """R = W_ckpt − L_MoE·(E − E_B)·w_exp − 2·N_emb + 2·(rows read), over tp (embedding tables stay 16-bit)."""
    total: float = stored_total(s)
    if s.n_experts:
        untouched = s.n_experts - expected_distinct_experts(s.n_experts, s.experts_per_token, batch)
        expert = s.stored_expert_bytes or 2 * params_per_expert(s)
        total = total - s.n_moe_layers * untouched * expert
    emb_read = s.embedding_params if s.tied else s.hidden
    total = total - UNQUANTISED_BYTES * (s.embedding_params - emb_read)
    return name(total / check_tp(tp), "R_{W,gpu}", "B")


def decode_flops_per_gpu(s: ModelShape, context_tokens: int, batch: int, tp: int) -> float:
    """B · (2·(active linear + LM head) + attention over the context) / tp."""
    return name(batch * decode_flops(s, context_tokens) / check_tp(tp), "F_{gpu}", "FLOP")


def fit_count(budget: float, bytes_each: float) -> int:
    """How many items of ``bytes_each`` fit: max(0, floor(budget / bytes_each)) — 0 when the budget is negative."""
    return tmax(0, math.floor(budget / bytes_each))


def kv_share(s: ModelShape, n: int) -> float:
    """s_KV, the share of every token's KV one of n ranks holds: ⌈n_kv/n⌉/n_kv (GQA: 1/n when n divides the
    KV heads, more when it does not, 1/n_kv once heads are replicated); 1 for MLA (the latent is not split)."""
    if s.mla:
        return given(1.0, "s_{KV}", source=W["kv_share.source"])
    heads, _ = kv_heads_per_gpu(s.n_kv_heads, n)
    return name(heads / s.n_kv_heads, "s_{KV}")


def budget_per_gpu(
    weights: float, kv_total: float, share: float, workspace: float, n: int, capacity: float, kv_per_token: float
) -> dict:
    """图 1-7 on n ranks with the KV split by heads: M_W/n + s_KV·M_state + M_work ≤ M_cap on every rank, and the
    KV tokens that still fit, ⌊(M_cap − M_work − M_W/n) / (s_KV · kv)⌋ (GB; keys are the card's)."""
    w = weights / check_tp(n)
    kv = name(share * kv_total, "M_{state,gpu}", "B")
    total = name(w + kv + workspace, "M", "B")
    room = capacity - workspace - w
    return {
        "per_gpu_weights_gb": w / 1e9,
        "per_gpu_kv_gb": kv / 1e9,
        "per_gpu_total_gb": total / 1e9,
        "headroom_gb": (capacity - total) / 1e9,
        "over_gb": (total - capacity) / 1e9,
        "fits": total <= capacity,
        "max_kv_tokens": tmax(0, math.floor(room / (share * kv_per_token))),
    }


def with_comm(curves: dict, t_comm_per_request_ms: float) -> dict:
    """Batch curves (``roofline.batch_curves``, per rank) with the all-reduce B·t_AR added to the step bound and
    the throughput B/T recomputed; the all-reduce itself as its own series."""
    comm = [b * t_comm_per_request_ms for b in curves["batch"]]
    step = [t + c for t, c in zip(curves["t_step_ms"], comm)]
    return curves | {
        "t_allreduce_ms": comm,
        "t_step_ms": step,
        "throughput_tok_s": [b / (t / 1e3) for b, t in zip(curves["batch"], step)],
    }


@dataclass(frozen=True)
class TpStep:
    """One decode step on each of tp ranks: the read and compute bounds and the all-reduce, separately."""

    t_mem: float
    t_compute: float
    t_comm: float

    @property
    def t_step(self) -> float:
        """T_step ≥ max(F/(tp·Π), R/(tp·β)) + T_AR: the all-reduce waits on the layer's result, so it adds."""
        return name(tmax(self.t_compute, self.t_mem) + self.t_comm, "T_{step}", "s")

    @property
    def bound(self) -> str:
        return "memory" if self.t_mem >= self.t_compute else "compute"


def tp_step(read_gpu: float, flops_gpu: float, bw: float, peak: float, t_comm: float) -> TpStep:
    """One rank: its bytes at β, its FLOPs at Π, plus the all-reduce time (0 at tp = 1)."""
    return TpStep(name(read_gpu / bw, "T_{mem}", "s"), name(flops_gpu / peak, "T_{comp}", "s"), t_comm)
