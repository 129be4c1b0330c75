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


def test_a_question_states_its_conditions():
    c, p, v = state("eg-1-1", batch=8)
    q = cardinfo.find(c, p, v, "throughput_tok_s").question
    assert q.prompt.startswith("$B$ = 8 请求 时,") and q.prompt.endswith("是多少?")
    c, p, v = state("eg-1-1")
    assert cardinfo.find(c, p, v, "throughput_tok_s").question.prompt.startswith("按默认设置,")
    c, p, v = state("ex-1-3", bw_eff_pct=50)
    ex = next(a for a in cardinfo.askables(c, p, v) if a.source == "exercise")
    assert ex.question.prompt.startswith("$η_β$ = 50% 时:")


def test_states_in_the_parameters_own_words_and_whole_numbers():
    c, p, _ = state("eg-1-1", batch=64, gpu="a100-80gb-sxm", bw_eff_pct=70)
    label = cardinfo.state_label(c, p)
    assert label == "加速器 = A100 80GB SXM (Ampere) · 批大小 B = 64 请求 · 带宽可用比例 = 70%"
    c, p, _ = state("eg-1-1")
    assert cardinfo.state_label(c, p) == "默认设置"
    c, p, _ = state("eg-1-1", params_billion=405)
    assert cardinfo.state_label(c, p) == "参数量 N = 405×10⁹"


def test_every_cards_states_are_labelled():
    for c in REGISTRY.values():
        p = c.defaults()
        assert cardinfo.state_label(c, p) == "默认设置", c.id
