"""queueing.py against chapter 3's printed numbers (例题 3-1, 练习 3-2, 图 3-3, 真实回放)."""

from __future__ import annotations

import math

import pytest
from app.calculators import model_config as mc
from app.calculators import queueing as qu
from app.data import gpu, model_config
from app.derivation import derive
from app.trace import evaluate, leaf, node_of, plain, tracing

LI, LO = qu.RequestClass(8192, 256), qu.RequestClass(1024, 2048)
MU_BOOK = 2795.66


def test_request_structure():
    assert qu.decode_calls(256) == 255 and qu.decode_calls(1) == 0
    assert qu.decode_context(0, 8192, 0) == 8192
    assert qu.decode_context_sum(0, 8192, 256) == 2_121_345
    assert qu.decode_context_sum(0, 1024, 2048) == 4_190_209
    assert qu.final_kv_tokens(0, 8192, 256) == 8447 and qu.final_text_tokens(0, 8192, 256) == 8448
    # brute force agrees
    assert qu.decode_context_sum(5, 7, 9) == sum(5 + 7 + j for j in range(8))


def test_mean_context_and_step_bytes_from_config():
    shape = mc.shape_of(model_config("qwen3-8b"))
    kv = shape.kv_bytes_per_token_bf16
    assert kv == 147_456
    w = round(mc.decode_weight_read_bytes(shape, 2) / 1e9, 2) * 1e9
    assert w == pytest.approx(15.14e9)
    c = qu.mean_decode_context([(240, LI), (240, LO)])
    assert c == pytest.approx(6_311_554 / 2_302)  # 约 2,742
    assert round(c) == 2742
    b = qu.decode_step_bytes(w, 64, c, kv)
    assert round(b / 1e9, 2) == 41.02
    bw = gpu("rtx-pro-6000").bw_bytes_s
    assert round(b / bw * 1e3, 2) == 22.89
    assert qu.decode_rate_bandwidth(64, b, bw) == pytest.approx(2795.63, abs=0.005)  # the book states 2,795.66
    # the conventions the catalog rules out
    assert round(qu.decode_step_bytes(w, 64, c - 1, kv) / 1e9, 2) == 41.01
    assert round(qu.decode_step_bytes(w, 64, 2742, kv) / 1e9, 2) == 41.03


def test_mix_demand():
    assert qu.mix_demand(4, 0.5, 255, 2047) == pytest.approx(4604)
    assert qu.mix_demand(4, 0.9, 255, 2047) == pytest.approx(1736.8)
    assert qu.mix_demand(4, 0.1, 255, 2047) == pytest.approx(7471.2)


def test_skewed_two_minutes_backlog_is_floor_of_112792_8():
    run = qu.run_two_class(4, 120, 60, 0.9, 0.1, 255, 2047, 2 * MU_BOOK)
    assert run.backlog_end == pytest.approx(112_792.8, abs=1e-6)
    assert run.backlog_end_display == 112_792  # floor, not round (112,793)
    assert run.queue[60] == 0  # minute 1 ends with an empty queue
    assert run.drain_s == pytest.approx(20.17, abs=0.005)
    assert run.completion_s == pytest.approx(140.17, abs=0.005)
    assert run.total_arrived == pytest.approx(552_480)
    assert run.queue[-1] == 0 and run.times[-1] >= run.completion_s
    for dt in (0.5, 0.1):
        assert qu.run_two_class(4, 120, 60, 0.9, 0.1, 255, 2047, 2 * MU_BOOK, dt).backlog_end_display == 112_792


def test_uniform_never_queues_and_fluid_formula():
    assert qu.run_two_class(4, 120, 60, 0.5, 0.5, 255, 2047, 2 * MU_BOOK).peak == 0
    assert qu.fluid_backlog(7471.2, 2 * MU_BOOK, 60) == pytest.approx(112_792.8)
    assert qu.fluid_backlog(1736.8, 2 * MU_BOOK, 60) == 0


