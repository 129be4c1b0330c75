"""/api/models on a bare FastAPI app that includes only this router (independent of app wiring)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from app.web.models_api import MAX_BODY, router
from fastapi import FastAPI
from fastapi.testclient import TestClient

from tests.calculators.test_model_config_today import gpt_oss_total, llama4_total

CONFIGS = Path(__file__).resolve().parent.parent / "data" / "configs"

_app = FastAPI()
_app.include_router(router)
client = TestClient(_app)

EXPECTED = {  # name: (params_total, kv_bytes_per_token)
    "qwen3-8b": (8_190_735_360, 147_456),
    "llama-3.1-8b": (8_030_261_248, 131_072),
    "mistral-7b-v0.3": (7_248_023_552, 131_072),
    "qwen2.5-7b": (7_615_616_512, 57_344),
    "gemma-2-9b": (9_241_705_984, 344_064),
    "gemma-3-12b": (11_766_034_176, 393_216),
    "mixtral-8x7b": (46_702_792_704, 131_072),
    "qwen3-30b-a3b": (30_532_122_624, 98_304),
    "deepseek-v3": (671_026_419_200, 70_272),
}


def post(body: bytes, **headers) -> object:
    return client.post("/api/models/derive", content=body, headers={"content-type": "application/json", **headers})


def assert_422(r, kind: str, field: str = "body") -> dict:
    assert r.status_code == 422, r.text
    item = r.json()["detail"][0]
    assert set(item) >= {"loc", "field", "type", "msg"}
    assert item["type"] == kind and item["field"] == field and item["loc"][0] == "body"
    return item


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_derive_stored_configs(name):
    r = post((CONFIGS / f"{name}.json").read_bytes())
    assert r.status_code == 200, r.text
    d = r.json()
    assert (d["params_total"], d["kv_bytes_per_token"]) == EXPECTED[name]
    assert d["params_active"] <= d["params_total"]
    assert d["flops_per_token"] > 0 and d["weight_read_bytes_per_token"] > 0
    assert d["steps"] and all(isinstance(x, str) for x in d["steps"])
    assert d["architecture"]


def test_moe_active_and_sliding_fields():
    d = post((CONFIGS / "deepseek-v3.json").read_bytes()).json()
    assert d["params_active"] == 37_552_297_472 and d["n_experts"] == 256 and d["experts_per_token"] == 8
    g = post((CONFIGS / "gemma-2-9b.json").read_bytes()).json()
    assert (g["sliding_window"], g["n_sliding_layers"], g["kv_bytes_per_token_full_layers"]) == (4096, 21, 172_032)
    assert g["kv_bytes_by_context"]["32768"] == 32768 * 172_032 + 4096 * 172_032


def test_bad_config_names_missing_field():
    cfg = json.loads((CONFIGS / "llama-3.1-8b.json").read_text())
    del cfg["num_hidden_layers"]
    item = assert_422(post(json.dumps(cfg).encode()), "config_error", "num_hidden_layers")
    assert "缺少字段 num_hidden_layers" in item["msg"]


def test_unknown_architecture():
    item = assert_422(post(b'{"model_type": "bert", "architectures": ["BertModel"]}'), "config_error", "model_type")
    assert "不支持的架构" in item["msg"]


@pytest.mark.parametrize("body", [b"not json", b'{"a": 1', b"\xff\xfe\x00", b"", b'{"x": NaN}', b"[" * 50_000])
def test_non_json(body):
    assert_422(post(body), "json_invalid")


@pytest.mark.parametrize("body", [b"[1, 2]", b'"config"', b"42", b"null"])
def test_non_object_json(body):
    assert "JSON 对象" in assert_422(post(body), "type_error")["msg"]


def test_5mb_body_rejected_with_reason():
    item = assert_422(post(b" " * (5 * 1024 * 1024)), "body_too_large")
    assert "1 MB" in item["msg"] and "5,242,880" in item["msg"]


def test_oversize_without_content_length_is_caught_while_reading():
    def chunks():
        for _ in range(6):
            yield b" " * MAX_BODY

    r = client.post("/api/models/derive", content=chunks(), headers={"content-type": "application/json"})
    assert "content-length" not in r.request.headers  # chunked: only the read size can tell
    assert_422(r, "body_too_large")


def test_just_under_limit_is_parsed():
    cfg = json.loads((CONFIGS / "qwen3-8b.json").read_text())
    body = json.dumps(cfg).encode()
    body = body[:-1] + b"," + b'"_pad": "' + b"x" * (MAX_BODY - len(body) - 20) + b'"}'
    assert len(body) <= MAX_BODY
    assert post(body).status_code == 200


def test_list_presets_skips_unreadable():
    r = client.get("/api/models")
    assert r.status_code == 200
    ids = {m["id"]: m for m in r.json()["models"]}
    assert ids["qwen3-8b"]["params_total"] == 8_190_735_360
    assert ids["deepseek-r1-distill-llama-70b"]["kv_bytes_per_token"] == 320 * 1024
    assert "qwen3-vl-4b-vision" not in ids and "qwen-image-2512-dit" not in ids


def test_openapi_declares_models():
    spec = _app.openapi()
    op = spec["paths"]["/api/models/derive"]["post"]
    assert op["requestBody"]["content"]["application/json"]["schema"]["type"] == "object"
    assert "200" in op["responses"] and "422" in op["responses"]
    assert "/api/models" in spec["paths"]


TODAY = {  # issue 24: name → (params_total by the independent count, -, state bytes per sequence, text model of)
    "gpt-oss-20b": (gpt_oss_total(24, 32), None, 0, None),
    "gpt-oss-120b": (gpt_oss_total(36, 128), None, 0, None),
    "llama-4-scout-17b-16e": (llama4_total(48, 16, 1), None, 0, "llama4"),
    "llama-4-maverick-17b-128e": (llama4_total(48, 128, 2), None, 0, "llama4"),
    "qwen3-next-80b-a3b": (None, None, 39_518_208, None),
    "qwen3.5-27b": (None, None, 78_446_592, "qwen3_5"),
    "deepseek-v3.2": (None, None, 0, None),
    "kimi-k2.5": (None, None, 0, "kimi_k25"),
    "minimax-m2": (None, None, 0, None),
}


@pytest.mark.parametrize("name", sorted(TODAY))
def test_todays_architectures_are_read_not_refused(name):
    """The models the issue found refused (422 不支持的架构) now derive, with the new fields."""
    r = post((CONFIGS / f"{name}.json").read_bytes())
    assert r.status_code == 200, r.text
    d = r.json()
    total, _, state, wrapper = TODAY[name]
    if total is not None:
        assert d["params_total"] == total
    assert d["state_bytes_per_sequence"] == state and d["text_model_of"] == wrapper
    assert d["weight_bytes"] <= d["weight_bytes_bf16"] and d["weight_format"]
    assert d["kv_bytes_per_token_full_layers"] <= d["kv_bytes_per_token"]
    assert any("结构规则" in x for x in d["steps"])


def test_quantized_checkpoints_are_sized_as_stored():
    gpt = post((CONFIGS / "gpt-oss-120b.json").read_bytes()).json()
    assert gpt["weight_bytes"] / 1e9 == pytest.approx(65.25, abs=0.01) and gpt["weight_bytes_bf16"] / 1e9 > 233
    assert "mxfp4" in gpt["weight_format"] and any("MXFP4" in x for x in gpt["steps"])
    kimi = post((CONFIGS / "kimi-k2.5.json").read_bytes()).json()
    assert kimi["weight_bytes"] / 1e9 == pytest.approx(594, rel=0.005)


def test_missing_field_default_is_said_or_refused():
    c = json.loads((CONFIGS / "qwen3-32b.json").read_text())
    del c["head_dim"]
    d = post(json.dumps(c).encode()).json()
    assert d["defaults_used"]["head_dim"] == 128 and d["kv_bytes_per_token"] == 262_144
    g = json.loads((CONFIGS / "gpt-oss-20b.json").read_text())
    del g["num_local_experts"]  # GptOssConfig has a default (128), but the reader requires it: refused by name
    item = assert_422(post(json.dumps(g).encode()), "config_error", "num_local_experts")
    assert "缺少字段 num_local_experts" in item["msg"]


def test_unsupported_quantization_is_a_named_422():
    # bitsandbytes is sized since issue 38 (4-bit here: 6.40 GB with its FP32 absmax per 64); HQQ is not
    c = json.loads((CONFIGS / "qwen3-8b.json").read_text())
    c["quantization_config"] = {"quant_method": "bitsandbytes", "load_in_4bit": True}
    r = post(json.dumps(c).encode())
    assert r.status_code == 200 and r.json()["weight_bytes"] == 6_396_930_048
    c["quantization_config"] = {"quant_method": "hqq"}
    item = assert_422(post(json.dumps(c).encode()), "config_error", "quantization_config")
    assert "hqq" in item["msg"]


def test_hf_quant_config_travels_beside_config_json_and_the_report_names_the_file():
    c = json.loads((CONFIGS / "qwen3-8b.json").read_text())
    c["hf_quant_config"] = {"producer": {"name": "modelopt"}, "quantization": {"quant_algo": "FP8"}}
    d = post(json.dumps(c).encode()).json()
    lin, total = 6_945_767_424, 8_190_735_360  # Qwen3-8B's linear weights and all parameters
    assert d["weight_bytes"] == lin + 8 * 36 * 7 + 2 * (total - lin)  # FP8 + two FP32 scales per matrix
    assert d["weight_format_source"].startswith("hf_quant_config.json")
    assert any("hf_quant_config.json" in s for s in d["steps"])
    c["hf_quant_config"] = {"quantization": "FP8"}
    assert_422(post(json.dumps(c).encode()), "config_error", "hf_quant_config")


def test_unknown_architecture_still_refused_by_name():
    item = assert_422(
        post(b'{"model_type": "mamba2", "architectures": ["Mamba2ForCausalLM"]}'), "config_error", "model_type"
    )
    assert "mamba2" in item["msg"] and "不支持的架构" in item["msg"]


def _issue38_configs() -> dict:
    from tests.calculators.test_model_config_issue38 import (
        GLM45_AIR,
        OLMO2_7B,
        PHI3_MINI,
        QWEN15_MOE,
        QWEN35_35B_A3B,
    )

    return {
        "phi3": PHI3_MINI,
        "olmo2": OLMO2_7B,
        "glm4_moe": GLM45_AIR,
        "qwen3_5_moe": QWEN35_35B_A3B,
        "qwen2_moe": QWEN15_MOE,
    }


@pytest.mark.parametrize("kind", ["phi3", "olmo2", "glm4_moe", "qwen3_5_moe", "qwen2_moe"])
def test_issue38_architectures_derive_through_the_api(kind):
    """Issue 38: these were refused (or, Qwen1.5-MoE, regressed); both active-parameter conventions come back."""
    r = post(json.dumps(_issue38_configs()[kind]).encode())
    assert r.status_code == 200, r.text
    d = r.json()
    assert 0 < d["params_active_excl_embedding"] < d["params_active"] <= d["params_total"]  # all untied
    assert any("总参数" in s for s in d["steps"])


@pytest.mark.parametrize("mt", ["jamba", "rwkv7"])
def test_still_unsupported_types_are_refused_by_name_with_the_list(mt):
    item = assert_422(post(json.dumps({"model_type": mt, "hidden_size": 8}).encode()), "config_error", "model_type")
    assert mt in item["msg"]
    for supported in ("qwen3_5_moe", "glm4_moe", "nemotron_h", "falcon_h1", "granitemoehybrid", "ministral3"):
        assert supported in item["msg"]
