"""Multimodal formulas against the book's numbers (3.3.1, 3.3.2)."""

import math

import pytest
from app.calculators import model_config
from app.calculators import multimodal as mm
from app.data import model_config as cfg

VS = mm.vision_shape(cfg("qwen3-vl-4b-vision"))
DS = mm.dit_shape(cfg("qwen-image-2512-dit"))
KV = model_config.dense_shape(cfg("qwen3-vl-4b-text")).kv_bytes_per_token_bf16
MIB = 2**20


def test_configs_give_the_books_shapes():
    assert (VS.patch, VS.merge, VS.feature_levels, VS.out_hidden) == (16, 2, 4, 2560)
    assert KV == 144 * 1024
    assert (DS.layers, DS.width, DS.mlp, DS.pixels_per_position) == (60, 3072, 12288, 16)


def test_patches_and_tokens():
    assert mm.patches(640, 640, 16) == 1600
    assert mm.vision_tokens(640, 640, 16, 2) == 400
    assert mm.vision_tokens(640, 640, 16, 2, n_images=4) == 1600
    assert mm.vision_tokens(1280, 1280, 16, 2) == 1600


def test_ec_and_kv_bytes():
    assert mm.ec_bytes_per_token(4, 2560, 2) == 20480
    assert mm.ec_bytes(400, 4, 2560, 2) / MIB == 7.8125
    assert mm.kv_bytes(400, KV) / MIB == 56.25
    assert mm.ec_bytes(1600, 4, 2560, 2) / MIB == 31.25  # four images
    assert mm.kv_bytes(1600 + 400, KV) / MIB == 281.25  # + 400 text tokens


def test_vision_tower_flops_640():
    f = mm.vision_tower_flops(VS, 640, 640)
    assert f.embed == pytest.approx(5.033e9, rel=1e-3)
    assert f.blocks == pytest.approx(1218.026e9, rel=1e-6)
    assert f.mergers == pytest.approx(87.242e9, rel=1e-5)
    assert round(f.total / 1e12, 3) == 1.310  # the book's ≈1.310 TFLOPs


def test_vision_tower_flops_grow_faster_than_tokens():
    small, big = mm.vision_tower_flops(VS, 640, 640).total, mm.vision_tower_flops(VS, 1280, 1280).total
    assert round(big / 1e12, 3) == 8.261
    assert 6.2 < big / small < 6.4


def test_dit_flops_book_default():
    n_v = mm.latent_positions(1024, 1024, DS)
    assert n_v == 4096
    f = mm.dit_forward_flops(DS, n_v, 512)
    assert f.small == 58_195_968
    assert f.total == pytest.approx(7.83039e13, rel=1e-6)
    total = mm.image_gen_flops(50, 2, f.total)
    assert f"{total / 1e15:.3f}" == "7.830"  # the book's ≈7.830×10¹⁵
    assert 100 * f.attention / f.total == pytest.approx(20.0, abs=0.05)


@pytest.mark.parametrize("t,printed", [(511, "7.828"), (513, "7.832")])
def test_prompt_length_is_pinned_by_the_book(t, printed):
    f = mm.dit_forward_flops(DS, 4096, t)
    assert f"{mm.image_gen_flops(50, 2, f.total) / 1e15:.3f}" == printed


def test_steps_linear_resolution_superlinear():
    f = mm.dit_forward_flops(DS, 4096, 512).total
    assert mm.image_gen_flops(100, 2, f) == 2 * mm.image_gen_flops(50, 2, f)
    f2 = mm.dit_forward_flops(DS, mm.latent_positions(2048, 2048, DS), 512).total
    assert f2 > 4 * f
    assert not math.isclose(f2, 4 * f)


FACTS = mm.VisionFacts(VS.patch, VS.merge, VS.feature_levels, VS.out_hidden, 2, KV)


def test_vision_outputs_book_table():
    o = mm.vision_outputs(FACTS, VS, 640, 640)
    assert (o["patches_per_image"], o["vision_tokens"], o["ec_bytes_per_token"]) == (1600, 400, 20480)
    assert (o["ec_mib"], o["visual_kv_mib"], o["input_kv_mib"], o["kv_to_ec_ratio"]) == (7.8125, 56.25, 56.25, 7.2)
    assert o["vision_encode_tflop"] == pytest.approx(1.310, abs=5e-4)
    four = mm.vision_outputs(FACTS, VS, 640, 640, n_images=4, text_tokens=400)
    assert (four["ec_mib"], four["input_tokens"], four["input_kv_mib"]) == (31.25, 2000, 281.25)


def test_image_gen_outputs_book():
    o = mm.image_gen_outputs(DS, 1024, 1024, 50, 2, 512)
    assert (o["latent_positions"], o["dit_forwards"]) == (4096, 100)
    assert o["total_pflop"] == pytest.approx(7.830, abs=5e-4)
    assert o["total_pflop"] * 1e15 == pytest.approx(100 * o["flop_per_forward"])
    assert 0 < o["attention_share_pct"] < 100
