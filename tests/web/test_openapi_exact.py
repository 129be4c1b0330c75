"""The OpenAPI document says exactly what the server accepts: a value is schema-valid if and only if
the server takes it (custom GPU parts with their bounds, list items, run names, model configs), and
rules between fields that a schema cannot state are named in the operation's description."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema_rs
import pytest
from app.data import GPU_LIMITS, encode_config
from hypothesis import given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def spec(client):
    return client.get("/openapi.json").json()


def param(spec, cid, name):
    return next(p for p in spec["paths"][f"/api/cards/{cid}"]["get"]["parameters"] if p["name"] == name)


def valid(schema, value) -> bool:
    return jsonschema_rs.Draft202012Validator(schema).is_valid(value)


def accepted(client, cid, **q) -> bool:
    r = client.get(f"/api/cards/{cid}", params=q)
    assert r.status_code in (200, 422), r.text
    return r.status_code == 200


def test_custom_gpu_from_the_issue_is_schema_invalid_and_refused(client, spec):
    s = param(spec, "eg-1-1", "gpu")["schema"]
    for v in (
        "custom:8374.06,3980296,2628.8",
        "custom:003575220567695402566034.2,356400,7",
        "custom:1e3,3,900",
        "custom:0,1,1",
        "custom:80,3.35",
    ):
        assert not valid(s, v) and not accepted(client, "eg-1-1", gpu=v), v
    for v in ("custom:80,3.35,989.4", "custom:1,0.01,1", "custom:2000,100,100000", "h100-sxm"):
        assert valid(s, v) and accepted(client, "eg-1-1", gpu=v), v
    assert "custom" not in s


number = st.one_of(
    st.integers(0, 300000).map(str),
    st.tuples(st.integers(0, 300000), st.text("0123456789", min_size=1, max_size=5)).map(lambda t: f"{t[0]}.{t[1]}"),
    st.sampled_from(
        ["2000", "2000.0", "2000.01", "100", "100.000", "0.01", "0.0099", "1", "0.999", "100000", "100000.5"]
    ),
)


@settings(max_examples=300, deadline=None)
@given(st.tuples(number, number, number))
def test_custom_gpu_pattern_agrees_with_the_server(client, spec, parts):
    v = "custom:" + ",".join(parts)
    s = param(spec, "fig-1-10", "gpu")["schema"]
    assert valid(s, v) == accepted(client, "fig-1-10", gpu=v), (v, GPU_LIMITS)


def test_list_items_carry_their_bounds(client, spec):
    s = param(spec, "group-advantage", "rewards")["schema"]
    assert s["items"] == {"type": "integer", "minimum": 0, "maximum": 1}
    assert not accepted(client, "group-advantage", rewards=["5", "0", "1", "0"])
    r = client.get("/api/cards/group-advantage", params={"rewards": ["1", "0", "1", "-1"]})
    assert r.status_code == 422 and "第 4 项" in r.json()["detail"][0]["msg"]
    assert accepted(client, "group-advantage", rewards=["1", "1", "1", "0"])


def test_run_names_are_an_enum_without_repeats(client, spec):
    s = param(spec, "eg-3-5", "fit_runs")["schema"]
    runs = s["items"]["enum"]
    assert s["uniqueItems"] is True and "" not in runs and "146m14b14b" in runs
    assert not valid(s, [""] * 6) and not accepted(client, "eg-3-5", fit_runs=[""] * 6)
    assert not valid(s, runs[:4] + runs[:1]) and not accepted(client, "eg-3-5", fit_runs=runs[:4] + runs[:1])
    assert valid(s, runs[:5]) and accepted(client, "eg-3-5", fit_runs=runs[:5], law="fit")


def test_model_configs_are_a_named_format(client, spec):
    s = param(spec, "weight-bytes", "model")["schema"]
    presets, custom = s["anyOf"]
    assert presets["enum"] == ["deepseek-r1-distill-llama-70b", "qwen3-8b"]
    assert custom["format"] == "model-config" and re.match(custom["pattern"], "cfg:abcdefgh")
    good = encode_config(json.loads((ROOT / "tests" / "data" / "configs" / "mistral-7b-v0.3.json").read_text()))
    assert accepted(client, "weight-bytes", model=good, n_gpus="5")
    for bad in ("cfg:FuS3i6800BMD", "cfg:00000000", "cfg:" + "A" * 6001):
        assert not accepted(client, "weight-bytes", model=bad), bad[:20]


def test_derive_body_schema_states_required_fields(client, spec):
    op = spec["paths"]["/api/models/derive"]["post"]
    s = op["requestBody"]["content"]["application/json"]["schema"]
    assert not valid(s, {}) and client.post("/api/models/derive", json={}).status_code == 422
    assert not valid(s, {"model_type": "llama"})
    for p in sorted((ROOT / "tests" / "data" / "configs").glob("*.json")):
        cfg = json.loads(p.read_text())
        assert valid(s, cfg), p.name
        assert client.post("/api/models/derive", json=cfg).status_code == 200, p.name
    llama = json.loads((ROOT / "tests" / "data" / "configs" / "llama-3.1-8b.json").read_text())
    for key, bad in (("num_experts", "x"), ("sliding_window", -1), ("hidden_size", None)):
        body = {**llama, key: bad}
        assert not valid(s, body)
        r = client.post("/api/models/derive", json=body)
        assert r.status_code == 422 and r.json()["detail"][0]["field"] == key, (key, r.text)
    assert "跨字段规则" in op["description"] and "head_dim" in op["description"]


def test_cross_field_rules_are_named_where_they_apply(client, spec):
    op = spec["paths"]["/api/cards/update-tokens"]["get"]
    assert "跨字段规则" in op["description"] and "label_tokens ≤ seq_len" in op["description"]
    r = client.get("/api/cards/update-tokens", params={"seq_len": "4096", "label_tokens": "32767"})
    assert r.status_code == 422 and r.json()["detail"][0]["field"] == "label_tokens"
