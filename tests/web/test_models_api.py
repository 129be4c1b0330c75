"""/api/models on a bare FastAPI app that includes only this router (independent of app wiring)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from app.web.models_api import MAX_BODY, router
from fastapi import FastAPI
from fastapi.testclient import TestClient

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
