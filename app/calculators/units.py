"""Unit conversions the book uses: decimal GB/TB vs binary GiB, and link rates in bit/s → byte/s."""
from __future__ import annotations

GB = 1e9            # vendor GB, 10^9 B
GIB = 2 ** 30       # GiB, 2^30 B
MIB = 2 ** 20
KIB = 2 ** 10
BITS_PER_BYTE = 8


def bits_to_bytes_rate(bits_per_s: float) -> float:
    """Line rate in byte/s = bit/s ÷ 8."""
    return bits_per_s / BITS_PER_BYTE


def effective_rate(rate: float, efficiency_frac: float = 1.0) -> float:
    """Rate the application gets = line rate × usable share."""
    return rate * efficiency_frac


def transfer_time(n_bytes: float, rate: float, startup_s: float = 0.0) -> float:
    """t = startup + bytes ÷ rate (seconds; rate in byte/s)."""
    return startup_s + n_bytes / rate


def gib_to_bytes(gib: float) -> float:
    """bytes = GiB × 2^30."""
    return gib * GIB


def bytes_to_gb(n_bytes: float) -> float:
    """GB = bytes ÷ 10^9."""
    return n_bytes / GB


def bytes_to_gib(n_bytes: float) -> float:
    """GiB = bytes ÷ 2^30."""
    return n_bytes / GIB
