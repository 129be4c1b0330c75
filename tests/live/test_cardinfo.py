"""The card adapter: what a class can be asked on a card, and on which axis an answer is drawn."""

from __future__ import annotations

from app import exercises
from app.cards import REGISTRY
from app.live import cardinfo


def state(cid, **params):
    c = REGISTRY[cid]
    p = c.parse(params) if params else c.defaults()
    return c, p, c.compute(p)


def test_tiles_are_askable_as_predict_questions():
    c, p, v = state("eg-1-1", batch=16)
    items = {a.key: a for a in cardinfo.askables(c, p, v)}
    assert items["b_star"].source == "tile"
    q = items["b_star"].question
    assert (q.key, q.unit, q.kind) == ("b_star", "请求", "numeric") and "B*" in q.prompt
    assert "bound" not in items and "meets_target" not in items  # text tiles are not numbers
    truth = cardinfo.expected(v, "b_star")
    assert exercises.check(q, truth, round(truth))["verdict"] == "correct"
    assert exercises.check(q, truth, truth * 2)["verdict"] == "incorrect"
    assert exercises.check(q, truth, truth * 1.04)["verdict"] == "close"


def test_exercise_questions_come_first_and_open_ones_are_left_out():
    c, p, v = state("ex-1-3")
    items = cardinfo.askables(c, p, v)
    assert items and items[0].source == "exercise"
    assert {a.key for a in items if a.source == "exercise"} == {q.key for q in v.questions if q.kind != "open"}


def test_declared_axis_and_generic_unit_match():
    c, _, v = state("eg-1-1")
    assert cardinfo.axis_of(c, v, "b_star") == {"figure": 0, "axis": "x", "log": True, "title": "批大小 B(请求数,对数)"}
    t = cardinfo.axis_of(c, v, "t_mem_ms")
    assert (t["figure"], t["axis"], t["log"]) == (0, "y", True)
    thr = cardinfo.axis_of(c, v, "throughput_tok_s")
    assert (thr["figure"], thr["axis"]) == (1, "y")
    assert cardinfo.axis_of(c, v, "m_w_gb") is None  # GB is on no axis: stand-alone
    assert cardinfo.axis_of(c, v, "bound") is None


def test_unit_matching_is_whole_unit():
    assert cardinfo._unit_in("ms", "时间下界 (ms,对数)")
    assert not cardinfo._unit_in("s", "时间下界 (ms,对数)")
    assert not cardinfo._unit_in("s", "输出吞吐 (token/s)")
    assert not cardinfo._unit_in("×", "倍数 ×")


def test_every_card_gives_askables_without_error():
    n = 0
    for c in REGISTRY.values():
        p = c.defaults()
        v = c.compute(p)
        for a in cardinfo.askables(c, p, v):
            assert a.key in v.outputs
            cardinfo.axis_of(c, v, a.key)
            n += 1
    assert n > 300
