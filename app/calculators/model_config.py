"""Quantities that follow from a model's ``config.json``: parameter counts, weight bytes, KV bytes
per token, per-step weight read and FLOPs. Nothing here is typed in as a result."""
from __future__ import annotations

from dataclasses import dataclass


class ConfigError(ValueError):
    """A config lacks a field the derivation needs, or has an unsupported shape."""


def _req(cfg: dict, key: str) -> int:
    if key not in cfg or cfg[key] is None:
        raise ConfigError(f"config.json 缺少字段 {key}")
    v = cfg[key]
    if isinstance(v, bool) or not isinstance(v, (int, float)) or v <= 0 or int(v) != v:
        raise ConfigError(f"字段 {key} 应为正整数,收到 {v!r}")
    return int(v)


@dataclass(frozen=True)
class ModelShape:
    """Parameter bookkeeping of a decoder-only transformer, from its config."""

    n_layers: int
    hidden: int
    n_heads: int
    n_kv_heads: int
    head_dim: int
    vocab: int
    tied: bool
    embedding_params: int      # vocab × hidden
    lm_head_params: int        # 0 when tied (the embedding matrix serves)
    linear_params: int         # every linear weight inside the transformer blocks (all experts)
    active_linear_params: int  # linear weights one token passes through (MoE: routed top-k + shared)
    other_params: int          # norms and biases
    kv_bytes_per_token_bf16: int

    @property
    def params_total(self) -> int:
        return self.embedding_params + self.lm_head_params + self.linear_params + self.other_params

    @property
    def params_active(self) -> int:
        return self.embedding_params + self.lm_head_params + self.active_linear_params + self.other_params

    @property
    def lm_head_matrix_params(self) -> int:
        """Parameters of the vocabulary projection, whether tied or not."""
        return self.vocab * self.hidden


def dense_shape(cfg: dict) -> ModelShape:
    """Dense GQA decoder (Llama, Qwen2/3, Mistral): q/k/v/o projections, SwiGLU MLP, RMSNorms."""
    L = _req(cfg, "num_hidden_layers")
    h = _req(cfg, "hidden_size")
    nh = _req(cfg, "num_attention_heads")
    nkv = int(cfg.get("num_key_value_heads") or nh)
    hd = int(cfg.get("head_dim") or h // nh)
    ff = _req(cfg, "intermediate_size")
    V = _req(cfg, "vocab_size")
    tied = bool(cfg.get("tie_word_embeddings", False))
    attn = h * nh * hd + 2 * h * nkv * hd + nh * hd * h
    mlp = 3 * h * ff
    per_layer_other = 2 * h
    if cfg.get("attention_bias"):
        per_layer_other += nh * hd + 2 * nkv * hd
    if cfg.get("model_type") == "qwen3":          # per-head RMSNorm on q and k
        per_layer_other += 2 * hd
    linear = L * (attn + mlp)
    other = L * per_layer_other + h               # + final norm
    kv = L * 2 * nkv * hd * 2
    emb = V * h
    return ModelShape(L, h, nh, nkv, hd, V, tied, emb, 0 if tied else emb, linear, linear, other, kv)


def shape_of(cfg: dict) -> ModelShape:
    return dense_shape(cfg)


# --- bytes ------------------------------------------------------------------------------------

def weight_bytes(s: ModelShape, precision: str) -> int:
    """Stored weight bytes. ``bf16``: 2 B/param. ``w8-g128``: block linear weights 8-bit with one
    2-byte scale per 128 weights; embedding, LM head and norms stay BF16."""
    if precision == "bf16":
        return 2 * s.params_total
    if precision == "w8-g128":
        lin = s.linear_params
        return lin + (lin // 128) * 2 + 2 * (s.params_total - lin)
    raise ValueError(precision)


def decode_weight_read_bytes(s: ModelShape, bytes_per_param: float = 2) -> float:
    """Weights one decode step reads: everything but the embedding table, of which one row."""
    emb_read = s.embedding_params if s.tied else s.hidden   # tied: the LM head reads the whole table
    return bytes_per_param * (s.params_active - s.embedding_params + emb_read)


def attn_flops_per_context_token(s: ModelShape) -> int:
    """QKᵀ and AV for one query over one cached token, all layers: 4·L·n_heads·head_dim."""
    return 4 * s.n_layers * s.n_heads * s.head_dim


def decode_flops(s: ModelShape, context_tokens: int) -> float:
    """One decode step: 2·(active linear + LM head) + 4·L·H·d·context."""
    return 2 * (s.active_linear_params + s.lm_head_matrix_params) + attn_flops_per_context_token(s) * context_tokens


def prefill_flops(s: ModelShape, n: int) -> float:
    """Prefill of n tokens: linear layers for all n, LM head for the last, causal attention
    (token i attends to i tokens): 2·L_lin·n + 2·LM + 4·L·H·d·n(n+1)/2."""
    return 2 * s.active_linear_params * n + 2 * s.lm_head_matrix_params + attn_flops_per_context_token(s) * n * (n + 1) / 2
