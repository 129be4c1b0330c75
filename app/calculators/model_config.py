"""Quantities that follow from a model's ``config.json``: parameter counts, weight bytes, KV bytes
per token, per-step weight read and FLOPs. Nothing here is typed in as a result.

``shape_of`` reads the Hugging Face ``config.json`` of the families below and counts every weight
exactly (matrices, biases, norms, MoE routers):

* dense GQA — ``llama``, ``mistral``, ``qwen2`` (q/k/v bias), ``qwen3`` / ``qwen3_vl_text`` (q/k norm),
  ``gemma``, ``gemma2``, ``gemma3_text`` (4 norms per block, q/k norm; ``gemma3`` with ``text_config``);
* sliding-window / local-global layers — Mistral ``sliding_window``, Qwen2/3 ``use_sliding_window`` +
  ``max_window_layers``, Gemma 2 (alternate), Gemma 3 (``sliding_window_pattern``), or an explicit
  ``layer_types`` list; ``kv_bytes(shape, n)`` caps the sliding layers at ``sliding_window`` tokens;
* MoE — ``mixtral``, ``qwen2_moe``, ``qwen3_moe``, ``deepseek_v2``, ``deepseek_v3``: total and active;
* MLA — DeepSeek-V2/V3 compressed KV: per layer ``kv_lora_rank + qk_rope_head_dim`` cached values.

``analyze(cfg)`` keeps every part of the count (for a report that shows the work); ``derive(cfg)``
returns the headline numbers."""

from __future__ import annotations

import math
from dataclasses import dataclass

KV_DTYPE_BYTES = 2  # BF16 cache
MAX_FIELD = 1 << 31  # any single shape field above this is not a real model
MAX_LAYERS = 10_000  # the reader walks the layers one by one


class ConfigError(ValueError):
    """A config lacks a field the derivation needs, or has an unsupported shape."""

    def __init__(self, msg: str, field: str | None = None):
        super().__init__(msg)
        self.field = field


def _req(cfg: dict, key: str) -> int:
    if key not in cfg or cfg[key] is None:
        raise ConfigError(f"config.json 缺少字段 {key}", key)
    v = cfg[key]
    if (
        isinstance(v, bool)
        or not isinstance(v, (int, float))
        or (isinstance(v, float) and not math.isfinite(v))
        or v <= 0
        or int(v) != v
    ):
        raise ConfigError(f"字段 {key} 应为正整数,收到 {v!r}", key)
    if v > MAX_FIELD:
        raise ConfigError(f"字段 {key} 过大({v!r}),不像真实模型的形状", key)
    return int(v)


def _opt(cfg: dict, key: str, default: int | None, *, zero_ok: bool = False) -> int | None:
    """An optional integer field: absent/null → ``default``; present → validated like ``_req``."""
    if cfg.get(key) is None:
        return default
    if zero_ok and cfg[key] == 0 and not isinstance(cfg[key], bool):
        return 0
    return _req(cfg, key)


def _flag(cfg: dict, key: str, default: bool = False) -> bool:
    v = cfg.get(key)
    if v is None:
        return default
    if not isinstance(v, bool):
        raise ConfigError(f"字段 {key} 应为 true/false,收到 {v!r}", key)
    return v


