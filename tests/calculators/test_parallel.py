"""Tensor parallel per-GPU bytes, KV head split/replication, MLA latent, sliding windows, ring all-reduce
traffic, MoE distinct experts — numbers worked by hand from the configs (shapes in the comments)."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
from app.calculators import parallel as par
from app.calculators.model_config import shape_of
from app.data import model_config

CONFIGS = Path(__file__).resolve().parent.parent / "data" / "configs"


def shape(name: str):
    p = CONFIGS / f"{name}.json"
    cfg = (
        {k: v for k, v in json.loads(p.read_text(encoding="utf-8")).items() if not k.startswith("_")}
        if p.exists()
        else model_config(name)
    )
    return shape_of(cfg)


def test_kv_heads_split_then_replicate():
    assert par.kv_heads_per_gpu(8, 1) == (8, False)
    assert par.kv_heads_per_gpu(8, 2) == (4, False)
    assert par.kv_heads_per_gpu(8, 8) == (1, False)
    assert par.kv_heads_per_gpu(4, 8) == (1, True)  # Qwen2.5-7B at tp 8: each head on two ranks
    assert par.kv_heads_per_gpu(5, 2) == (3, False)  # uneven: the fuller rank holds ceil(5/2)
    with pytest.raises(ValueError):
        par.kv_heads_per_gpu(8, 0)


def test_weights_split_evenly_tp2_halves():
    for name in ("qwen3-8b", "mixtral-8x7b", "deepseek-v3", "gemma-3-12b"):
        s = shape(name)
        for f in ("bf16", "fp8", "int8", "int4-g128", "nvfp4"):
            assert par.weight_bytes_per_gpu(s, f, 2) * 2 == par.weight_bytes_per_gpu(s, f, 1)
            assert par.weight_bytes_per_gpu(s, f, 8) * 8 == par.weight_bytes_per_gpu(s, f, 1)
    # Qwen3-8B BF16 over 4 ranks: 2 B × 8,190,735,360 / 4
    assert par.weight_bytes_per_gpu(shape("qwen3-8b"), "bf16", 4) == 2 * 8_190_735_360 // 4


def test_kv_per_gpu_gqa():
    # Qwen3-8B: 36 layers × 2 (K,V) × 8 KV heads × 128 × 2 B = 147,456 B; tp 2 → 4 heads per rank
    kv = par.kv_per_gpu(shape("qwen3-8b"), "bf16", 2)
    assert kv.bytes_per_token == 36 * 2 * 4 * 128 * 2 == 73_728
    assert (kv.heads_per_gpu, kv.replicated, kv.window) == (4, False, None)
    # Qwen2.5-7B at tp 8: 4 KV heads → one (replicated) head per rank, 28 × 2 × 1 × 128 × 2 B
    kv = par.kv_per_gpu(shape("qwen2.5-7b"), "bf16", 8)
    assert kv.bytes_per_token == 28 * 2 * 1 * 128 * 2 == 14_336 and kv.replicated
    # FP8 KV halves it, INT4 (4.5 bits) is 9/32 of BF16
    assert par.kv_per_gpu(shape("qwen3-8b"), "fp8", 1).bytes_per_token == 147_456 // 2
    assert par.kv_per_gpu(shape("qwen3-8b"), "int4", 1).bytes_per_token == Fraction(147_456 * 9, 32)


def test_kv_mla_latent_is_not_split():
    # DeepSeek-V3: 61 layers × (kv_lora_rank 512 + rope 64) values, the same on every rank
    for tp in (1, 2, 8):
        kv = par.kv_per_gpu(shape("deepseek-v3"), "bf16", tp)
        assert kv.bytes_per_token == 61 * 576 * 2 == 70_272 and kv.heads_per_gpu == 0
        assert kv.replicated is (tp > 1)
    assert par.kv_per_gpu(shape("deepseek-v3"), "fp8", 8).bytes_per_token == 61 * 576


def test_sliding_layers_cap_at_the_window():
    # Gemma 3 12B: 48 layers, 40 sliding (window 1024), 8 full; 8 KV heads × 256
    kv = par.kv_per_gpu(shape("gemma-3-12b"), "bf16", 1)
    per_layer = 2 * 8 * 256 * 2
    assert (kv.full_bytes_per_token, kv.window_bytes_per_token, kv.window) == (8 * per_layer, 40 * per_layer, 1024)
    assert par.seq_kv_bytes(kv, 512) == 48 * per_layer * 512
    assert par.seq_kv_bytes(kv, 32_768) == 8 * per_layer * 32_768 + 40 * per_layer * 1024
    # tp 4 splits the heads: 2 per rank
    kv4 = par.kv_per_gpu(shape("gemma-3-12b"), "bf16", 4)
    assert par.seq_kv_bytes(kv4, 32_768) * 4 == par.seq_kv_bytes(kv, 32_768)


def test_ring_allreduce_traffic():
    # 2 all-reduces per layer, each 2·(tp−1)/tp × hidden × 2 B
    assert par.allreduce_bytes_per_token_per_layer(4096, 1) == 0
    assert par.allreduce_bytes_per_token_per_layer(4096, 2) == 2 * 2 * Fraction(1, 2) * 4096 * 2 == 16_384
    assert par.allreduce_bytes_per_token_per_layer(4096, 8) == 2 * 2 * Fraction(7, 8) * 4096 * 2 == 28_672
    s = shape("qwen3-8b")  # 16 tokens, 36 layers, tp 2 over 450 GB/s
    assert par.allreduce_time(16, s, 2, 450e9) == pytest.approx(16 * 36 * 16_384 / 450e9, rel=1e-15)
    assert par.allreduce_time(16, s, 1, None) == 0.0
    with pytest.raises(ValueError, match="互连"):
        par.allreduce_time(16, s, 2, None)


def test_expected_distinct_experts():
    assert par.expected_distinct_experts(8, 2, 1) == pytest.approx(2)
    assert par.expected_distinct_experts(8, 2, 32) == pytest.approx(8 * (1 - 0.75**32))
    assert par.expected_distinct_experts(256, 8, 64) == pytest.approx(256 * (1 - (248 / 256) ** 64))
    seq = [par.expected_distinct_experts(128, 8, b) for b in (1, 2, 8, 64, 256)]
    assert seq == sorted(seq) and seq[-1] < 128 and seq[-1] == pytest.approx(128, rel=1e-6)


def test_moe_memory_uses_total_read_uses_active():
    s = shape("mixtral-8x7b")
    assert par.params_per_expert(s) == 3 * 4096 * 14_336  # one SwiGLU expert
    assert par.weight_bytes_per_gpu(s, "bf16", 1) == 2 * 46_702_792_704  # every expert held
    # batch 1 reads the active weights: 12,617,515,008 linear + LM head + norms + one embedding row
    assert par.weight_read_bytes_per_gpu(s, "bf16", 1, 1) == pytest.approx(
        2 * (12_617_515_008 + 131_072_000 + 266_240 + 4096), rel=1e-15
    )
    b32 = par.weight_read_bytes_per_gpu(s, "bf16", 1, 32)
    extra = 32 * (8 * (1 - 0.75**32) - 2) * 176_160_768
    assert b32 == pytest.approx(2 * (12_617_515_008 + extra + 131_072_000 + 266_240 + 4096), rel=1e-12)
    assert par.weight_read_bytes_per_gpu(s, "bf16", 1, 1) < b32 < par.weight_bytes_per_gpu(s, "bf16", 1)


def test_dense_read_and_flops_do_not_grow_per_token():
    s = shape("qwen3-8b")
    assert par.weight_read_bytes_per_gpu(s, "bf16", 1, 64) == par.weight_read_bytes_per_gpu(s, "bf16", 1, 1)
    # 2 × (6,945,767,424 + 151,936 × 4,096) + 4·36·32·128 × 1000 context tokens, per token
    one = 2 * (6_945_767_424 + 151_936 * 4096) + 4 * 36 * 32 * 128 * 1000
    assert par.decode_flops_per_gpu(s, 1000, 8, 2) == 8 * one / 2
