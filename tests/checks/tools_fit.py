"""The fit planner (/tools/fit, issue 17): no book values — the hand-worked configurations of
tests/calculators/test_planner.py (each case works the per-GPU weights, KV per token, step read, FLOPs and
all-reduce out of its config's shape in the comments there), asserted here through the JSON API.
Byte counts, token counts and the verdict exactly; the step bound and throughput to 1e-9."""

from __future__ import annotations

import json
from pathlib import Path

from app.data import encode_config

from . import check

CONFIGS = Path(__file__).resolve().parents[1] / "data" / "configs"


def cfg(name: str) -> str:
    """A test config.json as the page pastes it: ``cfg:`` + compressed JSON."""
    return encode_config(json.loads((CONFIGS / f"{name}.json").read_text(encoding="utf-8")))


def case(where: str, params: dict, exact: dict, t_step_ms: float, tokens_s: float) -> list:
    return [
        check("fit-planner", params, exact, rel_tol=0, source="derived", where=where),
        check(
            "fit-planner",
            params,
            {"t_step_lb_ms": t_step_ms, "tokens_per_s_ideal": tokens_s},
            rel_tol=1e-9,
            source="derived",
            where=where + " · 步时",
        ),
    ]


def contract(w: int, kv: float, cap: int, ctx: int, conc: int, fits: bool = True) -> dict:
    return {
        "weights_per_gpu_bytes": w,
        "kv_bytes_per_token_per_gpu": kv,
        "kv_capacity_tokens": cap,
        "max_context_at_concurrency": ctx,
        "max_concurrency_at_context": conc,
        "fits": fits,
    }


CHECKS = [
    # the card's defaults: Qwen3-8B BF16 on one H100, 16 × 8192 (phase 1's worked case in full)
    *case(
        "默认:Qwen3-8B · H100 · tp 1 · BF16",
        {},
        contract(16_381_470_720, 147_456, 350_060, 21_878, 42),
        10.287812546865672,
        1555.2382906582632,
    ),
    *case(
        "Qwen3-8B · H100 · tp 2 · FP8/FP8",
        {"tp": 2, "weight_format": "fp8", "kv_format": "fp8", "context": 32768, "concurrency": 32},
        contract(4_717_851_648, 36_864, 1_716_638, 53_644, 52),
        12.803206189850748,
        2499.3739478605585,
    ),
    *case(
        "Qwen2.5-7B · H100 · tp 8(KV 头复制)· INT4 g128",
        {"model": cfg("qwen2.5-7b"), "tp": 8, "weight_format": "int4-g128", "context": 16384, "concurrency": 64},
        contract(693_157_248, 14_336, 4_694_952, 73_358, 286),
        4.753426688424545,
        13463.971192792686,
    ),
    *case(
        "Llama-3.1-8B · RTX 4090 · INT8 · KV INT4",
        {
            "model": cfg("llama-3.1-8b"),
            "gpu": "rtx-4090",
            "weight_format": "int8",
            "kv_format": "int4",
            "context": 4096,
            "concurrency": 8,
        },
        contract(9_081_200_640, 36_864, 231_087, 28_885, 56),
        9.16517384126984,
        872.8694227246207,
    ),
    *case(
        "Gemma 3 12B · H200 · 局部/全局",
        {"model": cfg("gemma-3-12b"), "gpu": "h200-sxm", "context": 32768, "concurrency": 8},
        contract(23_532_068_352, 393_216, 252_705, 184_409, 40),
        9.040894186666668,
        884.8682259547118,
    ),
    *case(
        "Gemma 2 9B · L40S · tp 2 · FP8",
        {
            "model": cfg("gemma-2-9b"),
            "gpu": "l40s",
            "tp": 2,
            "weight_format": "fp8",
            "kv_format": "fp8",
            "context": 2048,
            "concurrency": 4,
        },
        contract(5_079_907_840, 86_016, 396_671, 194_239, 193),
        6.770346074074074,
        590.8117482084618,
    ),
    *case(
        "Mixtral 8×7B · H100 · tp 4 · KV FP8",
        {"model": cfg("mixtral-8x7b"), "tp": 4, "kv_format": "fp8", "context": 8192, "concurrency": 32},
        contract(23_351_396_352, 16_384, 2_725_134, 85_160, 332),
        8.288331407546112,
        3860.8494794097633,
    ),
    *case(
        "Qwen3-30B-A3B · H20 · FP8",
        {"model": cfg("qwen3-30b-a3b"), "gpu": "h20", "weight_format": "fp8", "context": 4096, "concurrency": 64},
        contract(31_154_663_424, 98_304, 521_294, 8_145, 127),
        13.959024788554085,
        4584.847506860062,
    ),
    *case(
        "DeepSeek-V3 · B200 · tp 8 · NVFP4 · KV FP8",
        {
            "model": cfg("deepseek-v3"),
            "gpu": "b200",
            "tp": 8,
            "weight_format": "nvfp4",
            "kv_format": "fp8",
            "context": 16384,
            "concurrency": 32,
        },
        contract(47_514_753_920, 35_136, 3_144_502, 98_265, 191),
        6.241064337711874,
        5127.330575113408,
    ),
    *case(
        "DeepSeek-V3 · H800 · tp 8 · BF16 放不下",
        {"model": cfg("deepseek-v3"), "gpu": "h800-sxm", "tp": 8, "context": 4096, "concurrency": 1},
        contract(167_756_604_800, 70_272, 0, 0, 0, fits=False),
        2.8344799522388056,
        352.79840282876336,
    ),
    *case(
        "Qwen3-8B · RTX 5090 · NVFP4 · KV FP8",
        {"gpu": "rtx-5090", "weight_format": "nvfp4", "kv_format": "fp8", "context": 8192, "concurrency": 4},
        contract(6_396_930_048, 73_728, 249_607, 62_401, 30),
        4.223324571428572,
        947.1211441006935,
    ),
    *case(
        "Mistral 7B · MI300X · INT4/INT4",
        {
            "model": cfg("mistral-7b-v0.3"),
            "gpu": "mi300x",
            "weight_format": "int4-g128",
            "kv_format": "int4",
            "context": 32768,
            "concurrency": 32,
        },
        contract(4_136_116_224, 36_864, 4_466_793, 139_587, 136),
        8.02309332528302,
        3988.486572773498,
    ),
    *case(
        "Llama-3.1-8B · A800 · tp 2",
        {"model": cfg("llama-3.1-8b"), "gpu": "a800-80gb-sxm", "tp": 2, "context": 8192, "concurrency": 8},
        contract(8_030_261_248, 65_536, 915_065, 114_383, 111),
        5.808071109995096,
        1377.3936042609428,
    ),
]