def _int_list(cfg: dict, key: str) -> list[int]:
    v = cfg.get(key)
    if v is None:
        return []
    if not isinstance(v, list) or any(isinstance(x, bool) or not isinstance(x, int) for x in v):
        raise ConfigError(f"字段 {key} 应为整数列表,收到 {str(v)[:60]}", key)
    return v


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
    embedding_params: int  # vocab × hidden
    lm_head_params: int  # 0 when tied (the embedding matrix serves)
    linear_params: int  # every linear weight inside the transformer blocks (all experts)
    active_linear_params: int  # linear weights one token passes through (MoE: routed top-k + shared)
    other_params: int  # norms and biases
    kv_bytes_per_token_bf16: int  # all layers as if every layer held every token (full-attention worst case)
    # --- beyond dense GQA (defaults describe a plain dense model) -----------------------------
    model_type: str = ""
    architecture: str = "稠密 + GQA"
    sliding_window: int | None = None  # tokens a sliding-window layer keeps at most
    n_sliding_layers: int = 0
    kv_window_bytes_per_token: int = 0  # the part of kv_bytes_per_token_bf16 held by sliding layers
    qk_head_dim: int = 0  # attention dims when q·k and v differ (MLA); 0 → head_dim
    v_head_dim: int = 0
    n_experts: int = 0  # routed experts per MoE layer (0: dense)
    experts_per_token: int = 0
    n_shared_experts: int = 0
    n_moe_layers: int = 0
    mla: bool = False

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

    @property
    def kv_full_bytes_per_token(self) -> int:
        """KV bytes per token of the full-attention layers (they keep every token)."""
        return self.kv_bytes_per_token_bf16 - self.kv_window_bytes_per_token


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
    if cfg.get("model_type") == "qwen3":  # per-head RMSNorm on q and k
        per_layer_other += 2 * hd
    linear = L * (attn + mlp)
    other = L * per_layer_other + h  # + final norm
    kv = L * 2 * nkv * hd * 2
    emb = V * h
    return ModelShape(L, h, nh, nkv, hd, V, tied, emb, 0 if tied else emb, linear, linear, other, kv)


# --- the general reader -----------------------------------------------------------------------

_ARCH_TO_TYPE = {
    "LlamaForCausalLM": "llama",
    "MistralForCausalLM": "mistral",
    "Qwen2ForCausalLM": "qwen2",
    "Qwen3ForCausalLM": "qwen3",
    "GemmaForCausalLM": "gemma",
    "Gemma2ForCausalLM": "gemma2",
    "Gemma3ForCausalLM": "gemma3_text",
    "Gemma3ForConditionalGeneration": "gemma3",
    "MixtralForCausalLM": "mixtral",
    "Qwen2MoeForCausalLM": "qwen2_moe",
    "Qwen3MoeForCausalLM": "qwen3_moe",
    "DeepseekV2ForCausalLM": "deepseek_v2",
    "DeepseekV3ForCausalLM": "deepseek_v3",
}
_GQA = {
    "llama",
    "mistral",
    "qwen2",
    "qwen3",
    "qwen3_vl_text",
    "gemma",
    "gemma2",
    "gemma3_text",
    "mixtral",
    "qwen2_moe",
    "qwen3_moe",
}
_MLA = {"deepseek_v2", "deepseek_v3"}
_WRAPPERS = {"gemma3": "gemma3_text", "qwen3_vl": "qwen3_vl_text"}  # multimodal: read text_config
SUPPORTED = sorted(_GQA | _MLA | set(_WRAPPERS))
# Gemma 3's multimodal config.json leaves these text fields at Gemma3TextConfig's defaults.
_GEMMA3_TEXT_DEFAULTS = {"head_dim": 256, "vocab_size": 262208, "sliding_window_pattern": 6}


def _resolve_type(cfg: dict) -> tuple[str, dict, str | None, list[tuple[str, int]]]:
    """(model_type, the dict holding the text model's fields, the multimodal wrapper type or None,
    text_config fields filled from the library's defaults)."""
    if not isinstance(cfg, dict):
        raise ConfigError("config.json 应为 JSON 对象")
    mt = cfg.get("model_type")
    archs = cfg.get("architectures")
    arch0 = archs[0] if isinstance(archs, list) and archs and isinstance(archs[0], str) else None
    if mt is not None and not isinstance(mt, str):
        raise ConfigError(f"字段 model_type 应为字符串,收到 {mt!r}", "model_type")
    if mt not in _GQA and mt not in _MLA and mt not in _WRAPPERS:
        by_arch = _ARCH_TO_TYPE.get(arch0 or "")
        if by_arch is None:
            if mt is None and arch0 is None:
                raise ConfigError("config.json 缺少字段 model_type(也没有可识别的 architectures)", "model_type")
            raise ConfigError(
                f"不支持的架构:model_type={mt!r},architectures={archs!r};支持的 model_type:{', '.join(SUPPORTED)}",
                "model_type",
            )
        mt = by_arch
    if mt not in _WRAPPERS:
        return mt, cfg, None, []
    tc = cfg.get("text_config")
    if not isinstance(tc, dict):
        raise ConfigError(f"config.json(model_type={mt})缺少字段 text_config:只算语言模型部分", "text_config")
    inner = _WRAPPERS[mt]
    text = dict(tc)
    if "tie_word_embeddings" not in text and "tie_word_embeddings" in cfg:
        text["tie_word_embeddings"] = cfg["tie_word_embeddings"]
    filled = []
    if inner == "gemma3_text":
        for k, v in _GEMMA3_TEXT_DEFAULTS.items():
            if text.get(k) is None:
                text[k] = v
                filled.append((k, v))
    return inner, text, mt, filled


