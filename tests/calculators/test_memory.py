"""Memory budgets against the book's numbers (1.2.3, 图 1-7, 练习 1-2)."""

from __future__ import annotations

import math

import pytest
from app.calculators import memory
from app.calculators.model_config import shape_of, weight_bytes
from app.data import model_config

GB, GIB = 1e9, 2**30


@pytest.fixture(scope="module")
def llama70():
    return shape_of(model_config("deepseek-r1-distill-llama-70b"))


def test_70b_weight_bytes(llama70):
    assert llama70.params_total == 70_553_706_496
    assert weight_bytes(llama70, "bf16") == 141_107_412_992
    assert round(weight_bytes(llama70, "bf16") / GB, 2) == 141.11
    assert round(weight_bytes(llama70, "bf16") / GIB, 2) == 131.42
    assert round(weight_bytes(llama70, "w8-g128") / GB, 2) == 73.73


def test_w8_parts_sum_to_file(llama70):
    parts = memory.weight_parts(llama70, "w8-g128")
    assert parts == {"w8": 68_451_041_280, "scales": 1_069_547_520, "bf16_kept": 4_205_330_432}
    assert sum(parts.values()) == 73_725_919_232 == weight_bytes(llama70, "w8-g128")
    assert sum(memory.weight_parts(llama70, "bf16").values()) == weight_bytes(llama70, "bf16")


def test_two_70b_numbers_stay_distinct(llama70):
    # 例题 1-1's simplified 70 GB read (N = 70e9, 1 B) is not the 8-bit file size
    assert weight_bytes(llama70, "w8-g128") / GB != pytest.approx(70.0, abs=1)


def test_kv_and_budget_fig_1_7(llama70):
    kv = memory.kv_bytes(8192, llama70.kv_bytes_per_token_bf16)
    assert llama70.kv_bytes_per_token_bf16 == 320 * 1024
    assert kv / GIB == 2.5 and round(kv / GB, 2) == 2.68
    b = memory.even_split(weight_bytes(llama70, "w8-g128"), kv, 2 * GIB, 1, 80 * GB)
    assert round(b.per_gpu_total / GB, 2) == 78.56
    assert b.fits and round(b.headroom / GB, 2) == 1.44
    assert (
        memory.max_kv_tokens(80 * GB, weight_bytes(llama70, "w8-g128"), 2 * GIB, 1, llama70.kv_bytes_per_token_bf16)
        == 12593
    )


def test_bf16_split(llama70):
    w = weight_bytes(llama70, "bf16")
    kv = memory.kv_bytes(8192, llama70.kv_bytes_per_token_bf16)
    one = memory.even_split(w, kv, 2 * GIB, 1, 80 * GB)
    two = memory.even_split(w, kv, 2 * GIB, 2, 80 * GB)
    assert not one.fits and round(-one.headroom / GB, 2) == 65.94
    assert two.fits and round(two.per_gpu_total / GB, 2) == 74.04
    assert round(w / 2 / GB, 2) == 70.55
    assert memory.max_kv_tokens(80 * GB, w, 2 * GIB, 1, 327680) == 0


def test_exercise_1_2(llama70):
    w8, bf = weight_bytes(llama70, "w8-g128"), weight_bytes(llama70, "bf16")
    assert round(memory.need_with_reserve(bf, 2, 5 * GB) / GB, 2) == 75.55
    assert round(memory.need_with_reserve(w8, 1, 5 * GB) / GB, 2) == 78.73
    rooms = memory.weight_room([48 * GB, 80 * GB], 5 * GB)
    assert sum(rooms) / GB == 118
    a, h = memory.proportional_split(w8, rooms)
    assert round(a / GB, 2) == 26.87 and round(h / GB, 2) == 46.86
    assert a <= rooms[0] and h <= rooms[1] and math.isclose(a + h, w8)


def test_qwen3_8b():
    s = shape_of(model_config("qwen3-8b"))
    assert round(weight_bytes(s, "bf16") / GB, 2) == 16.38
    assert s.kv_bytes_per_token_bf16 == 144 * 1024


def test_budget_outputs_figure_1_7_by_hand():
    # 73.73 GB of weights, 8192 tokens × 320 KiB of KV, 2 GiB of workspace on one 80 GB card
    w, kv_tok = 73_725_919_232, 327_680
    o = memory.budget_outputs(w, kv_tok, 8192, 2, 1, 80)
    assert o["kv_gb"] == pytest.approx(8192 * 327_680 / 1e9) and o["kv_gib"] == pytest.approx(2.5)
    assert o["workspace_gb"] == pytest.approx(2 * 2**30 / 1e9)
    total = (w + 8192 * 327_680 + 2 * 2**30) / 1e9  # 78.56 GB
    assert o["per_gpu_total_gb"] == pytest.approx(total) and round(total, 2) == 78.56
    assert o["headroom_gb"] == pytest.approx(80 - total) and o["over_gb"] == pytest.approx(total - 80) and o["fits"]
    assert o["max_kv_tokens"] == math.floor((80e9 - 2 * 2**30 - w) / kv_tok) == 12_593
    assert o["kv_per_token_kib"] == 320 and o["capacity_gb"] == 80
    two = memory.budget_outputs(2 * w, kv_tok, 8192, 2, 2, 80)  # BF16-sized weights split over two cards
    assert two["per_gpu_weights_gb"] == pytest.approx(w / 1e9) and two["per_gpu_kv_gb"] == pytest.approx(
        8192 * 327_680 / 2e9
    )


def test_weight_outputs_by_hand():
    parts = {"w8": 100, "scales": 2, "bf16_kept": 40}
    o = memory.weight_outputs(1_000, 2_000, 142, parts, 1e-6, 4)  # a "card" of 1000 B = 1e-6 GB
    assert o["bf16_gb"] == 2e-6 and o["bf16_per_gpu_gb"] == 5e-7 and o["n_params_yi"] == 1e-5
    assert not o["bf16_fits_one_gpu"] and o["bf16_over_gb"] == pytest.approx(1e-6)
    assert o["free_after_w8_gb"] == pytest.approx((1_000 - 142) / 1e9)
    assert (o["w8_part_gb"], o["scale_part_gb"], o["bf16_kept_part_gb"]) == (1e-7, 2e-9, 4e-8)


def test_placement_outputs_exercise_1_2_by_hand(llama70):
    w = {"bf16": weight_bytes(llama70, "bf16"), "w8": weight_bytes(llama70, "w8-g128")}
    o = memory.placement_outputs(w, 80e9, 48e9, 5e9)
    assert o["mixed_weight_room_gb"] == pytest.approx(118) and (o["a6000_room_gb"], o["h100_room_gb"]) == (43, 75)
    assert o["one_h100_bf16_need_gb"] == pytest.approx(146.107, abs=1e-3) and not o["one_h100_bf16_fits"]
    assert o["two_h100_bf16_per_gpu_gb"] == pytest.approx(75.554, abs=1e-3) and o["two_h100_bf16_fits"]
    assert o["one_h100_w8_fits"] and o["one_h100_w8_margin_gb"] == pytest.approx(80 - 78.726, abs=1e-3)
    assert not o["mixed_bf16_fits"] and o["mixed_w8_fits"]
    assert o["mixed_w8_a6000_gb"] + o["mixed_w8_h100_gb"] == pytest.approx(w["w8"] / 1e9)
    assert o["mixed_w8_a6000_gb"] / o["mixed_w8_h100_gb"] == pytest.approx(43 / 75)
