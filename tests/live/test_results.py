"""Results arithmetic: bins, outliers, log bins, shares, unit conversion (pure functions)."""

from __future__ import annotations

import math

import numpy as np
from app.live.results import MAX_BINS, ROBUST_FROM, histogram, summary, to_question_unit


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
    h = histogram([1, 10, 100, 1000, -5, 0], truth=148)  # > 2 decades: log on its own
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


def test_close_answers_get_bins_of_their_own():
    """The issue's case: 9, 17, 18, 18.3 and 20 were one bin. Freedman–Diaconis on the answers'
    own spread, a 1-2-5 width, edges on its multiples, the largest answer inside the last bin."""
    h = histogram([9, 17, 18, 18.3, 20], truth=18)
    assert h["log"] is False and h["width"] in (1.0, 2.0)
    bins = np.digitize([9, 17, 18, 18.3, 20], h["edges"]) - 1
    assert bins[0] != bins[1] != bins[4] and bins[1] != bins[2]  # 9, 17, 18 and 20 apart
    assert all(abs(e / h["width"] - round(e / h["width"])) < 1e-9 for e in h["edges"])
    assert h["edges"][-1] > 20


def test_log_bins_only_past_two_decades():
    assert histogram([10, 50, 900], truth=100)["log"] is False  # 90×: linear
    h = histogram([10, 50, 1500], truth=100)  # 150×: log, a decade a bin at most
    assert h["log"] is True and h["width"] <= 1.0
    steps = {round(math.log10(b / a), 9) for a, b in zip(h["edges"], h["edges"][1:])}
    assert len(steps) == 1


def test_many_answers_bin_finely_and_never_too_many_bins():
    rng = np.random.default_rng(1)
    vals = list(rng.normal(148, 15, 500))
    h = histogram(vals, truth=148)
    assert 8 <= len(h["counts"]) <= MAX_BINS and sum(h["counts"]) + h["below"] + h["above"] == 500
    wild = histogram([1e-90, 1e90, 3, 4, 5], truth=4)
    assert len(wild["counts"]) <= MAX_BINS and all(math.isfinite(e) for e in wild["edges"])


def test_bins_are_no_finer_than_the_correct_band():
    h = histogram([148], truth=147.67, resolution=1.4767)
    assert h["width"] >= 1.0


def test_edges_are_tidy_numbers():
    h = histogram([0.1, 0.2, 0.3, 0.35], truth=0.3)
    assert all(len(repr(e)) <= 6 for e in h["edges"]), h["edges"]
