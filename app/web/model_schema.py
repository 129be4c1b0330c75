"""The JSON schema of a ``config.json`` that ``POST /api/models/derive`` reads: per architecture family
the fields it requires, and the type and range of every field it reads. The route checks a body
against this very schema (``schema_error``), so the published schema and the server agree; the rules
between fields that a schema cannot state are listed in ``CROSS_FIELD_RULES``."""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from ..calculators.model_config import _ARCH_TO_TYPE, _TEXT, _TEXT_ALIASES, MAX_FIELD, MAX_LAYERS, SUPPORTED
from ..words import words_for

W = words_for(__name__)

POS = {"type": "integer", "minimum": 1, "maximum": MAX_FIELD}
OPT = {"type": ["integer", "null"], "minimum": 1, "maximum": MAX_FIELD}
OPT0 = {"type": ["integer", "null"], "minimum": 0, "maximum": MAX_FIELD}
FLAG = {"type": ["boolean", "null"]}

PROPERTIES: dict[str, Any] = {
    "model_type": {"type": "string"},
    "architectures": {"type": "array", "items": {"type": "string"}},
    "num_hidden_layers": {"type": "integer", "minimum": 1, "maximum": MAX_LAYERS},
    "hidden_size": POS,
    "num_attention_heads": POS,
    "vocab_size": POS,
    "num_key_value_heads": OPT,
    "head_dim": OPT,
    "intermediate_size": OPT,
    "moe_intermediate_size": OPT,
    "num_experts": OPT,
    "num_local_experts": OPT,
    "num_experts_per_tok": OPT,
    "sliding_window": OPT,
    "sliding_window_pattern": OPT,
    "decoder_sparse_step": OPT,
    "moe_layer_freq": OPT,
    "q_lora_rank": OPT,
    "kv_lora_rank": OPT,
    "qk_nope_head_dim": OPT,
    "qk_rope_head_dim": OPT,
    "v_head_dim": OPT,
    "shared_expert_intermediate_size": OPT0,
    "max_window_layers": OPT0,
    "n_routed_experts": OPT0,
    "n_shared_experts": OPT0,
    "first_k_dense_replace": OPT0,
    "num_nextn_predict_layers": OPT0,
    "tie_word_embeddings": FLAG,
    "attention_bias": FLAG,
    "use_sliding_window": FLAG,
    "mlp_bias": FLAG,
    "layer_types": {
        "type": ["array", "null"],
        "items": {"enum": ["full_attention", "sliding_attention", "chunked_attention", "linear_attention"]},
    },
    "mlp_only_layers": {"type": ["array", "null"], "items": {"type": "integer"}},
    "moe_layers": {"type": ["array", "null"], "items": {"type": "integer"}},
    "no_rope_layers": {"type": ["array", "null"], "items": {"type": "integer"}},
    "intermediate_size_mlp": OPT,
    "interleave_moe_layer_step": OPT,
    "no_rope_layer_interval": OPT,
    "attention_chunk_size": OPT,
    "linear_conv_kernel_dim": OPT,
    "linear_key_head_dim": OPT,
    "linear_value_head_dim": OPT,
    "linear_num_key_heads": OPT,
    "linear_num_value_heads": OPT,
    "full_attention_interval": OPT,
    "index_n_heads": OPT,
    "index_head_dim": OPT,
    "quantization_config": {"type": ["object", "null"]},
    "hf_quant_config": {
        "type": "object",
        "required": ["quantization"],
        "properties": {"quantization": {"type": "object"}},
    },
}
BASE = ["num_hidden_layers", "hidden_size", "num_attention_heads", "vocab_size"]
SLIDING = {
    "anyOf": [{"required": ["sliding_window"], "properties": {"sliding_window": POS}}, {"required": ["layer_types"]}]
}
GEMMA3_SLIDING = {
    "anyOf": [
        {
            "required": ["sliding_window", "sliding_window_pattern"],
            "properties": {"sliding_window": POS, "sliding_window_pattern": POS},
        },
        {"required": ["layer_types"]},
    ]
}
# family → (model types, fields it requires, extra constraints)
FAMILIES: dict[str, tuple[list[str], list[str], list[dict]]] = {
    "dense": (
        [
            "llama",
            "mistral",
            "qwen2",
            "qwen3",
            "qwen3_vl_text",
            "gemma",
            "phi3",
            "olmo2",
            "ministral3",
            "falcon_h1",
            "nemotron_h",
        ],
        BASE + ["intermediate_size"],
        [],
    ),
    "gemma2": (["gemma2"], BASE + ["intermediate_size"], [SLIDING]),
    "gemma3_text": (["gemma3_text"], BASE + ["intermediate_size"], [GEMMA3_SLIDING]),
    "mixtral": (["mixtral"], BASE + ["intermediate_size", "num_local_experts", "num_experts_per_tok"], []),
    "qwen_moe": (
        ["qwen2_moe", "qwen3_moe"],
        BASE + ["num_experts", "num_experts_per_tok", "moe_intermediate_size"],
        [],
    ),
    "gpt_oss": (["gpt_oss"], BASE + ["intermediate_size", "num_local_experts", "num_experts_per_tok"], []),
    "llama4_text": (
        ["llama4_text"],
        BASE + ["intermediate_size", "intermediate_size_mlp", "num_local_experts", "num_experts_per_tok"],
        [],
    ),
    "minimax_m2": (["minimax_m2"], BASE + ["intermediate_size", "num_local_experts", "num_experts_per_tok"], []),
    # families that need the same fields share one entry (fewer alternatives keep the schema generable)
    "qwen3_next": (
        ["qwen3_next", "qwen3_5_moe_text"],
        BASE + ["num_experts", "num_experts_per_tok", "moe_intermediate_size"],
        [],
    ),
    "qwen3_5_text": (["qwen3_5_text"], BASE + ["intermediate_size"], []),
    "granitemoehybrid": (["granitemoehybrid"], BASE + ["shared_intermediate_size", "mamba_d_state"], []),
    "glm4_moe": (
        ["glm4_moe"],
        BASE + ["intermediate_size", "n_routed_experts", "num_experts_per_tok", "moe_intermediate_size"],
        [],
    ),
    "mla": (
        ["deepseek_v2", "deepseek_v3", "kimi_k2", "deepseek_v32"],
        BASE + ["qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim", "kv_lora_rank"],
        [
            {
                "if": {
                    "required": ["n_routed_experts"],
                    "properties": {"n_routed_experts": {"type": "integer", "minimum": 1}},
                },
                "then": {"required": ["num_experts_per_tok", "moe_intermediate_size"]},
            }
        ],
    ),
}
WRAPPERS = {  # model_type → (fields its text_config requires, extra constraints)
    "gemma3": (["num_hidden_layers", "hidden_size", "num_attention_heads", "intermediate_size"], [SLIDING]),
    "qwen3_vl": (BASE + ["intermediate_size"], []),
    "llama4": (BASE + ["intermediate_size", "intermediate_size_mlp", "num_local_experts", "num_experts_per_tok"], []),
    "qwen3_5": (BASE + ["intermediate_size"], []),
    "qwen3_5_moe": (BASE + ["num_experts", "num_experts_per_tok", "moe_intermediate_size"], []),
    "qwen3_vl_moe": (BASE + ["num_experts", "num_experts_per_tok", "moe_intermediate_size"], []),
    "kimi_k25": (BASE + ["qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim", "kv_lora_rank"], []),
}
# any other multimodal config: its text_config names a text model_type this reader counts
GENERIC_WRAPPER = {
    "required": ["text_config"],
    "properties": {
        "text_config": {
            "type": "object",
            "properties": PROPERTIES,
            "required": ["model_type"],
            "allOf": [{"properties": {"model_type": {"enum": sorted(_TEXT | set(_TEXT_ALIASES))}}}],
        }
    },
}
CROSS_FIELD_RULES = (
    W["cross_field_rules"],
    W["cross_field_rules_2"],
    W["cross_field_rules_3"],
    W["cross_field_rules_4"],
    W["cross_field_rules_5"],
    W["cross_field_rules_6"],
    W["cross_field_rules_7"],
    W["cross_field_rules_8"],
)


