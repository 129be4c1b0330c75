"""Tensor parallelism (tp ranks on one model) and MoE reads, per GPU, in base units (bytes, FLOPs, s).

What is split and what is replicated:

* weights: every weight split evenly over the tp ranks (column/row-parallel matrices, vocab-parallel
  embedding and LM head); the norms (< 0.01 % of the weights) are counted as split too;
* KV cache, GQA: the KV heads are split, each rank holds ceil(n_kv/tp) of them; when tp > n_kv a head is
  replicated on tp/n_kv ranks (each rank still holds one) and ``kv_heads_replicated`` says so;
* KV cache, MLA: the compressed latent (kv_lora_rank + qk_rope_head_dim values per layer) has no heads to
  split, so every rank holds all of it;
* sliding-window layers keep at most ``sliding_window`` tokens (``seq_kv_bytes``);
* activations: after attention and after the MLP each rank's partial sum is all-reduced (ring):
  2·(tp−1)/tp × hidden × bytes per element per token, twice per layer.

MoE: memory holds every expert (total parameters); one token reads and computes its top-k experts
(active parameters); a batch of B tokens touches E·(1−(1−k/E)^B) distinct experts per MoE layer on
average, so the weight read grows with the batch."""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from .formats import KV_FORMATS, UNQUANTISED_BYTES, WEIGHT_FORMATS, weight_bytes
from .model_config import KV_DTYPE_BYTES, ModelShape, decode_flops

ACTIVATION_BYTES = 2    # all-reduced activations are BF16


def check_tp(tp: int) -> int:
    if isinstance(tp, bool) or not isinstance(tp, int) or tp < 1:
        raise ValueError(f"tp 应为正整数,收到 {tp!r}")
    return tp


def weight_bytes_per_gpu(s: ModelShape, weight_format: str, tp: int) -> Fraction:
    """(linear · bits/8 + (total − linear) · 2 B) / tp — all experts, split evenly."""
    other = s.params_total - s.linear_params
    return weight_bytes(s.linear_params, other, weight_format) / check_tp(tp)


def kv_heads_per_gpu(n_kv_heads: int, tp: int) -> tuple[int, bool]:
    """(ceil(n_kv/tp), replicated?) — a rank never holds less than one head; tp > n_kv replicates heads."""
    return -(-n_kv_heads // check_tp(tp)), tp > n_kv_heads


@dataclass(frozen=True)
class KvPerGpu:
    full_bytes_per_token: Fraction     # layers that keep every token
    window_bytes_per_token: Fraction   # sliding-window layers (kept for at most `window` tokens)
    window: int | None
    heads_per_gpu: int                 # KV heads one rank holds (MLA: 0, the latent is not split)
    replicated: bool                   # GQA heads replicated (tp > n_kv) or MLA latent on every rank

    @property
    def bytes_per_token(self) -> Fraction:
        """Every layer counted (a token within the window of every sliding layer)."""
        return self.full_bytes_per_token + self.window_bytes_per_token


def kv_per_gpu(s: ModelShape, kv_format: str, tp: int) -> KvPerGpu:
    """KV bytes per token on one rank: GQA 2·ceil(n_kv/tp)·head_dim values per layer; MLA the whole latent."""
    bpv = KV_FORMATS[kv_format].bytes_per_value
    if s.mla:
        latent_values = s.kv_bytes_per_token_bf16 // KV_DTYPE_BYTES     # L · (kv_lora_rank + rope) values
        return KvPerGpu(latent_values * bpv, Fraction(0), None, 0, check_tp(tp) > 1)
    heads, replicated = kv_heads_per_gpu(s.n_kv_heads, tp)
    per_layer = 2 * heads * s.head_dim
    full_layers = s.n_layers - s.n_sliding_layers
    return KvPerGpu(full_layers * per_layer * bpv, s.n_sliding_layers * per_layer * bpv,
                    s.sliding_window if s.n_sliding_layers else None, heads, replicated)


def seq_kv_bytes(kv: KvPerGpu, context_tokens: int) -> Fraction:
    """One sequence of n tokens on one rank: full·n + window·min(n, W)."""
    held = min(context_tokens, kv.window) if kv.window else context_tokens
    return kv.full_bytes_per_token * context_tokens + kv.window_bytes_per_token * held


def allreduce_bytes_per_token_per_layer(hidden: int, tp: int, elem_bytes: int = ACTIVATION_BYTES) -> Fraction:
    """Ring all-reduce traffic per rank: 2 · 2·(tp−1)/tp · hidden · bytes (after attention and after the MLP)."""
    return 2 * Fraction(2 * (check_tp(tp) - 1), tp) * hidden * elem_bytes


def allreduce_time(tokens: int, s: ModelShape, tp: int, link_bytes_s: float | None) -> float:
    """Per step: tokens · L · allreduce bytes per token per layer / link bandwidth (one direction); 0 at tp = 1."""
    if tp == 1:
        return 0.0
    if not link_bytes_s:
        raise ValueError("tp > 1 需要互连带宽,该加速器没有收录")
    return float(tokens * s.n_layers * allreduce_bytes_per_token_per_layer(s.hidden, tp)) / link_bytes_s


def expected_distinct_experts(n_experts: int, top_k: int, batch: int) -> float:
    """Distinct experts a batch of B tokens touches in one MoE layer: E·(1 − (1 − k/E)^B)."""
    return n_experts * (1 - (1 - top_k / n_experts) ** batch)


def params_per_expert(s: ModelShape) -> int:
    """One routed expert's matrices: (linear − active linear) / (MoE layers · (E − k))."""
    idle = s.n_moe_layers * (s.n_experts - s.experts_per_token)
    return (s.linear_params - s.active_linear_params) // idle if idle else 0


def weight_read_bytes_per_gpu(s: ModelShape, weight_format: str, tp: int, batch: int) -> float:
    """One decode step of B tokens: (active linear + MoE layers·(distinct(B) − k)·expert) · bits/8
    + (LM head + norms + embedding rows read) · 2 B, over tp. The embedding table is read whole only when tied."""
    linear = float(s.active_linear_params)
    if s.n_experts:
        extra = expected_distinct_experts(s.n_experts, s.experts_per_token, batch) - s.experts_per_token
        linear += s.n_moe_layers * extra * params_per_expert(s)
    emb_read = s.embedding_params if s.tied else s.hidden
    other = s.lm_head_params + s.other_params + emb_read
    bpv = float(WEIGHT_FORMATS[weight_format].bytes_per_value)
    return (linear * bpv + other * UNQUANTISED_BYTES) / check_tp(tp)


def decode_flops_per_gpu(s: ModelShape, context_tokens: int, batch: int, tp: int) -> float:
    """B · (2·(active linear + LM head) + attention over the context) / tp."""
    return batch * decode_flops(s, context_tokens) / check_tp(tp)


def fit_count(budget: Fraction, bytes_each: Fraction) -> int:
    """How many items of ``bytes_each`` fit: floor(budget / bytes_each), 0 when the budget is negative."""
    return math.floor(budget / bytes_each) if budget > 0 else 0
