"""app/calculators/decode.py against the book's Qwen3-8B numbers."""

from __future__ import annotations

import math

import pytest
from app.calculators import decode
from app.calculators.model_config import shape_of
from app.data import gpu, model_config, read_json


@pytest.fixture(scope="module")
def q():
    return decode.quick_numbers(shape_of(model_config("qwen3-8b")))


def test_quick_numbers(q):
    assert q.n_params == 8_190_735_360
    assert round(q.weights_bytes / 1e9, 2) == 16.38
    assert q.kv_per_token_bytes == 144 * 1024
    assert q.kv_context_bytes == 288 * 2**20
    assert round(q.kv_context_bytes / 1e9, 3) == 0.302
    assert round(q.prefill_flops / 1e12, 2) == 29.69
    assert round(q.decode_flops / 1e9, 2) == 16.34
    assert round(q.decode_weight_read_bytes / 1e9, 2) == 15.14
    assert round(q.decode_read_bytes / 1e9, 2) == 15.44


def test_kv_bytes_scales_linearly():
    s = shape_of(model_config("deepseek-r1-distill-llama-70b"))
    assert decode.kv_bytes(s, 8192) == 2.5 * 2**30
    assert decode.kv_bytes(s, 2048, 3) == 3 * decode.kv_bytes(s, 2048)


def test_tpot_bound_rtx_pro_6000(q):
    g = gpu("rtx-pro-6000")

    def lb(b):
        return decode.tpot_bound(
            q.decode_flops, q.decode_weight_read_bytes, q.decode_kv_read_bytes, b, g.bw_bytes_s, g.flops
        )

    assert round(lb(1).t_step * 1e3, 2) == 8.62
    assert lb(1).bound == "memory"
    assert math.isclose(lb(1).t_compute * 1e3, 0.0324, rel_tol=0.002)
    assert round(lb(16).t_step * 1e3, 2) == 11.14
    assert round(lb(64).t_step * 1e3, 2) == 19.23


def test_mbu_mfu(q):
    g = gpu("rtx-pro-6000")
    assert math.isclose(100 * decode.mbu(q.decode_read_bytes, g.bw_bytes_s, 26.5e-3), 32.5, rel_tol=0.002)
    assert math.isclose(100 * decode.mfu(q.decode_flops, g.flops, 26.5e-3), 0.1224, rel_tol=0.002)
    # at the bound itself the memory-bound step is fully bandwidth-utilised
    t = q.decode_read_bytes / g.bw_bytes_s
    assert math.isclose(decode.mbu(q.decode_read_bytes, g.bw_bytes_s, t), 1.0)


def test_eager_timeline():
    tl = decode.eager_timeline(6, 3.0, 1.0)
    assert tl[0] == (0, 3.0, 3.0, 4.0)
    assert tl[-1] == (15.0, 18.0, 18.0, 19.0)
    assert math.isclose(decode.busy_fraction(tl), 6 / 19)
    assert round(decode.busy_fraction(tl), 2) == 0.32
    # kernels longer than launches: the device queue stays busy back to back
    tl2 = decode.eager_timeline(4, 1.0, 3.0)
    assert [g for _, _, g, _ in tl2] == [1.0, 4.0, 7.0, 10.0]
    assert decode.busy_fraction([]) == 0.0


def test_measured_file_has_only_printed_levels():
    d = read_json("qwen3_8b_rtx_pro_6000.json")
    assert "_source" in d
    pts = {p["batch"]: p for p in d["points"]}
    assert sorted(pts) == [1, 64]
    assert pts[1]["tpot_ms"] == 26.5 and pts[64]["tpot_ms"] == 40.5 and pts[64]["throughput_ratio"] == 31


def test_eager_busy_fraction_closed_form_matches_the_timeline():
    # 6 kernels, launch 3, kernel 1: makespan 3 + 5·3 + 1 = 19, busy 6 → 6/19
    assert math.isclose(decode.eager_busy_fraction(6, 3.0, 1.0), 6 / 19)
    for n, launch, kernel in [(1, 3.0, 1.0), (4, 1.0, 3.0), (20, 2.5, 2.5), (7, 0.4, 1.3)]:
        tl = decode.eager_timeline(n, launch, kernel)
        assert math.isclose(decode.eager_busy_fraction(n, launch, kernel), decode.busy_fraction(tl))


