"""Results arithmetic: bins, outliers, log bins, shares, unit conversion (pure functions)."""

from __future__ import annotations

import math

from app.live.results import ROBUST_FROM, histogram, summary, to_question_unit


def test_bins_hold_every_answer_and_the_truth():
    h = histogram([10, 12, 15, 20, 30], truth=18)
    assert h["edges"][0] <= 10 and h["edges"][-1] >= 30
    assert h["edges"][0] <= 18 <= h["edges"][-1]
    assert sum(h["counts"]) == 5 and h["below"] == h["above"] == 0
    assert len(h["counts"]) == len(h["edges"]) - 1
    assert all(b > a for a, b in zip(h["edges"], h["edges"][1:]))


def test_a_wild_answer_is_counted_outside_not_stretching_the_chart():
    vals = [100 + i for i in range(ROBUST_FROM + 10)] + [1e9]
    h = histogram(vals, truth=110)
    assert h["above"] >= 1 and h["edges"][-1] < 1e4
    assert sum(h["counts"]) + h["below"] + h["above"] == len(vals)


def test_log_bins_are_even_in_log_space_and_non_positive_answers_fall_below():
    h = histogram([1, 10, 100, 1000, -5, 0], truth=148, log=True)
    steps = [math.log10(b) - math.log10(a) for a, b in zip(h["edges"], h["edges"][1:])]
    assert max(steps) - min(steps) < 1e-9
    assert h["log"] is True and h["below"] == 2 and sum(h["counts"]) == 4


def test_no_answers_yet():
    h = histogram([], truth=20.9)
    assert sum(h["counts"]) == 0 and h["edges"][0] < 20.9 < h["edges"][-1]


def test_summary_counts_only_unless_full():
    rec = {"qid": 3, "status": "open", "key": "k", "unit": "ms", "kind": "numeric", "expected": 20.0, "axis": None}
    answers = {
        "a": {"value": 20.0, "norm": 20.0, "verdict": "correct", "nick": "x", "t": 1, "unit": None},
        "b": {"value": 40.0, "norm": 40.0, "verdict": "close", "nick": "", "t": 2, "unit": None},
        "c": {"value": 1.0, "norm": 1.0, "verdict": "incorrect", "nick": "", "t": 3, "unit": None},
        "d": {"value": 20.1, "norm": 20.1, "verdict": "correct", "nick": "", "t": 4, "unit": None},
    }
    assert summary(rec, answers, full=False) == {"qid": 3, "status": "open", "answered": 4}
    full = summary(rec, answers, full=True)
    assert full["shares"] == {"correct": 0.5, "close": 0.25, "incorrect": 0.25}
    assert full["true_value"] == 20.0 and "answers" not in full
    assert [a["nick"] for a in summary(rec, answers, full=True, names=True)["answers"]] == ["x", "", "", ""]


def test_choice_results_count_options():
    rec = {"qid": 1, "status": "revealed", "key": "k", "unit": "", "kind": "bool", "expected": True, "options": {}}
    answers = {
        "a": {"value": True, "verdict": "correct", "t": 1},
        "b": {"value": False, "verdict": "incorrect", "t": 2},
        "c": {"value": True, "verdict": "correct", "t": 3},
    }
    assert summary(rec, answers, full=True)["options"] == {"true": 2, "false": 1}


def test_alternative_units_convert_to_the_question_unit():
    rec = {"unit": "GB", "units": {"GiB": 2**30 / 1e9}}
    assert to_question_unit(rec, 1.0, "GiB") == 2**30 / 1e9
    assert to_question_unit(rec, 5.0, "GB") == 5.0 and to_question_unit(rec, 5.0, None) == 5.0
