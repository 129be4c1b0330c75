"""The planner on 13 hand-worked configurations (dense GQA, sliding-window / local-global, MoE, MLA; tp 1–8;
every weight and KV format), every contract output compared, plus the invariants.

Each case writes out, from the config's shape (numbers in the comments), the per-GPU weight bytes, the KV
bytes per token of the full and the sliding layers, the weights one step reads, one sequence's decode
FLOPs and the all-reduce time. ``expected`` then applies the definitions of planner.py's docstring with
plain floor arithmetic: budget = mem_util·memory − weights − reserve; capacity = floor(budget / kv per
token); the longest context n at concurrency C solves C·(full·n + window·min(n, W)) ≤ budget; the step
bound is max(R/β, F/Π) + t_allreduce."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from fractions import Fraction as F
from pathlib import Path

import pytest
from app.calculators import planner as pl
from app.calculators.model_config import shape_of
from app.data import gpu, model_config

CONFIGS = Path(__file__).resolve().parent.parent / "data" / "configs"
RESERVE = 3_300_000_000  # pl.DEFAULT_RESERVE_BYTES: vLLM's profile of an 8B model on one H100 (PR #10511)
TENTH9 = F(9, 10)


def shape(name: str):
    p = CONFIGS / f"{name}.json"
    cfg = (
        {k: v for k, v in json.loads(p.read_text(encoding="utf-8")).items() if not k.startswith("_")}
        if p.exists()
        else model_config(name)
    )
    return shape_of(cfg)


def acc(gid: str) -> pl.Accelerator:
    g = gpu(gid)
    return pl.Accelerator(g.marketed_mem_bytes, g.bw_bytes_s, g.peaks_flops(), g.interconnect_bytes_s)


@dataclass
class Case:
    model: str
    gpu: str
    tp: int
    wf: str
    kvf: str
    context: int
    conc: int
    mem: int  # bytes
    weights: F  # per GPU
    kv_full: F  # per token per GPU, full-attention layers
    kv_win: F  # per token per GPU, sliding layers
    window: int | None
    read: float  # weights one step reads, per GPU
    flops_seq: float  # one sequence's decode FLOPs at `context`, whole model
    bw: float
    peak: float
    comm: float  # all-reduce time of the step
    fits: bool


def expected(c: Case) -> dict:
    budget = TENTH9 * c.mem - c.weights - RESERVE
    per_tok = c.kv_full + c.kv_win
    held = min(c.context, c.window) if c.window else c.context
    seq = c.kv_full * c.context + c.kv_win * held
    per_seq = budget / c.conc
    n = math.floor(per_seq / per_tok) if budget > 0 else 0
    if c.window and n >= c.window:
        n = math.floor((per_seq - c.kv_win * c.window) / c.kv_full)
    kv_read = c.conc * seq
    t = max((c.read + float(kv_read)) / c.bw, c.conc * c.flops_seq / c.tp / c.peak) + c.comm
    model_fits = c.weights + RESERVE <= TENTH9 * c.mem
    return {
        "weights_per_gpu_bytes": float(c.weights),
        "kv_bytes_per_token_per_gpu": float(per_tok),
        "kv_capacity_tokens": math.floor(budget / per_tok) if budget > 0 else 0,
        "max_context_at_concurrency": n,
        "max_concurrency_at_context": math.floor(budget / seq) if budget > 0 else 0,
        "fits": c.fits,
        "model_fits": model_fits,
        "t_step_lb_ms": t * 1e3 if model_fits else None,  # no step to bound when the model does not fit
        "tokens_per_s_ideal": c.conc / t if model_fits else None,
    }


def qwen3_flops(ctx):  # 2·(6,945,767,424 + 151,936·4,096) + 4·36·32·128·ctx
    return 2 * (6_945_767_424 + 151_936 * 4096) + 4 * 36 * 32 * 128 * ctx


def llama8_flops(ctx):  # 2·(6,979,321,856 + 128,256·4,096) + 4·32·32·128·ctx
    return 2 * (6_979_321_856 + 128_256 * 4096) + 4 * 32 * 32 * 128 * ctx


QWEN3_READ = 6_945_767_424, 622_329_856 + 308_224 + 4096  # linear; LM head + norms + one embedding row
LLAMA8_READ = 6_979_321_856, 525_336_576 + 266_240 + 4096
DSV3_EXPERT = 3 * 7168 * 2048  # 44,040,192 per routed expert

CASES = {
    # 1 dense GQA, BF16 everything, one H100. Qwen3-8B: 8,190,735,360 params; KV 36·2·8·128·2 B
    "qwen3-h100-tp1-bf16": Case(
        "qwen3-8b",
        "h100-sxm",
        1,
        "bf16",
        "bf16",
        8192,
        16,
        80_000_000_000,
        F(2 * 8_190_735_360),
        F(36 * 2 * 8 * 128 * 2),
        F(0),
        None,
        2.0 * sum(QWEN3_READ),
        qwen3_flops(8192),
        3.35e12,
        989.4e12,
        0.0,
        True,
    ),
    # 2 FP8 weights run at the FP8 peak; tp 2 splits 8 KV heads into 4; all-reduce over NVLink 450 GB/s
    "qwen3-h100-tp2-fp8": Case(
        "qwen3-8b",
        "h100-sxm",
        2,
        "fp8",
        "fp8",
        32_768,
        32,
        80_000_000_000,
        F(6_945_767_424 + 2 * (8_190_735_360 - 6_945_767_424), 2),
        F(36 * 2 * 4 * 128 * 1),
        F(0),
        None,
        (QWEN3_READ[0] * 1 + QWEN3_READ[1] * 2) / 2,
        qwen3_flops(32_768),
        3.35e12,
        1979e12,
        32 * 36 * (2 * 2 * 0.5 * 4096 * 2) / 450e9,
        True,
    ),
    # 3 tp 8 > 4 KV heads: one replicated head per rank; INT4 g128 weights (4.125 bits) compute in BF16
    "qwen25-h100-tp8-int4": Case(
        "qwen2.5-7b",
        "h100-sxm",
        8,
        "int4-g128",
        "bf16",
        16_384,
        64,
        80_000_000_000,
        (F(6_525_288_448 * 33, 64) + 2 * (7_615_616_512 - 6_525_288_448)) / 8,
        F(28 * 2 * 1 * 128 * 2),
        F(0),
        None,
        (6_525_288_448 * 4.125 / 8 + 2 * (544_997_376 + 333_312 + 3584)) / 8,
        2 * (6_525_288_448 + 152_064 * 3584) + 4 * 28 * 28 * 128 * 16_384,
        3.35e12,
        989.4e12,
        64 * 28 * (2 * 2 * 7 / 8 * 3584 * 2) / 450e9,
        True,
    ),
    # 4 weight-only INT8 on an RTX 4090 (BF16 peak 165.2), INT4 KV at 4.5 bits
    "llama8-4090-int8-kvint4": Case(
        "llama-3.1-8b",
        "rtx-4090",
        1,
        "int8",
        "int4",
        4096,
        8,
        24_000_000_000,
        F(6_979_321_856 + 2 * (8_030_261_248 - 6_979_321_856)),
        F(32 * 2 * 8 * 128 * 9, 16),
        F(0),
        None,
        LLAMA8_READ[0] * 1.0 + LLAMA8_READ[1] * 2,
        llama8_flops(4096),
        1.008e12,
        165.2e12,
        0.0,
        True,
    ),
    # 5 local-global (Gemma 3 12B: 40 of 48 layers slide over 1024 tokens; tied embeddings read whole)
    "gemma3-h200-swa": Case(
        "gemma-3-12b",
        "h200-sxm",
        1,
        "bf16",
        "bf16",
        32_768,
        8,
        141_000_000_000,
        F(2 * 11_766_034_176),
        F(8 * 2 * 8 * 256 * 2),
        F(40 * 2 * 8 * 256 * 2),
        1024,
        2.0 * (10_758_389_760 + 765_696 + 1_006_878_720),
        2 * (10_758_389_760 + 262_208 * 3840) + 4 * 48 * 16 * 256 * (8 * 32_768 + 40 * 1024) / 48,
        4.8e12,
        989.5e12,
        0.0,
        True,
    ),
    # 6 alternating sliding (Gemma 2 9B, window 4096) below the window; L40S pair over PCIe 32 GB/s; FP8
    "gemma2-l40s-tp2-fp8": Case(
        "gemma-2-9b",
        "l40s",
        2,
        "fp8",
        "fp8",
        2048,
        4,
        48_000_000_000,
        F(8_323_596_288 + 2 * (9_241_705_984 - 8_323_596_288), 2),
        F(21 * 2 * 4 * 256),
        F(21 * 2 * 4 * 256),
        4096,
        (8_323_596_288 * 1 + 2 * (605_696 + 917_504_000)) / 2,
        2 * (8_323_596_288 + 256_000 * 3584) + 4 * 42 * 16 * 256 * 2048,
        0.864e12,
        733e12,
        4 * 42 * (2 * 2 * 0.5 * 3584 * 2) / 32e9,
        True,
    ),
    # 7 MoE (Mixtral 8×7B): memory holds all 8 experts, the step reads the 8·(1 − (6/8)^32) a batch of 32 touches
    "mixtral-h100-tp4-kvfp8": Case(
        "mixtral-8x7b",
        "h100-sxm",
        4,
        "bf16",
        "fp8",
        8192,
        32,
        80_000_000_000,
        F(2 * 46_702_792_704, 4),
        F(32 * 2 * 2 * 128),
        F(0),
        None,
        2 * (12_617_515_008 + 32 * (8 * (1 - 0.75**32) - 2) * 176_160_768 + 131_072_000 + 266_240 + 4096) / 4,
        2 * (12_617_515_008 + 32_000 * 4096) + 4 * 32 * 32 * 128 * 8192,
        3.35e12,
        989.4e12,
        32 * 32 * (2 * 2 * 0.75 * 4096 * 2) / 450e9,
        True,
    ),
    # 8 MoE with 128 experts top-8 (Qwen3-30B-A3B) on one H20, FP8 weights at its FP8 peak 296
    "qwen3moe-h20-fp8": Case(
        "qwen3-30b-a3b",
        "h20",
        1,
        "fp8",
        "bf16",
        4096,
        64,
        96_000_000_000,
        F(29_909_581_824 + 2 * (30_532_122_624 - 29_909_581_824)),
        F(48 * 2 * 4 * 128 * 2),
        F(0),
        None,
        (2_730_491_904 + 48 * (128 * (1 - (120 / 128) ** 64) - 8) * 3 * 2048 * 768) * 1
        + 2 * (311_164_928 + 210_944 + 2048),
        2 * (2_730_491_904 + 151_936 * 2048) + 4 * 48 * 32 * 128 * 4096,
        4.0e12,
        296e12,
        0.0,
        True,
    ),
    # 9 MLA + MoE (DeepSeek-V3) on 8 B200, NVFP4 weights (4.5 bits) at the FP4 peak, FP8 latent on every rank
    "dsv3-b200-tp8-nvfp4": Case(
        "deepseek-v3",
        "b200",
        8,
        "nvfp4",
        "fp8",
        16_384,
        32,
        180_000_000_000,
        (F(669_172_039_680 * 9, 16) + 2 * (671_026_419_200 - 669_172_039_680)) / 8,
        F(61 * 576),
        F(0),
        None,
        (
            (35_697_917_952 + 58 * (256 * (1 - (248 / 256) ** 32) - 8) * DSV3_EXPERT) * 4.5 / 8
            + 2 * (926_679_040 + 1_021_440 + 7168)
        )
        / 8,
        2 * (35_697_917_952 + 129_280 * 7168) + 2 * 61 * 128 * (192 + 128) * 16_384,
        7.7e12,  # the shipping HGX B200's 7.7 TB/s (data/gpus.json)
        9000e12,
        32 * 61 * (2 * 2 * 7 / 8 * 7168 * 2) / 900e9,
        True,
    ),
    # 10 does not fit: DeepSeek-V3 in BF16 on 8 H800 needs 2·671 GB / 8 ≈ 168 GB per 80 GB GPU
    "dsv3-h800-tp8-bf16-nofit": Case(
        "deepseek-v3",
        "h800-sxm",
        8,
        "bf16",
        "bf16",
        4096,
        1,
        80_000_000_000,
        F(2 * 671_026_419_200, 8),
        F(61 * 576 * 2),
        F(0),
        None,
        2 * (35_697_917_952 + 926_679_040 + 1_021_440 + 7168) / 8,
        2 * (35_697_917_952 + 129_280 * 7168) + 2 * 61 * 128 * (192 + 128) * 4096,
        3.35e12,
        989.4e12,
        1 * 61 * (2 * 2 * 7 / 8 * 7168 * 2) / 200e9,
        False,
    ),
    # 11 NVFP4 on an RTX 5090 uses its FP4 peak (1676); FP8 KV
    "qwen3-5090-nvfp4": Case(
        "qwen3-8b",
        "rtx-5090",
        1,
        "nvfp4",
        "fp8",
        8192,
        4,
        32_000_000_000,
        F(6_945_767_424 * 9, 16) + 2 * (8_190_735_360 - 6_945_767_424),
        F(36 * 2 * 8 * 128),
        F(0),
        None,
        QWEN3_READ[0] * 4.5 / 8 + QWEN3_READ[1] * 2,
        qwen3_flops(8192),
        1.792e12,
        1676e12,
        0.0,
        True,
    ),
    # 12 INT4 weights and INT4 KV on an MI300X (192 GB), long context
    "mistral-mi300x-int4": Case(
        "mistral-7b-v0.3",
        "mi300x",
        1,
        "int4-g128",
        "int4",
        32_768,
        32,
        192_000_000_000,
        F(6_979_321_856 * 33, 64) + 2 * (7_248_023_552 - 6_979_321_856),
        F(32 * 2 * 8 * 128 * 9, 16),
        F(0),
        None,
        6_979_321_856 * 4.125 / 8 + 2 * (134_217_728 + 266_240 + 4096),
        2 * (6_979_321_856 + 32_768 * 4096) + 4 * 32 * 32 * 128 * 32_768,
        5.3e12,
        1307.4e12,
        0.0,
        True,
    ),
    # 13 A800 pair: same compute as A100, NVLink cut to 200 GB/s each way
    "llama8-a800-tp2": Case(
        "llama-3.1-8b",
        "a800-80gb-sxm",
        2,
        "bf16",
        "bf16",
        8192,
        8,
        80_000_000_000,
        F(2 * 8_030_261_248, 2),
        F(32 * 2 * 4 * 128 * 2),
        F(0),
        None,
        2.0 * sum(LLAMA8_READ) / 2,
        llama8_flops(8192),
        2.039e12,
        312e12,
        8 * 32 * (2 * 2 * 0.5 * 4096 * 2) / 200e9,
        True,
    ),
}


@pytest.mark.parametrize("name", CASES)
def test_hand_worked(name):
    c = CASES[name]
    p = pl.plan(
        shape(c.model), acc(c.gpu), tp=c.tp, weight_format=c.wf, kv_format=c.kvf, context=c.context, concurrency=c.conc
    )
    want = expected(c)
    got = {k: getattr(p, k) for k in want}
    for k in (
        "weights_per_gpu_bytes",
        "kv_bytes_per_token_per_gpu",
        "kv_capacity_tokens",
        "max_context_at_concurrency",
        "max_concurrency_at_context",
        "fits",
    ):
        assert got[k] == want[k], (name, k)
    assert p.model_fits is want["model_fits"]
    if not want["model_fits"]:
        assert got["t_step_lb_ms"] is None and got["tokens_per_s_ideal"] is None, name
        return
    assert got["t_step_lb_ms"] == pytest.approx(want["t_step_lb_ms"], rel=1e-12), name
    assert got["tokens_per_s_ideal"] == pytest.approx(want["tokens_per_s_ideal"], rel=1e-12), name


def test_cases_cover_every_format_tp_and_architecture():
    cs = CASES.values()
    assert {c.wf for c in cs} == {"bf16", "fp8", "int8", "int4-g128", "nvfp4"}
    assert {c.kvf for c in cs} == {"bf16", "fp8", "int4"}
    assert {c.tp for c in cs} == {1, 2, 4, 8}
    kinds = {shape(c.model).architecture for c in cs}
    assert any("MoE" in k for k in kinds) and any("MLA" in k for k in kinds) and any("交替" in k for k in kinds)
    assert {c.fits for c in cs} == {True, False}


def test_a_worked_case_in_full():
    """Case 1 with every number on the page: Qwen3-8B BF16 on one H100, 16 × 8192 tokens."""
    p = pl.plan(shape("qwen3-8b"), acc("h100-sxm"), context=8192, concurrency=16)
    budget = 72_000_000_000 - 16_381_470_720 - 3_300_000_000  # 0.9·80 GB − 2·8,190,735,360 − 3.3 GB
    assert p.kv_budget_bytes == budget == 52_318_529_280
    assert p.kv_capacity_tokens == 52_318_529_280 // 147_456 == 354_807
    assert p.max_context_at_concurrency == 52_318_529_280 // (16 * 147_456) == 22_175
    assert p.max_concurrency_at_context == 52_318_529_280 // (8192 * 147_456) == 43
    assert p.memory.kv == 16 * 8192 * 147_456 and p.memory.free == budget - 16 * 8192 * 147_456
    assert p.memory.outside_util == 8_000_000_000 and p.bound == "memory"


def test_sliding_window_answers():
    """Gemma 3 at concurrency 8 on an H200: the longest context goes past the 1024 window, where only the
    8 full layers keep growing."""
    p = pl.plan(shape("gemma-3-12b"), acc("h200-sxm"), context=32_768, concurrency=8)
    budget = F(126_900_000_000 - 2 * 11_766_034_176 - RESERVE)
    full, win = 8 * 8192, 40 * 8192
    n = math.floor((budget / 8 - win * 1024) / full)
    assert p.max_context_at_concurrency == n and n > 1024
    assert 8 * (full * n + win * 1024) <= budget < 8 * (full * (n + 1) + win * 1024)
    # capacity per token counts every layer: exact while sequences stay within the window
    assert p.kv_capacity_tokens == math.floor(budget / (full + win))


def test_all_sliding_context_is_unbounded():
    cfg = dict(model_config("qwen3-8b"), use_sliding_window=True, sliding_window=4096, max_window_layers=0)
    p = pl.plan(shape_of(cfg), acc("h100-sxm"), context=8192, concurrency=4)
    assert p.max_context_at_concurrency is None  # every layer slides and the windows fit
    assert p.kv_bytes_per_token_per_gpu_full_layers == 0 and p.fits


def test_halving_kv_bytes_doubles_capacity():
    for model, g in (("qwen3-8b", "h100-sxm"), ("gemma-3-12b", "h200-sxm"), ("deepseek-v3", "b200")):
        tp = 8 if model == "deepseek-v3" else 1
        wf = "fp8" if model == "deepseek-v3" else "bf16"
        bf = pl.plan(shape(model), acc(g), tp=tp, weight_format=wf, kv_format="bf16")
        f8 = pl.plan(shape(model), acc(g), tp=tp, weight_format=wf, kv_format="fp8")
        assert f8.weights_per_gpu_bytes == bf.weights_per_gpu_bytes
        assert f8.kv_bytes_per_token_per_gpu * 2 == bf.kv_bytes_per_token_per_gpu
        assert f8.kv_capacity_tokens == math.floor(2 * bf.kv_budget_bytes / bf.kv_bytes_per_token_per_gpu)
        assert 2 * bf.kv_capacity_tokens <= f8.kv_capacity_tokens <= 2 * bf.kv_capacity_tokens + 1


def test_tp2_halves_per_gpu_weights_and_moe_memory_vs_read():
    s = shape("mixtral-8x7b")
    one, two = (pl.plan(s, acc("h100-sxm"), tp=t) for t in (1, 2))
    assert two.weights_per_gpu_bytes * 2 == one.weights_per_gpu_bytes == 2 * 46_702_792_704  # total params
    single = pl.plan(s, acc("h100-sxm"), tp=2, concurrency=1)
    assert single.weight_read_bytes_per_gpu == pytest.approx(
        2 * (12_617_515_008 + 131_072_000 + 266_240 + 4096) / 2, rel=1e-15
    )  # active params
    assert single.distinct_experts == pytest.approx(2)
    many = pl.plan(s, acc("h100-sxm"), tp=2, concurrency=64)
    assert many.distinct_experts == pytest.approx(8 * (1 - 0.75**64))
    assert single.weight_read_bytes_per_gpu < many.weight_read_bytes_per_gpu < two.weights_per_gpu_bytes


def test_fallback_and_replication_flags():
    p = pl.plan(shape("qwen3-8b"), acc("h100-sxm"), weight_format="nvfp4")
    assert p.peak.fell_back and p.peak.flops == 989.4e12
    p = pl.plan(shape("qwen2.5-7b"), acc("h100-sxm"), tp=8)
    assert (p.kv_heads_per_gpu, p.kv_replicated) == (1, True)


def test_bad_inputs_raise():
    s, a = shape("qwen3-8b"), acc("h100-sxm")
    for kw in (
        {"tp": 0},
        {"mem_util": 0},
        {"mem_util": 1.5},
        {"context": 0},
        {"concurrency": 0},
        {"reserve_bytes": -1},
        {"context": 1.5},
    ):
        with pytest.raises(ValueError):
            pl.plan(s, a, **kw)
    with pytest.raises(ValueError, match="互连"):
        pl.plan(s, pl.Accelerator(256e9, 6e12, {"bf16": 1.3e15}), tp=2)  # no link recorded
    with pytest.raises(ValueError, match="带宽"):
        pl.plan(s, pl.Accelerator(80e9, 0.0, {"bf16": 1e15}))
