"""Number formats: bits per value with scales, stored bytes, and which peak a format computes at."""

from __future__ import annotations

from fractions import Fraction

import pytest
from app.calculators import formats as fm
from app.data import gpu


def test_weight_bits_per_value_include_scales():
    bits = {k: f.bits for k, f in fm.WEIGHT_FORMATS.items()}
    assert bits == {
        "bf16": 16,
        "fp8": 8,
        "int8": 8,
        "int4-g128": Fraction(33, 8),  # 4 + 16/128 = 4.125: one FP16 scale per 128, no zero point
        "nvfp4": Fraction(9, 2),
    }  # 4 + 8/16 = 4.5: one FP8 E4M3 scale per 16 E2M1 values
    assert float(fm.WEIGHT_FORMATS["int4-g128"].bits) == 4.125


def test_kv_bits_per_value():
    assert {k: f.bits for k, f in fm.KV_FORMATS.items()} == {"bf16": 16, "fp8": 8, "int4": Fraction(9, 2)}  # 4 + 32/64


def test_weight_bytes_quantise_only_linear_matrices():
    # Qwen3-8B: 6,945,767,424 linear weights, 8,190,735,360 in all; embedding, LM head and norms stay BF16
    lin, other = 6_945_767_424, 8_190_735_360 - 6_945_767_424
    assert fm.weight_bytes(lin, other, "bf16") == 2 * 8_190_735_360
    assert fm.weight_bytes(lin, other, "fp8") == lin + 2 * other
    assert fm.weight_bytes(lin, other, "int4-g128") == Fraction(lin * 33, 64) + 2 * other
    assert fm.weight_bytes(lin, other, "nvfp4") == Fraction(lin * 9, 16) + 2 * other
    assert fm.kv_bytes(147_456 // 2, "int4") == 73_728 * 9 // 16


def test_compute_peak_follows_the_format_where_supported():
    h100, b200, a100 = (gpu(g).peaks_flops() for g in ("h100-sxm", "b200", "a100-80gb-sxm"))
    p = fm.compute_peak("fp8", h100)
    assert (p.flops, p.used, p.fell_back) == (1979e12, "fp8", False)
    p = fm.compute_peak("nvfp4", b200)
    assert (p.flops, p.used, p.fell_back) == (9000e12, "fp4", False)
    p = fm.compute_peak("nvfp4", h100)  # Hopper has no FP4: falls back, and says so
    assert (p.flops, p.used, p.fell_back) == (989.4e12, "bf16", True) and "回退到 BF16" in p.reason
    p = fm.compute_peak("fp8", a100)  # Ampere has no FP8
    assert (p.flops, p.fell_back) == (312e12, True)


def test_weight_only_formats_compute_in_bf16():
    for f in ("int8", "int4-g128"):
        p = fm.compute_peak(f, gpu("h100-sxm").peaks_flops())
        assert (p.flops, p.used, p.fell_back) == (989.4e12, "bf16", False) and "BF16" in p.reason
    assert fm.compute_peak("bf16", {"bf16": 1.0}).reason == ""
    with pytest.raises(ValueError, match="BF16"):
        fm.compute_peak("bf16", {})
