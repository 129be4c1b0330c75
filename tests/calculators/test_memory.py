"""Memory budgets against the book's numbers (1.2.3, 图 1-7, 练习 1-2)."""
from __future__ import annotations

import math

import pytest

from app.calculators import memory
from app.calculators.model_config import shape_of, weight_bytes
from app.data import model_config

GB, GIB = 1e9, 2 ** 30


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
    assert memory.max_kv_tokens(80 * GB, weight_bytes(llama70, "w8-g128"), 2 * GIB, 1,
                                llama70.kv_bytes_per_token_bf16) == 12593


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
