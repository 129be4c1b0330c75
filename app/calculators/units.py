"""Unit conversions the book uses: decimal GB/TB vs binary GiB, and link rates in bit/s → byte/s."""

from __future__ import annotations

GB = 1e9  # vendor GB, 10^9 B
GIB = 2**30  # GiB, 2^30 B
MIB = 2**20
KIB = 2**10
BITS_PER_BYTE = 8


def bits_to_bytes_rate(bits_per_s: float) -> float:
    """Line rate in byte/s = bit/s ÷ 8."""
    return bits_per_s / BITS_PER_BYTE


def effective_rate(rate: float, efficiency_frac: float = 1.0) -> float:
    """Rate the application gets = line rate × usable share."""
    return rate * efficiency_frac


def transfer_time(n_bytes: float, rate: float, startup_s: float = 0.0) -> float:
    """t = startup + bytes ÷ rate (seconds; rate in byte/s)."""
    t = n_bytes / rate
    return startup_s + t if startup_s else t


def link_times(link_gbit_s: float, data_gb: float, startup_us: float = 0, efficiency_pct: float = 100) -> dict:
    """A link rated in Gbit/s carrying ``data_gb`` GB: its byte rate (÷ 8), the rate an application
    gets (× share), and the transfer times ideal (D/β) and with start-up and share (t₀ + D/(β·η)).
    Keys are the link cards' outputs: link_gbps, effective_gbps (GB/s), transfer_ms, ideal_transfer_ms."""
    rate = bits_to_bytes_rate(link_gbit_s * 1e9)
    eff = effective_rate(rate, efficiency_pct / 100) if efficiency_pct != 100 else rate
    n = data_gb * GB
    return {
        "link_gbps": rate / GB,
        "effective_gbps": eff / GB,
        "transfer_ms": transfer_time(n, eff, startup_us * 1e-6) * 1e3,
        "ideal_transfer_ms": transfer_time(n, rate) * 1e3,
    }


def gib_to_bytes(gib: float) -> float:
    """bytes = GiB × 2^30."""
    return gib * GIB


def bytes_to_gb(n_bytes: float) -> float:
    """GB = bytes ÷ 10^9."""
    return n_bytes / GB


def bytes_to_gib(n_bytes: float) -> float:
    """GiB = bytes ÷ 2^30."""
    return n_bytes / GIB
