"""A question's results: counts for everyone; histogram, true value and verdict shares for the
instructor (or for all after 公布). Numeric answers are compared in the question's own unit.
Also the class's summary at 下课 and the instructor's CSV export."""

from __future__ import annotations

import csv
import io
import math
import time
from collections import Counter
from datetime import UTC, datetime

import numpy as np

from ..format import round_sig
from ..words import words_for
from . import cardinfo

W = words_for(__name__)
DEFAULT_STATE = cardinfo.W["state_label"]  # the conditions of a question asked at the defaults

VERDICTS = ("correct", "close", "incorrect")
VERDICT_TEXT = {
    "correct": W["verdict_text.correct"],
    "close": W["verdict_text.close"],
    "incorrect": W["verdict_text.incorrect"],
}
MAX_BINS = 30
MIN_BINS = 4
ROBUST_FROM = 20  # with fewer answers every one is on the chart; from here the 5th–95th percentile
LOG_SPAN = 100.0  # answers spanning more than two decades are binned in log space
LOG_STEPS = (0.05, 0.1, 0.2, 0.25, 0.5, 1.0)  # bin widths in decades
LOG_REACH = 8  # decades either side of the true value a log chart spans at most (the rest: below/above)


def to_question_unit(rec: dict, value: float, unit: str | None) -> float:
    """An answer given in an alternative unit, converted with the question's own factors."""
    if unit and unit != rec["unit"]:
        return value * rec.get("units", {})[unit]
    return value


def diagnoses(answers: dict[str, dict]) -> list[dict]:
    """The slips the class's answers match, most common first: ``{"id", "text", "count"}``."""
    named = Counter((a["diagnosis"], a.get("diagnosis_text") or "") for a in answers.values() if a.get("diagnosis"))
    return [{"id": i, "text": t, "count": n} for (i, t), n in sorted(named.items(), key=lambda kv: (-kv[1], kv[0]))]


def summary(rec: dict, answers: dict[str, dict], *, full: bool, names: bool = False) -> dict:
    """What the results endpoint returns. ``full``: with histogram, true value and shares;
    ``names``: also the individual answers (instructor only: the projector's rug of ticks)."""
    out = {"qid": rec["qid"], "status": rec["status"], "answered": len(answers)}
    if not full:
        return out
    counts = Counter(a["verdict"] for a in answers.values())
    n = len(answers)
    out.update(
        {
            "key": rec["key"],
            "label": rec.get("label", rec["key"]),
            "unit": rec["unit"],
            "kind": rec["kind"],
            "true_value": rec["expected"],
            "axis": rec.get("axis"),
            "verdicts": {v: counts.get(v, 0) for v in VERDICTS},
            "shares": {v: (counts.get(v, 0) / n if n else 0.0) for v in VERDICTS},
            "diagnoses": diagnoses(answers),
        }
    )
    if rec["kind"] == "numeric":
        truth = float(rec["expected"])
        out["histogram"] = histogram(
            [a["norm"] for a in answers.values() if a.get("norm") is not None],
            truth,
            resolution=abs(truth) * rec.get("rel_tol", 0.01),
        )
    else:
        opts = Counter(str(a["value"]).lower() for a in answers.values())
        out["options"] = {
            str(k).lower(): opts.get(str(k).lower(), 0) for k in (rec.get("options") or {"true": 1, "false": 0})
        }
    if names:
        out["answers"] = [
            {
                "nick": a.get("nick") or "",
                "value": a["value"],
                "unit": a.get("unit"),
                "norm": a.get("norm"),
                "verdict": a["verdict"],
                "diagnosis": a.get("diagnosis"),
            }
            for a in sorted(answers.values(), key=lambda a: a["t"])
        ]
    return out


def _nice(step: float) -> float:
    """The 1-2-5 step nearest ``step`` (in log terms): bin edges a hall can read."""
    if not step > 0 or not math.isfinite(step):
        return 1.0
    k = math.floor(math.log10(step))
    return min((m * 10.0**k for m in (1, 2, 5, 10)), key=lambda c: abs(math.log10(c / step)))