@dataclass(frozen=True)
class SlidingRule:
    """Which layers hold a sliding window: ``kind`` is ``explicit`` (layer_types), ``alternate``
    (Gemma 2), ``every`` (Gemma 3: the ``n``-th of every ``n`` layers is global), ``from`` (Qwen:
    from layer ``n`` on), ``all`` (Mistral) or ``none``."""

    kind: str = "none"
    n: int = 0


def _layer_types(cfg: dict, mt: str, L: int) -> tuple[list[bool], int | None, SlidingRule]:
    """Per layer: True if sliding-window. Plus the window and the rule that placed them."""
    window = _opt(cfg, "sliding_window", None)
    explicit = cfg.get("layer_types")
    if explicit is not None:
        if (
            not isinstance(explicit, list)
            or len(explicit) != L
            or any(t not in ("full_attention", "sliding_attention") for t in explicit)
        ):
            raise ConfigError(f"字段 layer_types 应为 {L} 个 full_attention/sliding_attention", "layer_types")
        sl = [t == "sliding_attention" for t in explicit]
        if any(sl) and window is None:
            raise ConfigError(
                "layer_types 含 sliding_attention,但 config.json 缺少字段 sliding_window", "sliding_window"
            )
        return sl, window if any(sl) else None, SlidingRule("explicit")
    if mt in ("gemma2", "gemma3_text"):
        if window is None:
            raise ConfigError("config.json 缺少字段 sliding_window", "sliding_window")
        if mt == "gemma2":
            return [(i + 1) % 2 != 0 for i in range(L)], window, SlidingRule("alternate", 2)
        p = _opt(cfg, "sliding_window_pattern", None)
        if p is None:
            raise ConfigError("config.json 缺少字段 sliding_window_pattern", "sliding_window_pattern")
        return [(i + 1) % p != 0 for i in range(L)], window, SlidingRule("every", p)
    if mt in ("qwen2", "qwen3", "qwen2_moe", "qwen3_moe", "qwen3_vl_text"):
        if not _flag(cfg, "use_sliding_window") or window is None:
            return [False] * L, None, SlidingRule()
        mw = _opt(cfg, "max_window_layers", L, zero_ok=True) or 0
        return [i >= mw for i in range(L)], window, SlidingRule("from", mw)
    if mt in ("mistral", "mixtral") and window is not None:
        return [True] * L, window, SlidingRule("all")
    return [False] * L, None, SlidingRule()


@dataclass(frozen=True)
class Attention:
    """One layer's attention: matrix parameters by part, other parameters, KV bytes per token."""

    mla: bool
    parts: dict[str, int]  # GQA: q, kv, o; MLA: q, kv_a, kv_b, o
    dims: dict[str, int]  # the config values the parts are made of
    other: int  # biases, q/k norms, MLA latent norms
    bias: int = 0
    bias_kind: str = ""  # "qkv" | "qkvo" | ""
    qk_norm: int = 0
    kv_bytes: int = 0
    n_kv_heads: int = 0
    head_dim: int = 0

    @property
    def params(self) -> int:
        return sum(self.parts.values())


