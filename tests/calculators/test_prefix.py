"""Prefix reuse, cache hits, shared branch prefixes and the CED prompt work (3.2.1, 3.2.4)."""

import pytest
from app.calculators import prefix
from app.calculators.model_config import shape_of
from app.data import model_config

KV = shape_of(model_config("qwen3-8b")).kv_bytes_per_token_bf16


def test_kv_per_token_is_144_kib():
    assert KV == 147_456 == 144 * 1024


def test_round_two_of_the_repair_trace():
    assert prefix.new_tokens(1443, 1392) == 51
    assert prefix.attn_pairs_cached(51, 1392) == 72_318
    assert prefix.attn_pairs_full(1443) == 1_041_846


def test_four_round_totals():
    rounds = [(700, 0), (1443, 1392), (1480, 1440), (1674, 1648)]
    assert sum(i for i, _ in rounds) == 5297
    assert sum(k for _, k in rounds) == 4480
    assert sum(prefix.new_tokens(i, k) for i, k in rounds) == 817


def test_edits_of_a_2000_token_context():
    e = prefix.edit_append(2000, 200)
    assert prefix.reused_tokens(e.first_change, e.new_length) == 2000 and e.new_length == 2200
    e = prefix.edit_replace(2000, 600, 1400, 150)
    assert (prefix.reused_tokens(e.first_change, e.new_length), e.new_length) == (600, 1350)
    e = prefix.edit_template(2000, 40, 0)
    assert prefix.reused_tokens(e.first_change, e.new_length) == 40 and e.new_length - 40 == 1960
    assert prefix.reused_tokens(40, 2000, 16) == 32
    assert prefix.edit_replace(2000, 700, 700, 0).new_length == 2000  # nothing changed


def test_branch_state():
    b = prefix.branch_state(2000, [500, 500, 500])
    assert (b.shared_tokens, b.unshared_tokens, b.serial_peak_tokens) == (3500, 7500, 2500)
    assert round(b.shared_tokens * KV / 2**20, 1) == 492.2


def test_ced_prompt_work():
    assert prefix.decoder_only_prompt_work(8192, 40) == 327_680
    assert prefix.ced_prompt_work(8192, 20, 20, 128) == 166_400
    assert prefix.ced_prompt_work(100, 20, 20, 128) == prefix.decoder_only_prompt_work(100, 40)
    assert prefix.decode_work(256, 40) == 10_200


def test_edit_outputs():
    o = prefix.edit_outputs(prefix.edit_append(2000, 200), 2000, 1, 147_456)
    assert (o["reused_tokens"], o["recompute_tokens"], o["new_context_tokens"]) == (2000, 200, 2200)
    assert o["reuse_pct"] == pytest.approx(100 * 2000 / 2200) and o["recompute_kv_mib"] == pytest.approx(
        200 * 144 / 1024
    )
    blocks = prefix.edit_outputs(prefix.edit_replace(2000, 600, 1400, 150), 2000, 16, 147_456)
    assert blocks["reused_tokens"] == 592 and blocks["new_context_tokens"] == 1350  # ⌊600/16⌋·16
    clamped = prefix.edit_outputs(prefix.edit_template(2000, 5000, -10), 2000, 1, 147_456)
    assert clamped["reused_tokens"] == 2000 and clamped["new_context_tokens"] == 2000  # position clamped to the end


def test_round_outputs_round_two():
    o = prefix.round_outputs([700, 1443, 1480, 1674], [0, 1392, 1440, 1648], 1, 147_456)
    assert (o["total_input_tokens"], o["total_hit_tokens"], o["total_miss_tokens"], o["new_tokens"]) == (
        5297,
        4480,
        817,
        51,
    )
    assert o["attn_pairs_cached"] == 51 * 1392 + 51 * 52 // 2 and o["attn_pairs_full"] == 1443 * 1444 // 2
    assert o["resident_kv_mib"] == pytest.approx(1443 * 144 / 1024)


def test_branch_outputs_equal_branch_state():
    o = prefix.branch_outputs(2000, 3, 500, 2, 147_456)
    b = prefix.branch_state(2000, [500] * 3)
    assert (o["shared_tokens"], o["unshared_tokens"]) == (b.shared_tokens, b.unshared_tokens) == (3500, 7500)
    assert o["serial_peak_mib"] == pytest.approx(b.serial_peak_tokens * 144 / 1024)
    assert o["resident_now_mib"] == pytest.approx(3000 * 144 / 1024) and o["running_branches_now"] == 2
    assert prefix.branch_state(10, [4]).serial_peak_tokens == 14  # one branch


def test_ced_outputs():
    o = prefix.ced_outputs(8192, 256, 20, 20, 128)
    assert (o["prompt_work_decoder_only"], o["prompt_work_ced"], o["decode_work_both"]) == (327_680, 166_400, 10_200)
    assert o["prompt_ratio"] == pytest.approx(166_400 / 327_680) and o["total_ratio"] == pytest.approx(
        176_600 / 337_880
    )
    assert prefix.ced_outputs(100, 1, 20, 20, 128)["prompt_ratio"] == 1 and prefix.decode_work(1, 40) == 0
