"""training.py against the book's numbers (ch 3.4): 6mkn, 18 B/param, 59.381 TFLOPs, +7.15%."""

import math

import pytest
from app.calculators import training as T
from app.calculators.model_config import shape_of
from app.data import model_config


@pytest.fixture(scope="module")
def s():
    return shape_of(model_config("qwen3-8b"))


def test_linear_three_matmuls_equal():
    lt = T.linear_train_flops(8192, 4096, 12288)
    assert lt.fwd == lt.dx == lt.dw == 2 * 8192 * 4096 * 12288
    assert lt.total / lt.mkn == 6
    assert T.linear_train_flops(3, 5, 7, freeze_w=True).total / 105 == 4
    assert T.linear_train_flops(3, 5, 7, freeze_w=True, need_input_grad=False).total / 105 == 2


def test_six_nd():
    assert T.six_nd(8_190_735_360, 8192) == pytest.approx(402.591e12, rel=1e-6)


def test_block_matmuls_from_config(s):
    bm = T.block_matmuls(s)
    assert (bm.q, bm.k, bm.v, bm.o, bm.ffn) == (16_777_216, 4_194_304, 4_194_304, 16_777_216, 150_994_944)
    assert bm.total == 192_937_984
    assert s.params_total == 8_190_735_360 and s.other_params == 308_224


def test_pairs():
    assert T.causal_pairs(8192) == 33_558_528
    assert T.packed_pairs([4096, 4096]) == 16_781_312
    assert T.causal_pairs(1279) == 818_560


def test_itemised_fig_3_23(s):
    it = T.itemised_train_flops(s, 1, 8192)
    assert it.attention / 1e12 == pytest.approx(59.381, abs=5e-4)
    assert 100 * it.over_6nd == pytest.approx(7.15, abs=5e-3)
    assert it.total / 1e12 == pytest.approx(431.368, abs=5e-4)
    # 6ND − embedding − norms + attention = item total
    assert it.six_nd - it.embed_excluded - it.norms_excluded + it.attention == pytest.approx(it.total, rel=1e-12)
    assert T.itemised_train_flops(s, 1, 8192, recompute=True).recompute / 1e12 == pytest.approx(143.79, abs=5e-3)
    assert 100 * T.itemised_train_flops(s, 2, 4096).over_6nd == pytest.approx(-0.23, abs=5e-3)


def test_optimizer_state_18_bytes(s):
    st = T.optimizer_state_bytes(s.params_total)
    assert st.bytes_per_param == 18
    assert st.total / 1e9 == pytest.approx(147.43, abs=5e-3)
    assert st.total / 2**30 == pytest.approx(137.31, abs=5e-3)
    assert st.total / T.optimizer_state_bytes(s.params_total, 2, 0, 0, 0, 0).total == 9
    assert T.optimizer_state_bytes(s.params_total, grad_b=2).total / 1e9 == pytest.approx(131.05, abs=5e-3)


def test_update_tokens_ex_3_6():
    u = T.update_tokens(8, 2, 4096, 1024)
    assert (u.input_tokens, u.supervised_tokens, u.passes, u.sequences) == (65536, 16384, 8, 16)


def test_lm_head_saving_ex_3_6(s):
    assert T.lm_head_flops(s, 49152) / 1e12 == pytest.approx(183.53, abs=5e-3)
    assert T.lm_head_flops(s, 49152, train=False) / 1e12 == pytest.approx(61.18, abs=5e-3)


@pytest.mark.parametrize("a,peak", [(1, 4), (2, 2), (4, 1), (8, 0.5)])
def test_microbatch_peak_drops_time_stays(a, peak):
    sch = T.microbatch_schedule(4, a, 1, 2, 1)
    assert sch.peak_activation == pytest.approx(peak)
    assert sch.total_time == pytest.approx(12)
    assert len(sch.ops) == 8 * a and len(sch.lifetimes) == 4 * a


def test_ceil_div_float_noise():
    assert T.ceil_div(16, 0.05) == 320
    assert T.ceil_div(16, 0.25) == 64
    assert T.ceil_div(16, 0.3) == math.ceil(16 / 0.3)


# ---------------------------------------------------------------- the cards' output functions


def test_linear_outputs_and_shapes():
    o = T.linear_outputs(8192, 4096, 12288)
    assert o["fwd_gflop"] == o["dx_gflop"] == o["dw_gflop"] == pytest.approx(2 * 8192 * 4096 * 12288 / 1e9)
    assert o["total_over_mkn"] == 6 and o["dx_shape_elems"] == 8192 * 4096 and o["dw_shape_elems"] == 4096 * 12288
    frozen = T.linear_outputs(3, 5, 7, freeze_w=True, need_input_grad=False)
    assert frozen["dw_gflop"] == 0 and frozen["dx_gflop"] == 0 and frozen["total_over_mkn"] == 2


