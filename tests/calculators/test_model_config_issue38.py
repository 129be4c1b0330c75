"""Issue 38's model-config points: the Qwen1.5-MoE regression, unknown model types refused by name, both
conventions of active parameters, the newer architectures and the quantization formats. Every expected count
names its independent source."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from app.calculators import model_config as mc

CONFIGS = Path(__file__).resolve().parent.parent / "data" / "configs"
ROOT = Path(__file__).resolve().parents[2]


def cfg(name: str) -> dict:
    raw = json.loads((CONFIGS / f"{name}.json").read_text(encoding="utf-8"))
    return {k: v for k, v in raw.items() if not k.startswith("_")}


QWEN15_MOE = {  # Qwen/Qwen1.5-MoE-A2.7B config.json: no head_dim (Qwen2MoeConfig has none)
    "architectures": ["Qwen2MoeForCausalLM"],
    "model_type": "qwen2_moe",
    "hidden_size": 2048,
    "num_hidden_layers": 24,
    "num_attention_heads": 16,
    "num_key_value_heads": 16,
    "num_experts": 60,
    "num_experts_per_tok": 4,
    "moe_intermediate_size": 1408,
    "shared_expert_intermediate_size": 5632,
    "intermediate_size": 5632,
    "vocab_size": 151936,
    "tie_word_embeddings": False,
    "decoder_sparse_step": 1,
    "torch_dtype": "bfloat16",
}


def test_qwen15_moe_derives_again_with_head_dim_from_hidden_over_heads():
    """Regression: "缺少 head_dim". transformers' Qwen2MoeAttention uses hidden_size // num_attention_heads = 128.
    Independent check: the checkpoint's safetensors total, 14,315,784,192 parameters (the Hub's "14.3B"), and the
    model card's 2.7B activated (counted with the embedding)."""
    d = mc.derive(QWEN15_MOE)
    assert d["defaults_used"]["head_dim"] == 128
    assert d["params_total"] == 14_315_784_192
    assert round(d["params_active"] / 1e9, 1) == 2.7


def test_unknown_model_type_is_refused_naming_it_and_the_supported_list():
    with pytest.raises(mc.ConfigError) as e:
        mc.analyze({"model_type": "rwkv7", "architectures": ["Rwkv7ForCausalLM"], "hidden_size": 8})
    assert e.value.field == "model_type"
    assert "rwkv7" in str(e.value) and "llama" in str(e.value) and "qwen3_moe" in str(e.value)


def test_active_parameters_both_conventions():
    """gpt-oss-120b: OpenAI's model card gives 5.13B active, which leaves the input embedding out; params_active
    keeps its meaning (embedding counted in), params_active_excl_embedding is the card's convention."""
    d = mc.derive({k: v for k, v in json.loads((ROOT / "data/models/gpt-oss-120b.json").read_text()).items()})
    assert d["params_active"] == 5_711_982_912
    assert d["params_active_excl_embedding"] == d["params_active"] - 201_088 * 2880 == 5_132_849_472
    assert round(d["params_active_excl_embedding"] / 1e9, 2) == 5.13
    tied = mc.derive(cfg("qwen3-8b") | {"tie_word_embeddings": True})
    assert tied["params_active_excl_embedding"] == tied["params_active"]  # the tied table is the LM head


PHI3_MINI = {  # microsoft/Phi-3-mini-4k-instruct config.json
    "architectures": ["Phi3ForCausalLM"],
    "model_type": "phi3",
    "hidden_size": 3072,
    "intermediate_size": 8192,
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "num_key_value_heads": 32,
    "vocab_size": 32064,
    "tie_word_embeddings": False,
    "sliding_window": 2047,
    "attention_bias": False,
    "torch_dtype": "bfloat16",
}
OLMO2_7B = {  # allenai/OLMo-2-1124-7B config.json
    "architectures": ["Olmo2ForCausalLM"],
    "model_type": "olmo2",
    "hidden_size": 4096,
    "intermediate_size": 11008,
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "num_key_value_heads": 32,
    "vocab_size": 100352,
    "tie_word_embeddings": False,
    "attention_bias": False,
    "torch_dtype": "float32",
}
GLM45_AIR = {  # zai-org/GLM-4.5-Air config.json, as printed by ms-swift's model_config dump (search: "glm4_moe")
    "architectures": ["Glm4MoeForCausalLM"],
    "model_type": "glm4_moe",
    "attention_bias": True,
    "first_k_dense_replace": 1,
    "head_dim": 128,
    "hidden_size": 4096,
    "intermediate_size": 10944,
    "moe_intermediate_size": 1408,
    "n_group": 1,
    "n_routed_experts": 128,
    "n_shared_experts": 1,
    "num_attention_heads": 96,
    "num_experts_per_tok": 8,
    "num_hidden_layers": 46,
    "num_key_value_heads": 8,
    "num_nextn_predict_layers": 1,
    "partial_rotary_factor": 0.5,
    "tie_word_embeddings": False,
    "topk_group": 1,
    "torch_dtype": "bfloat16",
    "use_qk_norm": False,
    "vocab_size": 151552,
}
QWEN35_35B_A3B = {  # Qwen/Qwen3.5-35B-A3B: text_config fields as quoted in public readers of it (search: "qwen3_5_moe_text")
    "architectures": ["Qwen3_5MoeForConditionalGeneration"],
    "model_type": "qwen3_5_moe",
    "tie_word_embeddings": False,
    "vision_config": {"depth": 27},
    "text_config": {
        "model_type": "qwen3_5_moe_text",
        "hidden_size": 2048,
        "num_hidden_layers": 40,
        "layer_types": (["linear_attention"] * 3 + ["full_attention"]) * 10,
        "linear_num_key_heads": 16,
        "linear_num_value_heads": 32,
        "linear_key_head_dim": 128,
        "linear_value_head_dim": 128,
        "linear_conv_kernel_dim": 4,
        "head_dim": 256,
        "num_attention_heads": 16,
        "num_key_value_heads": 2,
        "num_experts": 256,
        "num_experts_per_tok": 8,
        "moe_intermediate_size": 512,
        "shared_expert_intermediate_size": 512,
        "vocab_size": 248320,
        "mtp_num_hidden_layers": 1,
    },
}