def test_exercise_3_2_burst():
    two = qu.run_two_class(4, 30, 0, 0.1, 0.1, 255, 2047, 2 * MU_BOOK)
    assert two.backlog_end == pytest.approx(56_396.4, abs=1e-6)
    assert two.drain_s == pytest.approx(10.09, abs=0.005)
    assert all(b >= a for a, b in zip(two.queue[:31], two.queue[1:31]))  # a straight ramp
    three = qu.run_two_class(4, 30, 0, 0.1, 0.1, 255, 2047, 3 * MU_BOOK)
    assert three.peak == 0 and three.drain_s == 0
    rounded = qu.run_two_class(4, 30, 0, 0.1, 0.1, 255, 2047, 2 * 2796)
    assert rounded.backlog_end == pytest.approx(56_376) and rounded.drain_s == pytest.approx(10.08, abs=0.005)


def test_recursion_rule():
    run = qu.simulate_backlog([10, 0, 0, 5], capacity=4, dt=1)
    assert list(run.queue[:5]) == [0, 6, 2, 0, 1]
    assert run.backlog_end == 1 and run.queue[-1] == 0
    long = qu.simulate_backlog([1e9], capacity=1, dt=1, max_drain_points=10)
    assert long.truncated and long.times[-1] == pytest.approx(1 + (1e9 - 1))


def test_floor_steps():
    assert qu.floor_steps(112_792.8) == 112_792
    assert qu.floor_steps(1000 - 1e-10) == 1000
    assert qu.floor_steps(0.0) == 0


def test_occupancy():
    assert qu.mean_in_wait(2, 10) == 20 and qu.mean_in_wait(2, 30) == 60
    gib = 2**30
    assert qu.mean_occupancy(2, gib, 10) / gib == 20
    assert qu.mean_occupancy(2, gib, 30) / gib == 60
    assert qu.occupancy_area_one(gib, 10) / gib == 10
    assert qu.occupancy_area(2, 1, 10, 40) == pytest.approx(705)
    assert qu.occupancy_at(15, 2, 1, 10) == 20  # plateau λτ after τ
    assert qu.occupancy_at(0, 2, 1, 10) == 1
    assert qu.occupancy_at(10, 2, 1, 10) == 20  # the t = 0 task leaves exactly at 10 s
    # ∫M dt by the step function agrees with the sum
    H, n = 40, 4000
    assert sum(qu.occupancy_at(H * i / n, 2, 1, 10) for i in range(n)) * H / n == pytest.approx(705, rel=1e-3)


def test_kv_pool_binds_before_the_sequence_cap():
    tokens = 24 * 2**30 / 147_456
    assert tokens == pytest.approx(174_762.7, abs=0.05)
    assert math.floor(tokens / qu.final_kv_tokens(0, 8192, 256)) == 20
    assert math.floor(tokens / qu.final_kv_tokens(0, 1024, 2048)) == 56
    assert 552_480 / MU_BOOK == pytest.approx(197.6, abs=0.05)


# ---------------------------------------------------------------------------------------------
# The cards' quantities (dicts keyed by output names) and their traced derivations
# ---------------------------------------------------------------------------------------------

BOOK = qu.DecodeCard(15.14e9, 147_456, 1.792e12, 64)


def _mix(s1: float, s2: float, duration: float = 120, split: float = 60) -> qu.TwoClassMix:
    return qu.TwoClassMix(4, duration, split, s1, s2, LI, LO)


