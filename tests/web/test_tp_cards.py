"""Tensor parallel on the capacity cards (weight-bytes, fig-1-7: their n_gpus is the degree) and the decode-step
cards (eg-1-1, quick-bounds: a ``tp`` parameter). At tp = 1 every number and derivation is the book's; tp = 2 halves
what each GPU holds and reads; the all-reduce is a separate, labelled term that exists only for tp > 1; KV heads
that cannot be split are flagged. Hand-worked numbers in the comments."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from app.data import encode_config

CONFIGS = Path(__file__).resolve().parents[1] / "data" / "configs"
QWEN25 = encode_config(json.loads((CONFIGS / "qwen2.5-7b.json").read_text(encoding="utf-8")))  # 4 KV heads


def body(client, cid, **q):
    r = client.get(f"/api/cards/{cid}", params=q)
    assert r.status_code == 200, r.text
    return r.json()


def outs(client, cid, **q):
    return body(client, cid, **q)["outputs"]


def frag(client, cid, **q):
    return client.get(f"/cards/{cid}/fragment", params=q).text


# ---- tp = 1 is the book ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("cid", ["eg-1-1", "quick-bounds"])
def test_tp1_is_the_book_exactly(client, cid):
    base, one = body(client, cid), body(client, cid, tp=1)
    assert one["outputs"] == base["outputs"]
    assert one["derivations"] == base["derivations"]


def test_eg11_book_values_and_derivation_at_tp1(client):
    b = body(client, "eg-1-1")
    o = b["outputs"]
    assert (round(o["t_mem_ms"], 2), round(o["t_step_ms"], 2), round(o["b_star"])) == (20.90, 20.90, 148)
    assert b["derivations"]["t_step_ms"]["formula"] == "T_step = max(F/Π_eff, R_W/β_eff)"  # no all-reduce term
    assert o["t_allreduce_ms"] == 0 and b["derivations"]["t_allreduce_ms"] == {
        "input": True,
        "source": "tp = 1:没有卡间通信",
    }
    assert 'data-key="t_allreduce_ms"' not in frag(client, "eg-1-1")  # no tile at tp = 1


# ---- tp = 2 halves per-GPU weights; the all-reduce term --------------------------------------------------------


def test_eg11_manual_tp2(client):
    o = outs(client, "eg-1-1", tp=2)
    assert o["r_w_per_gpu_gb"] == 35 and o["m_w_per_gpu_gb"] == 35 and o["f_per_gpu_gflop"] == 70
    assert o["r_w_gb"] == 70  # the whole model's read stays as the book prints it
    # Llama-70B's config: 80 layers, h = 8192; B = 1: 80 × 2 × 2·(1/2) × 8192 × 2 B / 450 GB/s
    t_ar = 80 * 2 * 1 * 8192 * 2 / 450e9
    assert o["t_allreduce_ms"] == pytest.approx(t_ar * 1e3, rel=1e-12)
    assert o["t_mem_ms"] == pytest.approx(35e9 / 3.35e12 * 1e3, rel=1e-12)
    assert o["t_step_ms"] == pytest.approx((35e9 / 3.35e12 + t_ar) * 1e3, rel=1e-12)
    assert o["throughput_tok_s"] == pytest.approx(1 / (35e9 / 3.35e12 + t_ar), rel=1e-12)
    assert o["b_star"] == pytest.approx(147.67, abs=0.01)  # both terms shrink by tp: B* does not move
    html = frag(client, "eg-1-1", tp=2)
    assert 'data-key="t_allreduce_ms"' in html and "all-reduce" in html
    assert "DeepSeek-R1-Distill-Llama-70B" in html and "L = 80" in html  # manual mode says whose L and h


def test_eg11_model_tp8_uses_the_models_shape(client):
    one, eight = (
        outs(client, "eg-1-1", model="qwen3-8b", batch=16),
        outs(client, "eg-1-1", model="qwen3-8b", batch=16, tp=8),
    )
    assert eight["r_w_per_gpu_gb"] == pytest.approx(one["r_w_gb"] / 8, rel=1e-15)
    # Qwen3-8B: 36 layers, h = 4096; 16 tokens × 36 × 2 × 2·(7/8) × 4096 × 2 B / 450 GB/s
    assert eight["t_allreduce_ms"] == pytest.approx(16 * 36 * 2 * 1.75 * 4096 * 2 / 450e9 * 1e3, rel=1e-12)
    assert eight["t_step_ms"] == pytest.approx(
        max(eight["t_mem_ms"], eight["t_compute_ms"]) + eight["t_allreduce_ms"], rel=1e-12
    )
    assert eight["chart"]["t_step_ms"][eight["chart"]["batch"].index(16)] == pytest.approx(eight["t_step_ms"], rel=1e-9)


def test_quick_bounds_tp2(client):
    one, two = outs(client, "quick-bounds"), outs(client, "quick-bounds", tp=2)
    # Qwen3-8B has 8 KV heads: tp 2 → 4 per GPU, half of the KV; weights and FLOPs halve
    assert two["decode_read_per_gpu_gb"] == pytest.approx(one["decode_read_gb"] / 2, rel=1e-15)
    assert two["need_gb"] == pytest.approx(one["need_gb"] / 2, rel=1e-15)
    assert two["decode_compute_ms"] == pytest.approx(one["decode_compute_ms"] / 2, rel=1e-12)
    # RTX PRO 6000's link: PCIe 64 GB/s; one token: 36 × 2 × 2·(1/2) × 4096 × 2 B
    t_ar = 36 * 2 * 1 * 4096 * 2 / 64e9
    assert two["decode_allreduce_ms"] == pytest.approx(t_ar * 1e3, rel=1e-12)
    assert two["decode_lb_ms"] == pytest.approx(one["decode_lb_ms"] / 2 + t_ar * 1e3, rel=1e-12)
    assert two["prefill_allreduce_ms"] == pytest.approx(2048 * t_ar * 1e3, rel=1e-12)
    assert one["decode_allreduce_ms"] == 0 and one["prefill_allreduce_ms"] == 0
    assert 'data-key="decode_allreduce_ms"' in frag(client, "quick-bounds", tp=2)
    assert 'data-key="decode_allreduce_ms"' not in frag(client, "quick-bounds")


def test_weight_bytes_per_gpu_over_n(client):
    two, four = outs(client, "weight-bytes"), outs(client, "weight-bytes", n_gpus=4)  # the book's default is two cards
    assert two["bf16_per_gpu_gb"] == pytest.approx(70.55, abs=0.005)  # the book's value stays
    assert two["w8_per_gpu_gb"] * 2 == two["w8_g128_gb"]
    assert four["w8_per_gpu_gb"] * 2 == two["w8_per_gpu_gb"] and four["bf16_per_gpu_gb"] * 2 == two["bf16_per_gpu_gb"]


def test_fig17_two_cards_halve_weights_and_kv(client):
    one, two = outs(client, "fig-1-7", precision="bf16"), outs(client, "fig-1-7", precision="bf16", n_gpus=2)
    assert two["per_gpu_weights_gb"] * 2 == one["per_gpu_weights_gb"]
    assert two["per_gpu_kv_gb"] * 2 == one["per_gpu_kv_gb"] and two["kv_heads_per_gpu"] == 4
    assert two["per_gpu_total_gb"] == pytest.approx(74.04, abs=0.005) and two["fits"] is True  # the book's check
    # KV tokens the pair still holds: ⌊(80 GB − 2 GiB − 141.107 GB/2) / (½ · 327,680 B)⌋
    assert (80_000_000_000 - 2**31 - 70_553_706_496) // 163_840 == two["max_kv_tokens"] == 44_548
    assert one["max_kv_tokens"] == 0 and one["fits"] is False


# ---- KV heads: uneven and replicated -------------------------------------------------------------------------


def test_fig17_kv_follows_whole_heads(client):
    """Three cards and 8 KV heads: the fullest card holds ⌈8/3⌉ = 3 heads, 3/8 of the KV (not 1/3)."""
    o = outs(client, "fig-1-7", n_gpus=3)
    assert o["kv_heads_per_gpu"] == 3 and o["kv_replicated"] is False
    assert o["per_gpu_kv_gb"] == pytest.approx(o["kv_gb"] * 3 / 8, rel=1e-15)
    room = 80e9 - 2 * 2**30 - o["weights_gb"] * 1e9 / 3
    assert o["max_kv_tokens"] == int(room // (3 / 8 * 327_680))
    assert "最满的卡存" in frag(client, "fig-1-7", n_gpus=3)


def test_fig17_replicated_heads_are_flagged(client):
    """Qwen2.5-7B has 4 KV heads: on 8 cards each head sits on two, every card keeps 1/4 of the KV."""
    o = outs(client, "fig-1-7", model=QWEN25, n_gpus=8)
    assert (o["kv_heads_per_gpu"], o["kv_replicated"]) == (1, True)
    assert o["per_gpu_kv_gb"] == pytest.approx(o["kv_gb"] / 4, rel=1e-15)
    html = frag(client, "fig-1-7", model=QWEN25, n_gpus=8)
    assert "超过 KV 头数 4" in html and "KV 头不够分" in html
    assert outs(client, "fig-1-7", model=QWEN25, n_gpus=4)["kv_replicated"] is False


# ---- a link is needed above tp 1 -------------------------------------------------------------------------------


@pytest.mark.parametrize("cid", ["eg-1-1", "quick-bounds"])
def test_custom_gpu_needs_a_link_above_tp1(client, cid):
    g = "custom:80,3.35,989.4"
    r = client.get(f"/api/cards/{cid}", params={"gpu": g, "tp": 2})
    assert r.status_code == 422 and r.json()["detail"][0]["field"] == "tp"
    assert client.get(f"/api/cards/{cid}", params={"gpu": g}).status_code == 200
    key = "t_allreduce_ms" if cid == "eg-1-1" else "decode_allreduce_ms"
    assert outs(client, cid, gpu=g, tp=2, link_gbps=100)[key] > 0
    assert client.get(f"/api/cards/{cid}", params={"tp": 3}).status_code == 422


# ---- every number at tp > 1 still explains itself -------------------------------------------------------------

MOE = encode_config(json.loads((CONFIGS / "mixtral-8x7b.json").read_text(encoding="utf-8")))
MLA = encode_config(json.loads((CONFIGS / "deepseek-v3.json").read_text(encoding="utf-8")))
TP_STATES = [
    ("eg-1-1", {"tp": 2}),
    ("eg-1-1", {"tp": 8, "model": "qwen3-8b", "batch": 64}),
    ("quick-bounds", {"tp": 4, "gpu": "rtx-4090"}),
    ("fig-1-7", {"n_gpus": 3}),
    ("fig-1-7", {"model": QWEN25, "n_gpus": 8}),
    ("fig-1-7", {"model": MLA, "n_gpus": 8}),
    ("weight-bytes", {"n_gpus": 8}),
    ("fit-planner", {"model": MOE, "tp": 8, "weight_format": "nvfp4", "concurrency": 256}),
    ("fit-planner", {"model": MLA, "gpu": "b200", "tp": 8, "kv_format": "int4", "context": 131072}),
]


@pytest.mark.parametrize("cid,q", TP_STATES, ids=[f"{c}-{i}" for i, (c, _) in enumerate(TP_STATES)])
def test_derivations_at_tp_above_one(client, cid, q):
    import math

    from app.trace import evaluate

    b = body(client, cid, **q)
    for key, v in b["outputs"].items():
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            continue
        d = b["derivations"][key]
        if d.get("input"):
            assert d["source"], key
            continue
        assert d["formula"] != "(未记录推导)", key
        if "check" in d:
            assert math.isclose(evaluate(d["check"]), v, rel_tol=1e-6, abs_tol=1e-12), (cid, key)
