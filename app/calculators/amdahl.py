"""Amdahl's law: speeding up a share p of the work by s gives 1 / ((1 − p) + p / s)."""
from __future__ import annotations


def speedup(p: float, s: float) -> float:
    """Overall speed-up when a fraction ``p`` of the time is made ``s`` times faster."""
    return 1.0 / ((1.0 - p) + p / s)


def new_time(total: float, part: float, s: float) -> float:
    """Time after the part that took ``part`` (of ``total``) runs ``s`` times faster."""
    return (total - part) + part / s


def limit(p: float) -> float:
    """Ceiling as s → ∞: 1 / (1 − p)."""
    return float("inf") if p >= 1 else 1.0 / (1.0 - p)
