"""Amdahl's law: speeding up a share p of the work by s gives 1 / ((1 − p) + p / s)."""

from __future__ import annotations

from ..trace import name


def speedup(p: float, s: float) -> float:
    """Overall speed-up when a fraction ``p`` of the time is made ``s`` times faster."""
    return 1.0 / ((1.0 - p) + p / s)


def new_time(total: float, part: float, s: float) -> float:
    """Time after the part that took ``part`` (of ``total``) runs ``s`` times faster."""
    return (total - part) + part / s


def limit(p: float) -> float:
    """Ceiling as s → ∞: 1 / (1 − p)."""
    return float("inf") if p >= 1 else 1.0 / (1.0 - p)


def part_outputs(total: float, part: float, s: float) -> dict:
    """例题 3-2 / 练习 3-4: a part of ``part`` s of a ``total`` s task made s× faster: share f = part/T,
    T_new = (T − part) + part/s, saving, overall 1/((1 − f) + f/s) and ceiling 1/(1 − f)."""
    f = name(part / total, "f")
    new = name(new_time(total, part, s), "T_{new}", "s")
    return {
        "part_s": part,
        "part_pct": 100 * f,
        "rest_s": total - part,
        "new_total_s": new,
        "saved_s": total - new,
        "saved_pct": 100 * (total - new) / total,
        "overall_speedup": speedup(f, s),
        "cap_speedup": limit(f),
    }


def team_outputs(total: float, part_pct: float, s: float) -> dict:
    """A task of ``total`` hours whose ``part_pct`` % is sped up s times: the part before and after,
    the rest, the new total, the speed-up measured and by the formula, and its ceiling (h, ×)."""
    f = part_pct / 100
    part = total * f
    new = new_time(total, part, s)
    return {
        "part_before_h": part,
        "part_after_h": part / s,
        "rest_h": total - part,
        "new_total_h": new,
        "speedup": total / new,
        "speedup_formula": speedup(f, s),
        "speedup_limit": limit(f),
    }
