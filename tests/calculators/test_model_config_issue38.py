"""Issue 38's model-config points: the Qwen1.5-MoE regression, unknown model types refused by name, both
conventions of active parameters, the newer architectures and the quantization formats. Every expected count
names its independent source."""

from __future__ import annotations

import json
import math
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


# --- quantization formats, sized by their stored layout ------------------------------------------------------

LLAMA70 = {  # meta-llama/Llama-3.1-70B config.json shape
    "architectures": ["LlamaForCausalLM"],
    "model_type": "llama",
    "hidden_size": 8192,
    "intermediate_size": 28672,
    "num_hidden_layers": 80,
    "num_attention_heads": 64,
    "num_key_value_heads": 8,
    "head_dim": 128,
    "vocab_size": 128256,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
}


def _linear(s: mc.ModelShape) -> int:
    return s.linear_params


def test_hf_quant_config_json_sets_modelopt_fp8_not_bf16():
    """The issue: a 70B ModelOpt FP8 checkpoint (quantization in hf_quant_config.json) was sized as BF16,
    141 GB. With the file: every linear weight 1 B + two FP32 per-tensor scales, the rest BF16 ≈ 72 GB."""
    hq = {
        "producer": {"name": "modelopt"},
        "quantization": {"quant_algo": "FP8", "kv_cache_quant_algo": "FP8", "exclude_modules": ["lm_head"]},
    }
    bf16 = mc.analyze(LLAMA70)
    a = mc.analyze({**LLAMA70, "hf_quant_config": hq})
    n_mats = 80 * 7
    other = bf16.shape.params_total - _linear(bf16.shape)
    assert bf16.shape.stored_bytes > 141e9
    assert a.shape.stored_bytes == _linear(a.shape) + 8 * n_mats + 2 * other
    assert 70e9 < a.shape.stored_bytes < 73e9
    assert a.storage.source.startswith("hf_quant_config.json")


def test_hf_quant_config_nvfp4_layout_and_named_group_default():
    """NVFP4: 4-bit E2M1 + one FP8 E4M3 scale per 16 + FP32 global and input scales per matrix (4.5 bits)."""
    hq = {"quantization": {"quant_algo": "NVFP4", "exclude_modules": ["lm_head"]}}
    a = mc.analyze({**LLAMA70, "hf_quant_config": hq})
    lin = _linear(a.shape)
    other = a.shape.params_total - lin
    assert a.shape.stored_bytes == lin // 2 + lin // 16 + 8 * 80 * 7 + 2 * other
    assert mc.derived(a)["defaults_used"]["quantization_config.group_size"] == 16


def test_hf_quant_config_errors_name_the_field():
    for bad in ([], {"quantization": "FP8"}, {"quantization": {}}):
        with pytest.raises(mc.ConfigError) as e:
            mc.analyze({**LLAMA70, "hf_quant_config": bad})
        assert e.value.field == "hf_quant_config"
    with pytest.raises(mc.ConfigError) as e:
        mc.analyze({**LLAMA70, "hf_quant_config": {"quantization": {"quant_algo": "W4A8_AWQ"}}})
    assert e.value.field == "quantization_config" and "W4A8_AWQ" in str(e.value)


def test_config_json_wins_over_hf_quant_config_and_says_so():
    qc = {"quant_method": "fp8", "weight_block_size": [128, 128]}
    a = mc.analyze({**LLAMA70, "quantization_config": qc, "hf_quant_config": {"quantization": {"quant_algo": "NVFP4"}}})
    assert a.storage.method == "fp8" and "以 config.json 为准" in a.storage.source


