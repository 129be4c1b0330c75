"""Prefix reuse, cache hits, shared branch prefixes and the CED prompt work (3.2.1, 3.2.4)."""
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
    assert prefix.edit_replace(2000, 700, 700, 0).new_length == 2000   # nothing changed


def test_branch_state():
    b = prefix.branch_state(2000, [500, 500, 500])
    assert (b.shared_tokens, b.unshared_tokens, b.serial_peak_tokens) == (3500, 7500, 2500)
    assert round(b.shared_tokens * KV / 2**20, 1) == 492.2


def test_ced_prompt_work():
    assert prefix.decoder_only_prompt_work(8192, 40) == 327_680
    assert prefix.ced_prompt_work(8192, 20, 20, 128) == 166_400
    assert prefix.ced_prompt_work(100, 20, 20, 128) == prefix.decoder_only_prompt_work(100, 40)
    assert prefix.decode_work(256, 40) == 10_200
