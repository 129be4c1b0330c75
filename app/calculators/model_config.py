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

``derive(cfg)`` returns the headline numbers plus the derivation steps (Chinese, numbers filled in)."""
from __future__ import annotations

import math
from dataclasses import dataclass

KV_DTYPE_BYTES = 2          # BF16 cache
MAX_FIELD = 1 << 31         # any single shape field above this is not a real model
MAX_LAYERS = 10_000         # the reader walks the layers one by one


class ConfigError(ValueError):
    """A config lacks a field the derivation needs, or has an unsupported shape."""

    def __init__(self, msg: str, field: str | None = None):
        super().__init__(msg)
        self.field = field


def _req(cfg: dict, key: str) -> int:
    if key not in cfg or cfg[key] is None:
        raise ConfigError(f"config.json 缺少字段 {key}", key)
    v = cfg[key]
    if (isinstance(v, bool) or not isinstance(v, (int, float)) or (isinstance(v, float) and not math.isfinite(v))
            or v <= 0 or int(v) != v):
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
    embedding_params: int      # vocab × hidden
    lm_head_params: int        # 0 when tied (the embedding matrix serves)
    linear_params: int         # every linear weight inside the transformer blocks (all experts)
    active_linear_params: int  # linear weights one token passes through (MoE: routed top-k + shared)
    other_params: int          # norms and biases
    kv_bytes_per_token_bf16: int   # all layers as if every layer held every token (full-attention worst case)
    # --- beyond dense GQA (defaults describe a plain dense model) -----------------------------
    model_type: str = ""
    architecture: str = "稠密 + GQA"
    sliding_window: int | None = None   # tokens a sliding-window layer keeps at most
    n_sliding_layers: int = 0
    kv_window_bytes_per_token: int = 0  # the part of kv_bytes_per_token_bf16 held by sliding layers
    qk_head_dim: int = 0                # attention dims when q·k and v differ (MLA); 0 → head_dim
    v_head_dim: int = 0
    n_experts: int = 0                  # routed experts per MoE layer (0: dense)
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
    if cfg.get("model_type") == "qwen3":          # per-head RMSNorm on q and k
        per_layer_other += 2 * hd
    linear = L * (attn + mlp)
    other = L * per_layer_other + h               # + final norm
    kv = L * 2 * nkv * hd * 2
    emb = V * h
    return ModelShape(L, h, nh, nkv, hd, V, tied, emb, 0 if tied else emb, linear, linear, other, kv)


# --- the general reader -----------------------------------------------------------------------

_ARCH_TO_TYPE = {
    "LlamaForCausalLM": "llama", "MistralForCausalLM": "mistral", "Qwen2ForCausalLM": "qwen2",
    "Qwen3ForCausalLM": "qwen3", "GemmaForCausalLM": "gemma", "Gemma2ForCausalLM": "gemma2",
    "Gemma3ForCausalLM": "gemma3_text", "Gemma3ForConditionalGeneration": "gemma3",
    "MixtralForCausalLM": "mixtral", "Qwen2MoeForCausalLM": "qwen2_moe", "Qwen3MoeForCausalLM": "qwen3_moe",
    "DeepseekV2ForCausalLM": "deepseek_v2", "DeepseekV3ForCausalLM": "deepseek_v3",
}
_GQA = {"llama", "mistral", "qwen2", "qwen3", "qwen3_vl_text", "gemma", "gemma2", "gemma3_text",
        "mixtral", "qwen2_moe", "qwen3_moe"}
_MLA = {"deepseek_v2", "deepseek_v3"}
_WRAPPERS = {"gemma3": "gemma3_text", "qwen3_vl": "qwen3_vl_text"}   # multimodal: read text_config
SUPPORTED = sorted(_GQA | _MLA | set(_WRAPPERS))
# Gemma 3's multimodal config.json leaves these text fields at Gemma3TextConfig's defaults.
_GEMMA3_TEXT_DEFAULTS = {"head_dim": 256, "vocab_size": 262208, "sliding_window_pattern": 6}


def _n(x: int) -> str:
    return f"{x:,}"


def _bytes_label(b: int) -> str:
    if b % 1024 == 0 and b >= 1024:
        return f"{_n(b)} B({_n(b // 1024)} KiB)"
    return f"{_n(b)} B({b / 1024:,.2f} KiB)" if b >= 1024 else f"{_n(b)} B"


def _resolve_type(cfg: dict) -> tuple[str, dict, list[str]]:
    """(model_type, the dict holding the text model's fields, notes)."""
    if not isinstance(cfg, dict):
        raise ConfigError("config.json 应为 JSON 对象")
    notes: list[str] = []
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
            raise ConfigError(f"不支持的架构:model_type={mt!r},architectures={archs!r};"
                              f"支持的 model_type:{', '.join(SUPPORTED)}", "model_type")
        mt = by_arch
    if mt in _WRAPPERS:
        tc = cfg.get("text_config")
        if not isinstance(tc, dict):
            raise ConfigError(f"config.json(model_type={mt})缺少字段 text_config:只算语言模型部分", "text_config")
        inner = _WRAPPERS[mt]
        text = dict(tc)
        if "tie_word_embeddings" not in text and "tie_word_embeddings" in cfg:
            text["tie_word_embeddings"] = cfg["tie_word_embeddings"]
        notes.append(f"多模态 config(model_type={mt}):只算 text_config 里的语言模型,视觉塔不计")
        if inner == "gemma3_text":
            for k, v in _GEMMA3_TEXT_DEFAULTS.items():
                if text.get(k) is None:
                    text[k] = v
                    notes.append(f"text_config 未写 {k},取 transformers Gemma3TextConfig 默认值 {v}")
        return inner, text, notes
    return mt, cfg, notes


def _layer_types(cfg: dict, mt: str, L: int) -> tuple[list[bool], int | None, str]:
    """Per layer: True if sliding-window. Plus the window and a description of the pattern."""
    window = _opt(cfg, "sliding_window", None)
    explicit = cfg.get("layer_types")
    if explicit is not None:
        if (not isinstance(explicit, list) or len(explicit) != L
                or any(t not in ("full_attention", "sliding_attention") for t in explicit)):
            raise ConfigError(f"字段 layer_types 应为 {L} 个 full_attention/sliding_attention", "layer_types")
        sl = [t == "sliding_attention" for t in explicit]
        if any(sl) and window is None:
            raise ConfigError("layer_types 含 sliding_attention,但 config.json 缺少字段 sliding_window", "sliding_window")
        return sl, window if any(sl) else None, "按 layer_types"
    if mt in ("gemma2", "gemma3_text"):
        if window is None:
            raise ConfigError("config.json 缺少字段 sliding_window", "sliding_window")
        if mt == "gemma2":
            return [(i + 1) % 2 != 0 for i in range(L)], window, "偶数层(0,2,4…)滑动窗口、奇数层全注意力交替"
        p = _opt(cfg, "sliding_window_pattern", None)
        if p is None:
            raise ConfigError("config.json 缺少字段 sliding_window_pattern", "sliding_window_pattern")
        return [(i + 1) % p != 0 for i in range(L)], window, f"每 {p} 层里前 {p - 1} 层滑动窗口、第 {p} 层全注意力"
    if mt in ("qwen2", "qwen3", "qwen2_moe", "qwen3_moe", "qwen3_vl_text"):
        if not _flag(cfg, "use_sliding_window") or window is None:
            return [False] * L, None, ""
        mw = _opt(cfg, "max_window_layers", L, zero_ok=True)
        return [i >= mw for i in range(L)], window, f"第 {mw} 层起滑动窗口(use_sliding_window=true)"
    if mt in ("mistral", "mixtral") and window is not None:
        return [True] * L, window, "全部层滑动窗口"
    return [False] * L, None, ""


@dataclass
class _Layer:
    attn: int = 0          # attention matrices
    attn_other: int = 0    # attention biases, q/k norms, MLA latent norms
    ffn: int = 0           # FFN matrices, all experts + shared + router
    ffn_active: int = 0
    ffn_other: int = 0     # FFN biases, router correction bias
    norms: int = 0         # block norms
    kv: int = 0            # KV bytes per token (BF16)
    sliding: bool = False
    moe: bool = False

    @property
    def total(self) -> int:
        return self.attn + self.attn_other + self.ffn + self.ffn_other + self.norms

    @property
    def active(self) -> int:
        return self.attn + self.attn_other + self.ffn_active + self.ffn_other + self.norms


def _analyze(cfg: dict) -> tuple[ModelShape, list[str]]:
    mt, c, steps = _resolve_type(cfg)
    L = _req(c, "num_hidden_layers")
    if L > MAX_LAYERS:
        raise ConfigError(f"字段 num_hidden_layers 过大({L}),上限 {MAX_LAYERS:,}", "num_hidden_layers")
    h = _req(c, "hidden_size")
    nh = _req(c, "num_attention_heads")
    V = _req(c, "vocab_size")
    gemma = mt.startswith("gemma")
    tied = _flag(c, "tie_word_embeddings", default=gemma)
    steps.insert(0, f"model_type={mt}:{L} 层,hidden {_n(h)},{nh} 个 query 头,词表 {_n(V)}")

    # --- attention (one layer) ---
    sliding, window, pattern = _layer_types(c, mt, L)
    attn_bias = _flag(c, "attention_bias")
    if mt in _MLA:
        nope = _req(c, "qk_nope_head_dim")
        rope = _req(c, "qk_rope_head_dim")
        vd = _req(c, "v_head_dim")
        kvr = _req(c, "kv_lora_rank")
        qr = _opt(c, "q_lora_rank", None)
        qk = nope + rope
        q_mat = h * qr + qr * nh * qk if qr else h * nh * qk
        kv_a, kv_b, o = h * (kvr + rope), kvr * nh * (nope + vd), nh * vd * h
        attn = q_mat + kv_a + kv_b + o
        a_other = (qr or 0) + kvr + (((qr or 0) + kvr + rope + h) if attn_bias else 0)
        kv_layer = (kvr + rope) * KV_DTYPE_BYTES
        nkv, hd = _opt(c, "num_key_value_heads", nh), qk
        q_txt = (f"q 低秩 {_n(h)}×{_n(qr)} + {_n(qr)}×({nh}×{qk})" if qr else f"q {_n(h)}×({nh}×{qk})")
        steps.append(f"MLA 注意力每层:{q_txt} + kv_a {_n(h)}×({kvr}+{rope}) + kv_b {kvr}×({nh}×({nope}+{vd}))"
                     f" + o ({nh}×{vd})×{_n(h)} = {_n(attn)};latent 范数等 {_n(a_other)}")
        steps.append(f"MLA KV 缓存每层每 token 只存压缩向量 kv_lora_rank + qk_rope_head_dim = {kvr}+{rope} = "
                     f"{kvr + rope} 个值 × 2 B = {_n(kv_layer)} B")
        qk_dim, v_dim = qk, vd
    else:
        nkv = _opt(c, "num_key_value_heads", nh)
        if c.get("head_dim") is not None:
            hd = _req(c, "head_dim")
        elif h % nh == 0:
            hd = h // nh
        else:
            raise ConfigError("config.json 缺少字段 head_dim(hidden_size 不能被 num_attention_heads 整除)", "head_dim")
        q, kv, o = h * nh * hd, 2 * h * nkv * hd, nh * hd * h
        attn = q + kv + o
        if mt in ("qwen2", "qwen2_moe"):
            bias, bias_txt = nh * hd + 2 * nkv * hd, "q/k/v 偏置"
        elif attn_bias and mt not in ("mistral", "mixtral"):
            bias, bias_txt = nh * hd + 2 * nkv * hd + h, "q/k/v/o 偏置"
        else:
            bias, bias_txt = 0, ""
        qk_norm = 2 * hd if mt in ("qwen3", "qwen3_moe", "qwen3_vl_text", "gemma3_text") else 0
        a_other = bias + qk_norm
        kv_layer = 2 * nkv * hd * KV_DTYPE_BYTES
        extra = "、".join(x for x in (f"{bias_txt} {_n(bias)}" if bias else "",
                                      f"q/k 逐头 RMSNorm 2×{hd}" if qk_norm else "") if x)
        steps.append(f"注意力每层:q {_n(h)}×({nh}×{hd}) + k,v 2×{_n(h)}×({nkv}×{hd}) + o ({nh}×{hd})×{_n(h)}"
                     f" = {_n(attn)}" + (f";另有 {extra}" if extra else ""))
        steps.append(f"KV 缓存每层每 token:2(K,V)× {nkv} 个 KV 头 × {hd} × 2 B = {_n(kv_layer)} B")
        qk_dim = v_dim = 0
    n_norms = 4 if mt in ("gemma2", "gemma3_text") else 2

    # --- feed-forward ---
    E = k = n_shared = 0
    moe_layers = [False] * L
    if mt == "mixtral":
        E, k = _req(c, "num_local_experts"), _req(c, "num_experts_per_tok")
        ffe = _req(c, "intermediate_size")
        moe_layers = [True] * L
    elif mt in ("qwen2_moe", "qwen3_moe"):
        E, k = _req(c, "num_experts"), _req(c, "num_experts_per_tok")
        ffe = _req(c, "moe_intermediate_size")
        step = _opt(c, "decoder_sparse_step", 1)
        only = set(_int_list(c, "mlp_only_layers"))
        moe_layers = [i not in only and (i + 1) % step == 0 for i in range(L)]
    elif mt in _MLA:
        E = _opt(c, "n_routed_experts", 0, zero_ok=True) or 0
        if E:
            k = _req(c, "num_experts_per_tok")
            ffe = _req(c, "moe_intermediate_size")
            n_shared = _opt(c, "n_shared_experts", 0, zero_ok=True) or 0
            first = _opt(c, "first_k_dense_replace", 0, zero_ok=True) or 0
            freq = _opt(c, "moe_layer_freq", 1)
            moe_layers = [i >= first and i % freq == 0 for i in range(L)]
    if E and k > E:
        raise ConfigError(f"num_experts_per_tok={k} 大于专家数 {E}", "num_experts_per_tok")
    ff = _req(c, "intermediate_size") if not all(moe_layers) else 0
    mlp_bias = mt == "llama" and _flag(c, "mlp_bias")
    dense_ffn = 3 * h * ff
    dense_bias = (2 * ff + h) if mlp_bias else 0
    if ff:
        steps.append(f"稠密 FFN(gate/up/down 三个矩阵):3×{_n(h)}×{_n(ff)} = {_n(dense_ffn)}"
                     + (f";偏置 {_n(dense_bias)}" if dense_bias else ""))
    if E:
        expert = 3 * h * ffe
        router = h * E
        shared = 0
        if mt == "qwen2_moe":
            sff = _opt(c, "shared_expert_intermediate_size", 0, zero_ok=True) or 0
            shared = 3 * h * sff + (h if sff else 0)      # shared expert + its sigmoid gate (h×1)
            n_shared = 1 if sff else 0
        elif mt in _MLA:
            shared = n_shared * expert
        r_bias = E if mt == "deepseek_v3" and c.get("topk_method", "noaux_tc") == "noaux_tc" else 0
        moe_total = E * expert + shared + router
        moe_active = k * expert + shared + router
        steps.append(f"MoE 层:{E} 个路由专家 × 3×{_n(h)}×{_n(ffe)} = {_n(E * expert)}"
                     + (f" + 共享专家 {_n(shared)}" if shared else "")
                     + f" + 路由器 {_n(h)}×{E} = {_n(router)}"
                     + (f" + 路由偏置 e_score_correction_bias {E}" if r_bias else "")
                     + f";每 token 只走 {k} 个路由专家"
                     + ("和共享专家" if shared else "") + f",激活 {_n(moe_active)}")

    layers = []
    for i in range(L):
        ly = _Layer(attn=attn, attn_other=a_other, norms=n_norms * h, kv=kv_layer, sliding=sliding[i],
                    moe=moe_layers[i])
        if moe_layers[i]:
            ly.ffn, ly.ffn_active, ly.ffn_other = moe_total, moe_active, r_bias
        else:
            ly.ffn = ly.ffn_active = dense_ffn
            ly.ffn_other = dense_bias
        layers.append(ly)

    n_moe = sum(moe_layers)
    if n_moe and n_moe < L:
        steps.append(f"{L} 层里 {n_moe} 层是 MoE、{L - n_moe} 层是稠密 FFN")
    steps.append(f"每层 {n_norms} 个 RMSNorm:{n_norms}×{_n(h)} = {_n(n_norms * h)}")
    groups: dict[tuple, int] = {}
    for ly in layers:
        key = (ly.moe, ly.total, ly.active)
        groups[key] = groups.get(key, 0) + 1
    for (is_moe, tot, act), cnt in groups.items():
        kind = "MoE 层" if is_moe else "稠密层"
        steps.append(f"{kind} × {cnt}:每层 {_n(tot)}" + (f"(激活 {_n(act)})" if act != tot else "")
                     + f",合计 {_n(tot * cnt)}")

    linear = sum(ly.attn + ly.ffn for ly in layers)
    active_linear = sum(ly.attn + ly.ffn_active for ly in layers)
    other = sum(ly.attn_other + ly.ffn_other + ly.norms for ly in layers) + h   # + final norm
    emb = V * h
    kv_all = sum(ly.kv for ly in layers)
    kv_win = sum(ly.kv for ly in layers if ly.sliding)
    n_sl = sum(sliding)

    shape = ModelShape(
        L, h, nh, nkv, hd, V, tied, emb, 0 if tied else emb, linear, active_linear, other, kv_all,
        model_type=mt, architecture=_label(mt, E, k, n_shared, n_sl, L),
        sliding_window=window if n_sl else None, n_sliding_layers=n_sl, kv_window_bytes_per_token=kv_win,
        qk_head_dim=qk_dim, v_head_dim=v_dim, n_experts=E, experts_per_token=k, n_shared_experts=n_shared,
        n_moe_layers=n_moe, mla=mt in _MLA)

    steps.append(f"嵌入表 {_n(V)}×{_n(h)} = {_n(emb)};LM 头"
                 + ("与嵌入共享(tie_word_embeddings),不另计" if tied else f"不共享,再 {_n(emb)}")
                 + f";末层 RMSNorm {_n(h)}")
    steps.append(f"总参数 = 各层 {_n(sum(ly.total for ly in layers))} + 嵌入/LM 头 {_n(emb + shape.lm_head_params)}"
                 f" + 末层范数 {_n(h)} = {_n(shape.params_total)}")
    if shape.params_active != shape.params_total:
        steps.append(f"激活参数(每 token 经过的)= {_n(shape.params_active)}")
    if mt == "deepseek_v3" and _opt(c, "num_nextn_predict_layers", 0, zero_ok=True):
        steps.append("不含 MTP(num_nextn_predict_layers)模块:它只用于训练/投机解码,不在主模型前向里")
    steps.append(f"KV 缓存每 token(BF16,{L} 层都按全注意力算的最坏情况)= {L} × {_n(kv_layer)} B = "
                 f"{_bytes_label(kv_all)}")
    if n_sl:
        steps.append(f"滑动窗口 {_n(window)}:{pattern},共 {n_sl} 层;这些层最多保留 {_n(window)} 个 token。"
                     f"全注意力层 {L - n_sl} 层每 token {_bytes_label(kv_all - kv_win)};上下文 n 个 token 时"
                     f" KV = {_n(kv_all - kv_win)}·n + {_n(kv_win)}·min(n, {_n(window)}) B")
    return shape, steps


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
    return _analyze(cfg)[0]


def kv_bytes(s: ModelShape, context_tokens: int) -> int:
    """BF16 KV bytes of one sequence of ``context_tokens``: full-attention layers keep every token,
    sliding-window layers at most ``sliding_window``."""
    if isinstance(context_tokens, bool) or not isinstance(context_tokens, int) or context_tokens < 0:
        raise ValueError(f"context_tokens 应为非负整数,收到 {context_tokens!r}")
    held = min(context_tokens, s.sliding_window) if s.sliding_window else context_tokens
    return s.kv_full_bytes_per_token * context_tokens + s.kv_window_bytes_per_token * held


def derive(cfg: dict) -> dict:
    """Headline numbers of a ``config.json`` plus the derivation steps (Chinese, numbers filled in)."""
    s, steps = _analyze(cfg)
    read = int(decode_weight_read_bytes(s, 2))
    flops = 2 * (s.active_linear_params + s.lm_head_matrix_params)
    steps.append(f"解码每步读权重(BF16)= 2 B × (激活参数 {_n(s.params_active)} − 嵌入表 {_n(s.embedding_params)}"
                 + (f" + 整张表 {_n(s.embedding_params)}(共享的 LM 头要读)" if s.tied else f" + 一行 {_n(s.hidden)}")
                 + f")= {_n(read)} B")
    steps.append(f"每 token FLOPs(不含注意力)= 2 × (激活矩阵 {_n(s.active_linear_params)} + LM 头 "
                 f"{_n(s.lm_head_matrix_params)}) = {_n(flops)}")
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
        "weight_read_bytes_per_token": read,
        "flops_per_token": flops,
        "steps": steps,
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
    emb_read = s.embedding_params if s.tied else s.hidden   # tied: the LM head reads the whole table
    return bytes_per_param * (s.params_active - s.embedding_params + emb_read)


def attn_flops_per_context_token(s: ModelShape) -> int:
    """QKᵀ and AV for one query over one cached token, all layers: 4·L·n_heads·head_dim
    (MLA, q·k and v widths differ: 2·L·n_heads·(d_qk + d_v))."""
    if s.qk_head_dim or s.v_head_dim:
        return 2 * s.n_layers * s.n_heads * ((s.qk_head_dim or s.head_dim) + (s.v_head_dim or s.head_dim))
    return 4 * s.n_layers * s.n_heads * s.head_dim


def _attended(s: ModelShape, context_tokens: int) -> float:
    """Layer-averaged tokens one query attends to (sliding layers see at most the window)."""
    if not s.n_sliding_layers:
        return context_tokens
    full = s.n_layers - s.n_sliding_layers
    return (full * context_tokens + s.n_sliding_layers * min(context_tokens, s.sliding_window)) / s.n_layers


def decode_flops(s: ModelShape, context_tokens: int) -> float:
    """One decode step: 2·(active linear + LM head) + 4·L·H·d·context (sliding layers: min(context, window))."""
    return 2 * (s.active_linear_params + s.lm_head_matrix_params) + attn_flops_per_context_token(s) * _attended(s, context_tokens)


def prefill_flops(s: ModelShape, n: int) -> float:
    """Prefill of n tokens: linear layers for all n, LM head for the last, causal attention
    (token i attends to i tokens): 2·L_lin·n + 2·LM + 4·L·H·d·n(n+1)/2. Sliding layers: token i
    attends to min(i, window)."""
    if s.n_sliding_layers:
        w = s.sliding_window
        win_pairs = n * (n + 1) / 2 if n <= w else w * (w + 1) / 2 + (n - w) * w
        full = s.n_layers - s.n_sliding_layers
        pairs = (full * n * (n + 1) / 2 + s.n_sliding_layers * win_pairs) / s.n_layers
        return 2 * s.active_linear_params * n + 2 * s.lm_head_matrix_params + attn_flops_per_context_token(s) * pairs
    return 2 * s.active_linear_params * n + 2 * s.lm_head_matrix_params + attn_flops_per_context_token(s) * n * (n + 1) / 2
