"""Quantities that follow from a model's ``config.json``: parameter counts, weight bytes (as the checkpoint
stores them and in BF16), KV bytes per token, constant per-sequence state, per-step weight read and FLOPs.
Nothing here is typed in as a result.

``analyze(cfg)`` reads a Hugging Face ``config.json`` and lists every weight of the text model layer by
layer — each matrix with its module name and shape (``Matrix``), each vector (norms, biases, sinks, conv
kernels) by count — then adds them up. Families (each rule's source is named in ``RULES`` and repeated in
the report's steps):

* dense GQA — ``llama``, ``mistral``, ``qwen2``, ``qwen3``/``qwen3_vl_text``, ``gemma``, ``gemma2``, ``gemma3_text``,
  ``phi3``, ``olmo2`` (whole-width q/k norms), ``ministral3``;
* MoE — ``mixtral``, ``qwen2_moe``, ``qwen3_moe``, ``gpt_oss`` (fused experts with biases, router bias,
  attention sinks), ``llama4_text`` (interleaved MoE + shared expert), ``minimax_m2`` (per-layer q/k norm,
  routing bias), ``qwen3_next`` (shared expert + gate), ``glm4_moe`` (DeepSeek-style MoE with q/k/v bias),
  ``qwen3_vl_moe`` (its text model is Qwen3-MoE);
* MLA — ``deepseek_v2``, ``deepseek_v3``/``kimi_k2``, ``deepseek_v32`` (+ the sparse-attention indexer and its
  key cache);
* hybrid linear attention — ``qwen3_next``, ``qwen3_5_text``, ``qwen3_5_moe_text`` (Gated DeltaNet layers hold a
  constant recurrent + convolution state per sequence; the full-attention layers hold per-token KV);
* Mamba-2 hybrids — ``nemotron_h`` (blocks of Mamba-2 / attention / MLP), ``granitemoehybrid`` (Mamba-2 or
  attention, each with MoE + shared MLP), ``falcon_h1`` (attention and Mamba-2 in parallel in every layer);
* bounded attention — sliding windows (Mistral, Qwen, Gemma 2/3, gpt-oss ``layer_types``) and Llama 4's
  chunked layers (``attention_chunk_size``): those layers keep at most ``sliding_window`` tokens;
* any multimodal wrapper with a ``text_config`` whose model is one of the above: the text model is counted.

A field the config leaves out takes the transformers default for that ``model_type`` (``DEFAULTS``, each
recorded in ``Analysis.filled`` so the steps say so) or the config is refused naming the field. The weights
as stored follow ``quantization_config``, or ``hf_quant_config.json`` sent beside it (``stored_bytes``). A
Qwen3-VL-style vision tower is counted apart (``vision_tower_params``); MTP layers are recorded, not counted."""

from __future__ import annotations

import dataclasses
import fnmatch
import math
import re
from dataclasses import dataclass, field

from ..words import joined, words_for

W = words_for(__name__)

KV_DTYPE_BYTES = 2  # BF16 cache
MAX_FIELD = 1 << 31  # any single shape field above this is not a real model
MAX_LAYERS = 10_000  # the reader walks the layers one by one
TF = "huggingface/transformers src/transformers/models"  # where every rule below is read


class ConfigError(ValueError):
    """A config lacks a field the derivation needs, or has an unsupported shape."""

    def __init__(self, msg: str, field: str | None = None):
        super().__init__(msg)
        self.field = field


def _positive(key: str, v: object) -> int:
    if (
        isinstance(v, bool)
        or not isinstance(v, (int, float))
        or (isinstance(v, float) and not math.isfinite(v))
        or v <= 0
        or int(v) != v
    ):
        raise ConfigError(W.f("positive.configerror", v_key=key, v=v), key)
    if v > MAX_FIELD:
        raise ConfigError(W.f("positive.configerror_2", v_key=key, v=v), key)
    return int(v)


# --- transformers defaults, by model_type -----------------------------------------------------------

HD = "hidden_size // num_attention_heads"  # a default computed from other fields
NH = "num_attention_heads"

_LLAMA = {
    "num_key_value_heads": NH,
    "head_dim": HD,
    "tie_word_embeddings": False,
    "attention_bias": False,
    "mlp_bias": False,
}
_QWEN = {"use_sliding_window": False, "sliding_window": 4096, "max_window_layers": 28, "tie_word_embeddings": False}
_DSV3 = {
    "num_key_value_heads": NH,
    "q_lora_rank": 1536,
    "n_shared_experts": 1,
    "first_k_dense_replace": 3,
    "topk_method": "noaux_tc",
    "attention_bias": False,
    "tie_word_embeddings": False,
    "num_nextn_predict_layers": 0,
}
_GDN = {
    "linear_conv_kernel_dim": 4,
    "linear_key_head_dim": 128,
    "linear_value_head_dim": 128,
    "linear_num_key_heads": 16,
    "linear_num_value_heads": 32,
    "full_attention_interval": 4,
    "head_dim": 256,
    "attention_bias": False,
    "tie_word_embeddings": False,
}
# model_type → (the transformers file the defaults are read from, {field: default})
DEFAULTS: dict[str, tuple[str, dict[str, object]]] = {
    "llama": (f"{TF}/llama/configuration_llama.py", _LLAMA),
    "mistral": (
        f"{TF}/mistral/configuration_mistral.py",
        {"num_key_value_heads": 8, "head_dim": HD, "sliding_window": 4096, "tie_word_embeddings": False},
    ),
    "qwen2": (f"{TF}/qwen2/configuration_qwen2.py", {"num_key_value_heads": 32, "head_dim": HD, **_QWEN}),
    "qwen3": (
        f"{TF}/qwen3/configuration_qwen3.py",
        {"num_key_value_heads": 32, "head_dim": 128, "attention_bias": False, **_QWEN},
    ),
    "gemma": (f"{TF}/gemma/configuration_gemma.py", {"tie_word_embeddings": True}),
    "gemma2": (f"{TF}/gemma2/configuration_gemma2.py", {"tie_word_embeddings": True}),
    "gemma3_text": (
        f"{TF}/gemma3/configuration_gemma3.py",
        {"head_dim": 256, "vocab_size": 262208, "sliding_window_pattern": 6, "tie_word_embeddings": True},
    ),
    "mixtral": (
        f"{TF}/mixtral/configuration_mixtral.py",
        {"num_key_value_heads": NH, "head_dim": HD, "sliding_window": None},
    ),
    "qwen2_moe": (
        f"{TF}/qwen2_moe/configuration_qwen2_moe.py",
        {
            "num_key_value_heads": 16,
            "head_dim": HD,  # Qwen2MoeConfig has no head_dim: the attention uses hidden_size // num_attention_heads
            "decoder_sparse_step": 1,
            "shared_expert_intermediate_size": 5632,
            "mlp_only_layers": [],
            **_QWEN,
        },
    ),
    "qwen3_moe": (
        f"{TF}/qwen3_moe/configuration_qwen3_moe.py",
        {
            "num_key_value_heads": 4,
            "head_dim": HD,
            "decoder_sparse_step": 1,
            "mlp_only_layers": [],
            "attention_bias": False,
            "use_sliding_window": False,
            "sliding_window": 4096,
            "tie_word_embeddings": False,
        },
    ),
    "deepseek_v2": (
        f"{TF}/deepseek_v2/configuration_deepseek_v2.py",
        {"num_key_value_heads": NH, "attention_bias": False, "tie_word_embeddings": False},
    ),
    "deepseek_v3": (f"{TF}/deepseek_v3/configuration_deepseek_v3.py", _DSV3),
    "kimi_k2": (W.f("defaults.kimi_k2", tf=TF), _DSV3),
    "deepseek_v32": (
        f"{TF}/deepseek_v32/configuration_deepseek_v32.py",
        {**_DSV3, "index_head_dim": 128, "index_n_heads": 64},
    ),
    "gpt_oss": (
        f"{TF}/gpt_oss/configuration_gpt_oss.py",
        {
            "num_key_value_heads": 8,
            "head_dim": 64,
            "sliding_window": 128,
            "attention_bias": True,
            "tie_word_embeddings": False,
        },
    ),
    "llama4_text": (
        f"{TF}/llama4/configuration_llama4.py",
        {
            "num_key_value_heads": 8,
            "head_dim": 128,
            "interleave_moe_layer_step": 1,
            "no_rope_layer_interval": 4,
            "attention_chunk_size": 8192,
            "attention_bias": False,
            "tie_word_embeddings": False,
        },
    ),
    "minimax_m2": (
        f"{TF}/minimax_m2/modular_minimax_m2.py",
        {"num_key_value_heads": 8, "head_dim": 128, "tie_word_embeddings": False},
    ),
    "qwen3_next": (
        f"{TF}/qwen3_next/configuration_qwen3_next.py",
        {
            **_GDN,
            "num_key_value_heads": 2,
            "decoder_sparse_step": 1,
            "mlp_only_layers": [],
            "shared_expert_intermediate_size": 512,
        },
    ),
    "qwen3_5_text": (f"{TF}/qwen3_5/configuration_qwen3_5.py", {**_GDN, "num_key_value_heads": 4}),
    "qwen3_5_moe_text": (f"{TF}/qwen3_5_moe/configuration_qwen3_5_moe.py", {**_GDN, "num_key_value_heads": 2}),
    "falcon_h1": (
        f"{TF}/falcon_h1/configuration_falcon_h1.py",
        {
            "num_key_value_heads": 8,
            "head_dim": HD,
            "tie_word_embeddings": False,
            "attention_bias": False,
            "mlp_bias": False,
            "mamba_d_ssm": 1024,
            "mamba_n_heads": 128,
            "mamba_n_groups": 1,
            "mamba_d_state": 256,
            "mamba_d_conv": 4,
            "mamba_expand": 2,
            "mamba_conv_bias": True,
            "mamba_proj_bias": False,
            "mamba_rms_norm": False,
            "projectors_bias": False,
        },
    ),
    "ministral3": (
        f"{TF}/ministral3/configuration_ministral3.py",
        {"num_key_value_heads": NH, "head_dim": HD, "sliding_window": None, "tie_word_embeddings": False},
    ),
    "phi3": (
        f"{TF}/phi3/configuration_phi3.py",
        {"num_key_value_heads": NH, "head_dim": HD, "sliding_window": None, "tie_word_embeddings": False},
    ),
    "olmo2": (
        f"{TF}/olmo2/configuration_olmo2.py",
        {"num_key_value_heads": NH, "head_dim": HD, "attention_bias": False, "tie_word_embeddings": False},
    ),
    "nemotron_h": (
        f"{TF}/nemotron_h/configuration_nemotron_h.py",
        {
            "num_key_value_heads": 8,
            "head_dim": 128,
            "hybrid_override_pattern": "M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M-",
            "mamba_num_heads": 128,
            "mamba_head_dim": 64,
            "n_groups": 8,
            "ssm_state_size": 128,
            "conv_kernel": 4,
            "use_conv_bias": True,
            "use_bias": False,
            "mlp_bias": False,
            "attention_bias": False,
            "tie_word_embeddings": False,
        },
    ),
    "granitemoehybrid": (
        f"{TF}/granitemoehybrid/configuration_granitemoehybrid.py",
        {
            "num_key_value_heads": NH,
            "head_dim": HD,
            "mamba_n_heads": 128,
            "mamba_n_groups": 1,
            "mamba_d_conv": 4,
            "mamba_expand": 2,
            "mamba_conv_bias": True,
            "mamba_proj_bias": False,
            "attention_bias": False,
            "num_local_experts": 0,
            "tie_word_embeddings": True,
        },
    ),
    "glm4_moe": (
        f"{TF}/glm4_moe/configuration_glm4_moe.py",
        {"head_dim": HD, "use_qk_norm": False, "tie_word_embeddings": False, "num_nextn_predict_layers": 0},
    ),
}