def histogram(values: list[float], truth: float, *, log: bool | None = None, resolution: float = 0.0) -> dict:
    """Bins from the answers' own spread: Freedman–Diaconis width (2·IQR·n^(-1/3)) rounded to a
    1-2-5 step, edges on multiples of it, over every answer (or the 5th–95th percentile once there
    are ROBUST_FROM; the rest counted ``below``/``above`` so one wild answer cannot flatten the chart)
    and the true value. Answers spanning more than two decades are binned in log space (``log``
    forces it either way); non-positive answers then count as below. ``resolution``: no linear bin is
    narrower than this (the question's 正确 band: finer bins would split answers that are all right)."""
    vals = np.array([v for v in values if math.isfinite(v)], dtype=float)
    if log is None:
        pos = vals[vals > 0]
        bulk = _bulk(pos) if len(pos) else pos
        log = truth > 0 and len(bulk) >= 2 and float(bulk.max()) / float(bulk.min()) > LOG_SPAN
    log = bool(log and truth > 0)
    used = vals[vals > 0] if log else vals
    t = np.log10(used) if log else used
    ft = math.log10(truth) if log else truth
    bulk = _bulk(t)
    if log:
        bulk = bulk[(bulk >= ft - LOG_REACH) & (bulk <= ft + LOG_REACH)]
    lo = min([ft, *([float(bulk.min())] if len(bulk) else [])])
    hi = max([ft, *([float(bulk.max())] if len(bulk) else [])])
    width = _width(t, lo, hi, log, resolution)
    lo = math.floor(lo / width + 1e-9) * width
    hi = (math.floor(hi / width + 1e-9) + 1) * width  # the largest answer is inside, never on the last edge
    while (hi - lo) / width < MIN_BINS:
        lo, hi = lo - width, hi + width
        if log is False and truth >= 0 and lo < 0 <= float(min(t, default=0)):
            lo = 0.0  # nobody answered a negative number: the chart starts at 0
    nb = int(round((hi - lo) / width))
    edges_t = lo + width * np.arange(nb + 1)
    counts, _ = np.histogram(t, bins=edges_t) if len(t) else (np.zeros(nb, int), None)
    edges = 10**edges_t if log else edges_t
    below = int(np.sum(t < edges_t[0])) + (len(vals) - len(used))
    above = int(np.sum(t > edges_t[-1]))
    return {
        "edges": [float(_tidy(e)) for e in edges],
        "counts": [int(c) for c in counts],
        "below": below,
        "above": above,
        "log": log,
        "width": float(width),
    }


def _bulk(t: np.ndarray) -> np.ndarray:
    """The answers the chart spans: all of them, or the 5th–95th percentile from ROBUST_FROM on."""
    if len(t) < ROBUST_FROM:
        return t
    lo, hi = np.percentile(t, [5, 95])
    return t[(t >= lo) & (t <= hi)]


def _width(t: np.ndarray, lo: float, hi: float, log: bool, resolution: float = 0.0) -> float:
    span = hi - lo
    n = len(t)
    iqr = float(np.subtract(*np.percentile(t, [75, 25]))) if n >= 2 else 0.0
    raw = 2 * iqr * n ** (-1 / 3) if iqr > 0 else (span / 8 if span > 0 else 0.0)
    if raw <= 0:  # every answer the same as the truth: a few bins around it
        raw = 0.1 if log else (abs(lo) * 0.05 or 1.0)
    if span > 0:
        raw = max(raw, span / MAX_BINS)
    if not log and resolution > 0:
        raw = max(raw, resolution)
    if log:  # a decade at most (a hall reads "1, 10, 100" at a glance), unless that makes too many bins
        w = min(LOG_STEPS, key=lambda c: abs(math.log(c / raw))) if raw < 1 else 1.0
        return max(w, float(math.ceil(span / MAX_BINS)))
    w = _nice(raw)
    while span > 0 and span / w > MAX_BINS:
        w = _nice(w * 2.2)
    return w