def _mla_attention(c: dict, h: int, nh: int, attn_bias: bool) -> Attention:
    nope, rope = _req(c, "qk_nope_head_dim"), _req(c, "qk_rope_head_dim")
    vd, kvr, qr = _req(c, "v_head_dim"), _req(c, "kv_lora_rank"), _opt(c, "q_lora_rank", None)
    qk = nope + rope
    parts = {
        "q": h * qr + qr * nh * qk if qr else h * nh * qk,
        "kv_a": h * (kvr + rope),
        "kv_b": kvr * nh * (nope + vd),
        "o": nh * vd * h,
    }
    other = (qr or 0) + kvr + (((qr or 0) + kvr + rope + h) if attn_bias else 0)
    dims = {"h": h, "nh": nh, "nope": nope, "rope": rope, "v": vd, "kv_rank": kvr, "q_rank": qr or 0}
    return Attention(
        True,
        parts,
        dims,
        other,
        kv_bytes=(kvr + rope) * KV_DTYPE_BYTES,
        n_kv_heads=_opt(c, "num_key_value_heads", nh) or nh,
        head_dim=qk,
    )


def _gqa_attention(c: dict, mt: str, h: int, nh: int, attn_bias: bool) -> Attention:
    nkv = _opt(c, "num_key_value_heads", nh) or nh
    if c.get("head_dim") is not None:
        hd = _req(c, "head_dim")
    elif h % nh == 0:
        hd = h // nh
    else:
        raise ConfigError("config.json 缺少字段 head_dim(hidden_size 不能被 num_attention_heads 整除)", "head_dim")
    parts = {"q": h * nh * hd, "kv": 2 * h * nkv * hd, "o": nh * hd * h}
    if mt in ("qwen2", "qwen2_moe"):
        bias, kind = nh * hd + 2 * nkv * hd, "qkv"
    elif attn_bias and mt not in ("mistral", "mixtral"):
        bias, kind = nh * hd + 2 * nkv * hd + h, "qkvo"
    else:
        bias, kind = 0, ""
    qk_norm = 2 * hd if mt in ("qwen3", "qwen3_moe", "qwen3_vl_text", "gemma3_text") else 0
    return Attention(
        False,
        parts,
        {"h": h, "nh": nh, "nkv": nkv, "hd": hd},
        bias + qk_norm,
        bias,
        kind,
        qk_norm,
        kv_bytes=2 * nkv * hd * KV_DTYPE_BYTES,
        n_kv_heads=nkv,
        head_dim=hd,
    )


@dataclass(frozen=True)
class FeedForward:
    """The FFN of one dense layer and of one MoE layer (zeros where the model has none)."""

    ff: int = 0  # dense intermediate size
    dense: int = 0  # 3·h·ff
    dense_bias: int = 0
    n_experts: int = 0
    top_k: int = 0
    expert_ff: int = 0
    expert: int = 0  # 3·h·expert_ff
    router: int = 0  # h·E
    shared: int = 0  # shared experts (+ their gate)
    n_shared: int = 0
    router_bias: int = 0  # DeepSeek-V3 e_score_correction_bias
    moe_layers: tuple[bool, ...] = ()

    @property
    def moe_total(self) -> int:
        return self.n_experts * self.expert + self.shared + self.router

    @property
    def moe_active(self) -> int:
        return self.top_k * self.expert + self.shared + self.router


