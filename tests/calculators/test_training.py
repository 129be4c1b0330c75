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
