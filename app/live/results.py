"""A question's results: counts for everyone; histogram, true value and verdict shares for the
instructor (or for all after 公布). Numeric answers are compared in the question's own unit."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np

VERDICTS = ("correct", "close", "incorrect")
MAX_BINS = 20
ROBUST_FROM = 20  # with fewer answers every one is on the chart


def to_question_unit(rec: dict, value: float, unit: str | None) -> float:
    """An answer given in an alternative unit, converted with the question's own factors."""
    if unit and unit != rec["unit"]:
        return value * rec.get("units", {})[unit]
    return value


def summary(rec: dict, answers: dict[str, dict], *, full: bool, names: bool = False) -> dict:
    """What the results endpoint returns. ``full``: with histogram, true value and shares;
    ``names``: also the individual answers (instructor only)."""
    out = {"qid": rec["qid"], "status": rec["status"], "answered": len(answers)}
    if not full:
        return out
    counts = Counter(a["verdict"] for a in answers.values())
    n = len(answers)
    out.update(
        {
            "key": rec["key"],
            "unit": rec["unit"],
            "kind": rec["kind"],
            "true_value": rec["expected"],
            "axis": rec.get("axis"),
            "verdicts": {v: counts.get(v, 0) for v in VERDICTS},
            "shares": {v: (counts.get(v, 0) / n if n else 0.0) for v in VERDICTS},
        }
    )
    if rec["kind"] == "numeric":
        log = bool(rec.get("axis") and rec["axis"].get("log"))
        out["histogram"] = histogram(
            [a["norm"] for a in answers.values() if a.get("norm") is not None], float(rec["expected"]), log=log
        )
    else:
        opts = Counter(str(a["value"]).lower() for a in answers.values())
        out["options"] = {
            str(k).lower(): opts.get(str(k).lower(), 0) for k in (rec.get("options") or {"true": 1, "false": 0})
        }
    if names:
        out["answers"] = [
            {"nick": a.get("nick") or "", "value": a["value"], "unit": a.get("unit"), "verdict": a["verdict"]}
            for a in sorted(answers.values(), key=lambda a: a["t"])
        ]
    return out


def histogram(values: list[float], truth: float, *, log: bool = False) -> dict:
    """Bins over the bulk of the answers (5th–95th percentile once there are ROBUST_FROM) and the true value; answers beyond
    are counted as ``below``/``above`` so one wild answer cannot flatten the chart. ``log`` bins
    evenly in log space (for a quantity on a log axis); non-positive answers then count as below."""
    vals = np.array([v for v in values if math.isfinite(v)], dtype=float)
    log = log and truth > 0
    pos = vals[vals > 0] if log else vals
    lo, hi = _span(pos, truth)
    f = np.log10 if log else (lambda x: x)
    nb = int(min(MAX_BINS, max(5, math.ceil(math.sqrt(max(len(pos), 1))) * 2)))
    edges_t = np.linspace(f(lo), f(hi), nb + 1)
    edges = 10**edges_t if log else edges_t
    counts, _ = np.histogram(f(pos), bins=edges_t) if len(pos) else (np.zeros(nb, int), None)
    below = int(np.sum(pos < edges[0])) + (len(vals) - len(pos))
    above = int(np.sum(pos > edges[-1]))
    return {
        "edges": [float(e) for e in edges],
        "counts": [int(c) for c in counts],
        "below": below,
        "above": above,
        "log": log,
    }


def _span(vals: np.ndarray, truth: float) -> tuple[float, float]:
    pts = [truth]
    if len(vals) >= ROBUST_FROM:
        pts += [float(np.percentile(vals, 5)), float(np.percentile(vals, 95))]
    elif len(vals):
        pts += [float(vals.min()), float(vals.max())]
    lo, hi = min(pts), max(pts)
    if lo == hi:
        pad = abs(lo) * 0.1 or 1.0
        lo, hi = lo - pad, hi + pad
        if truth > 0 and lo <= 0:
            lo = truth / 2
    else:
        pad = (hi - lo) * 0.05
        lo, hi = (lo - pad if lo - pad > 0 or lo <= 0 else lo * 0.9), hi + pad
    return lo, hi