def _moe_layout(c: dict, mt: str, L: int) -> tuple[int, int, int, int, list[bool]]:
    """(experts, top-k, expert intermediate size, shared experts, which layers are MoE)."""
    if mt == "mixtral":
        return _req(c, "num_local_experts"), _req(c, "num_experts_per_tok"), _req(c, "intermediate_size"), 0, [True] * L
    if mt in ("qwen2_moe", "qwen3_moe"):
        step = _opt(c, "decoder_sparse_step", 1) or 1
        only = set(_int_list(c, "mlp_only_layers"))
        return (
            _req(c, "num_experts"),
            _req(c, "num_experts_per_tok"),
            _req(c, "moe_intermediate_size"),
            0,
            [i not in only and (i + 1) % step == 0 for i in range(L)],
        )
    if mt in _MLA and (_opt(c, "n_routed_experts", 0, zero_ok=True) or 0):
        first = _opt(c, "first_k_dense_replace", 0, zero_ok=True) or 0
        freq = _opt(c, "moe_layer_freq", 1) or 1
        return (
            _req(c, "n_routed_experts"),
            _req(c, "num_experts_per_tok"),
            _req(c, "moe_intermediate_size"),
            _opt(c, "n_shared_experts", 0, zero_ok=True) or 0,
            [i >= first and i % freq == 0 for i in range(L)],
        )
    return 0, 0, 0, 0, [False] * L


def _feed_forward(c: dict, mt: str, h: int, L: int) -> FeedForward:
    E, k, ffe, n_shared, moe_layers = _moe_layout(c, mt, L)
    if E and k > E:
        raise ConfigError(f"num_experts_per_tok={k} 大于专家数 {E}", "num_experts_per_tok")
    ff = _req(c, "intermediate_size") if not all(moe_layers) else 0
    dense_bias = (2 * ff + h) if mt == "llama" and _flag(c, "mlp_bias") else 0
    if not E:
        return FeedForward(ff, 3 * h * ff, dense_bias, moe_layers=tuple(moe_layers))
    expert, shared = 3 * h * ffe, 0
    if mt == "qwen2_moe":
        sff = _opt(c, "shared_expert_intermediate_size", 0, zero_ok=True) or 0
        shared, n_shared = 3 * h * sff + (h if sff else 0), 1 if sff else 0  # shared expert + its gate (h×1)
    elif mt in _MLA:
        shared = n_shared * expert
    r_bias = E if mt == "deepseek_v3" and c.get("topk_method", "noaux_tc") == "noaux_tc" else 0
    return FeedForward(
        ff, 3 * h * ff, dense_bias, E, k, ffe, expert, h * E, shared, n_shared, r_bias, tuple(moe_layers)
    )


@dataclass
class _Layer:
    attn: int = 0  # attention matrices
    attn_other: int = 0  # attention biases, q/k norms, MLA latent norms
    ffn: int = 0  # FFN matrices, all experts + shared + router
    ffn_active: int = 0
    ffn_other: int = 0  # FFN biases, router correction bias
    norms: int = 0  # block norms
    kv: int = 0  # KV bytes per token (BF16)
    sliding: bool = False
    moe: bool = False

    @property
    def total(self) -> int:
        return self.attn + self.attn_other + self.ffn + self.ffn_other + self.norms

    @property
    def active(self) -> int:
        return self.attn + self.attn_other + self.ffn_active + self.ffn_other + self.norms


@dataclass(frozen=True)
class Analysis:
    """Everything a ``config.json`` gives, part by part: the shape, and what a report needs to
    show how each count was made."""

    shape: ModelShape
    wrapper: str | None  # multimodal config whose text_config was read
    filled: list[tuple[str, int]]  # text_config fields taken from library defaults
    attention: Attention
    ffn: FeedForward
    n_norms: int
    sliding_rule: SlidingRule
    groups: list[tuple[bool, int, int, int]]  # (MoE?, params per layer, active per layer, layers)
    layer_params: int  # all layers together
    mtp_layers: int  # DeepSeek-V3 MTP modules (not counted)


def _layers(attn: Attention, ffn: FeedForward, n_norms: int, h: int, sliding: list[bool]) -> list[_Layer]:
    out = []
    for i, is_sliding in enumerate(sliding):
        ly = _Layer(
            attn=attn.params,
            attn_other=attn.other,
            norms=n_norms * h,
            kv=attn.kv_bytes,
            sliding=is_sliding,
            moe=ffn.moe_layers[i],
        )
        if ly.moe:
            ly.ffn, ly.ffn_active, ly.ffn_other = ffn.moe_total, ffn.moe_active, ffn.router_bias
        else:
            ly.ffn = ly.ffn_active = ffn.dense
            ly.ffn_other = ffn.dense_bias
        out.append(ly)
    return out


