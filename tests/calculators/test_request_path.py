"""练习 1-1's ledger and 图 1-3's KV growth against the book's numbers (70B model from its config)."""

from __future__ import annotations

import math

from app.calculators import model_config as mc
from app.calculators import request_path as rp
from app.data import model_config

S70 = mc.shape_of(model_config("deepseek-r1-distill-llama-70b"))
KV = S70.kv_bytes_per_token_bf16


def test_70b_per_token_kv_and_file_size():
    assert KV == 327_680 == 320 * 2**10
    assert 8192 * KV == 2.5 * 2**30  # "8192 token 的 BF16 KV = 2.5 GiB"
    assert round(mc.weight_bytes(S70, "w8-g128") / 1e9, 2) == 73.73


def test_step_convention():
    assert rp.weight_passes(100) == 100 and rp.decode_steps(100) == 99
    assert rp.decode_steps(1) == 0
    assert rp.kv_tokens_after(2048, 0) == 0
    assert rp.kv_tokens_after(2048, 1) == 2048
    assert rp.kv_tokens_after(2048, 100) == 2147


def test_frame_state():
    assert rp.frame_state(2048, 8, 0) == (0, 0)
    assert rp.frame_state(2048, 8, 1) == (2048, 1)
    assert rp.frame_state(2048, 8, 5) == (2052, 5)
    assert rp.frame_state(2048, 8, 99) == (2055, 8)  # past the end: stays on the last frame


def test_old_kv_reads_closed_form_matches_sum():
    for inp, g in ((2048, 100), (2048, 1000), (7, 1), (1, 2), (300, 17)):
        brute = sum(inp + j - 1 for j in range(1, g))
        assert rp.old_kv_read_tokens(inp, g) == brute


def _ledger(g=100, inst=1, gpus=1):
    return rp.ledger(mc.weight_bytes(S70, "w8-g128"), 1.0 * 70e9, KV, S70.hidden, 2048, g, inst, gpus)


def test_ledger_g100_g1000():
    a = _ledger(100)
    assert a.weight_read_total_bytes == 7000e9
    assert a.kv_final_tokens == 2147 and math.isclose(a.kv_final_bytes / 1e9, 0.7035, rel_tol=5e-4)
    assert math.isclose(a.kv_read_total_bytes / 1e9, 68.03, rel_tol=5e-4)
    b = _ledger(1000)
    assert b.weight_read_total_bytes == 70_000e9
    assert b.kv_final_tokens == 3047 and math.isclose(b.kv_final_bytes / 1e9, 0.9984, rel_tol=5e-4)
    assert math.isclose(b.kv_read_total_bytes / 1e9, 833.77, rel_tol=5e-4)


def test_two_instances_and_split():
    two = _ledger(100, inst=2)
    assert math.isclose(two.weights_total_bytes / 1e9, 147.45, rel_tol=5e-4)
    assert two.weight_loads == 2 == two.router_choices
    assert two.weight_read_total_bytes == _ledger(100).weight_read_total_bytes  # per request unchanged
    assert _ledger(100).handoff_per_token_bytes == 0
    split = _ledger(100, gpus=2)
    assert split.handoff_per_token_bytes == 16 * 2**10  # 8192 × 2 B
    assert split.handoff_total_bytes == 16 * 2**10 * (2048 + 99)


def test_ledger_outputs_are_the_ledger_in_card_units():
    lg = rp.ledger(73.73e9, 70e9, KV, S70.hidden, 2048, 100, 2, 2)
    o = rp.ledger_outputs(lg)
    assert o["weights_total_gb"] == 2 * 73.73 and o["weight_loads"] == 2 and o["router_choices"] == 2
    assert o["weight_read_total_gb"] == 100 * 70 and o["steps"] == 100 and o["decode_steps"] == 99
    assert o["kv_per_token_kib"] == o["kv_append_per_step_kib"] == 320
    assert o["kv_final_tokens"] == 2147 and o["kv_final_gb"] == 2147 * KV / 1e9
    assert o["inter_gpu_per_step_kib"] == 8192 * 2 / 1024 == 16
    assert o["inter_gpu_total_mib"] == 16 * 1024 * (2048 + 99) / 2**20
    assert o["kv_read_total_gb"] == KV * (99 * 2048 + 99 * 98 // 2) / 1e9
