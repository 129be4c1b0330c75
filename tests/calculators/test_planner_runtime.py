"""The planner against what serving engines log (issue 24): memory as the runtime reports it, vLLM's and
SGLang's KV sizes from public logs, the two verdicts, what would make a model fit, the checkpoint's own weight
format, a hybrid model's constant state and the interconnect by topology. Every expected number is worked out
here from the log or the hand rule named beside it."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from app.calculators import parallel as par
from app.calculators import planner as pl
from app.calculators.model_config import shape_of
from app.data import gpu

CONFIGS = Path(__file__).resolve().parent.parent / "data" / "configs"
GiB = 2**30


def cfg(name: str) -> dict:
    raw = json.loads((CONFIGS / f"{name}.json").read_text(encoding="utf-8"))
    return {k: v for k, v in raw.items() if not k.startswith("_")}


def runtime(gid: str, tp: int = 1) -> pl.Accelerator:
    g = gpu(gid)
    link = par.link_for_tp(g.topology, g.interconnect_bytes_s, g.link_peer_bytes_s, tp)
    return pl.Accelerator(g.runtime_mem_bytes, g.bw_bytes_s, g.peaks_flops(), link)


def test_engine_parity_llama3_8b_h100_vllm_pr10511():
    """vllm PR #10511 (`vllm serve meta-llama/Meta-Llama-3-8B`, one H100): total_gpu_memory 79.22 GiB,
    gpu_memory_utilization 0.90, weights 14.96 GiB, non-torch 1.79 GiB + activation peak 1.26 GiB, and
    "GPU KV cache size: 436,551 tokens". Meta-Llama-3-8B has the shape of tests/data/configs/llama-3.1-8b.json
    (32 layers, 8 KV heads of 128, vocab 128256). The planner with the H100 preset's driver memory, BF16 and
    a 3.3 GB reserve lands within 2 %."""
    assert gpu("h100-sxm").mem_bytes == round(79.22 * GiB)
    p = pl.plan(shape_of(cfg("llama-3.1-8b")), runtime("h100-sxm"), mem_util=0.9, reserve_bytes=3.3e9)
    assert p.weights_per_gpu_bytes / GiB == pytest.approx(14.96, abs=0.005)  # the log's "model weights take"
    assert p.kv_capacity_tokens == pytest.approx(436_551, rel=0.02)
    assert abs(p.kv_capacity_tokens / 436_551 - 1) < 0.001  # −0.04 % in fact
    # the marketed 80 GB would be 9 % low — the error the issue reports
    marketed = pl.plan(
        shape_of(cfg("llama-3.1-8b")), pl.Accelerator(80e9, 3.35e12, {"bf16": 989.4e12}), reserve_bytes=3.3e9
    )
    assert marketed.kv_capacity_tokens / 436_551 - 1 == pytest.approx(-0.09, abs=0.01)


def test_vllm_21348_qwen3_235b_fp8_tp4_kv_tokens():
    """vllm#21348: Qwen3-235B-A22B-FP8 on 4 × H100, "Available KV cache memory: 8.11 GiB", "GPU KV cache size:
    178,880 tokens". KV per token per GPU at tp 4: 94 layers × 2 × 1 of the 4 KV heads × 128 × 2 B."""
    kv = par.kv_per_gpu(shape_of(cfg("qwen3-235b-a22b")), "bf16", 4)
    assert kv.bytes_per_token == 94 * 2 * 1 * 128 * 2 == 48_128
    assert math.floor(8.11 * GiB / kv.bytes_per_token) == pytest.approx(178_880, rel=0.02)


def test_sglang_21348_qwen3_235b_fp8_tp4_k_size():
    """The same issue's SGLang log: "KV Cache is allocated. #tokens: 367404, K size: 8.23 GB" (GiB): the K half
    of the per-GPU KV for 367,404 tokens."""
    kv = par.kv_per_gpu(shape_of(cfg("qwen3-235b-a22b")), "bf16", 4)
    assert 367_404 * kv.bytes_per_token / 2 / GiB == pytest.approx(8.23, rel=0.01)


def test_model_does_not_fit_no_step_no_negative_budget_and_the_ways_out():
    """Llama-3-8B-shaped 70B (DeepSeek-R1-Distill-Llama-70B) in BF16 on one H100: 141.1 GB of weights."""
    from app.data import model_config

    s = shape_of(model_config("deepseek-r1-distill-llama-70b"))
    a = runtime("h100-sxm")
    p = pl.plan(s, a, reserve_bytes=3.3e9)
    usable = round(0.9 * gpu("h100-sxm").mem_bytes)
    assert not p.model_fits and not p.fits
    assert p.t_step_lb_ms is None and p.tokens_per_s_ideal is None
    assert p.model_short_bytes == 2 * 70_553_706_496 + 3.3e9 - usable
    assert p.kv_capacity_tokens == 0 and p.max_concurrency_at_context == 0
    mems = {g: gpu(g).runtime_mem_bytes for g in ("h200-sxm", "b200", "mi300x", "rtx-4090")}
    alt = pl.fit_alternatives(
        s,
        tp=1,
        weight_format="bf16",
        mem_bytes=gpu("h100-sxm").runtime_mem_bytes,
        mem_util=0.9,
        reserve_bytes=3.3e9,
        formats=["fp8", "int4-g128"],
        accelerators=mems,
    )
    # tp 2: 70.55 GB + 3.3 GB ≤ 76.56 GB; FP8: linear at 1 B; 144.4 GB needs more than an H200's
    # 0.9 × 150.76 GB = 135.7 GB: the smallest preset that holds it is the B200 (0.9 × 192.3 GB)
    assert alt.tp == 2 and alt.weight_format == "fp8" and alt.accelerator == "b200"
    assert pl.plan(s, a, tp=2, reserve_bytes=3.3e9).model_fits