def _tidy(x: float) -> float:
    """Edges without float noise (0.30000000000000004 → 0.3)."""
    return round_sig(x, 12)


# ------------------------------------------------------------------ 下课: the summary and the export


def class_summary(session, questions: list[dict], answers: dict[int, dict[str, dict]]) -> dict:
    """What followers see once the class ended: each question, how many answered, and for those
    revealed the true value and the shares (an unrevealed question's value stays unsaid)."""
    qs = []
    for rec in questions:
        got = answers.get(rec["qid"], {})
        item = {
            "qid": rec["qid"],
            "label": rec.get("label", rec["key"]),
            "conditions": rec.get("conditions", ""),
            "default": rec.get("conditions", "") in ("", DEFAULT_STATE),
            "words": {
                lang: {
                    "label": w["label"],
                    "conditions": w["conditions"],
                    "unit": w.get("unit_names", {}).get(rec["unit"], rec["unit"]),
                }
                for lang, w in rec.get("words", {}).items()
            },
            "status": rec["status"],
            "answered": len(got),
            "unit": rec["unit"],
            "kind": rec["kind"],
        }
        if rec["status"] == "revealed":
            s = summary(rec, got, full=True)
            item["true_value"] = rec["expected"]
            item["shares"] = s["shares"]
        qs.append(item)
    people = {p for got in answers.values() for p in got}
    return {
        "asked": len(qs),
        "participants": len(people),
        "minutes": max(0, round((time.time() - session.created) / 60)),
        "questions": qs,
    }


CSV_COLUMNS = (
    W["csv_columns"],
    W["csv_columns_2"],
    W["csv_columns_3"],
    W["csv_columns_4"],
    W["csv_columns_5"],
    W["csv_columns_6"],
    W["csv_columns_7"],
    W["csv_columns_8"],
    W["csv_columns_9"],
    W["csv_columns_10"],
    W["csv_columns_11"],
    W["csv_columns_12"],
    W["csv_columns_13"],
    W["csv_columns_14"],
    W["csv_columns_15"],
)


def _cell(text: str) -> str:
    """Text a participant typed, made safe for a spreadsheet (no formula from a nickname)."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def _when(t: float | None) -> str:
    return datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%d %H:%M:%S") if t else ""


def results_csv(questions: list[dict], answers: dict[int, dict[str, dict]]) -> str:
    """Every question with its true value, then one row per answer (anonymous unless the student
    gave a nickname; no participant id, no address)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\r\n")
    w.writerow(CSV_COLUMNS)
    for rec in questions:
        got = sorted(answers.get(rec["qid"], {}).values(), key=lambda a: a["t"])
        truth = rec["expected"]
        head = [
            rec["qid"],
            rec.get("label", rec["key"]),
            rec["card"],
            rec.get("query", ""),
            rec.get("conditions", ""),
            W["results_csv"] if truth is True else W["results_csv_2"] if truth is False else truth,
            rec["unit"],
            {
                "open": W["results_csv.open"],
                "closed": W["results_csv.closed"],
                "revealed": W["results_csv.revealed"],
            }.get(rec["status"], rec["status"]),
            len(got),
        ]
        if not got:
            w.writerow(head + [""] * 6)
        for a in got:
            value = a["value"]
            shown = W["results_csv"] if value is True else W["results_csv_2"] if value is False else value
            w.writerow(
                head
                + [
                    _cell(a.get("nick") or "") or W["results_csv.writerow"],
                    _cell(shown) if isinstance(shown, str) else shown,
                    a.get("unit") or "",
                    "" if a.get("norm") is None else a["norm"],
                    VERDICT_TEXT.get(a["verdict"], a["verdict"]),
                    _when(a.get("t")),
                ]
            )
    return buf.getvalue()