def _family(types: list[str], required: list[str], extra: list[dict]) -> dict:
    """One family: chosen by model_type, or by architectures[0] when model_type is not a supported one."""
    archs = sorted(a for a, t in _ARCH_TO_TYPE.items() if t in types)
    by_type = {"required": ["model_type"], "properties": {"model_type": {"enum": types}}}
    by_arch = {
        "required": ["architectures"],
        "properties": {
            "architectures": {"minItems": 1, "prefixItems": [{"enum": archs}]},
            "model_type": {"not": {"enum": SUPPORTED}},
        },
    }
    present = {"required": required, "properties": {f: POS for f in required if f != "num_hidden_layers"}}
    return {"allOf": [{"anyOf": [by_type, by_arch] if archs else [by_type]}, present, *extra]}


def _wrapper(model_type: str, required: list[str], extra: list[dict]) -> dict:
    archs = sorted(a for a, t in _ARCH_TO_TYPE.items() if t == model_type)
    present = {f: POS for f in required if f != "num_hidden_layers"}
    text = {
        "type": "object",
        "properties": PROPERTIES,
        "required": required,
        "allOf": [{"properties": present}, *extra],
    }
    by_type = {"required": ["model_type"], "properties": {"model_type": {"const": model_type}}}
    by_arch = {
        "required": ["architectures"],
        "properties": {
            "architectures": {"minItems": 1, "prefixItems": [{"enum": archs}]},
            "model_type": {"not": {"enum": SUPPORTED}},
        },
    }
    return {
        "allOf": [
            {"anyOf": [by_type, by_arch] if archs else [by_type]},
            {"required": ["text_config"], "properties": {"text_config": text}},
        ]
    }


@lru_cache(maxsize=1)
def config_schema() -> dict:
    """The request body schema of ``POST /api/models/derive``."""
    return {
        "type": "object",
        "properties": PROPERTIES,
        "additionalProperties": True,
        "anyOf": [_family(*f) for f in FAMILIES.values()]
        + [_wrapper(t, *w) for t, w in WRAPPERS.items()]
        + [GENERIC_WRAPPER],
        "description": W["config_schema.description"] + W["config_schema.description_2"].join(SUPPORTED),
    }


@lru_cache(maxsize=1)
def _validator():
    import jsonschema_rs

    return jsonschema_rs.Draft202012Validator(json.loads(json.dumps(config_schema())))  # plain JSON types only


def schema_error(cfg: Any) -> tuple[str, str] | None:
    """(field, message) of the first way ``cfg`` breaks the schema, or None."""
    err = next(iter(_validator().iter_errors(cfg)), None)
    if err is None:
        return None
    path = [str(x) for x in err.instance_path]
    field = next((p for p in reversed(path) if not p.isdigit()), "body")
    return field, W.f("schema_error", v=".".join(path) or "body", v2=err.message[:120])
