"""Number formats for weights and the KV cache: storage bits per value (scales included) and which
compute peak a format runs at on a given accelerator. Sources for every layout: data/README.md.

Weights (the transformer blocks' linear matrices, experts included; embedding, LM head and norms
stay BF16, as quantised checkpoints keep them):

* ``bf16``  16 bits.
* ``fp8``   8 bits (E4M3); per-tensor / per-channel scales are negligible and not counted. W8A8: computes at
  the FP8 peak where the part has one.
* ``int8``  8 bits, weight-only (W8A16, per-channel scale, not counted): dequantised to BF16, computes at BF16.
* ``int4-g128``  4 + 16/128 = 4.125 bits: one FP16 scale per group of 128 weights, symmetric (no zero point;
  with a 4-bit zero point it would be 4 + 20/128 = 4.15625). Weight-only (W4A16): computes at BF16.
* ``nvfp4``  4 + 8/16 = 4.5 bits: E2M1 values with one FP8 (E4M3) scale per block of 16 (plus one FP32 scale
  per tensor, negligible). W4A4: computes at the FP4 peak where the part has one. (MXFP4 would be
  4 + 8/32 = 4.25 bits: one E8M0 scale per 32; not offered.)

KV cache: ``bf16`` 16 bits; ``fp8`` 8 bits (per-tensor scale, not counted); ``int4`` 4 + 32/64 = 4.5 bits:
asymmetric, one FP16 scale and one FP16 zero point per group of 64 values."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from ..trace import given
from ..words import words_for

W = words_for(__name__)


@dataclass(frozen=True)
class Format:
    id: str
    label: str
    bits: Fraction  # storage bits per value, scales included
    compute: str  # compute format it runs at when the part supports it: bf16 / fp8 / fp4
    layout: str  # how the bits add up (for a derivation line)

    @property
    def bytes_per_value(self) -> float:
        """bits/8 as a float: every layout here is a dyadic fraction (33/64, 9/16 …), so the float is exact."""
        return float(self.bits / 8)

    def width(self, sym: str, what: str) -> float:
        """bits/8 as a traced input named ``sym``, its source the layout (for derivations)."""
        return given(
            self.bytes_per_value,
            sym,
            "B",
            source=W.f("format.width.source", what=what, label=self.label, layout=self.layout),
        )


WEIGHT_FORMATS: dict[str, Format] = {
    f.id: f
    for f in (
        Format("bf16", "BF16", Fraction(16), "bf16", W["weight_formats.format"]),
        Format("fp8", "FP8 (E4M3, W8A8)", Fraction(8), "fp8", W["weight_formats.format_2"]),
        Format("int8", W["weight_formats.format_3"], Fraction(8), "bf16", W["weight_formats.format_4"]),
        Format(
            "int4-g128",
            W["weight_formats.format_5"],
            4 + Fraction(16, 128),
            "bf16",
            W["weight_formats.format_6"],
        ),
        Format("nvfp4", "NVFP4 (W4A4)", 4 + Fraction(8, 16), "fp4", W["weight_formats.format_7"]),
    )
}

KV_FORMATS: dict[str, Format] = {
    f.id: f
    for f in (
        Format("bf16", "BF16", Fraction(16), "bf16", W["weight_formats.format"]),
        Format("fp8", "FP8", Fraction(8), "bf16", W["kv_formats.format"]),
        Format(
            "int4",
            W["kv_formats.format_2"],
            4 + Fraction(32, 64),
            "bf16",
            W["kv_formats.format_3"],
        ),
    )
}

UNQUANTISED_BYTES = 2  # embedding, LM head, norms: BF16


@dataclass(frozen=True)
class ComputePeak:
    flops: float  # FLOP/s used for the compute term
    used: str  # the peak it ended up on: bf16 / fp8 / fp4
    fell_back: bool  # the format wanted a lower-precision peak the part lacks (or that is not recorded)
    reason: str  # one line a card can show


def compute_peak(weight_format: str, peaks: dict[str, float]) -> ComputePeak:
    """Peak for a weight format: the format's own (fp8 → FP8, nvfp4 → FP4) where ``peaks`` has it, else BF16."""
    fmt = WEIGHT_FORMATS[weight_format]
    if "bf16" not in peaks:
        raise ValueError(W["compute_peak.valueerror"])
    if fmt.compute == "bf16":
        why = "" if weight_format == "bf16" else W.f("compute_peak", label=fmt.label)
        return ComputePeak(peaks["bf16"], "bf16", False, why)
    if fmt.compute in peaks:
        return ComputePeak(
            peaks[fmt.compute], fmt.compute, False, W.f("compute_peak.computepeak", upper=fmt.compute.upper())
        )
    return ComputePeak(peaks["bf16"], "bf16", True, W.f("compute_peak.computepeak_2", upper=fmt.compute.upper()))


def weight_width(weight_format: str) -> float:
    """b_W: bytes per quantised weight (scales included), a traced input."""
    return WEIGHT_FORMATS[weight_format].width("b_W", W["weight_width.width"])


def kv_width(kv_format: str) -> float:
    """b_KV: bytes per cached KV value (scales included), a traced input."""
    return KV_FORMATS[kv_format].width("b_{KV}", W["kv_width.width"])


def weight_bytes(linear_params: int, other_params: int, weight_format: str) -> float:
    """Stored weight bytes: linear · b_W + other (embedding, LM head, norms) · 2 B. Exact: b_W is dyadic."""
    return linear_params * weight_width(weight_format) + other_params * UNQUANTISED_BYTES


def kv_bytes(values: int, kv_format: str) -> float:
    """Bytes of ``values`` cached KV values: values · b_KV."""
    return values * kv_width(kv_format)