def test_pair_and_block_weights(s):
    assert T.attn_flops_per_pair_layer(s) == 4 * 32 * 128  # 4·H·d = 16,384
    assert T.block_linear_params(s) == 192_937_984 == T.block_matmuls(s).total


def test_split_outputs_halves_the_pairs(s):
    o = T.split_outputs(s, 8192, 4096)
    assert (o["second_doc_tokens"], o["pairs"], o["pairs_single_doc"]) == (4096, 16_781_312, 33_558_528)
    # one layer: 16,384 FLOPs per pair, 2·192,937,984 per row
    assert o["attn_gflop"] == pytest.approx(16384 * 16_781_312 / 1e9)
    assert o["linear_gflop"] == pytest.approx(2 * 192_937_984 * 8192 / 1e9)
    assert o["attn_share_pct"] == pytest.approx(8.0, abs=0.05) and o["single_attn_share_pct"] == pytest.approx(
        14.8, abs=0.05
    )
    whole = T.split_outputs(s, 8192, 9000)  # the cut is clipped to the packed length
    assert whole["pairs"] == whole["pairs_single_doc"] and whole["layer_vs_single_doc_pct"] == pytest.approx(100)


def test_itemised_outputs_keys_and_units(s):
    o = T.itemised_outputs(s, 1, 8192)
    assert o["attention_tflop"] == pytest.approx(59.381, abs=5e-4) and o["over_6nd_pct"] == pytest.approx(
        7.15, abs=5e-3
    )
    items = ("qo_proj", "kv_proj", "ffn", "lm_head", "attention")
    assert sum(o[f"{k}_tflop"] for k in items) == pytest.approx(o["itemized_tflop"])
    assert o["recompute_tflop"] == 0
    assert T.itemised_outputs(s, 1, 8192, True)["itemized_tflop"] == pytest.approx(o["itemized_tflop"] * 4 / 3)


def test_state_outputs_eg_3_3(s):
    o = T.state_outputs(s.params_total, (2, 4, 4, 4, 4), 1, 80)
    assert o["bytes_per_param"] == 18 and o["ratio_vs_bf16"] == 9
    assert o["total_gb"] == pytest.approx(147.43, abs=5e-3) and o["total_gib"] == pytest.approx(137.31, abs=5e-3)
    assert o["fits_per_gpu"] is False and o["min_gpus_state_only"] == 2 and o["card_gb"] == 80
    two = T.state_outputs(s.params_total, (2, 4, 4, 4, 4), 2, 80)
    assert two["per_gpu_gb"] == pytest.approx(73.72, abs=5e-3) and two["fits_per_gpu"] is True
    assert T.state_outputs(10**9, (2, 4, 4, 4, 4), 1, 18)["min_gpus_state_only"] == 1  # exactly one card's worth


def test_update_and_sft_outputs(s):
    u = T.update_outputs(8, 2, 4096, 1024)
    assert (u["input_tokens"], u["supervised_tokens"], u["loss_denominator"], u["fwd_bwd_passes"], u["sequences"]) == (
        65536,
        16384,
        16384,
        8,
        16,
    )
    o = T.sft_outputs(s, (300, 200, 1500, 500), 500, True)
    assert o["input_tokens"] == 2500 and o["lm_head_tflop"] == pytest.approx(6 * 4096 * 151936 * 2500 / 1e12)
    assert o["lm_head_waste_tflop"] == pytest.approx(6 * 4096 * 151936 * 2000 / 1e12)
    sup = T.sft_outputs(s, (300, 200, 1500, 500), 500, False)
    assert sup["lm_head_waste_tflop"] == 0 and sup["train_tflop"] == pytest.approx(
        o["train_tflop"] - o["lm_head_waste_tflop"]
    )


def test_schedule_summary_is_a_rule():
    from app.trace import leaf, node_of, tracing

    assert T.schedule_summary(4, 2, 1, 2, 1) == T.ScheduleSummary(2, 12)
    with tracing():
        sch = T.schedule_summary(4, leaf(2, "a"), 1, 2, 1)
    assert node_of(sch.M_act).kind == "rule" and node_of(sch.T).kind == "rule" and (sch.M_act, sch.T) == (2, 12)
    assert node_of(sch.M_act).sym == "M_act"


def test_outputs_trace_their_inputs(s):
    """With traced inputs the outputs carry their expression (the card's derivation)."""
    from app.derivation import derive
    from app.trace import evaluate, leaf, tracing

    with tracing():
        o = T.update_outputs(leaf(8, "a"), leaf(2, "B_μ"), leaf(4096, "P"), leaf(1024, "P_{label}"))
    d = derive(o["input_tokens"], "读入", "65,536")
    assert d.formula == "读入 = n_seq·P" and evaluate(d.check) == 65536
    assert [(st.sym, st.formula) for st in d.steps] == [("n_seq", "a·B_μ")]