def test_kv_bytes_keeps_the_trace_of_its_inputs():
    """While a derivation is traced, the float() cast must not drop how KV bytes were computed."""
    from app.calculators.model_config import shape_of
    from app.data import model_config
    from app.trace import leaf, node_of, tracing

    s = shape_of(model_config("qwen3-8b"))
    assert decode.kv_bytes(s, 2048) == 147_456 * 2048 and isinstance(decode.kv_bytes(s, 2048), float)
    with tracing():
        v = decode.kv_bytes(s, leaf(2048, "S", "token"))
        assert v == 147_456 * 2048 and node_of(v) is not None


BW, PEAK = 1.792e12, 503.8e12  # RTX PRO 6000: β and Π


def test_tpot_outputs_and_named_bound(q):
    o = decode.tpot_outputs(q, 1, BW, PEAK)
    assert (round(o["f1_gflop"], 2), round(o["r_w_gb"], 2), round(o["r_state_gb"], 3)) == (16.34, 15.14, 0.302)
    assert o["tpot_memory_ms"] == pytest.approx((q.decode_weight_read_bytes + q.decode_kv_read_bytes) / BW * 1e3)
    assert o["tpot_compute_ms"] == pytest.approx(q.decode_flops / PEAK * 1e3)
    assert round(o["tpot_lb_ms"], 2) == 8.62 and round(decode.tpot_outputs(q, 64, BW, PEAK)["tpot_lb_ms"], 2) == 19.23
    from app.trace import node_of, tracing

    with tracing():
        b = decode.named_tpot_bound(q, 1, BW, PEAK)
        assert (
            b.t_step
            == decode.tpot_bound(q.decode_flops, q.decode_weight_read_bytes, q.decode_kv_read_bytes, 1, BW, PEAK).t_step
        )
        assert node_of(b.t_mem).args[0].args[0].sym == "R_W"  # (R_W + B·R_state,1)/β keeps the book's names


def test_batching_check_exercise_1_4_by_hand():
    o = decode.batching_check(26.5, 40.5, 1, 31, 8.615, 19.23, 64)
    assert o["throughput_ratio_b64"] == 31 and o["ideal_throughput_ratio_b64"] == 64
    assert o["scaling_efficiency_pct"] == pytest.approx(100 * 31 / 64)  # 48.4 %
    assert o["tpot_growth_pct"] == pytest.approx(100 * (40.5 / 26.5 - 1))  # 52.8 %
    assert o["tpot_implied_throughput_ratio_b64"] == pytest.approx(64 * 26.5 / 40.5)  # 41.9
    assert o["tpot_lb_ratio_b64"] == pytest.approx(19.23 / 8.615)


def test_gap_outputs_by_hand(q):
    o = decode.gap_outputs(q, BW, PEAK, 26.5)
    lb = o["lb_ms"]
    assert round(lb, 2) == 8.62 and o["gap_ms"] == pytest.approx(26.5 - lb) and o["ratio"] == pytest.approx(26.5 / lb)
    assert o["mbu_pct"] == pytest.approx(100 * q.decode_read_bytes / (BW * 0.0265))  # 32.5 %
    assert o["mfu_pct"] == pytest.approx(100 * q.decode_flops / (PEAK * 0.0265))


def test_quick_table_and_bounds(q):
    t = decode.quick_table(q)
    assert (t["n_params"], round(t["weights_gb"], 2), t["kv_per_token_kib"], t["kv_context_mib"]) == (
        8_190_735_360,
        16.38,
        144,
        288,
    )
    assert (round(t["prefill_tflop"], 2), round(t["decode_gflop"], 2), round(t["decode_kv_read_gb"], 3)) == (
        29.69,
        16.34,
        0.302,
    )
    b = decode.quick_bounds(q, BW, PEAK, 96)
    assert (
        b["prefill_compute_ms"] == pytest.approx(q.prefill_flops / PEAK * 1e3) and round(b["decode_lb_ms"], 2) == 8.62
    )
    assert b["fits"] and b["need_gb"] == pytest.approx((q.weights_bytes + q.kv_context_bytes) / 1e9)
    assert not decode.quick_bounds(q, BW, PEAK, 16)["fits"]