def test_phi3_mini_matches_its_safetensors_total():
    """Independent: the checkpoint's safetensors metadata total, 3,821,079,552 (the Hub's "3.82B"); fused qkv_proj
    and gate_up_proj hold the same parameters as separate matrices. Its sliding_window covers every layer."""
    d = mc.derive(PHI3_MINI)
    assert d["params_total"] == 3_821_079_552
    assert d["sliding_window"] == 2047 and d["n_sliding_layers"] == 32


def test_olmo2_7b_hand_count_from_transformers_modeling():
    """Hand count from transformers' modeling_olmo2.py: q/k/v/o 4·h², SwiGLU 3·h·ff, q_norm over n_h·d_h and
    k_norm over n_kv·d_h, two post-norms per layer, final norm, untied embedding and LM head."""
    h, ff, L, V = 4096, 11008, 32, 100352
    per_layer = 4 * h * h + 3 * h * ff + (h + h) + 2 * h
    assert mc.derive(OLMO2_7B)["params_total"] == L * per_layer + h + 2 * V * h == 7_298_617_344


def test_glm45_air_matches_the_model_card_106b_total_12b_active():
    """Independent: zai-org's model card, "106B total parameters and 12B active". The MTP layer
    (num_nextn_predict_layers = 1) is not counted and the report says so."""
    a = mc.analyze(GLM45_AIR)
    d = mc.derived(a)
    assert round(d["params_total"] / 1e9) == 107 and int(d["params_total"] / 1e9) == 106
    assert int(d["params_active_excl_embedding"] / 1e9) == 12
    assert a.mtp_layers == 1 and a.shape.mtp_layers == 1
    assert d["n_experts"] == 128 and d["experts_per_token"] == 8


def test_qwen3_vl_moe_reads_its_text_model_as_qwen3_moe():
    """Hand count from transformers' qwen3_vl_moe: the text model is the Qwen3-MoE decoder, so Qwen3-VL-30B-A3B's
    text_config counts exactly as Qwen3-30B-A3B (30,532,122,624)."""
    text = cfg("qwen3-30b-a3b") | {"model_type": "qwen3_vl_moe_text"}
    wrapped = {
        "architectures": ["Qwen3VLMoeForConditionalGeneration"],
        "model_type": "qwen3_vl_moe",
        "text_config": text,
    }
    d = mc.derive(wrapped)
    assert d["params_total"] == mc.derive(cfg("qwen3-30b-a3b"))["params_total"] == 30_532_122_624
    assert d["text_model_of"] == "qwen3_vl_moe"


def test_qwen35_moe_derives_with_its_linear_attention_state_and_names_mtp():
    """Qwen3.5-35B-A3B: 30 Gated DeltaNet + 10 full-attention layers, MoE 256 choose 8 + a shared expert. The name
    says 35B total (with the vision tower, not counted here) and A3B active (the convention without the input
    embedding): the text model counts 34.66B and 2.95B. mtp_num_hidden_layers is recorded, not dropped."""
    a = mc.analyze(QWEN35_35B_A3B)
    d = mc.derived(a)
    assert d["n_linear_attention_layers"] == 30 and d["state_bytes_per_sequence"] > 0
    assert 34e9 < d["params_total"] < 35e9 and round(d["params_active_excl_embedding"] / 1e9) == 3
    assert a.mtp_layers == 1
    assert d["kv_bytes_per_token"] == 10 * 2 * 2 * 256 * 2  # 10 attention layers × K,V × 2 heads × 256 × 2 B
    assert "attention_bias" in d["defaults_used"]  # assumed, and named