def test_bitsandbytes_4bit_with_and_without_double_quant_and_8bit():
    base = mc.analyze(LLAMA70).shape
    lin, other = base.linear_params, base.params_total - base.linear_params
    mats = [(r, c_) for ly in mc.analyze(LLAMA70).layers for (_, r, c_) in ly.mixer.matrices] + [
        (m.rows, m.cols) for ly in mc.analyze(LLAMA70).layers for m in ly.ffn.matrices
    ]
    nf4 = mc.analyze({**LLAMA70, "quantization_config": {"quant_method": "bitsandbytes", "load_in_4bit": True}})
    want = sum(r * c_ / 2 + 4 * -(-(r * c_) // 64) for r, c_ in mats)
    assert nf4.shape.stored_bytes == math.ceil(want) + 2 * other
    assert mc.derived(nf4)["defaults_used"]["quantization_config.bnb_4bit_use_double_quant"] is False
    dq = mc.analyze(
        {
            **LLAMA70,
            "quantization_config": {
                "quant_method": "bitsandbytes",
                "load_in_4bit": True,
                "bnb_4bit_use_double_quant": True,
            },
        }
    )
    assert dq.shape.stored_bytes < nf4.shape.stored_bytes  # 8-bit absmax instead of FP32
    i8 = mc.analyze({**LLAMA70, "quantization_config": {"quant_method": "bitsandbytes", "load_in_8bit": True}})
    assert i8.shape.stored_bytes == lin + 4 * sum(r for r, _ in mats) + 2 * other
    with pytest.raises(mc.ConfigError, match="load_in_4bit"):
        mc.analyze({**LLAMA70, "quantization_config": {"quant_method": "bitsandbytes"}})


def test_awq_gptq_and_compressed_tensors_name_every_assumed_field():
    awq = mc.derive({**LLAMA70, "quantization_config": {"quant_method": "awq"}})
    assert awq["defaults_used"]["quantization_config.bits"] == 4
    assert awq["defaults_used"]["quantization_config.group_size"] == 128
    ct = {
        "quant_method": "compressed-tensors",
        "config_groups": {"group_0": {"targets": ["Linear"], "weights": {"num_bits": 8}}},
    }
    d = mc.derive({**LLAMA70, "quantization_config": ct})
    assert d["defaults_used"]["quantization_config.type"] == "int"
    assert d["defaults_used"]["quantization_config.strategy"] == "tensor"
    assert d["defaults_used"]["quantization_config.scale_dtype"] == "BF16"


def test_compressed_tensors_scale_dtype_is_respected():
    """scale_dtype float32 doubles the bytes of each group scale against the BF16 default."""

    def ct(**w):
        weights = {"num_bits": 4, "type": "int", "strategy": "group", "group_size": 128, "symmetric": True, **w}
        return {
            "quant_method": "compressed-tensors",
            "config_groups": {"g": {"targets": ["Linear"], "weights": weights}},
        }

    a16 = mc.analyze({**LLAMA70, "quantization_config": ct()})
    a32 = mc.analyze({**LLAMA70, "quantization_config": ct(scale_dtype="torch.float32")})
    groups = a16.shape.linear_params // 128
    assert a32.shape.stored_bytes - a16.shape.stored_bytes == 2 * groups


def test_compressed_tensors_nvfp4_and_fp8_channel():
    """NVFP4 in compressed-tensors (type float, 4 bits, group 16): FP8 scales + an FP32 global scale per matrix;
    FP8-dynamic (type float, 8 bits, channel): 1 B/weight + one FP32 scale per output row."""
    nv = {"num_bits": 4, "type": "float", "strategy": "tensor_group", "group_size": 16, "symmetric": True}
    a = mc.analyze(
        {
            **LLAMA70,
            "quantization_config": {
                "quant_method": "compressed-tensors",
                "config_groups": {"g": {"targets": ["Linear"], "weights": nv}},
            },
        }
    )
    lin = a.shape.linear_params
    other = a.shape.params_total - lin
    assert a.shape.stored_bytes == lin // 2 + lin // 16 + 4 * 80 * 7 + 2 * other
    f8 = {"num_bits": 8, "type": "float", "strategy": "channel", "symmetric": True}
    b = mc.analyze(
        {
            **LLAMA70,
            "quantization_config": {
                "quant_method": "compressed-tensors",
                "config_groups": {"g": {"targets": ["Linear"], "weights": f8}},
            },
        }
    )
    rows = sum(r for ly in b.layers for (_, r, _c) in ly.mixer.matrices) + sum(
        m.rows for ly in b.layers for m in ly.ffn.matrices
    )
    assert b.shape.stored_bytes == lin + 4 * rows + 2 * other


def test_qwen3_vl_vision_tower_is_counted_for_the_weights_vllm_loads():
    """Hand count from transformers' modeling_qwen3_vl.py (Conv3d patch embedding with bias, 2,304 position
    embeddings, 24 blocks of LayerNorms + fused qkv + proj + fc1/fc2 with biases, the final and 3 DeepStack
    mergers): 415,347,712. With the 4,022,468,096-parameter text model: 4,437,815,808, the Hub's "4.44B"."""
    vc = json.loads((ROOT / "data/models/qwen3-vl-4b-vision.json").read_text(encoding="utf-8"))
    tc = json.loads((ROOT / "data/models/qwen3-vl-4b-text.json").read_text(encoding="utf-8"))
    strip = lambda d: {k: v for k, v in d.items() if not k.startswith("_")}  # noqa: E731
    a = mc.analyze({"model_type": "qwen3_vl", "text_config": strip(tc), "vision_config": strip(vc)})
    assert a.shape.vision_params == 415_347_712
    assert a.shape.params_total + a.shape.vision_params == 4_437_815_808
    assert mc.derived(a)["params_vision"] == 415_347_712


def test_a_vision_tower_it_cannot_count_is_named_not_silently_dropped():
    cfg_ = QWEN35_35B_A3B  # its vision_config here only has depth
    d = mc.derive(cfg_)
    assert d["params_vision"] == 0 and "vision_config" in d["defaults_used"]


NEMOTRON_H_8B = {  # nvidia Nemotron-H-8B: transformers' / vLLM's NemotronHConfig defaults are this model's
    "architectures": ["NemotronHForCausalLM"],
    "model_type": "nemotron_h",
    "hidden_size": 4096,
    "intermediate_size": 21504,
    "num_hidden_layers": 52,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "attention_head_dim": 128,
    "hybrid_override_pattern": "M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M-",
    "mamba_num_heads": 128,
    "mamba_head_dim": 64,
    "n_groups": 8,
    "ssm_state_size": 128,
    "conv_kernel": 4,
    "use_conv_bias": True,
    "use_bias": False,
    "vocab_size": 131072,
    "tie_word_embeddings": False,
}


def test_nemotron_h_hand_count_from_transformers_modeling():
    """Hand count from transformers' modeling_nemotron_h.py (NemotronHBlock = one RMSNorm + one of Mamba2Mixer /
    attention / NemotronHMLP): 24 Mamba-2, 4 attention and 24 MLP blocks. The name says 8B: 8.10B."""
    h, ff, V = 4096, 21504, 131072
    inter, conv_dim, nh = 128 * 64, 128 * 64 + 2 * 8 * 128, 128
    mamba = h * (inter + conv_dim + nh) + inter * h + conv_dim * 4 + conv_dim + 3 * nh + inter + h
    attn = h * 32 * 128 + 2 * h * 8 * 128 + 32 * 128 * h + h
    mlp = 2 * h * ff + h
    want = 24 * mamba + 4 * attn + 24 * mlp + h + 2 * V * h
    d = mc.derive(NEMOTRON_H_8B)
    assert d["params_total"] == want == 8_100_852_736
    assert d["kv_bytes_per_token"] == 4 * 2 * 8 * 128 * 2  # only the 4 attention blocks hold KV
    assert d["state_bytes_per_sequence"] == 24 * (conv_dim * 3 * 2 + nh * 64 * 128 * 2)
    assert d["n_linear_attention_layers"] == 24


def test_nemotron_h_moe_blocks_and_bad_patterns_are_refused_by_field():
    for bad in ("M" * 51, "M" * 51 + "E", "M" * 51 + "x"):
        with pytest.raises(mc.ConfigError) as e:
            mc.analyze({**NEMOTRON_H_8B, "hybrid_override_pattern": bad})
        assert e.value.field == "hybrid_override_pattern"


GRANITE_4_H_SMALL = {  # ibm-granite/granite-4.0-h-small config.json fields as quoted (search: "granitemoehybrid"):
    # 40 layers tallied {"mamba": 36, "attention": 4}; the placement does not change any count
    "architectures": ["GraniteMoeHybridForCausalLM"],
    "model_type": "granitemoehybrid",
    "hidden_size": 4096,
    "num_hidden_layers": 40,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "num_local_experts": 72,
    "num_experts_per_tok": 10,
    "shared_intermediate_size": 1536,
    "intermediate_size": 768,
    "mamba_d_state": 128,
    "mamba_d_conv": 4,
    "mamba_expand": 2,
    "tie_word_embeddings": True,
    "vocab_size": 100352,
    "torch_dtype": "bfloat16",
    "layer_types": (["mamba"] * 9 + ["attention"]) * 4,
}


def test_granite_4_h_small_matches_its_model_card_32b_total_9b_active():
    """Independent: IBM's model card, "32B total parameters, 9B active". Mamba head count, groups and head size
    are not in the quoted fields: the transformers defaults are taken and named."""
    d = mc.derive(GRANITE_4_H_SMALL)
    assert round(d["params_total"] / 1e9) == 32 and round(d["params_active"] / 1e9) == 9
    assert d["kv_bytes_per_token"] == 4 * 2 * 8 * 128 * 2
    assert {"mamba_n_heads", "mamba_n_groups", "mamba_d_head"} <= set(d["defaults_used"])
    assert d["n_linear_attention_layers"] == 36 and d["state_bytes_per_sequence"] > 0


def test_granite_hybrid_hand_count_on_a_small_config():
    """Hand count from transformers' modeling_granitemoehybrid.py on the documentation's 8-layer example config:
    per layer 2 RMSNorms + (Mamba-2 or attention) + MoE (E × 3·h·ff + router E×h) + shared MLP 3·h·sff."""
    toy = {
        "architectures": ["GraniteMoeHybridForCausalLM"],
        "model_type": "granitemoehybrid",
        "attention_bias": False,
        "hidden_size": 512,
        "intermediate_size": 1024,
        "layer_types": ["mamba", "mamba", "mamba", "attention", "mamba", "mamba", "mamba", "attention"],
        "mamba_conv_bias": True,
        "mamba_d_conv": 4,
        "mamba_d_head": 128,
        "mamba_d_state": 128,
        "mamba_expand": 2,
        "mamba_n_groups": 1,
        "mamba_n_heads": 8,
        "mamba_proj_bias": False,
        "num_attention_heads": 8,
        "num_experts_per_tok": 2,
        "num_hidden_layers": 8,
        "num_key_value_heads": 8,
        "num_local_experts": 8,
        "shared_intermediate_size": 512,
        "tie_word_embeddings": True,
        "vocab_size": 49152,
    }
    h, ff, sff, E, V = 512, 1024, 512, 8, 49152
    inter, conv, nh = 8 * 128, 8 * 128 + 2 * 1 * 128, 8
    mamba = h * (inter + conv + nh) + inter * h + conv * 4 + conv + 3 * nh + inter
    attn = 4 * h * h
    ffn = E * 3 * h * ff + E * h + 3 * h * sff
    want = 6 * mamba + 2 * attn + 8 * (ffn + 2 * h) + h + V * h
    assert mc.derive(toy)["params_total"] == want


MINISTRAL_3_3B = {  # mistralai/Ministral-3-3B-Instruct-2512: Mistral3ForConditionalGeneration with a ministral3 text_config
    "architectures": ["Mistral3ForConditionalGeneration"],
    "model_type": "mistral3",
    "vision_config": {"model_type": "pixtral", "hidden_size": 1024},
    "text_config": {
        "model_type": "ministral3",
        "hidden_size": 3072,
        "num_hidden_layers": 26,
        "intermediate_size": 9216,
        "num_attention_heads": 32,
        "num_key_value_heads": 8,
        "head_dim": 128,
        "vocab_size": 131072,
        "tie_word_embeddings": True,
        "sliding_window": None,
    },
}


def test_ministral3_hand_count_and_the_vision_tower_it_does_not_count_is_named():
    """Hand count from transformers' modeling_ministral3.py (the Mistral decoder): q/k/v/o without bias, SwiGLU,
    two RMSNorms, tied embedding — 3.43B, Mistral's "3.4B language model"; the Pixtral tower is named, not counted."""
    h, L, ff, V = 3072, 26, 9216, 131072
    per = h * 4096 + 2 * h * 1024 + 4096 * h + 3 * h * ff + 2 * h
    d = mc.derive(MINISTRAL_3_3B)
    assert d["params_total"] == L * per + h + V * h
    assert round(d["params_total"] / 1e9, 1) == 3.4
    assert d["sliding_window"] is None and "vision_config" in d["defaults_used"]


FALCON_H1_DEFAULTS = {  # transformers' FalconH1Config defaults (configuration_falcon_h1.py), the fields that size it
    "architectures": ["FalconH1ForCausalLM"],
    "model_type": "falcon_h1",
    "hidden_size": 4096,
    "intermediate_size": 14336,
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "vocab_size": 128000,
    "mamba_d_ssm": 1024,
    "mamba_n_heads": 128,
    "mamba_d_head": "auto",
    "mamba_n_groups": 1,
    "mamba_d_state": 256,
    "mamba_d_conv": 4,
    "mamba_conv_bias": True,
    "mamba_proj_bias": False,
    "mamba_rms_norm": False,
    "projectors_bias": False,
    "tie_word_embeddings": False,
}


def test_falcon_h1_hand_count_attention_and_mamba_in_every_layer():
    """Hand count from transformers' modeling_falcon_h1.py: every layer holds attention (q/k/v/o), a Mamba-2
    mixer (in_proj h × (d_ssm + conv_dim + heads), out_proj, conv1d with bias, dt_bias/A_log/D; no gated norm
    when mamba_rms_norm is false), a SwiGLU MLP and two RMSNorms. Both caches in every layer: KV per token and
    the Mamba state per sequence; the auto head size (d_ssm / heads = 8) is named."""
    h, ff, L, V = 4096, 14336, 32, 128000
    d_ssm, heads, state = 1024, 128, 256
    conv_dim = d_ssm + 2 * 1 * state
    attn = h * (4096 + 1024 + 1024) + 4096 * h
    mamba = h * (d_ssm + conv_dim + heads) + d_ssm * h + conv_dim * 4 + conv_dim + 3 * heads
    per = attn + mamba + 3 * h * ff + 2 * h
    d = mc.derive(FALCON_H1_DEFAULTS)
    assert d["params_total"] == L * per + h + 2 * V * h
    assert d["kv_bytes_per_token"] == L * 2 * 8 * 128 * 2
    assert d["state_bytes_per_sequence"] == L * (conv_dim * 3 * 2 + heads * 8 * state * 2)
    assert d["defaults_used"]["mamba_d_head"] == 8


def test_mtp_layers_are_recorded_and_sized_not_dropped():
    """DeepSeek-V3: one MTP module (num_nextn_predict_layers = 1) = a MoE decoder layer + eh_proj 2h→h + two
    norms + its own stored embedding and head. DeepSeek's card: 685B in total with the MTP module (671B + 14B);
    this count gives 684.5B, within 0.1 %."""
    d = mc.derive(cfg("deepseek-v3"))
    assert d["mtp_layers"] == 1 and abs((d["params_total"] + d["params_mtp"]) / 685e9 - 1) < 0.001
    q = mc.derive(QWEN35_35B_A3B)  # mtp_num_hidden_layers = 1: a full-attention MoE layer + fc, no own vocabulary
    assert q["mtp_layers"] == 1 and 0 < q["params_mtp"] < 2e9