def test_two_class_outputs_reproduce_example_3_1():
    o, run = qu.two_class_outputs(_mix(0.9, 0.1), BOOK, 2, MU_BOOK)
    assert o["total_requests"] == 480 and o["long_input_requests"] == 240 and o["long_output_requests"] == 240
    assert o["total_decode_steps"] == 552_480 and o["avg_demand_steps_s"] == pytest.approx(4604)
    assert o["demand_before_steps_s"] == pytest.approx(1736.8) and o["demand_after_steps_s"] == pytest.approx(7471.2)
    assert o["mean_ctx_tokens"] == pytest.approx(6_311_554 / 2_302)
    assert round(o["step_read_write_gb"], 2) == 41.02 and round(o["step_ms"], 2) == 22.89
    assert o["mu_bw_per_card"] == pytest.approx(2795.63, abs=0.005) and o["mu_per_card"] == MU_BOOK
    assert o["mu_per_card_rounded"] == 2796 and o["capacity_steps_s"] == pytest.approx(5591.32)
    assert o["backlog_end_steps"] == pytest.approx(112_792.8, abs=1e-6) and o["backlog_end_steps_display"] == 112_792
    assert o["backlog_fluid_steps"] == pytest.approx(112_792.8) and o["peak_backlog_steps"] == o["backlog_end_steps"]
    assert o["drain_s"] == pytest.approx(112_792.8 / 5591.32) and o["completion_s"] == pytest.approx(120 + o["drain_s"])
    assert o["min_time_one_card_s"] == pytest.approx(552_480 / MU_BOOK) and o["min_time_all_cards_s"] == pytest.approx(
        98.81, abs=0.005
    )
    assert o["util_avg_pct"] == pytest.approx(82.34, abs=0.01) and o["util_after_pct"] == pytest.approx(
        133.62, abs=0.01
    )
    assert o["queue_series"][-1] == 0 and len(o["arrival_series"]) == 120 and run.backlog_end == o["backlog_end_steps"]
    bw, _ = qu.two_class_outputs(_mix(0.9, 0.1), BOOK, 2)  # μ from the bandwidth formula
    assert bw["mu_per_card"] == bw["mu_bw_per_card"] and bw["backlog_end_steps"] == pytest.approx(112_796.4, rel=1e-6)
    uniform, _ = qu.two_class_outputs(_mix(0.5, 0.5), BOOK, 2, MU_BOOK)
    assert uniform["backlog_end_steps"] == 0 and uniform["drain_s"] == 0 and uniform["backlog_end_steps_display"] == 0


def test_class_a_steps_split_each_interval():
    m = _mix(0.9, 0.1)
    _, run = qu.two_class_outputs(m, BOOK, 2, MU_BOOK)
    a = qu.class_a_steps(m, run)
    assert a[0] == pytest.approx(4 * 255 * 0.9) and a[-1] == pytest.approx(4 * 255 * 0.1)
    assert sum(a) == pytest.approx(240 * 255)  # every long-input request's G − 1 steps


def _checked(x) -> float:
    """The traced value's derivation check, evaluated."""
    d = derive(x, "x", "")
    assert d is not None and d.check is not None, d
    return evaluate(d.check)


def test_two_class_outputs_traced_derive_every_number():
    with tracing():
        m = qu.TwoClassMix(
            leaf(4.0, "λ"),
            leaf(120.0, "T"),
            leaf(60.0, "t_s"),
            leaf(90.0, "s_1") / 100,
            leaf(10.0, "s_2") / 100,
            qu.RequestClass(leaf(8192, "P_A"), leaf(256, "G_A")),
            qu.RequestClass(leaf(1024, "P_B"), leaf(2048, "G_B")),
        )
        card = qu.DecodeCard(leaf(15.14, "W") * 1e9, leaf(144.0, "c") * 1024, leaf(1.792, "β") * 1e12, leaf(64, "B"))
        o, _ = qu.two_class_outputs(m, card, leaf(2, "n"), leaf(MU_BOOK, "μ_1"))
    q = o["backlog_end_steps"]
    assert node_of(q).kind == "rule" and node_of(q).sym == "Q_{end}"  # simulated: a rule, no check
    assert derive(q, "Q", "").check is None
    for key in (
        "total_decode_steps",
        "mean_ctx_tokens",
        "step_ms",
        "mu_bw_per_card",
        "capacity_steps_s",
        "util_after_pct",
        "backlog_end_steps_display",
        "drain_s",
        "completion_s",
        "backlog_fluid_steps",
    ):
        assert _checked(o[key]) == pytest.approx(plain(o[key]), rel=1e-9), key
    assert derive(o["total_decode_steps"], "D", "").formula == "D = N_A·(G_A − 1) + N_B·(G_B − 1)"


def test_plain_zero_restored_tokens_stay_out_of_formulas():
    assert qu._plus(0, 7) == 7 and qu._plus(5, 7) == 12
    with tracing():
        p, g = leaf(8192, "P"), leaf(256, "G")
        kv = qu.final_kv_tokens(0, p, g)
        ctx = qu.decode_context_sum(leaf(0, "S"), p, g)
    assert derive(kv, "KV", "").formula == "KV = P + G − 1"
    assert "S + P" in derive(ctx, "C", "").formula  # a traced S stays in, even at 0
    assert plain(ctx) == 2_121_345 and qu.decode_calls(1) == 0 and qu.decode_calls(0) == 0