# model_type → the rule of its blocks, with the file it is read from (for the report's steps)
RULES: dict[str, str] = {
    "gpt_oss": W.f("rules.gpt_oss", tf=TF),
    "llama4_text": W.f("rules.llama4_text", tf=TF),
    "minimax_m2": W.f("rules.minimax_m2", tf=TF),
    "qwen3_next": W.f("rules.qwen3_next", tf=TF),
    "qwen3_5_text": W.f("rules.qwen3_5_text", tf=TF),
    "deepseek_v32": W.f("rules.deepseek_v32", tf=TF),
    "falcon_h1": W.f("rules.falcon_h1", tf=TF),
    "ministral3": W.f("rules.ministral3", tf=TF),
    "phi3": W.f("rules.phi3", tf=TF),
    "nemotron_h": W.f("rules.nemotron_h", tf=TF),
    "granitemoehybrid": W.f("rules.granitemoehybrid", tf=TF),
    "olmo2": W.f("rules.olmo2", tf=TF),
    "glm4_moe": W.f("rules.glm4_moe", tf=TF),
    "qwen3_5_moe_text": W.f("rules.qwen3_5_moe_text", tf=TF),
    "kimi_k2": W.f("rules.kimi_k2", tf=TF),
}


@dataclass(frozen=True)
class Filled:
    """A field the config leaves out, taken from the transformers default of its model_type."""

    field: str
    value: object
    source: str


class _Cfg:
    """The text model's fields, read once each: present → validated; absent → the transformers default
    (recorded) or a ConfigError naming the field. Present-but-null means what transformers makes of None."""

    def __init__(self, d: dict, mt: str):
        self.d, self.mt = d, mt
        self.source, self.table = DEFAULTS.get(mt, ("", {}))
        self.filled: list[Filled] = []

    def _default(self, key: str, *, required: bool = True) -> object:
        if key not in self.table:
            if not required:
                return None
            raise ConfigError(W.f("cfg.default.configerror", v_key=key), key)
        v = self.table[key]
        if v == HD:
            v = self.num("hidden_size") // self.num("num_attention_heads")
        elif v == NH:
            v = self.num("num_attention_heads")
        if not any(f.field == key for f in self.filled):
            self.filled.append(Filled(key, v, self.source))
        return v

    def has(self, key: str) -> bool:
        return key in self.d

    def num(self, key: str) -> int:
        """A required positive integer (or its default)."""
        v = self.d.get(key)
        if v is None:
            v = self._default(key)
        return _positive(key, v)

    def opt_int(self, key: str, *, null: int | None = None, zero_ok: bool = False) -> int | None:
        """An integer that may be null (→ ``null``: what transformers makes of None); absent → the table's
        default (which may itself be None), else a ConfigError naming the field."""
        if key not in self.d:
            v = self._default(key)
            return None if v is None else self._check(key, v, zero_ok)
        if self.d[key] is None:
            return null
        return self._check(key, self.d[key], zero_ok)

    @staticmethod
    def _check(key: str, v: object, zero_ok: bool) -> int:
        if zero_ok and v == 0 and not isinstance(v, bool):
            return 0
        return _positive(key, v)

    def note(self, key: str, value: object, source: str) -> None:
        if not any(f.field == key for f in self.filled):
            self.filled.append(Filled(key, value, source))

    def flag(self, key: str, default: bool | None = None) -> bool:
        """A true/false field; absent → the table's default, else ``default`` (recorded), else a ConfigError."""
        v = self.d.get(key)
        if v is None:
            if key in self.table:
                v = self._default(key)
            elif default is not None:
                v = default
                self.note(key, default, W["cfg.flag.note"])
            else:
                raise ConfigError(W.f("cfg.flag.configerror", v_key=key), key)
        if not isinstance(v, bool):
            raise ConfigError(W.f("cfg.flag.configerror_2", v_key=key, v=v), key)
        return v

    def int_list(self, key: str) -> list[int]:
        v = self.d.get(key)
        if v is None:
            v = self._default(key, required=False) or []
        if not isinstance(v, list) or any(isinstance(x, bool) or not isinstance(x, int) for x in v):
            raise ConfigError(W.f("cfg.int_list.configerror", v_key=key, v=str(v)[:60]), key)
        return v

    def text(self, key: str) -> str | None:
        v = self.d.get(key)
        if v is None and key in self.table:
            v = self._default(key)
        return v if isinstance(v, str) else None


# --- the inventory --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Matrix:
    """One weight matrix of the text model: its module name (layer index filled in, expert 0 standing for
    every expert), rows × cols, how many copies (experts) and how many of them one token passes through."""

    name: str
    rows: int
    cols: int
    count: int = 1
    active: int = 1
    role: str = "linear"  # linear | expert | router | embed | lm_head

    @property
    def params(self) -> int:
        return self.rows * self.cols * self.count

    @property
    def active_params(self) -> int:
        return self.rows * self.cols * self.active


@dataclass(frozen=True)
class Mixer:
    """One layer's token mixer: attention (GQA/MLA) or linear attention (Gated DeltaNet)."""

    kind: str  # gqa | mla | gdn
    matrices: tuple[tuple[str, int, int], ...]  # (module suffix, rows, cols)
    other: dict[str, int]  # vectors: biases, norms, sinks, conv kernels (params)
    kv_values: int = 0  # values cached per token in this layer (K and V, or the MLA latent + indexer key)
    state_bytes: int = 0  # constant bytes per sequence (linear attention)
    dims: dict[str, int] = field(default_factory=dict)
    rule: str = ""  # the words of the KV/state rule

    @property
    def params(self) -> int:
        return sum(r * c for _, r, c in self.matrices)

    @property
    def other_params(self) -> int:
        return sum(self.other.values())


@dataclass(frozen=True)
class Ffn:
    """One layer's feed-forward: dense or MoE."""

    moe: bool
    matrices: tuple[Matrix, ...]  # names relative to the layer ("mlp.gate_proj", "mlp.experts.0.up_proj", …)
    other: dict[str, int]  # biases, router correction bias
    other_active: int  # the part of ``other`` one token uses (MoE expert biases: its top-k only)
    dims: dict[str, int] = field(default_factory=dict)

    @property
    def params(self) -> int:
        return sum(m.params for m in self.matrices)

    @property
    def active_params(self) -> int:
        return sum(m.active_params for m in self.matrices)

    @property
    def other_params(self) -> int:
        return sum(self.other.values())


@dataclass(frozen=True)
class Layer:
    index: int
    mixer: Mixer
    ffn: Ffn
    norms: int  # block RMSNorm params
    window: int | None = None  # tokens this layer keeps at most (sliding / chunked attention)

    @property
    def params(self) -> int:
        return self.mixer.params + self.mixer.other_params + self.ffn.params + self.ffn.other_params + self.norms

    @property
    def active_params(self) -> int:
        return self.mixer.params + self.mixer.other_params + self.ffn.active_params + self.ffn.other_active + self.norms

    def matrices(self) -> list[Matrix]:
        pre = f"model.layers.{self.index}."
        out = [Matrix(pre + n, r, c) for n, r, c in self.mixer.matrices]
        out += [Matrix(pre + m.name, m.rows, m.cols, m.count, m.active, m.role) for m in self.ffn.matrices]
        return out


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
    linear_params: int  # every matrix inside the transformer blocks (all experts, routers)
    active_linear_params: int  # matrices one token passes through (MoE: routed top-k + shared)
    other_params: int  # norms, biases, sinks, conv kernels
    kv_bytes_per_token_bf16: int  # every attention layer as if it held every token (worst case)
    # --- beyond dense GQA (defaults describe a plain dense model) -----------------------------
    model_type: str = ""
    architecture: str = W["modelshape.architecture"]
    sliding_window: int | None = None  # tokens a sliding-window / chunked layer keeps at most
    n_sliding_layers: int = 0
    kv_window_bytes_per_token: int = 0  # the part of kv_bytes_per_token_bf16 held by sliding layers
    qk_head_dim: int = 0  # attention dims when q·k and v differ (MLA); 0 → head_dim
    v_head_dim: int = 0
    n_experts: int = 0  # routed experts per MoE layer (0: dense)
    experts_per_token: int = 0
    n_shared_experts: int = 0
    n_moe_layers: int = 0
    mla: bool = False
    inactive_other_params: int = 0  # vectors a token does not use (biases of unselected experts)
    state_bytes_per_sequence: int = 0  # constant per-sequence state (linear-attention layers), all layers
    n_linear_layers: int = 0  # linear-attention layers (no per-token KV)
    n_attention_layers: int = 0  # layers with a KV cache (0 → every layer)
    stored_bytes: int = 0  # weights as the checkpoint stores them (0 → not computed: BF16)
    stored_expert_bytes: int = 0  # one routed expert of one MoE layer, as stored
    stored_label: str = ""  # how the checkpoint stores its weights
    stored_method: str = ""  # quantization_config.quant_method ("" = unquantised)
    dense_ff: int = 0  # intermediate size of the dense FFN layers (0: none)
    expert_ff: int = 0  # intermediate size of one routed expert (0: dense model)
    shared_ff: int = 0  # total intermediate size of the shared experts of a MoE layer
    mtp_layers: int = 0  # multi-token-prediction modules in the checkpoint (not counted in params_total)
    vision_params: int = 0  # the vision tower a multimodal wrapper loads (not counted in params_total)
    mtp_params: int = 0  # the MTP modules, loaded by vLLM only with speculative decoding (not in params_total)

    @property
    def params_total(self) -> int:
        return self.embedding_params + self.lm_head_params + self.linear_params + self.other_params

    @property
    def params_active(self) -> int:
        active = self.embedding_params + self.lm_head_params + self.active_linear_params + self.other_params
        return active - self.inactive_other_params if self.inactive_other_params else active

    @property
    def params_active_excl_embedding(self) -> int:
        """Active parameters without the input embedding (the publishers' convention: OpenAI's gpt-oss card,
        Qwen's “A3B”): the lookup table is read one row per token. A tied table is kept — it is the LM head."""
        return self.params_active - (0 if self.tied else self.embedding_params)

    @property
    def lm_head_matrix_params(self) -> int:
        """Parameters of the vocabulary projection, whether tied or not."""
        return self.vocab * self.hidden

    @property
    def kv_full_bytes_per_token(self) -> int:
        """KV bytes per token of the full-attention layers (they keep every token)."""
        return self.kv_bytes_per_token_bf16 - self.kv_window_bytes_per_token

    @property
    def attention_layers(self) -> int:
        """Layers with a KV cache (the hybrids' linear-attention, Mamba and MLP-only blocks have none)."""
        by_linear = self.n_layers - self.n_linear_layers if self.n_linear_layers else self.n_layers
        if self.n_attention_layers and self.n_attention_layers != by_linear:  # MLP-only blocks (Mamba-2 hybrids)
            return self.n_attention_layers
        return by_linear