def analyze(cfg: dict) -> Analysis:
    """Count every weight of a ``config.json`` layer by layer (see the module docstring)."""
    mt, c, wrapper, filled = _resolve_type(cfg)
    L = _req(c, "num_hidden_layers")
    if L > MAX_LAYERS:
        raise ConfigError(f"字段 num_hidden_layers 过大({L}),上限 {MAX_LAYERS:,}", "num_hidden_layers")
    h, nh, V = _req(c, "hidden_size"), _req(c, "num_attention_heads"), _req(c, "vocab_size")
    tied = _flag(c, "tie_word_embeddings", default=mt.startswith("gemma"))
    sliding, window, rule = _layer_types(c, mt, L)
    attn_bias = _flag(c, "attention_bias")
    attn = _mla_attention(c, h, nh, attn_bias) if mt in _MLA else _gqa_attention(c, mt, h, nh, attn_bias)
    ffn = _feed_forward(c, mt, h, L)
    n_norms = 4 if mt in ("gemma2", "gemma3_text") else 2
    layers = _layers(attn, ffn, n_norms, h, sliding)
    groups: dict[tuple[bool, int, int], int] = {}
    for ly in layers:
        groups[(ly.moe, ly.total, ly.active)] = groups.get((ly.moe, ly.total, ly.active), 0) + 1
    n_sl = sum(sliding)
    emb = V * h
    shape = ModelShape(
        L,
        h,
        nh,
        attn.n_kv_heads,
        attn.head_dim,
        V,
        tied,
        emb,
        0 if tied else emb,
        sum(ly.attn + ly.ffn for ly in layers),
        sum(ly.attn + ly.ffn_active for ly in layers),
        sum(ly.attn_other + ly.ffn_other + ly.norms for ly in layers) + h,  # + final norm
        sum(ly.kv for ly in layers),
        model_type=mt,
        architecture=_label(mt, ffn.n_experts, ffn.top_k, ffn.n_shared, n_sl, L),
        sliding_window=window if n_sl else None,
        n_sliding_layers=n_sl,
        kv_window_bytes_per_token=sum(ly.kv for ly in layers if ly.sliding),
        qk_head_dim=attn.head_dim if attn.mla else 0,
        v_head_dim=attn.dims.get("v", 0) if attn.mla else 0,
        n_experts=ffn.n_experts,
        experts_per_token=ffn.top_k,
        n_shared_experts=ffn.n_shared,
        n_moe_layers=sum(ffn.moe_layers),
        mla=attn.mla,
    )
    mtp = (_opt(c, "num_nextn_predict_layers", 0, zero_ok=True) or 0) if mt == "deepseek_v3" else 0
    return Analysis(
        shape,
        wrapper,
        filled,
        attn,
        ffn,
        n_norms,
        rule,
        [(m, t, a, n) for (m, t, a), n in groups.items()],
        sum(ly.total for ly in layers),
        mtp,
    )


def _label(mt: str, E: int, k: int, n_shared: int, n_sl: int, L: int) -> str:
    parts = []
    if E:
        parts.append(f"MoE {E} 选 {k}" + (f" + {n_shared} 共享专家" if n_shared else ""))
    else:
        parts.append("稠密")
    parts.append("MLA" if mt in _MLA else "GQA")
    if n_sl == L:
        parts.append("滑动窗口")
    elif n_sl:
        parts.append("局部/全局交替")
    return " + ".join(parts)


def shape_of(cfg: dict) -> ModelShape:
    """The shape of any supported ``config.json`` (see the module docstring); ``ConfigError`` otherwise."""
    return analyze(cfg).shape