def test_request_outputs_figure_3_1():
    o = qu.request_outputs(0, 8192, 256, 1, 281.1, 147_456)
    assert (o["decode_calls"], o["total_calls"], o["first_decode_ctx_tokens"], o["last_decode_ctx_tokens"]) == (
        255,
        256,
        8192,
        8446,
    )
    assert (o["final_kv_tokens"], o["final_text_tokens"], o["decode_kv_read_tokens"]) == (8447, 8448, 2_121_345)
    assert o["prefill_bound"] == "compute" and o["decode_bound"] == "bandwidth"
    assert o["decode_kv_read_gb"] == pytest.approx(312.8, abs=0.05) and o["final_kv_mib"] == pytest.approx(
        1187.9, abs=0.05
    )
    one = qu.request_outputs(100, 50, 1, 4, 281.1, 147_456)
    assert one["decode_calls"] == 0 and one["first_decode_ctx_tokens"] is None and one["final_kv_tokens"] == 150


def test_sync_column_exercise_3_1():
    args = (1024, 1024, 15.14e9, 147_456, 1.792e12)
    eight, one = qu.sync_column(8, *args), qu.sync_column(1, *args)
    assert (
        eight["output_per_request"],
        eight["decode_rounds"],
        eight["weight_read_rounds"],
        eight["decode_steps_total"],
    ) == (128, 127, 128, 1016)
    assert (one["decode_rounds"], one["weight_read_rounds"], one["end_context_tokens"]) == (1023, 1024, 2048)
    assert eight["end_kv_mib_total"] == pytest.approx(1294.9, abs=0.05) and eight["weight_read_gb"] == pytest.approx(
        1937.9, abs=0.05
    )
    assert eight["decode_lb_s"] == pytest.approx(1.164, abs=5e-4) and one["decode_lb_s"] == pytest.approx(
        8.772, abs=5e-4
    )


def test_wait_outputs_and_waiting_seconds():
    o = qu.wait_outputs(2, 10, 2**30, 40)
    assert (o["mean_waiting_tasks"], o["mean_occupancy_gib"], o["area_per_task_gib_s"], o["steady_from_s"]) == (
        20,
        20,
        10,
        10,
    )
    assert o["area_horizon_gib_s"] == pytest.approx(705)
    assert qu.waiting_seconds(2, 10, 40) == pytest.approx(705)  # 60 tasks; the last 20 cut at 40 s
    with tracing():
        area = qu.waiting_seconds(leaf(2.0, "λ"), leaf(10.0, "τ"), leaf(40.0, "H"))
    assert node_of(area).kind == "rule" and node_of(area).sym == "Στ"


def test_kv_pool_residency():
    tokens, (li, lo) = qu.kv_pool_residency(24 * 2**30, 147_456, (LI, LO))
    assert tokens == pytest.approx(174_762.7, abs=0.05) and (li, lo) == (20, 56)


def test_rule_decorator_keeps_plain_runs_plain():
    run = qu.run_two_class(4, 120, 60, 0.9, 0.1, 255, 2047, 2 * MU_BOOK)
    assert node_of(run.backlog_end) is None  # tracing off: plain numbers
    with tracing():
        traced = qu.run_two_class(leaf(4.0, "λ"), 120, 60, 0.9, 0.1, 255, 2047, 2 * MU_BOOK)
    assert node_of(traced.backlog_end).kind == "rule" and traced.backlog_end == run.backlog_end
    assert qu.relabel(traced.backlog_end, "Q", "步") == run.backlog_end


def test_drain_time_and_floor_keep_their_traces():
    assert qu.drain_time(0.0, 5.0) == 0 and qu.drain_time(-1.0, 5.0) == 0 and qu.drain_time(10.0, 4.0) == 2.5
    with tracing():
        q, mu = leaf(112_792.8, "Q"), leaf(5591.32, "μ")
        drain, shown = qu.drain_time(q, mu), qu.floor_steps(q)
    assert derive(drain, "T", "").formula == "T = Q/μ" and shown == 112_792
    assert derive(shown, "Q_disp", "").formula == "Q_disp = ⌊Q⌋" and evaluate(derive(shown, "x", "").check) == 112_792
