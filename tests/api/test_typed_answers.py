"""Issue 40, point 3, through the real check route in both editions: the answer may be a number or
the text typed ("4.02×10²²", "73.7GB", "７３．７", "≈ 1,024"); text that cannot be read gets a 200
verdict that names what was not understood, in the edition's language (never a 422)."""

from __future__ import annotations

import pytest


def _check(client, prefix, card, key, answer, units=None, params=None):
    r = client.post(
        f"{prefix}/api/cards/{card}/check",
        json={"params": params or {}, "answers": {key: answer}, "units": units or {}},
    )
    assert r.status_code == 200, r.text
    return r.json()["results"][key]


@pytest.mark.parametrize("prefix", ["", "/en"])
@pytest.mark.parametrize(
    ("card", "key", "typed"),
    [
        ("ex-3-9", "row1_six_nd_flop", "4.02×10²²"),
        ("ex-3-9", "row1_six_nd_flop", "4.02×10^22"),
        ("ex-3-9", "row1_six_nd_flop", "4.02e22"),
        ("ex-1-1", "weights_total_gb", "７３．７"),
        ("ex-1-1", "weights_total_gb", "73.7GB"),
        ("ex-1-1", "weights_total_gb", "≈ 73.7 GB"),
        ("ex-1-3", "throughput_tok_s_b64", "2,144"),
        ("ex-1-3", "throughput_tok_s_b64", "2,144 token/s"),
        ("ex-1-2", "transfer_ms", "20 ms"),
        ("ex-1-2", "transfer_ms", "0.02 s"),
    ],
)
def test_the_sites_own_notation_is_correct(client, prefix, card, key, typed):
    got = _check(client, prefix, card, key, typed)
    assert got["verdict"] == "correct", got
    assert got["text"] == ("Correct" if prefix else "正确")


@pytest.mark.parametrize(
    ("prefix", "note"), [("", "已把 68.66 GiB 换算为 73.7231 GB。"), ("/en", "Converted 68.66 GiB to 73.7231 GB.")]
)
def test_a_sibling_unit_is_converted_and_the_answer_says_so(client, prefix, note):
    got = _check(client, prefix, "ex-1-1", "weights_total_gb", "68.66 GiB")
    assert got["verdict"] == "correct" and got["note"] == note, got


@pytest.mark.parametrize(
    ("prefix", "typed", "said"),
    [
        ("", "abc", "读不懂“abc”:请输入一个数,可带单位"),
        ("/en", "abc", "Could not read “abc”: enter a number"),
        ("", "73.7 parsecs", "读不懂单位“parsecs”:本题用 GB"),
        ("/en", "73.7 parsecs", "Could not read the unit “parsecs”: this question uses GB"),
        ("", "x" * 120, "最多 50 个字符"),
    ],
)
def test_text_that_cannot_be_read_is_named_not_refused(client, prefix, typed, said):
    got = _check(client, prefix, "ex-1-1", "weights_total_gb", typed)
    assert got["verdict"] == "unreadable" and said in got["text"], got
    assert "expected" not in got


def test_a_typed_answer_is_graded_and_diagnosed_like_a_number(client):
    """The slips are named for typed text as for numbers: 59.7 ms (×2) and 703.5 MiB (MB typed as MiB)."""
    got = _check(client, "", "ex-1-3", "t_step_ms_b1", "59.7 ms")
    assert got["verdict"] == "incorrect" and got["diagnosis"] == "factor_two", got
    got = _check(client, "", "ex-1-1", "kv_final_gb", "703.5 MiB")
    assert got["diagnosis"] == "si_iec:MiB", got
    got = _check(client, "/en", "ex-1-2", "two_h100_bf16_per_gpu_gb", "70.55 GB")
    assert got["diagnosis"] == "dropped_term:r" and got["diagnosis_text"].startswith("forgot to add"), got


def test_the_unit_typed_wins_over_the_unit_chosen(client):
    got = _check(client, "", "ex-1-2", "transfer_ms", "20 ms", units={"transfer_ms": "s"})
    assert got["verdict"] == "correct", got


def test_still_a_clear_422_for_a_body_of_the_wrong_shape(client):
    r = client.post("/api/cards/ex-1-1/check", json={"answers": {"weights_total_gb": [73.7]}})
    assert r.status_code == 422 and "weights_total_gb" in r.text
    r = client.post("/api/cards/ex-1-1/check", json={"answers": {"weights_total_gb": "x" * 500}})
    assert r.status_code == 422 and "weights_total_gb" in r.text  # beyond any answer: the schema's limit