def kv_bytes(s: ModelShape, context_tokens: int) -> int:
    """BF16 KV bytes of one sequence of ``context_tokens``: full-attention layers keep every token,
    sliding-window layers at most ``sliding_window``."""
    if isinstance(context_tokens, bool) or not isinstance(context_tokens, int) or context_tokens < 0:
        raise ValueError(f"context_tokens 应为非负整数,收到 {context_tokens!r}")
    held = min(context_tokens, s.sliding_window) if s.sliding_window else context_tokens
    return s.kv_full_bytes_per_token * context_tokens + s.kv_window_bytes_per_token * held


def derive(cfg: dict) -> dict:
    """Headline numbers of a ``config.json`` (the words that explain them are the web layer's)."""
    s = shape_of(cfg)
    ctxs = (4096, 32768, 131072)
    return {
        "architecture": s.architecture,
        "model_type": s.model_type,
        "n_layers": s.n_layers,
        "hidden_size": s.hidden,
        "vocab_size": s.vocab,
        "tied_embeddings": s.tied,
        "params_total": s.params_total,
        "params_active": s.params_active,
        "weight_bytes_bf16": weight_bytes(s, "bf16"),
        "kv_bytes_per_token": s.kv_bytes_per_token_bf16,
        "kv_bytes_per_token_full_layers": s.kv_full_bytes_per_token,
        "sliding_window": s.sliding_window,
        "n_sliding_layers": s.n_sliding_layers,
        "kv_bytes_by_context": {str(n): kv_bytes(s, n) for n in ctxs},
        "n_experts": s.n_experts,
        "experts_per_token": s.experts_per_token,
        "weight_read_bytes_per_token": int(decode_weight_read_bytes(s, 2)),
        "flops_per_token": 2 * (s.active_linear_params + s.lm_head_matrix_params),
    }


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
    emb_read = s.embedding_params if s.tied else s.hidden  # tied: the LM head reads the whole table
    return bytes_per_param * (s.params_active - s.embedding_params + emb_read)


def attn_flops_per_context_token(s: ModelShape) -> int:
    """QKᵀ and AV for one query over one cached token, all layers: 4·L·n_heads·head_dim
    (MLA, q·k and v widths differ: 2·L·n_heads·(d_qk + d_v))."""
    if s.qk_head_dim or s.v_head_dim:
        return 2 * s.n_layers * s.n_heads * ((s.qk_head_dim or s.head_dim) + (s.v_head_dim or s.head_dim))
    return 4 * s.n_layers * s.n_heads * s.head_dim


def _attended(s: ModelShape, context_tokens: int) -> float:
    """Layer-averaged tokens one query attends to (sliding layers see at most the window)."""
    if not s.n_sliding_layers or s.sliding_window is None:  # no window: every layer sees it all
        return context_tokens
    full = s.n_layers - s.n_sliding_layers
    return (full * context_tokens + s.n_sliding_layers * min(context_tokens, s.sliding_window)) / s.n_layers


def decode_flops(s: ModelShape, context_tokens: int) -> float:
    """One decode step: 2·(active linear + LM head) + 4·L·H·d·context (sliding layers: min(context, window))."""
    return 2 * (s.active_linear_params + s.lm_head_matrix_params) + attn_flops_per_context_token(s) * _attended(
        s, context_tokens
    )


def prefill_flops(s: ModelShape, n: int) -> float:
    """Prefill of n tokens: linear layers for all n, LM head for the last, causal attention
    (token i attends to i tokens): 2·L_lin·n + 2·LM + 4·L·H·d·n(n+1)/2. Sliding layers: token i
    attends to min(i, window)."""
    if s.n_sliding_layers and s.sliding_window is not None:
        w = s.sliding_window
        win_pairs = n * (n + 1) / 2 if n <= w else w * (w + 1) / 2 + (n - w) * w
        full = s.n_layers - s.n_sliding_layers
        pairs = (full * n * (n + 1) / 2 + s.n_sliding_layers * win_pairs) / s.n_layers
        return 2 * s.active_linear_params * n + 2 * s.lm_head_matrix_params + attn_flops_per_context_token(s) * pairs
    return (
        2 * s.active_linear_params * n + 2 * s.lm_head_matrix_params + attn_flops_per_context_token(s) * n * (n + 1) / 2
    )
