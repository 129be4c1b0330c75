"""model_config reads real public config.json files (tests/data/configs/) and counts every weight.
Exact totals where the number is well known; ≈ published figures within a stated tolerance."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from app.calculators import model_config as mc
from app.data import model_config as preset
from app.web.model_report import steps

CONFIGS = Path(__file__).resolve().parent.parent / "data" / "configs"


def cfg(name: str) -> dict:
    return {
        k: v
        for k, v in json.loads((CONFIGS / f"{name}.json").read_text(encoding="utf-8")).items()
        if not k.startswith("_")
    }


KiB = 1024

# name, total (exact), active (exact; hand-derived from the shapes), KV bytes/token (all layers, BF16)
EXACT = [
    ("qwen3-8b", 8_190_735_360, 8_190_735_360, 144 * KiB),
    ("llama-3.1-8b", 8_030_261_248, 8_030_261_248, 128 * KiB),
    ("mistral-7b-v0.3", 7_248_023_552, 7_248_023_552, 128 * KiB),
    ("qwen2.5-7b", 7_615_616_512, 7_615_616_512, 56 * KiB),
    ("gemma-2-9b", 9_241_705_984, 9_241_705_984, 42 * 2 * 8 * 256 * 2),
    ("gemma-3-12b", 11_766_034_176, 11_766_034_176, 48 * 2 * 8 * 256 * 2),
    ("mixtral-8x7b", 46_702_792_704, 12_879_925_248, 128 * KiB),
    ("qwen3-30b-a3b", 30_532_122_624, 3_353_032_704, 48 * 2 * 4 * 128 * 2),
    ("deepseek-v3", 671_026_419_200, 37_552_297_472, 70_272),
]


@pytest.mark.parametrize("name,total,active,kv", EXACT, ids=[e[0] for e in EXACT])
def test_exact_counts(name, total, active, kv):
    s = mc.shape_of(cfg(name))
    assert s.params_total == total
    assert s.params_active == active
    assert s.kv_bytes_per_token_bf16 == kv
    d = mc.derive(cfg(name))
    assert (d["params_total"], d["params_active"], d["kv_bytes_per_token"]) == (total, active, kv)


# published rounded figures: name, total, active, relative tolerance
PUBLISHED = [
    ("mixtral-8x7b", 46.7e9, 12.9e9, 0.01),
    ("qwen3-30b-a3b", 30.5e9, 3.3e9, 0.02),  # "30.5B / 3.3B": 3.353 B is 1.6 % off the rounded 3.3
    # "671B / 37B activated": 37.55 B counts the input embedding table (0.93 B) as active; 1.5 % off
    ("deepseek-v3", 671e9, 37e9, 0.02),
    ("gemma-3-12b", 12.2e9 - 0.42e9, None, 0.01),  # 12.2 B with the ≈0.42 B SigLIP vision tower
]


@pytest.mark.parametrize("name,total,active,tol", PUBLISHED, ids=[p[0] for p in PUBLISHED])
def test_published_figures(name, total, active, tol):
    s = mc.shape_of(cfg(name))
    assert s.params_total == pytest.approx(total, rel=tol)
    if active is not None:
        assert s.params_active == pytest.approx(active, rel=tol)


def test_book_presets_unchanged():
    q = mc.shape_of(preset("qwen3-8b"))
    assert (q.params_total, q.kv_bytes_per_token_bf16) == (8_190_735_360, 144 * KiB)
    d70 = mc.shape_of(preset("deepseek-r1-distill-llama-70b"))
    assert (d70.params_total, d70.kv_bytes_per_token_bf16) == (70_553_706_496, 320 * KiB)
    assert mc.weight_bytes(d70, "w8-g128") == 73_725_919_232
    for name in ("qwen3-8b", "deepseek-r1-distill-llama-70b"):  # the general reader agrees with dense_shape
        general = replace(mc.shape_of(preset(name)), stored_bytes=0, stored_label="", n_attention_layers=0)
        assert general == replace(mc.dense_shape(preset(name)), model_type=preset(name)["model_type"])


def test_qwen3_8b_store_matches_book_preset():
    assert mc.shape_of(cfg("qwen3-8b")) == mc.shape_of(preset("qwen3-8b"))


def test_mla_kv_and_projections():
    s = mc.shape_of(cfg("deepseek-v3"))
    assert s.kv_bytes_per_token_bf16 == 61 * (512 + 64) * 2 == 70_272
    h, nh = 7168, 128
    attn = h * 1536 + 1536 * nh * 192 + h * (512 + 64) + 512 * nh * (128 + 128) + nh * 128 * h
    assert attn == 187_105_280
    dense_ffn, expert = 3 * h * 18432, 3 * h * 2048
    moe_ffn = 256 * expert + expert + h * 256
    assert s.linear_params == 61 * attn + 3 * dense_ffn + 58 * moe_ffn
    assert s.active_linear_params == 61 * attn + 3 * dense_ffn + 58 * (9 * expert + h * 256)
    # norms (2 per block + q/kv latent norms) + router correction bias + final norm
    assert s.other_params == 61 * (2 * h + 1536 + 512) + 58 * 256 + h
    assert (s.n_experts, s.experts_per_token, s.n_shared_experts, s.n_moe_layers) == (256, 8, 1, 58)


def test_moe_layer_selection_qwen3():
    c = cfg("qwen3-30b-a3b")
    base = mc.shape_of(c)
    mixed = mc.shape_of({**c, "mlp_only_layers": [0, 1]})
    expert_layer = 128 * 3 * 2048 * 768 + 2048 * 128
    assert mixed.params_total == base.params_total - 2 * (expert_layer - 3 * 2048 * 6144)
    assert mixed.n_moe_layers == 46
    assert mc.shape_of({**c, "decoder_sparse_step": 2}).n_moe_layers == 24


def test_sliding_window_gemma2():
    s = mc.shape_of(cfg("gemma-2-9b"))
    per_layer = 2 * 8 * 256 * 2
    assert (s.sliding_window, s.n_sliding_layers) == (4096, 21)
    assert s.kv_full_bytes_per_token == 21 * per_layer
    assert mc.kv_bytes(s, 1000) == 1000 * 42 * per_layer  # inside the window: every layer
    assert mc.kv_bytes(s, 8192) == 8192 * 21 * per_layer + 4096 * 21 * per_layer
    assert mc.kv_bytes(s, 0) == 0


def test_sliding_window_gemma3_local_global():
    s = mc.shape_of(cfg("gemma-3-12b"))
    per_layer = 2 * 8 * 256 * 2
    assert (s.sliding_window, s.n_sliding_layers) == (1024, 40)  # layers 5, 11, …, 47 are global
    assert mc.kv_bytes(s, 131072) == 131072 * 8 * per_layer + 1024 * 40 * per_layer


def test_gemma3_multimodal_wrapper_reads_text_config():
    c = cfg("gemma-3-12b")
    text = {
        k: c[k]
        for k in (
            "hidden_size",
            "intermediate_size",
            "num_attention_heads",
            "num_hidden_layers",
            "num_key_value_heads",
            "sliding_window",
            "rope_scaling",
        )
    }
    text["model_type"] = "gemma3_text"
    wrapped = {
        "architectures": ["Gemma3ForConditionalGeneration"],
        "model_type": "gemma3",
        "text_config": text,
        "vision_config": {"model_type": "siglip_vision_model"},
    }
    assert mc.shape_of(wrapped).params_total == mc.shape_of(c).params_total


def test_explicit_layer_types_override():
    c = {**cfg("gemma-2-9b"), "layer_types": ["full_attention"] * 42}
    assert mc.shape_of(c).n_sliding_layers == 0


def test_mistral_v01_sliding_window_all_layers():
    s = mc.shape_of({**cfg("mistral-7b-v0.3"), "sliding_window": 4096, "vocab_size": 32000})
    assert s.n_sliding_layers == 32 and s.kv_full_bytes_per_token == 0
    assert mc.kv_bytes(s, 32768) == 4096 * 128 * KiB
    assert mc.kv_bytes(s, 100) == 100 * 128 * KiB


def test_qwen2_sliding_window_only_when_enabled():
    c = cfg("qwen2.5-7b")
    assert mc.shape_of(c).n_sliding_layers == 0  # use_sliding_window false
    s = mc.shape_of({**c, "use_sliding_window": True, "sliding_window": 4096, "max_window_layers": 20})
    assert s.n_sliding_layers == 8


def test_tied_embeddings_and_bias_variants():
    c = cfg("llama-3.1-8b")
    untied = mc.shape_of(c)
    tied = mc.shape_of({**c, "tie_word_embeddings": True})
    assert untied.params_total - tied.params_total == 128256 * 4096
    biased = mc.shape_of({**c, "attention_bias": True, "mlp_bias": True})
    assert biased.params_total - untied.params_total == 32 * ((4096 + 2 * 1024 + 4096) + (2 * 14336 + 4096))
    assert mc.shape_of({k: v for k, v in cfg("gemma-2-9b").items() if k != "tie_word_embeddings"}).tied


def test_derive_read_and_flops():
    d = mc.derive(cfg("mixtral-8x7b"))
    s = mc.shape_of(cfg("mixtral-8x7b"))
    assert d["weight_read_bytes_per_token"] == 2 * (s.params_active - 32000 * 4096 + 4096)
    assert d["flops_per_token"] == 2 * (s.active_linear_params + 32000 * 4096)
    assert d["architecture"] == "MoE 8 选 2 + GQA"
    assert any("46,702,792,704" in x for x in steps(mc.analyze(cfg("mixtral-8x7b"))))
    g = mc.derive(cfg("gemma-2-9b"))  # tied: the LM head reads the table
    assert g["weight_read_bytes_per_token"] == 2 * g["params_active"]
    ds = mc.derive(cfg("deepseek-v3"))
    assert any("70,272" in x for x in steps(mc.analyze(cfg("deepseek-v3")))) and "MLA" in ds["architecture"]


def test_sliding_attention_flops_capped():
    s = mc.shape_of(cfg("gemma-2-9b"))
    lin = 2 * (s.active_linear_params + s.lm_head_matrix_params)
    per = mc.attn_flops_per_context_token(s) / 42
    assert mc.decode_flops(s, 8192) == pytest.approx(lin + per * (21 * 8192 + 21 * 4096))
    n, w = 8192, 4096
    pairs = 21 * n * (n + 1) / 2 + 21 * (w * (w + 1) / 2 + (n - w) * w)
    assert mc.prefill_flops(s, n) == pytest.approx(
        2 * s.active_linear_params * n + 2 * s.lm_head_matrix_params + per * pairs
    )


BAD = [
    ({k: v for k, v in cfg("llama-3.1-8b").items() if k != "num_hidden_layers"}, "缺少字段 num_hidden_layers"),
    ({**cfg("llama-3.1-8b"), "model_type": "bert", "architectures": ["BertModel"]}, "不支持的架构"),
    ({"hidden_size": 4096}, "缺少字段 model_type"),
    ({k: v for k, v in cfg("mixtral-8x7b").items() if k != "num_local_experts"}, "缺少字段 num_local_experts"),
    ({k: v for k, v in cfg("deepseek-v3").items() if k != "kv_lora_rank"}, "缺少字段 kv_lora_rank"),
    ({k: v for k, v in cfg("gemma-2-9b").items() if k != "sliding_window"}, "缺少字段 sliding_window"),
    ({**cfg("llama-3.1-8b"), "hidden_size": -1}, "hidden_size 应为正整数"),
    ({**cfg("llama-3.1-8b"), "num_hidden_layers": 10**9}, "num_hidden_layers 过大"),
    ({"model_type": "gemma3", "text_config": None}, "缺少字段 text_config"),
    ({**cfg("qwen3-30b-a3b"), "num_experts_per_tok": 200}, "大于专家数"),
]


@pytest.mark.parametrize("bad,reason", BAD, ids=[b[1] for b in BAD])
def test_bad_configs(bad, reason):
    with pytest.raises(mc.ConfigError, match=reason):
        mc.derive(bad)


def test_architecture_from_architectures_when_model_type_missing():
    c = {k: v for k, v in cfg("llama-3.1-8b").items() if k != "model_type"}
    assert mc.shape_of(c).params_total == 8_030_261_248