def test_model_fits_batch_does_not_are_two_answers():
    s = shape_of(cfg("qwen3-8b"))
    p = pl.plan(s, runtime("h100-sxm"), context=65_536, concurrency=200)
    assert p.model_fits and not p.fits
    assert p.t_step_lb_ms is not None and p.batch_kv_bytes == 200 * 65_536 * 147_456 > p.kv_budget_bytes > 0


def test_checkpoint_format_gpt_oss_120b_fits_one_h100():
    """gpt-oss-120b as stored (MXFP4 experts): 65.25 GB, fits an 80 GB H100 with room for KV; in BF16 it would
    need 233.7 GB. MXFP4 is weight-only here: the BF16 peak."""
    s = shape_of(cfg("gpt-oss-120b"))
    a = runtime("h100-sxm")
    stored = pl.plan(s, a, weight_format="stored")
    assert stored.weights_per_gpu_bytes == s.stored_bytes and stored.model_fits and stored.kv_capacity_tokens > 0
    assert not pl.plan(s, a, weight_format="bf16").model_fits
    assert stored.peak.used == "bf16" and not stored.peak.fell_back
    # one token reads 4 of 128 experts per layer: the untouched 124 at their stored 4.25 bits leave the read
    expert = s.stored_expert_bytes
    assert expert == (2880 * 5760 + 2880 * 2880) * 4.25 / 8
    untouched = 128 - par.expected_distinct_experts(128, 4, 1)
    want = s.stored_bytes - 36 * untouched * expert - 2 * (201_088 * 2880 - 2880)
    assert stored.weight_read_bytes_per_gpu == pytest.approx(want, rel=1e-12)


def test_fp8_checkpoint_runs_at_the_fp8_peak():
    c = {**cfg("qwen3-235b-a22b"), "quantization_config": {"quant_method": "fp8", "weight_block_size": [128, 128]}}
    p = pl.plan(shape_of(c), runtime("h100-sxm", 4), tp=4, weight_format="stored")
    assert p.peak.used == "fp8" and p.peak.flops == 1979e12


def test_hybrid_state_is_part_of_every_sequence():
    """Qwen3-Next-80B: 12 full-attention layers of KV per token plus 39,518,208 B of state per sequence."""
    s = shape_of(cfg("qwen3-next-80b-a3b"))
    p = pl.plan(s, runtime("b200"), context=4096, concurrency=8)
    assert p.kv_bytes_per_token_per_gpu == 12 * 2 * 2 * 256 * 2
    assert p.memory.kv == 8 * (4096 * 24_576 + 39_518_208)
    n = p.max_context_at_concurrency
    assert 8 * (24_576 * n + 39_518_208) <= p.kv_budget_bytes < 8 * (24_576 * (n + 1) + 39_518_208)
    half = pl.plan(s, runtime("b200", 2), tp=2, context=4096, concurrency=8)
    assert half.state_bytes_per_seq_per_gpu == 39_518_208 / 2


@pytest.mark.parametrize("gid", ["mi300x", "mi325x"])
@pytest.mark.parametrize("tp,links", [(2, 1), (4, 3), (8, 7)])
def test_mi300x_mesh_gives_tp_minus_one_links(gid, tp, links):
    """MI300X / MI325X Infinity Fabric (the MI325X platform is a drop-in MI300X board): 7 point-to-point links
    of 64 GB/s per direction; tp ranks reach tp − 1 peers."""
    a = runtime(gid, tp)
    assert a.link_bytes_s == links * 64e9
    s = shape_of(cfg("llama-3.1-8b"))
    p = pl.plan(s, a, tp=tp, concurrency=4)
    assert p.t_allreduce_s == pytest.approx(4 * 32 * (2 * 2 * (tp - 1) / tp * 4096 * 2) / (links * 64e9), rel=1e-12)


def test_switched_fabric_same_link_at_any_tp():
    for tp in (2, 4, 8):
        assert runtime("h100-sxm", tp).link_bytes_s == 450e9
        assert runtime("rtx-4090", tp).link_bytes_s == 32e9  # PCIe: the card's own link


def test_measured_over_bound_and_decode_context():
    assert pl.decode_context(2048, 256) == 2176
    assert pl.measured_over_bound_pct(26.5, 8.625) == pytest.approx(307.2, abs=0.05)