def dense_shape(cfg: dict) -> ModelShape:
    """Dense GQA decoder (Llama, Qwen2/3, Mistral): q/k/v/o projections, SwiGLU MLP, RMSNorms."""
    L = _positive("num_hidden_layers", cfg.get("num_hidden_layers"))
    h = _positive("hidden_size", cfg.get("hidden_size"))
    nh = _positive("num_attention_heads", cfg.get("num_attention_heads"))
    nkv = int(cfg.get("num_key_value_heads") or nh)
    hd = int(cfg.get("head_dim") or h // nh)
    ff = _positive("intermediate_size", cfg.get("intermediate_size"))
    V = _positive("vocab_size", cfg.get("vocab_size"))
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
    return ModelShape(L, h, nh, nkv, hd, V, tied, emb, 0 if tied else emb, linear, linear, other, kv, dense_ff=ff)


# --- model types --------------------------------------------------------------------------------------

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
    "DeepseekV32ForCausalLM": "deepseek_v32",
    "GptOssForCausalLM": "gpt_oss",
    "Llama4ForConditionalGeneration": "llama4",
    "Llama4ForCausalLM": "llama4_text",
    "MiniMaxM2ForCausalLM": "minimax_m2",
    "Qwen3NextForCausalLM": "qwen3_next",
    "Qwen3_5ForConditionalGeneration": "qwen3_5",
    "KimiK25ForConditionalGeneration": "kimi_k25",
    "Phi3ForCausalLM": "phi3",
    "FalconH1ForCausalLM": "falcon_h1",
    "Ministral3ForCausalLM": "ministral3",
    "NemotronHForCausalLM": "nemotron_h",
    "GraniteMoeHybridForCausalLM": "granitemoehybrid",
    "Olmo2ForCausalLM": "olmo2",
    "Glm4MoeForCausalLM": "glm4_moe",
    "Qwen3_5MoeForConditionalGeneration": "qwen3_5_moe",
    "Qwen3VLMoeForConditionalGeneration": "qwen3_vl_moe",
}
_DENSE_GQA = {
    "llama",
    "mistral",
    "qwen2",
    "qwen3",
    "qwen3_vl_text",
    "gemma",
    "gemma2",
    "gemma3_text",
    "phi3",
    "olmo2",
    "ministral3",
    "falcon_h1",
}
_MOE_GQA = {"mixtral", "qwen2_moe", "qwen3_moe", "gpt_oss", "llama4_text", "minimax_m2", "glm4_moe"}
_GQA = _DENSE_GQA | _MOE_GQA
_MLA = {"deepseek_v2", "deepseek_v3", "kimi_k2", "deepseek_v32"}
_HYBRID = {"qwen3_next", "qwen3_5_text", "qwen3_5_moe_text"}
_DS_MOE = _MLA | {"glm4_moe"}  # DeepSeek-style MoE fields: n_routed_experts, n_shared_experts, first_k_dense_replace
_MAMBA = {"nemotron_h", "granitemoehybrid"}  # Mamba-2 hybrids
_TEXT = _GQA | _MLA | _HYBRID | _MAMBA
# multimodal wrappers: model_type → the text model its text_config holds
_WRAPPERS = {
    "gemma3": "gemma3_text",
    "qwen3_vl": "qwen3_vl_text",
    "llama4": "llama4_text",
    "qwen3_5": "qwen3_5_text",
    "qwen3_5_moe": "qwen3_5_moe_text",
    "qwen3_vl_moe": "qwen3_moe",  # Qwen3VLMoeTextConfig: the Qwen3-MoE text model (qwen3_vl_moe_text)
    "kimi_k25": "kimi_k2",
}
_TEXT_ALIASES = {"qwen3_vl_moe_text": "qwen3_moe"}  # text models read with another type's rules
SUPPORTED = sorted(_TEXT | set(_WRAPPERS))


def _resolve_type(cfg: dict) -> tuple[str, dict, str | None]:
    """(model_type of the text model, the dict holding its fields, the multimodal wrapper type or None)."""
    if not isinstance(cfg, dict):
        raise ConfigError(W["resolve_type.configerror"])
    mt = cfg.get("model_type")
    archs = cfg.get("architectures")
    arch0 = archs[0] if isinstance(archs, list) and archs and isinstance(archs[0], str) else None
    if mt is not None and not isinstance(mt, str):
        raise ConfigError(W.f("resolve_type.configerror_2", mt=mt), "model_type")
    tc = cfg.get("text_config")
    inner_type = tc.get("model_type") if isinstance(tc, dict) else None
    inner_type = _TEXT_ALIASES.get(inner_type, inner_type) if isinstance(inner_type, str) else inner_type
    generic = isinstance(inner_type, str) and inner_type in _TEXT
    if mt not in _TEXT and mt not in _WRAPPERS and not generic:
        by_arch = _ARCH_TO_TYPE.get(arch0 or "")
        if by_arch is None:
            if mt is None and arch0 is None:
                raise ConfigError(W["resolve_type.configerror_3"], "model_type")
            raise ConfigError(
                W.f("resolve_type.configerror_4", mt=mt, archs=archs, join=", ".join(SUPPORTED)),
                "model_type",
            )
        mt = by_arch
    if mt in _TEXT:
        return str(mt), cfg, None
    if not isinstance(tc, dict):
        raise ConfigError(W.f("resolve_type.configerror_5", mt=mt), "text_config")
    inner = _WRAPPERS.get(str(mt)) or str(inner_type)
    if isinstance(inner_type, str) and inner_type in _TEXT and inner != "kimi_k2":
        inner = inner_type
    text = dict(tc)
    if "tie_word_embeddings" not in text and "tie_word_embeddings" in cfg:
        text["tie_word_embeddings"] = cfg["tie_word_embeddings"]
    if "quantization_config" not in text and "quantization_config" in cfg:
        text["quantization_config"] = cfg["quantization_config"]
    return inner, text, str(mt)


# --- which layers keep how many tokens ----------------------------------------------------------------


@dataclass(frozen=True)
class LayerPattern:
    """Per layer: its mixer kind (``attn`` or ``linear``) and the tokens it keeps at most (None: all); plus
    the words of the rule that placed them."""

    mixers: tuple[str, ...]
    windows: tuple[int | None, ...]
    rule: str = ""


_LAYER_TYPES = {"full_attention", "sliding_attention", "chunked_attention", "linear_attention"}


def _implied_types(c: _Cfg, L: int) -> list[str] | None:
    """layer_types as transformers builds them when config.json has none (gpt-oss, Llama 4, the hybrids)."""
    if c.mt == "gpt_oss":  # GptOssConfig.__post_init__: even layers (from 0) slide, odd ones attend to all
        c.note(
            "layer_types",
            W["implied_types.note"],
            W.f("implied_types.note_2", v=c.source or "transformers"),
        )
        return ["sliding_attention" if (i + 1) % 2 else "full_attention" for i in range(L)]
    if c.mt == "llama4_text":
        interval = c.num("no_rope_layer_interval")
        rope = c.int_list("no_rope_layers") or [int((i + 1) % interval != 0) for i in range(L)]
        if len(rope) != L:
            raise ConfigError(W.f("implied_types.configerror", l=L), "no_rope_layers")
        return ["chunked_attention" if r else "full_attention" for r in rope]
    if c.mt in _HYBRID:
        k = c.num("full_attention_interval")
        return ["linear_attention" if (i + 1) % k else "full_attention" for i in range(L)]
    return None


def _window_of(c: _Cfg, t: str) -> int | None:
    if t == "sliding_attention":
        w = c.opt_int("sliding_window")
        if w is None:
            raise ConfigError(W["window_of.configerror"], "sliding_window")
        return w
    if t == "chunked_attention":  # attention_chunk_size: null → the chunked layers attend to everything
        return c.opt_int("attention_chunk_size", null=None)
    return None


def _explicit(c: _Cfg, types: object, L: int) -> LayerPattern:
    if (
        not isinstance(types, list)
        or len(types) != L
        or any(not isinstance(t, str) or t not in _LAYER_TYPES for t in types)
    ):
        raise ConfigError(
            W.f("explicit.configerror", l=L),
            "layer_types",
        )
    if "linear_attention" in types and c.mt not in _HYBRID:
        raise ConfigError(W.f("explicit.configerror_2", mt=c.mt), "layer_types")
    mixers = tuple("linear" if t == "linear_attention" else "attn" for t in types)
    return LayerPattern(mixers, tuple(_window_of(c, t) for t in types), "layer_types")


def _family_pattern(c: _Cfg, L: int) -> LayerPattern:
    """The sliding layers of the families that place them by rule rather than by layer_types."""
    mt, attn, none = c.mt, ("attn",) * L, (None,) * L
    if mt in ("gemma2", "gemma3_text"):
        w = c.opt_int("sliding_window")
        if w is None:
            raise ConfigError(W["family_pattern.configerror"], "sliding_window")
        if mt == "gemma2":
            return LayerPattern(attn, tuple(w if (i + 1) % 2 else None for i in range(L)), "alternate")
        p = c.num("sliding_window_pattern")
        return LayerPattern(attn, tuple(w if (i + 1) % p else None for i in range(L)), f"every:{p}")
    if mt in ("qwen2", "qwen3", "qwen2_moe", "qwen3_moe"):
        w = c.opt_int("sliding_window") if c.flag("use_sliding_window") else None
        if w is None:
            return LayerPattern(attn, none)
        mw = c.opt_int("max_window_layers", zero_ok=True)
        mw = L if mw is None else mw
        return LayerPattern(attn, tuple(w if i >= mw else None for i in range(L)), f"from:{mw}")
    if mt in ("mistral", "mixtral", "phi3", "ministral3"):
        w = c.opt_int("sliding_window")
        return LayerPattern(attn, (w,) * L, "all") if w is not None else LayerPattern(attn, none)
    return LayerPattern(attn, none)


_BLOCK_CHARS = {"M": "mamba", "*": "attn", "-": "none"}


def _mamba_pattern(c: _Cfg, L: int) -> LayerPattern:
    """nemotron_h: one block kind per layer from hybrid_override_pattern (M Mamba-2, * attention, - MLP);
    granitemoehybrid: layer_types ("mamba" / "attention"), each layer also holding its FFN."""
    if c.mt == "granitemoehybrid":
        types = c.d.get("layer_types")
        if not isinstance(types, list) or len(types) != L or any(x not in ("mamba", "attention") for x in types):
            raise ConfigError(W.f("mamba_pattern.configerror", l=L), "layer_types")
        return LayerPattern(tuple("mamba" if x == "mamba" else "attn" for x in types), (None,) * L, "layer_types")
    pat = c.d.get("hybrid_override_pattern")
    if pat is None:
        pat = c._default("hybrid_override_pattern")
    if not isinstance(pat, str) or len(pat) != L:
        raise ConfigError(W.f("mamba_pattern.configerror_2", l=L), "hybrid_override_pattern")
    bad = sorted(set(pat) - set(_BLOCK_CHARS))
    if bad:
        what = W["mamba_pattern"] if bad == ["E"] else W.f("mamba_pattern_2", bad=bad)
        raise ConfigError(W.f("mamba_pattern.configerror_3", what=what), "hybrid_override_pattern")
    return LayerPattern(tuple(_BLOCK_CHARS[ch] for ch in pat), (None,) * L, "blocks")


def _pattern(c: _Cfg, L: int) -> LayerPattern:
    if c.mt in _MAMBA:
        return _mamba_pattern(c, L)
    explicit = c.d.get("layer_types")
    if explicit is not None:
        return _explicit(c, explicit, L)
    implied = _implied_types(c, L)
    if implied is None:
        return _family_pattern(c, L)
    pattern = _explicit(c, implied, L)
    k = c.num("no_rope_layer_interval") if c.mt == "llama4_text" else 0
    # interval, and the RoPE (chunked) layers in each; gpt-oss alternates; the hybrids place linear layers
    rule = f"nope:{k}:{k - 1}" if k else "alternate" if c.mt == "gpt_oss" else "hybrid"
    return LayerPattern(pattern.mixers, pattern.windows, rule)


# --- token mixers --------------------------------------------------------------------------------------


