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