def _heads(c: _Cfg) -> tuple[int, int, int, int]:
    """(hidden, query heads, KV heads, head dim)."""
    h, nh = c.num("hidden_size"), c.num("num_attention_heads")
    if c.mt in _MAMBA and not c.has("head_dim") and c.has("attention_head_dim"):
        return h, nh, c.opt_int("num_key_value_heads", null=nh) or nh, c.num("attention_head_dim")
    nkv = c.opt_int("num_key_value_heads", null=nh) or nh
    if c.has("head_dim") and c.d["head_dim"] is None or (not c.has("head_dim") and c.table.get("head_dim") == HD):
        if h % nh:
            raise ConfigError(W["heads.configerror"], "head_dim")
        c.note("head_dim", h // nh, W.f("heads.note", v=c.source or "transformers"))
        return h, nh, nkv, h // nh
    return h, nh, nkv, c.num("head_dim")


def _gqa(c: _Cfg, nope_layer: bool = False) -> Mixer:
    mt = c.mt
    h, nh, nkv, hd = _heads(c)
    gated = mt in _HYBRID  # Qwen3-Next / 3.5: q_proj also yields the output gate
    mats = (
        ("self_attn.q_proj", nh * hd * (2 if gated else 1), h),
        ("self_attn.k_proj", nkv * hd, h),
        ("self_attn.v_proj", nkv * hd, h),
        ("self_attn.o_proj", h, nh * hd),
    )
    other: dict[str, int] = {}
    if mt in ("qwen2", "qwen2_moe") or (mt == "glm4_moe" and c.flag("attention_bias", default=False)):
        other[W["gqa"]] = nh * hd + 2 * nkv * hd
    elif mt not in ("mistral", "mixtral", "minimax_m2", "glm4_moe", "phi3", "ministral3") and c.flag(
        "attention_bias", default=False
    ):
        other[W["gqa_2"]] = nh * hd + 2 * nkv * hd + h
    if mt in ("qwen3", "qwen3_moe", "qwen3_vl_text", "gemma3_text") or mt in _HYBRID:
        other[W["gqa_3"]] = 2 * hd
    if mt in ("minimax_m2", "olmo2"):
        other[W["gqa_4"]] = nh * hd + nkv * hd
    if mt == "glm4_moe" and c.flag("use_qk_norm"):
        other[W["gqa_3"]] = 2 * hd
    if mt == "gpt_oss":
        other["attention sinks"] = nh
    return Mixer(
        "gqa",
        mats,
        other,
        kv_values=2 * nkv * hd,
        dims={"h": h, "nh": nh, "nkv": nkv, "hd": hd, "gated": int(gated)},
        rule=W.f("gqa.rule", nkv=nkv, hd=hd),
    )


def _mla(c: _Cfg) -> Mixer:
    h, nh = c.num("hidden_size"), c.num("num_attention_heads")
    nope, rope, vd, kvr = (
        c.num("qk_nope_head_dim"),
        c.num("qk_rope_head_dim"),
        c.num("v_head_dim"),
        c.num("kv_lora_rank"),
    )
    qr = c.opt_int("q_lora_rank", null=None)
    qk = nope + rope
    mats: list[tuple[str, int, int]] = (
        [("self_attn.q_a_proj", qr, h), ("self_attn.q_b_proj", nh * qk, qr)]
        if qr
        else [("self_attn.q_proj", nh * qk, h)]
    )
    mats += [
        ("self_attn.kv_a_proj_with_mqa", kvr + rope, h),
        ("self_attn.kv_b_proj", nh * (nope + vd), kvr),
        ("self_attn.o_proj", h, nh * vd),
    ]
    other = {"q/kv 潜向量 RMSNorm": (qr or 0) + kvr}
    if c.flag("attention_bias", default=False):
        other[W["mla"]] = (qr or 0) + kvr + rope + h
    kv, rule = kvr + rope, f"kv_lora_rank + qk_rope_head_dim = {kvr} + {rope}"
    dims = {"h": h, "nh": nh, "nope": nope, "rope": rope, "v": vd, "kv_rank": kvr, "q_rank": qr or 0}
    if c.mt == "deepseek_v32":
        ih, idim = c.num("index_n_heads"), c.num("index_head_dim")
        if not qr:
            raise ConfigError(W["mla.configerror"], "q_lora_rank")
        mats += [
            ("self_attn.indexer.wq_b", ih * idim, qr),
            ("self_attn.indexer.wk", idim, h),
            ("self_attn.indexer.weights_proj", ih, h),
        ]
        other[W["mla_2"]] = 2 * idim
        kv, rule = kv + idim, rule + W.f("mla_3", idim=idim)
        dims |= {"index_heads": ih, "index_dim": idim}
    return Mixer("mla", tuple(mats), other, kv_values=kv, dims=dims, rule=rule)


def _state_dtype_bytes(c: _Cfg) -> int:
    """Recurrent-state bytes per value: 4 where config.json asks for a float32 SSM state, else BF16."""
    return 4 if c.d.get("mamba_ssm_dtype") == "float32" else 2


def _gdn(c: _Cfg) -> Mixer:
    """Gated DeltaNet (Qwen3-Next / Qwen3.5): projections, a depthwise causal conv, and a constant state."""
    h = c.num("hidden_size")
    nk, nv = c.num("linear_num_key_heads"), c.num("linear_num_value_heads")
    dk, dv, kern = c.num("linear_key_head_dim"), c.num("linear_value_head_dim"), c.num("linear_conv_kernel_dim")
    key_dim, value_dim = nk * dk, nv * dv
    conv_dim = 2 * key_dim + value_dim
    if c.mt == "qwen3_next":
        mats: tuple[tuple[str, int, int], ...] = (
            ("linear_attn.in_proj_qkvz", 2 * key_dim + 2 * value_dim, h),
            ("linear_attn.in_proj_ba", 2 * nv, h),
            ("linear_attn.out_proj", h, value_dim),
        )
    else:
        mats = (
            ("linear_attn.in_proj_qkv", conv_dim, h),
            ("linear_attn.in_proj_z", value_dim, h),
            ("linear_attn.in_proj_b", nv, h),
            ("linear_attn.in_proj_a", nv, h),
            ("linear_attn.out_proj", h, value_dim),
        )
    other = {"conv1d 卷积核": conv_dim * kern, "dt_bias + A_log": 2 * nv, "门控 RMSNorm": dv}
    ssm_b = _state_dtype_bytes(c)
    state = conv_dim * (kern - 1) * 2 + nv * dk * dv * ssm_b
    return Mixer(
        "gdn",
        mats,
        other,
        state_bytes=state,
        dims={"conv_dim": conv_dim, "kernel": kern, "nv": nv, "dk": dk, "dv": dv, "ssm_bytes": ssm_b, "h": h},
        rule=(W.f("gdn.rule", tf=TF)),
    )


def _first(c: _Cfg, *keys: str) -> str:
    """The first of several spellings of one field that the config writes (else the first, for its default)."""
    return next((k for k in keys if c.has(k)), keys[0])


def _mamba2(c: _Cfg) -> Mixer:
    """Mamba-2 (transformers' Mamba2Mixer as NemotronH uses it): in_proj → x, z, B, C, dt; a depthwise causal
    conv over x, B, C; per-head dt_bias, A_log and D; a gated RMSNorm; out_proj. Constant state per sequence:
    the conv window (kernel − 1 steps of conv_dim) and one head_dim × state matrix per head."""
    h = c.num("hidden_size")
    falcon = c.mt == "falcon_h1"
    granite = c.mt == "granitemoehybrid" or falcon  # the mamba_n_heads / mamba_d_* spellings
    nh = c.num("mamba_n_heads" if granite else "mamba_num_heads")
    width = c.opt_int("mamba_d_ssm", null=None) if falcon else None
    if falcon and width is None:
        width = c.num("mamba_expand") * h
    if granite and (c.d.get("mamba_d_head") in (None, "auto")):
        hd = (width or c.num("mamba_expand") * h) // nh
        c.note("mamba_d_head", hd, W.f("mamba2.note", source=c.source))
    else:
        hd = c.num("mamba_d_head" if granite else "mamba_head_dim")
    ng = c.num("mamba_n_groups" if granite else _first(c, "n_groups", "mamba_n_groups"))
    ds = c.num("mamba_d_state" if granite else _first(c, "ssm_state_size", "mamba_d_state"))
    kern = c.num("mamba_d_conv" if granite else _first(c, "conv_kernel", "mamba_d_conv"))
    conv_bias = c.flag("mamba_conv_bias" if granite else _first(c, "use_conv_bias", "mamba_conv_bias"))
    proj_bias = c.flag("mamba_proj_bias" if granite else _first(c, "use_bias", "mamba_proj_bias"))
    inter = nh * hd
    conv_dim = inter + 2 * ng * ds
    proj = inter + conv_dim + nh
    mats = (("mixer.in_proj", proj, h), ("mixer.out_proj", h, inter))
    other = {"conv1d 卷积核": conv_dim * kern, "dt_bias + A_log + D": 3 * nh}
    if not falcon or c.flag("mamba_rms_norm"):
        other[W["mamba2"]] = inter
    if conv_bias:
        other[W["mamba2_2"]] = conv_dim
    if proj_bias:
        other[W["mamba2_3"]] = proj
    if (falcon and c.flag("projectors_bias")) or (not falcon and proj_bias):
        other[W["mamba2_4"]] = h
    ssm_b = _state_dtype_bytes(c)
    state = conv_dim * (kern - 1) * 2 + nh * hd * ds * ssm_b
    return Mixer(
        "mamba",
        mats,
        other,
        state_bytes=state,
        dims={"conv_dim": conv_dim, "kernel": kern, "nv": nh, "dk": hd, "dv": ds, "ssm_bytes": ssm_b, "h": h},
        rule=(W.f("mamba2.rule", tf=TF)),
    )


_NO_MIXER = Mixer("none", (), {})


def _parallel(attn: Mixer, mamba: Mixer) -> Mixer:
    """Falcon-H1's mixer: attention and Mamba-2 in parallel — the attention's KV per token and the Mamba state
    per sequence, both in every layer."""
    mats = attn.matrices + tuple((n.replace("mixer.", "mamba."), r, cl) for n, r, cl in mamba.matrices)
    other = attn.other | {f"Mamba {k}": v for k, v in mamba.other.items()}
    return Mixer(
        "gqa",
        mats,
        other,
        kv_values=attn.kv_values,
        state_bytes=mamba.state_bytes,
        dims={**mamba.dims, **attn.dims},
        rule=mamba.rule,
    )


# --- feed-forward ----------------------------------------------------------------------------------------


def _swiglu(prefix: str, h: int, ff: int, count: int = 1, active: int = 1, role: str = "linear") -> tuple[Matrix, ...]:
    return (
        Matrix(f"{prefix}gate_proj", ff, h, count, active, role),
        Matrix(f"{prefix}up_proj", ff, h, count, active, role),
        Matrix(f"{prefix}down_proj", h, ff, count, active, role),
    )


def _dense_ffn(c: _Cfg, h: int, ff_key: str = "intermediate_size") -> Ffn:
    if c.mt == "granitemoehybrid":  # no experts: the shared MLP (input_linear 2·ff × h, output_linear)
        sff = c.num("shared_intermediate_size")
        return Ffn(False, _swiglu("shared_mlp.", h, sff), {}, 0, {"ff": sff})
    ff = c.num(ff_key)
    if c.mt in _MAMBA:  # NemotronHMLP: up_proj, down_proj, ReLU² (no gate)
        bias = (ff + h) if c.flag("mlp_bias") else 0
        mats = (Matrix("mixer.up_proj", ff, h), Matrix("mixer.down_proj", h, ff))
        return Ffn(False, mats, {"MLP 偏置": bias} if bias else {}, bias, {"ff": ff})
    pre = "feed_forward." if c.mt == "llama4_text" else "mlp."
    bias = (2 * ff + h) if c.mt in ("llama", "falcon_h1") and c.flag("mlp_bias", default=False) else 0
    other = {"MLP 偏置": bias} if bias else {}
    return Ffn(False, _swiglu(pre, h, ff), other, bias, {"ff": ff})


def _moe_ffn(c: _Cfg, h: int) -> Ffn:
    mt = c.mt
    if mt in ("mixtral", "gpt_oss", "llama4_text", "minimax_m2", "granitemoehybrid"):
        E = c.num("num_local_experts")
    elif mt in _DS_MOE:
        E = c.num("n_routed_experts")
    else:
        E = c.num("num_experts")
    k = c.num("num_experts_per_tok")
    if k > E:
        raise ConfigError(W.f("moe_ffn.configerror", k=k, e=E), "num_experts_per_tok")
    ffe = c.num(
        "intermediate_size"
        if mt in ("mixtral", "gpt_oss", "llama4_text", "minimax_m2", "granitemoehybrid")
        else "moe_intermediate_size"
    )
    other: dict[str, int] = {}
    other_active = 0
    dims = {"E": E, "k": k, "ffe": ffe, "n_shared": 0, "shared_ff": 0}
    if mt == "gpt_oss":  # fused gate_up (2·ff × h) and down, each with a bias per expert
        mats: list[Matrix] = [
            Matrix("mlp.experts.gate_up_proj", 2 * ffe, h, E, k, "expert"),
            Matrix("mlp.experts.down_proj", h, ffe, E, k, "expert"),
            Matrix("mlp.router", E, h, role="router"),
        ]
        other = {"专家偏置 E×(2·ff + h)": E * (2 * ffe + h), "路由器偏置": E}
        other_active = k * (2 * ffe + h) + E
        return Ffn(True, tuple(mats), other, other_active, dims)
    pre = "feed_forward." if mt == "llama4_text" else "mlp."
    mats = list(_swiglu(f"{pre}experts.0.", h, ffe, E, k, "expert"))
    mats.append(Matrix(f"{pre}{'router' if mt == 'llama4_text' else 'gate'}", E, h, role="router"))
    if mt == "llama4_text":
        mats += _swiglu(f"{pre}shared_expert.", h, ffe)
        dims |= {"n_shared": 1, "shared_ff": ffe}
    elif mt == "granitemoehybrid":
        sff = c.num("shared_intermediate_size")
        mats += _swiglu("shared_mlp.", h, sff)
        dims |= {"n_shared": 1, "shared_ff": sff}
    elif mt in ("qwen2_moe", "qwen3_next", "qwen3_5_moe_text"):
        sff = c.opt_int("shared_expert_intermediate_size", null=0, zero_ok=True) or 0
        if sff:
            mats += _swiglu("mlp.shared_expert.", h, sff)
            mats.append(Matrix("mlp.shared_expert_gate", 1, h))
            dims |= {"n_shared": 1, "shared_ff": sff}
    elif mt in _DS_MOE:
        ns = c.opt_int("n_shared_experts", null=0, zero_ok=True) or 0
        if ns:
            mats += _swiglu("mlp.shared_experts.", h, ns * ffe)
            dims |= {"n_shared": ns, "shared_ff": ns * ffe}
    if (mt in ("deepseek_v3", "kimi_k2", "deepseek_v32") and c.text("topk_method") == "noaux_tc") or mt in (
        "minimax_m2",
        "glm4_moe",  # Glm4MoeTopkRouter always holds e_score_correction_bias
    ):
        other[W["moe_ffn"]] = E
        other_active = E
    return Ffn(True, tuple(mats), other, other_active, dims)


def _moe_layers(c: _Cfg, L: int) -> list[bool]:
    """Which layers are MoE (all False for a dense model)."""
    mt = c.mt
    if mt == "granitemoehybrid":
        return [bool(c.opt_int("num_local_experts", null=0, zero_ok=True))] * L
    if mt in _DENSE_GQA or mt == "qwen3_5_text" or mt in _MAMBA:
        return [False] * L
    if mt in ("mixtral", "gpt_oss", "minimax_m2", "qwen3_5_moe_text"):
        return [True] * L
    if mt == "llama4_text":
        given = c.d.get("moe_layers")
        if given is not None:
            only = set(c.int_list("moe_layers"))
            return [i in only for i in range(L)]
        step = c.num("interleave_moe_layer_step")
        return [(i + 1) % step == 0 for i in range(L)]
    if mt in ("qwen2_moe", "qwen3_moe", "qwen3_next"):
        step = c.num("decoder_sparse_step")
        only = set(c.int_list("mlp_only_layers"))
        return [i not in only and (i + 1) % step == 0 for i in range(L)]
    if mt in _DS_MOE:
        if not (c.opt_int("n_routed_experts", null=0, zero_ok=True) or 0):
            return [False] * L
        first = c.opt_int("first_k_dense_replace", null=0, zero_ok=True) or 0
        freq = _positive("moe_layer_freq", c.d["moe_layer_freq"]) if c.d.get("moe_layer_freq") is not None else 1
        return [i >= first and i % freq == 0 for i in range(L)]
    return [False] * L


# --- the analysis ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Analysis:
    """Everything a ``config.json`` gives, layer by layer, and the sums: what a report shows."""

    shape: ModelShape
    wrapper: str | None  # multimodal config whose text_config was read
    filled: tuple[Filled, ...]  # fields taken from transformers defaults
    layers: tuple[Layer, ...]
    pattern: LayerPattern
    n_norms: int
    embedding: Matrix
    lm_head: Matrix | None
    mtp_layers: int  # MTP modules (not counted)
    storage: Storage
    rule: str = ""  # the family's rule, with its source

    @property
    def layer_params(self) -> int:
        return sum(ly.params for ly in self.layers)

    def matrices(self) -> list[Matrix]:
        out = [self.embedding] + ([self.lm_head] if self.lm_head else [])
        for ly in self.layers:
            out += ly.matrices()
        return out

    def groups(self) -> list[tuple[Layer, int]]:
        """Distinct layer kinds with how many layers have each (in first-seen order)."""
        seen: dict[tuple, list] = {}
        for ly in self.layers:
            key = (ly.mixer.kind, ly.ffn.moe, ly.window, ly.params, ly.active_params)
            seen.setdefault(key, [ly, 0])[1] += 1
        return [(ly, n) for ly, n in seen.values()]


def _norms(mt: str) -> int:
    return 4 if mt in ("gemma2", "gemma3_text") else 1 if mt == "nemotron_h" else 2


VISION_FIELDS = (
    "depth",
    "hidden_size",
    "intermediate_size",
    "in_channels",
    "temporal_patch_size",
    "patch_size",
    "spatial_merge_size",
    "out_hidden_size",
)
QWEN_VL_WRAPPERS = {"qwen3_vl", "qwen3_vl_moe", "qwen3_5", "qwen3_5_moe"}


def vision_tower_params(vc: object, wrapper: str | None) -> tuple[int, str]:
    """Parameters of a Qwen3-VL-style vision tower (transformers' modeling_qwen3_vl.py): a Conv3d patch
    embedding, learned position embeddings, ``depth`` blocks (LayerNorms, fused qkv + proj, fc1/fc2, all with
    biases) and a patch merger per DeepStack level plus the final one (LayerNorm, two linears). Returns
    (params, why not counted) — 0 with the reason for other towers or missing fields."""
    if not isinstance(vc, dict):
        return 0, ""
    if wrapper not in QWEN_VL_WRAPPERS:
        return 0, W.f("vision_tower_params", wrapper=wrapper)
    missing = [f for f in VISION_FIELDS if not isinstance(vc.get(f), int) or isinstance(vc.get(f), bool) or vc[f] <= 0]
    if missing:
        return 0, W.f("vision_tower_params_2", v=missing[0])
    h, mlp, m2 = vc["hidden_size"], vc["intermediate_size"], vc["spatial_merge_size"] ** 2
    patch = vc["in_channels"] * vc["temporal_patch_size"] * vc["patch_size"] ** 2 * h + h
    pos = (vc.get("num_position_embeddings") or 0) * h
    block = 4 * h * h + 2 * h * mlp + 9 * h + mlp
    deep = vc.get("deepstack_visual_indexes") or []
    merger = (h * m2) ** 2 + h * m2 + h * m2 * vc["out_hidden_size"] + vc["out_hidden_size"]
    mergers = (merger + 2 * h) + len(deep) * (merger + 2 * h * m2)  # final LayerNorm(h); DeepStack LayerNorm(h·m²)
    return patch + pos + vc["depth"] * block + mergers, ""


HF_QUANT = "hf_quant_config"  # the key under which hf_quant_config.json travels beside config.json


def split_hf_quant(cfg: dict) -> tuple[dict, dict | None]:
    """(config.json, hf_quant_config.json or None): NVIDIA ModelOpt checkpoints keep their quantization in a
    second file; the API and the page take it as the key ``hf_quant_config`` beside config.json's fields."""
    if not isinstance(cfg, dict) or HF_QUANT not in cfg:
        return cfg, None
    hq = cfg[HF_QUANT]
    if not isinstance(hq, dict) or not isinstance(hq.get("quantization"), dict):
        raise ConfigError(W["split_hf_quant.configerror"], HF_QUANT)
    algo = hq["quantization"].get("quant_algo")
    if not isinstance(algo, str):
        raise ConfigError(W["split_hf_quant.configerror_2"], HF_QUANT)
    return {k: v for k, v in cfg.items() if k != HF_QUANT}, hq


def analyze(cfg: dict) -> Analysis:
    """Count every weight of a ``config.json`` layer by layer (see the module docstring)."""
    cfg, hf_quant = split_hf_quant(cfg)
    mt, d, wrapper = _resolve_type(cfg)
    vision, vision_note = vision_tower_params(cfg.get("vision_config"), wrapper)
    c = _Cfg(d, mt)
    if vision_note:
        c.note("vision_config", W["analyze.note"], vision_note)
    L = c.num("num_hidden_layers")
    if L > MAX_LAYERS:
        raise ConfigError(W.f("analyze.configerror", l=L, max_layers=MAX_LAYERS), "num_hidden_layers")
    h, V = c.num("hidden_size"), c.num("vocab_size")
    c.num("num_attention_heads")
    tied = c.flag("tie_word_embeddings", default=False)
    pattern = _pattern(c, L)
    moe = _moe_layers(c, L)
    attn = _mla(c) if mt in _MLA else _gqa(c)
    if mt == "falcon_h1":  # attention and Mamba-2 side by side in every layer
        attn = _parallel(attn, _mamba2(c))
    linear = _gdn(c) if "linear" in pattern.mixers else _mamba2(c) if "mamba" in pattern.mixers else None
    moe_ffn = _moe_ffn(c, h) if any(moe) else None
    dense_key = "intermediate_size_mlp" if mt == "llama4_text" else "intermediate_size"
    dense_ffn = _dense_ffn(c, h, dense_key) if not all(moe) else None
    n_norms = _norms(mt)
    if mt == "nemotron_h":  # one part per block: a mixer without FFN, or an MLP without mixer; one RMSNorm
        empty = Ffn(False, (), {}, 0)
        kinds = pattern.mixers
        layers = tuple(
            Layer(
                i,
                linear if kinds[i] == "mamba" and linear else attn if kinds[i] == "attn" else _NO_MIXER,
                dense_ffn if kinds[i] == "none" and dense_ffn else empty,
                n_norms * h,
            )
            for i in range(L)
        )
    else:
        layers = tuple(
            Layer(
                i,
                linear if pattern.mixers[i] in ("linear", "mamba") and linear else attn,
                moe_ffn if moe[i] and moe_ffn else dense_ffn,  # type: ignore[arg-type]
                n_norms * h,
                pattern.windows[i],
            )
            for i in range(L)
        )
    embedding = Matrix("model.embed_tokens", V, h, role="embed")
    lm_head = None if tied else Matrix("lm_head", V, h, role="lm_head")
    mtp_key = "mtp_num_hidden_layers" if mt in _HYBRID else "num_nextn_predict_layers"
    mtp = d.get(mtp_key) if mt in _DS_MOE or mt in _HYBRID else 0
    if mtp is None and mtp_key in c.table:  # absent: the family's default, named
        mtp = c._default(mtp_key)
    mtp = mtp if isinstance(mtp, int) and not isinstance(mtp, bool) and mtp > 0 else 0
    storage = stored_bytes(d, layers, embedding, lm_head, n_norms, h, c, hf_quant)
    shape = _shape(mt, layers, pattern, embedding, lm_head, h, V, attn, moe_ffn, storage)
    if mtp or vision:
        # an MTP module: one decoder layer like the last one + eh_proj (2h → h) + two RMSNorms (DeepSeek-V3's
        # and Qwen3.5's MTP blocks); DeepSeek-style checkpoints also store the module's own embedding and head
        own_vocab = (
            2 * V * h if mt in _DS_MOE else 0
        )  # DeepSeek / GLM checkpoints store embed_tokens + shared_head.head
        mtp_params = mtp * (layers[-1].params + 2 * h * h + 2 * h + own_vocab)
        shape = dataclasses.replace(shape, mtp_layers=mtp, vision_params=vision, mtp_params=mtp_params)
    return Analysis(
        shape, wrapper, tuple(c.filled), layers, pattern, n_norms, embedding, lm_head, mtp, storage, RULES.get(mt, "")
    )


def _shape(
    mt: str,
    layers: tuple[Layer, ...],
    pattern: LayerPattern,
    embedding: Matrix,
    lm_head: Matrix | None,
    h: int,
    V: int,
    attn: Mixer,
    moe: Ffn | None,
    storage: Storage,
) -> ModelShape:
    kv = [ly.mixer.kv_values * KV_DTYPE_BYTES for ly in layers]
    windows = {ly.window for ly in layers if ly.window is not None and ly.mixer.kind != "gdn"}
    if len(windows) > 1:
        raise ConfigError(W.f("shape.configerror", sorted=sorted(windows)), "sliding_window")
    n_win = sum(1 for ly in layers if ly.window is not None and ly.mixer.kind != "gdn")
    n_linear = sum(1 for ly in layers if ly.mixer.kind in ("gdn", "mamba"))
    n_attn = sum(1 for ly in layers if ly.mixer.kind in ("gqa", "mla"))
    mla = attn.kind == "mla"
    d = attn.dims
    E, k = (moe.dims["E"], moe.dims["k"]) if moe else (0, 0)
    n_moe = sum(1 for ly in layers if ly.ffn.moe)
    linear = sum(ly.mixer.params + ly.ffn.params for ly in layers)
    active = sum(ly.mixer.params + ly.ffn.active_params for ly in layers)
    other = sum(ly.mixer.other_params + ly.ffn.other_params + ly.norms for ly in layers) + h  # + final norm
    inactive = sum(ly.ffn.other_params - ly.ffn.other_active for ly in layers)
    return ModelShape(
        len(layers),
        h,
        d["nh"],
        d.get("nkv", d["nh"]),
        d["nope"] + d["rope"] if mla else d["hd"],
        V,
        lm_head is None,
        embedding.params,
        lm_head.params if lm_head else 0,
        linear,
        active,
        other,
        sum(kv),
        model_type=mt,
        architecture=_label(mt, E, k, moe.dims["n_shared"] if moe else 0, n_win, n_linear, len(layers), mla, pattern),
        sliding_window=windows.pop() if n_win else None,
        n_sliding_layers=n_win,
        kv_window_bytes_per_token=sum(b for b, ly in zip(kv, layers) if ly.window is not None),
        qk_head_dim=d["nope"] + d["rope"] if mla else 0,
        v_head_dim=d["v"] if mla else 0,
        n_experts=E,
        experts_per_token=k,
        n_shared_experts=moe.dims["n_shared"] if moe else 0,
        n_moe_layers=n_moe,
        mla=mla,
        inactive_other_params=inactive,
        state_bytes_per_sequence=sum(ly.mixer.state_bytes for ly in layers),
        n_linear_layers=n_linear,
        n_attention_layers=n_attn,
        stored_bytes=storage.total,
        stored_expert_bytes=storage.expert_bytes,
        stored_label=storage.label,
        stored_method=storage.method,
        dense_ff=next((ly.ffn.dims["ff"] for ly in layers if not ly.ffn.moe and "ff" in ly.ffn.dims), 0),
        expert_ff=moe.dims["ffe"] if moe else 0,
        shared_ff=moe.dims["shared_ff"] if moe else 0,
    )


def _label(
    mt: str, E: int, k: int, n_shared: int, n_win: int, n_linear: int, L: int, mla: bool, pattern: LayerPattern
) -> str:
    parts = [W.f("label", e=E, k=k) + (W.f("label_2", n_shared=n_shared) if n_shared else "") if E else W["label_3"]]
    parts.append("MLA" + (W["label.append"] if mt == "deepseek_v32" else "") if mla else "GQA")
    if mt == "falcon_h1":
        parts.append(W["label.append_2"])
    if n_linear and mt in _MAMBA:
        parts.append(W.f("label.append_3", n_linear=n_linear))
    elif n_linear:
        parts.append(W.f("label.append_4", n_linear=n_linear))
    chunked = mt == "llama4_text" and n_win
    if n_win == L:
        parts.append(W["label.append_5"])
    elif chunked:
        parts.append(W["label.append_6"])
    elif n_win:
        parts.append(W["label.append_7"])
    return joined(" + ", parts)


def shape_of(cfg: dict) -> ModelShape:
    """The shape of any supported ``config.json`` (see the module docstring); ``ConfigError`` otherwise."""
    return analyze(cfg).shape


# --- weights as stored: quantization_config ---------------------------------------------------------


@dataclass(frozen=True)
class StoredPart:
    """A class of matrices stored one way: bytes per weight (scales included), and the rule in words."""

    label: str
    params: int
    bytes: float
    rule: str


@dataclass(frozen=True)
class Storage:
    method: str  # "" (unquantised) | fp8 | mxfp4 | awq | gptq | compressed-tensors
    label: str
    parts: tuple[StoredPart, ...]
    total: int  # bytes
    expert_bytes: int  # one routed expert of one MoE layer (its matrices), as stored
    source: str = ""

    @property
    def bits_per_param(self) -> float:
        params = sum(p.params for p in self.parts)
        return 8 * self.total / params if params else 0.0


def _matches(name: str, pattern: str) -> bool:
    """transformers' modules_to_not_convert / compressed-tensors' ignore: ``re:`` + a regex (re.match), a
    glob with ``*`` for one name segment, or a module name matched whole or as a dotted part."""
    if pattern.startswith("re:"):
        return re.match(pattern[3:], name) is not None
    if "*" in pattern:
        rx = re.escape(pattern).replace(r"\*", r"[^.]+")
        return re.search(rf"(^|\.){rx}(\.|$)", name) is not None
    return f".{pattern}." in f".{name}."


def _dtype_bytes(d: dict) -> tuple[int, str]:
    dt = d.get("torch_dtype") or d.get("dtype")
    if dt == "float32":
        return 4, "float32"
    if dt in ("bfloat16", "float16"):
        return 2, str(dt)
    return 2, W["dtype_bytes"]


def _qconfig(d: dict) -> dict | None:
    q = d.get("quantization_config")
    if q is None:
        return None
    if not isinstance(q, dict):
        raise ConfigError(W["qconfig.configerror"], "quantization_config")
    return q


def _qint(q: dict, key: str, default: int | None, c: _Cfg | None = None, why: str = "") -> int:
    v = q.get(key)
    if v is None:
        v = default
        if v is not None and c is not None:
            c.note(f"quantization_config.{key}", v, why or W["qint.note"])
    if v is None:
        raise ConfigError(W.f("qint.configerror", v_key=key), "quantization_config")
    if v == -1 and key == "group_size":
        return -1
    return _positive(f"quantization_config.{key}", v)


def _ignored(q: dict) -> list[str]:
    pats = (
        q.get("modules_to_not_convert")
        or q.get("ignore")
        or q.get("exclude_modules")
        or q.get("llm_int8_skip_modules")
        or []
    )
    if not isinstance(pats, list) or not all(isinstance(p, str) for p in pats):
        raise ConfigError(W["ignored.configerror"], "quantization_config")
    return pats


def _ct_weights(q: dict) -> tuple[dict, list]:
    """compressed-tensors: the one config group's weight scheme and its targets."""
    groups = q.get("config_groups")
    if not isinstance(groups, dict) or len(groups) != 1:
        raise ConfigError(W["ct_weights.configerror"], "quantization_config")
    g = next(iter(groups.values()))
    w = g.get("weights") if isinstance(g, dict) else None
    if not isinstance(w, dict):
        raise ConfigError(W["ct_weights.configerror_2"], "quantization_config")
    targets = g.get("targets") or ["Linear"]
    if not isinstance(targets, list) or not all(isinstance(t, str) for t in targets):
        raise ConfigError(W["ct_weights.configerror_3"], "quantization_config")
    return w, targets


SCALE_DTYPES = {  # compressed-tensors scale_dtype / zp_dtype spellings → bytes
    "float32": 4,
    "torch.float32": 4,
    "float16": 2,
    "torch.float16": 2,
    "bfloat16": 2,
    "torch.bfloat16": 2,
    "float8_e4m3fn": 1,
    "torch.float8_e4m3fn": 1,
    "float8_e8m0fnu": 1,
    "uint8": 1,
}
BNB_BLOCK = 64  # bitsandbytes 4-bit blocksize (bitsandbytes.functional.quantize_4bit default)
BNB_DQ_BLOCK = 256  # absmax values per second-level block with double quantization


def _scale_bytes(w: dict, default: int, c: _Cfg | None, what: str) -> int:
    """Bytes of one scale: compressed-tensors' ``scale_dtype`` when written, else ``default`` (noted)."""
    sd = w.get("scale_dtype")
    if sd is None:
        if c is not None:
            c.note("quantization_config.scale_dtype", {1: "FP8", 2: "BF16", 4: "FP32"}[default], what)
        return default
    if sd not in SCALE_DTYPES:
        raise ConfigError(
            W.f("scale_bytes.configerror", sd=sd, join=", ".join(sorted(SCALE_DTYPES))),
            "quantization_config",
        )
    return SCALE_DTYPES[sd]


def _fp8_bytes(r: int, cl: int, method: str, q: dict, c: _Cfg | None) -> tuple[float, str]:
    """FP8 E4M3 weights with per-tensor or per-block FP32 scales (quant_method fp8)."""
    blk = q.get("weight_block_size")
    if blk is None:
        return r * cl + 4, W["fp8_bytes"]
    if not (isinstance(blk, list) and len(blk) == 2):
        raise ConfigError(W["fp8_bytes.configerror"], "quantization_config")
    bn, bk = (_positive("quantization_config.weight_block_size", x) for x in blk)
    return (
        r * cl + math.ceil(r / bn) * math.ceil(cl / bk) * 4,
        W.f("fp8_bytes_2", bn=bn, bk=bk),
    )


def _mxfp4_bytes(r: int, cl: int, method: str, q: dict, c: _Cfg | None) -> tuple[float, str]:
    """MXFP4: 4-bit E2M1 with one E8M0 scale per 32 (the experts of gpt-oss)."""
    return r * cl / 2 + r * math.ceil(cl / 32), W["mxfp4_bytes"]


def _modelopt_bytes(r: int, cl: int, method: str, q: dict, c: _Cfg | None) -> tuple[float, str]:
    """NVIDIA ModelOpt (hf_quant_config.json): FP8 per-tensor, or NVFP4 with FP8 scales per 16."""
    algo = str(q.get("quant_algo", "")).upper()
    if algo == "FP8":
        return r * cl + 8, W["modelopt_bytes"]
    if algo == "NVFP4":
        g = _qint(q, "group_size", 16, c, W["modelopt_bytes.qint"])
        return r * cl / 2 + r * math.ceil(cl / g) + 8, (W.f("modelopt_bytes_2", g=g))
    raise ConfigError(W.f("modelopt_bytes.configerror", algo=algo), "quantization_config")


def _bnb_bytes(r: int, cl: int, method: str, q: dict, c: _Cfg | None) -> tuple[float, str]:
    """bitsandbytes: 4-bit blocks of 64 with absmax (double-quantized or FP32), or LLM.int8 with row scales."""
    if q.get("load_in_4bit"):
        dq = q.get("bnb_4bit_use_double_quant")
        if dq is None:
            dq = False
            if c is not None:
                c.note("quantization_config.bnb_4bit_use_double_quant", False, W["bnb_bytes.note"])
        n = r * cl
        if dq:
            absmax = math.ceil(n / BNB_BLOCK) + 4 * math.ceil(n / (BNB_BLOCK * BNB_DQ_BLOCK))
            return n / 2 + absmax, (W.f("bnb_bytes", bnb_block=BNB_BLOCK, bnb_dq_block=BNB_DQ_BLOCK))
        return n / 2 + 4 * math.ceil(n / BNB_BLOCK), W.f("bnb_bytes_2", bnb_block=BNB_BLOCK)
    if q.get("load_in_8bit"):
        return r * cl + 4 * r, W["bnb_bytes_3"]
    raise ConfigError(W["bnb_bytes.configerror"], "quantization_config")


def _awq_gptq_bytes(r: int, cl: int, method: str, q: dict, c: _Cfg | None) -> tuple[float, str]:
    """AWQ / GPTQ: packed b-bit weights, an FP16 scale and a b-bit zero point per group (GPTQ: g_idx too)."""
    bits = _qint(q, "w_bit" if "w_bit" in q else "bits", 4, c, W.f("awq_gptq_bytes.qint", upper=method.upper()))
    g = _qint(
        q,
        "q_group_size" if "q_group_size" in q else "group_size",
        128,
        c,
        W.f("awq_gptq_bytes.qint_2", upper=method.upper()),
    )
    groups = 1 if g == -1 else math.ceil(cl / g)
    packed = r * cl * bits / 8 + groups * r * (2 + bits / 8)  # FP16 scale + packed zero point per group
    extra = cl * 4 if method == "gptq" else 0  # GPTQ stores g_idx (int32 per input channel)
    return packed + extra, (
        W.f("awq_gptq_bytes", upper=method.upper(), bits=bits, v=g if g != -1 else cl, bits2=bits)
        + (W["awq_gptq_bytes_2"] if method == "gptq" else "")
    )


def _ct_bytes(r: int, cl: int, method: str, q: dict, c: _Cfg | None) -> tuple[float, str]:
    """compressed-tensors: int or float weights by strategy, scales in their scale_dtype (NVFP4: FP8 + global)."""
    w, _ = _ct_weights(q)
    bits = _positive("quantization_config.num_bits", w.get("num_bits"))
    kind = w.get("type")
    if kind is None:
        kind = "int"
        if c is not None:
            c.note("quantization_config.type", "int", W["ct_bytes.note"])
    if kind not in ("int", "float"):
        raise ConfigError(W.f("ct_bytes.configerror", kind=kind), "quantization_config")
    strategy = w.get("strategy")
    if strategy is None:
        strategy = "tensor"
        if c is not None:
            c.note("quantization_config.strategy", "tensor", W["ct_bytes.note"])
    fp4 = kind == "float" and bits == 4  # NVFP4: FP8 scales per 16 + an FP32 global scale
    if strategy in ("group", "tensor_group"):
        g = _positive("quantization_config.group_size", w.get("group_size"))
        scales = r * math.ceil(cl / g)
    elif strategy == "channel":
        g, scales = cl, r
    elif strategy == "tensor":
        g, scales = r * cl, 1
    elif strategy == "block":
        blk = w.get("block_structure")
        if not (isinstance(blk, list) and len(blk) == 2):
            raise ConfigError(W["ct_bytes.configerror_2"], "quantization_config")
        bn, bk = (_positive("quantization_config.block_structure", x) for x in blk)
        g, scales = bn * bk, math.ceil(r / bn) * math.ceil(cl / bk)
    else:
        raise ConfigError(W.f("ct_bytes.configerror_3", strategy=strategy), "quantization_config")
    default_scale = 1 if fp4 else (4 if kind == "float" else 2)
    sb = _scale_bytes(w, default_scale, c, W["ct_bytes.scale_bytes"])
    sym = w.get("symmetric", True)
    zp = 0 if sym else scales * bits / 8
    glob = 4 if fp4 else 0
    name = ("NVFP4" if fp4 else f"FP{bits}") if kind == "float" else f"INT{bits}"
    sdt = {1: "FP8", 2: "BF16/FP16", 4: "FP32"}[sb]
    return r * cl * bits / 8 + scales * sb + zp + glob, (
        W.f("ct_bytes", name=name, g=g, sdt=sdt)
        + ("" if sym else W.f("ct_bytes_2", bits=bits))
        + (W["ct_bytes_3"] if fp4 else "")
    )


_SIZERS = {
    "fp8": _fp8_bytes,
    "mxfp4": _mxfp4_bytes,
    "modelopt": _modelopt_bytes,
    "bitsandbytes": _bnb_bytes,
    "awq": _awq_gptq_bytes,
    "gptq": _awq_gptq_bytes,
    "compressed-tensors": _ct_bytes,
}


def _matrix_bytes(m: Matrix, method: str, q: dict, c: _Cfg | None = None) -> tuple[float, str]:
    """Bytes of one copy of matrix ``m`` under ``method`` (scales and packing included) and the rule."""
    sizer = _SIZERS.get(method)
    if sizer is None:
        raise ConfigError(
            W.f("matrix_bytes.configerror", method=method, join="、".join(QUANT_METHODS)),
            "quantization_config",
        )
    return sizer(m.rows, m.cols, method, q, c)


QUANT_METHODS = ("fp8", "mxfp4", "awq", "gptq", "compressed-tensors", "bitsandbytes", "modelopt")


def _converts(m: Matrix, method: str, q: dict, ignored: list[str]) -> bool:
    """Is matrix ``m`` stored quantised? Embedding, LM head and MoE routers never are; MXFP4 (transformers'
    Mxfp4 integration) converts only the experts; modules named in modules_to_not_convert / ignore stay 16-bit."""
    if m.role in ("embed", "lm_head", "router"):
        return False
    if method == "mxfp4" and m.role != "expert":
        return False
    if method == "compressed-tensors":
        _, targets = _ct_weights(q)
        if "Linear" not in targets and not any(_matches(m.name, t) for t in targets):
            return False
    if method == "modelopt":  # ModelOpt's exclude_modules are fnmatch patterns ("*.mlp.gate", "lm_head")
        return not any(fnmatch.fnmatch(m.name, p) or _matches(m.name, p) for p in ignored)
    return not any(_matches(m.name, p) for p in ignored)


def stored_bytes(
    d: dict,
    layers: tuple[Layer, ...],
    embedding: Matrix,
    lm_head: Matrix | None,
    n_norms: int,
    h: int,
    c: _Cfg | None = None,
    hf_quant: dict | None = None,
) -> Storage:
    """The text model's weights as its checkpoint stores them (see ``_converts`` and ``_matrix_bytes``).
    ``hf_quant``: hf_quant_config.json (ModelOpt), read when config.json has no quantization_config."""
    unq, dtype_text = _dtype_bytes(d)
    q = _qconfig(d)
    source = W["stored_bytes"]
    if q is None and hf_quant is not None:
        hq = hf_quant["quantization"]
        q = {"quant_method": "modelopt", **hq, "exclude_modules": hq.get("exclude_modules") or []}
        source = "hf_quant_config.json(NVIDIA ModelOpt)"
    elif q is not None and hf_quant is not None:
        source = W["stored_bytes_2"]
    vectors = sum(ly.mixer.other_params + ly.ffn.other_params + ly.norms for ly in layers) + h
    mats = [embedding] + ([lm_head] if lm_head else []) + [m for ly in layers for m in ly.matrices()]
    one_expert = [m for m in layers_moe_first(layers)]
    if q is None:
        params = sum(m.params for m in mats) + vectors
        part = StoredPart(
            W.f("stored_bytes.storedpart", dtype_text=dtype_text),
            params,
            params * unq,
            W.f("stored_bytes.storedpart_2", unq=unq),
        )
        return Storage(
            "",
            W.f("stored_bytes.storage", dtype_text=dtype_text),
            (part,),
            params * unq,
            sum(m.rows * m.cols for m in one_expert) * unq,
        )
    method = q.get("quant_method")
    if not isinstance(method, str):
        raise ConfigError(W["stored_bytes.configerror"], "quantization_config")
    ignored = _ignored(q)
    quant_p, rule = 0, ""
    quant_b: float = 0.0
    kept_p = vectors
    for m in mats:
        if _converts(m, method, q, ignored):
            b, rule = _matrix_bytes(m, method, q, c)
            quant_p += m.params
            quant_b += b * m.count
        else:
            kept_p += m.params
    expert = 0.0
    for m in one_expert:
        expert += _matrix_bytes(m, method, q)[0] if _converts(m, method, q, ignored) else m.rows * m.cols * unq
    parts = (
        StoredPart(W["stored_bytes.storedpart_3"], quant_p, math.ceil(quant_b), rule),
        StoredPart(
            W.f("stored_bytes.storedpart_4", v=unq * 8) + (W["stored_bytes.storedpart_5"] if ignored else "") + ")",
            kept_p,
            kept_p * unq,
            W.f("stored_bytes.storedpart_6", unq=unq),
        ),
    )
    total = math.ceil(quant_b) + kept_p * unq
    return Storage(method, f"{method}({rule})", parts, total, math.ceil(expert), source)


def layers_moe_first(layers: tuple[Layer, ...]) -> list[Matrix]:
    """The matrices of one routed expert in the first MoE layer (count 1), for per-expert bytes."""
    for ly in layers:
        if ly.ffn.moe:
            return [
                Matrix(f"model.layers.{ly.index}.{m.name}", m.rows, m.cols, 1, 1, m.role)
                for m in ly.ffn.matrices
                if m.role == "expert"
            ]
    return []


def kv_bytes(s: ModelShape, context_tokens: int) -> int:
    """BF16 KV bytes of one sequence of ``context_tokens``: full-attention layers keep every token,
    sliding-window / chunked layers at most ``sliding_window`` (constant state not included)."""
    if isinstance(context_tokens, bool) or not isinstance(context_tokens, int) or context_tokens < 0:
        raise ValueError(W.f("kv_bytes.valueerror", context_tokens=context_tokens))
    held = min(context_tokens, s.sliding_window) if s.sliding_window else context_tokens
    return s.kv_full_bytes_per_token * context_tokens + s.kv_window_bytes_per_token * held


CONTEXTS = (4096, 32768, 131072)


def derive(cfg: dict) -> dict:
    """Headline numbers of a ``config.json`` (the words that explain them are the web layer's)."""
    return derived(analyze(cfg))


def derived(a: Analysis) -> dict:
    """The headline numbers of an analysis."""
    s = a.shape
    return {
        "architecture": s.architecture,
        "model_type": s.model_type,
        "text_model_of": a.wrapper,
        "n_layers": s.n_layers,
        "hidden_size": s.hidden,
        "vocab_size": s.vocab,
        "tied_embeddings": s.tied,
        "params_total": s.params_total,
        "params_active": s.params_active,
        "params_active_excl_embedding": s.params_active_excl_embedding,
        "params_vision": s.vision_params,
        "params_mtp": s.mtp_params,
        "mtp_layers": a.mtp_layers,
        "weight_bytes": s.stored_bytes,
        "weight_format": a.storage.label,
        "weight_format_source": a.storage.source or W["derived.weight_format_source"],
        "weight_bytes_bf16": weight_bytes(s, "bf16"),
        "kv_bytes_per_token": s.kv_bytes_per_token_bf16,
        "kv_bytes_per_token_full_layers": s.kv_full_bytes_per_token,
        "state_bytes_per_sequence": s.state_bytes_per_sequence,
        "sliding_window": s.sliding_window,
        "n_sliding_layers": s.n_sliding_layers,
        "n_linear_attention_layers": s.n_linear_layers,
        "kv_bytes_by_context": {str(n): kv_bytes(s, n) + s.state_bytes_per_sequence for n in CONTEXTS},
        "n_experts": s.n_experts,
        "experts_per_token": s.experts_per_token,
        "weight_read_bytes_per_token": int(decode_weight_read_bytes(s, 2)),
        "flops_per_token": 2 * (s.active_linear_params + s.lm_head_matrix_params),
        "defaults_used": {f.field: f.value for f in a.filled},
    }


# --- bytes ------------------------------------------------------------------------------------


def weight_bytes(s: ModelShape, precision: str) -> int:
    """Weight bytes. ``bf16``: 2 B/param. ``w8-g128``: block linear weights 8-bit with one 2-byte scale per
    128 weights; embedding, LM head and norms stay BF16. ``stored``: as the checkpoint stores them."""
    if precision == "bf16":
        return 2 * s.params_total
    if precision == "w8-g128":
        lin = s.linear_params
        return lin + (lin // 128) * 2 + 2 * (s.params_total - lin)
    if precision == "stored":
        return s.stored_bytes or 2 * s.params_total
    raise ValueError(precision)


def decode_weight_read_bytes(s: ModelShape, bytes_per_param: float = 2) -> float:
    """Weights one decode step reads: everything but the embedding table, of which one row."""
    emb_read = s.embedding_params if s.tied else s.hidden  # tied: the LM head reads the whole table
    return bytes_per_param * (s.params_active - s.embedding_params + emb_read)


def attn_flops_per_context_token(s: ModelShape) -> int:
    """QKᵀ and AV for one query over one cached token, all attention layers: 4·L_attn·n_heads·head_dim
    (MLA, q·k and v widths differ: 2·L·n_heads·(d_qk + d_v))."""
    L = s.attention_layers
    if s.qk_head_dim or s.v_head_dim:
        return 2 * L * s.n_heads * ((s.qk_head_dim or s.head_dim) + (s.v_head_dim or s.head_dim))
    return 4 * L * s.n_heads * s.head_dim


def _attended(s: ModelShape, context_tokens: int) -> float:
    """Attention-layer-averaged tokens one query attends to (sliding layers see at most the window)."""
    if not s.n_sliding_layers or s.sliding_window is None:  # no window: every layer sees it all
        return context_tokens
    L = s.attention_layers
    full = L - s.n_sliding_layers
    return (full * context_tokens + s.n_sliding_layers * min(context_tokens, s.sliding_window)) / L


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
        L = s.attention_layers
        full = L - s.n_sliding_layers
        pairs = (full * n * (n + 1) / 2 + s.n_sliding_layers * win_pairs) / L
        return 2 * s.active_linear_params * n + 2 * s.lm_head_matrix_params + attn_flops_per_context_token(s) * pairs
    return (
        2 * s.active_linear_params * n + 2 * s.lm_head_matrix_params + attn_flops_per_context_token(s) * n * (n + 1) / 2
    )


# --- the derivation, step by step (numbers only: the words are the web layer's) ------------------------

Value = int | float | str | bool | None | list | tuple


@dataclass(frozen=True)
class Step:
    """One line of the derivation: what kind of line, and every number it shows, computed here. A report
    fills its words with these values and does no arithmetic of its own."""

    kind: str
    values: dict[str, Value]


def _state_step(m: Mixer) -> Step:
    """The constant per-sequence state of a Gated DeltaNet or Mamba-2 mixer, term by term."""
    d = m.dims
    conv = d["conv_dim"] * (d["kernel"] - 1)
    rec = d["nv"] * d["dk"] * d["dv"]
    return Step(
        "state",
        {
            **d,
            "kernel_minus_1": d["kernel"] - 1,
            "conv_values": conv,
            "conv_value_bytes": 2,
            "conv_bytes": conv * 2,
            "rec_values": rec,
            "rec_bytes": rec * d["ssm_bytes"],
            "state_bytes": m.state_bytes,
            "rule": m.rule,
            "mamba": m.kind in ("mamba", "gqa"),  # a GQA mixer with state: Falcon-H1's parallel Mamba-2
        },
    )


def _mixer_steps(m: Mixer) -> list[Step]:
    if m.kind == "none":
        return []
    mats = [(n, r, cl, r * cl) for n, r, cl in m.matrices]
    out = [
        Step(
            f"mixer-{m.kind}",
            {
                **m.dims,
                "matrices": mats,
                "params": m.params,
                "other": list(m.other.items()),
                "other_params": m.other_params,
            },
        )
    ]
    if m.kind in ("gdn", "mamba"):
        return out + [_state_step(m)]
    out.append(
        Step(
            f"kv-{m.kind}",
            {
                **m.dims,
                "kv_pair": 2,
                "kv_values": m.kv_values,
                "value_bytes": KV_DTYPE_BYTES,
                "kv_bytes": m.kv_values * KV_DTYPE_BYTES,
            },
        )
    )
    return out + ([_state_step(m)] if m.state_bytes else [])


def _ffn_step(f: Ffn, h: int) -> Step:
    if not f.moe:
        n = len(f.matrices)
        return Step("ffn-dense", {"n_mats": n, "h": h, "ff": f.dims["ff"], "params": f.params, "bias": f.other_params})
    expert = [m for m in f.matrices if m.role == "expert"]
    router = [m for m in f.matrices if m.role == "router"]
    shared = [m for m in f.matrices if m.role == "linear"]
    return Step(
        "ffn-moe",
        {
            **f.dims,
            "h": h,
            "expert_params": sum(m.rows * m.cols for m in expert),
            "experts_params": sum(m.params for m in expert),
            "shared_params": sum(m.params for m in shared),
            "router_params": sum(m.params for m in router),
            "other": list(f.other.items()),
            "params": f.params,
            "active_params": f.active_params + f.other_active,
            "total_params": f.params + f.other_params,
        },
    )


def _pattern_step(a: Analysis) -> Step | None:
    s = a.shape
    if not s.n_sliding_layers or s.sliding_window is None:
        return None
    chunked = s.model_type == "llama4_text"
    return Step(
        "window",
        {
            "chunked": chunked,
            "rule": a.pattern.rule,
            "window": s.sliding_window,
            "n_window_layers": s.n_sliding_layers,
            "n_full_layers": s.attention_layers - s.n_sliding_layers,
            "full_bytes": s.kv_full_bytes_per_token,
            "window_bytes": s.kv_window_bytes_per_token,
        },
    )


def _distinct_parts(a: Analysis) -> list[Step]:
    """One step per distinct mixer and per distinct FFN, in layer order."""
    out: list[Step] = []
    seen: list[Mixer] = []
    for ly in a.layers:
        if ly.mixer not in seen:
            seen.append(ly.mixer)
            out += _mixer_steps(ly.mixer)
    ffns: list[Ffn] = []
    for ly in a.layers:
        if ly.ffn not in ffns and ly.ffn.matrices:
            ffns.append(ly.ffn)
            out.append(_ffn_step(ly.ffn, a.shape.hidden))
    return out


def derivation(a: Analysis) -> list[Step]:
    """Every step of the count, each with the numbers it shows (all computed in this module)."""
    s = a.shape
    out = [Step("model", {"model_type": s.model_type, "L": s.n_layers, "h": s.hidden, "nh": s.n_heads, "V": s.vocab})]
    if a.wrapper:
        out.append(Step("wrapper", {"wrapper": a.wrapper, "text_model": s.model_type}))
    out += [Step("filled", {"field": f.field, "value": f.value, "source": f.source}) for f in a.filled]  # type: ignore[dict-item]
    if a.rule:
        out.append(Step("rule", {"rule": a.rule}))
    out += _distinct_parts(a)
    if s.n_moe_layers and s.n_moe_layers < s.n_layers:
        out.append(Step("moe-layers", {"L": s.n_layers, "moe": s.n_moe_layers, "dense": s.n_layers - s.n_moe_layers}))
    if s.n_linear_layers:
        out.append(
            Step(
                "hybrid",
                {
                    "linear": s.n_linear_layers,
                    "attn": s.attention_layers,
                    "L": s.n_layers,
                    "mamba": s.model_type in _MAMBA,
                    "mlp": s.n_layers - s.n_linear_layers - s.attention_layers,
                },
            )
        )
    out.append(Step("norms", {"n": a.n_norms, "h": s.hidden, "params": a.n_norms * s.hidden}))
    for ly, n in a.groups():
        out.append(
            Step(
                "group",
                {
                    "mixer": ly.mixer.kind,
                    "moe": ly.ffn.moe,
                    "ffn": bool(ly.ffn.matrices),
                    "window": ly.window,
                    "count": n,
                    "params": ly.params,
                    "active": ly.active_params,
                    "total": ly.params * n,
                },
            )
        )
    emb = s.embedding_params
    out.append(Step("embedding", {"V": s.vocab, "h": s.hidden, "emb": emb, "tied": s.tied, "head": s.lm_head_params}))
    out.append(
        Step(
            "total",
            {
                "layers": a.layer_params,
                "emb_head": emb + s.lm_head_params,
                "final_norm": s.hidden,
                "total": s.params_total,
                "active": s.params_active,
                "active_excl_emb": s.params_active_excl_embedding,
                "moe": bool(s.n_experts),
            },
        )
    )
    if a.mtp_layers:
        out.append(Step("mtp", {"n": a.mtp_layers}))
    kv_layers = [ly.mixer.kv_values * KV_DTYPE_BYTES for ly in a.layers if ly.mixer.kind in ("gqa", "mla")]
    out.append(
        Step(
            "kv-total",
            {
                "layers": len(kv_layers),
                "per_layer": kv_layers[0] if kv_layers and len(set(kv_layers)) == 1 else None,
                "value_bits": KV_DTYPE_BYTES * 8,
                "bytes": s.kv_bytes_per_token_bf16,
                "kib": s.kv_bytes_per_token_bf16 / 1024,
            },
        )
    )
    win = _pattern_step(a)
    if win:
        out.append(win)
    if s.state_bytes_per_sequence:
        per = [ly.mixer.state_bytes for ly in a.layers if ly.mixer.state_bytes]
        out.append(
            Step(
                "state-total",
                {
                    "layers": len(per),
                    "per_layer": per[0],
                    "bytes": s.state_bytes_per_sequence,
                    "mib": s.state_bytes_per_sequence / 2**20,
                },
            )
        )
    st = a.storage
    out.append(
        Step(
            "storage",
            {
                "method": st.method,
                "label": st.label,
                "source": st.source,
                "parts": [(p.label, p.params, p.bytes, p.rule) for p in st.parts],
                "total": st.total,
                "gb": st.total / 1e9,
                "bf16": weight_bytes(s, "bf16"),
                "bf16_gb": weight_bytes(s, "bf16") / 1e9,
                "bits": st.bits_per_param,
            },
        )
    )
    emb_read = s.embedding_params if s.tied else s.hidden
    out.append(
        Step(
            "read",
            {
                "active": s.params_active,
                "emb": s.embedding_params,
                "emb_read": emb_read,
                "tied": s.tied,
                "bytes_per_param": 2,
                "bytes": int(decode_weight_read_bytes(s, 2)),
            },
        )
    )
    out.append(
        Step(
            "flops",
            {
                "per_mac": 2,
                "linear": s.active_linear_params,
                "head": s.lm_head_matrix_params,
                "flops": 2 * (s.active_linear_params + s.lm_head_matrix_params),
            },
        )
    )
    return out
