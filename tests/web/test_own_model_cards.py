"""Every card that takes a gpu accepts a reader's own card; every card that takes a model accepts a
pasted config.json (compressed into the URL), through the same engine types."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from app.cards import REGISTRY, controls_of
from app.data import encode_config

CONFIGS = Path(__file__).resolve().parents[1] / "data" / "configs"
GPU_CARDS = sorted(c for c in REGISTRY if any(s.custom == "gpu" for s in controls_of(REGISTRY[c].params)))
MODEL_CARDS = sorted(c for c in REGISTRY if any(s.custom == "model" for s in controls_of(REGISTRY[c].params)))


def test_the_model_and_gpu_cards_are_covered():
    assert {"eg-1-1", "fig-1-7", "weight-bytes", "quick-bounds", "fig-1-13"} <= set(GPU_CARDS)
    assert {"eg-1-1", "fig-1-7", "weight-bytes"} <= set(MODEL_CARDS)


@pytest.mark.parametrize("cid", GPU_CARDS)
def test_custom_gpu(client, cid):
    name = next(s.name for s in controls_of(REGISTRY[cid].params) if s.custom == "gpu")
    r = client.get(f"/api/cards/{cid}", params={name: "custom:141,4.8,1979"})
    assert r.status_code == 200, r.text
    assert client.get(f"/cards/{cid}", params={name: "custom:141,4.8,1979"}).status_code == 200
    for bad in ("custom:141,4.8", "custom:0,1,1", "custom:a,b,c", "custom:1e9,1,1"):
        r = client.get(f"/api/cards/{cid}", params={name: bad})
        assert r.status_code == 422 and r.json()["detail"][0]["field"] == name


@pytest.mark.parametrize("cid", MODEL_CARDS)
@pytest.mark.parametrize(
    "cfg",
    [
        "llama-3.1-8b",
        "mixtral-8x7b",
        "deepseek-v3",
        "gemma-2-9b",
        # issue 24: today's architectures, read by the same engine types on every model card
        "gpt-oss-120b",
        "qwen3-next-80b-a3b",
        "kimi-k2.5",
        "llama-4-scout-17b-16e",
        "deepseek-v3.2",
    ],
)
def test_custom_model(client, cid, cfg):
    name = next(s.name for s in controls_of(REGISTRY[cid].params) if s.custom == "model")
    ref = encode_config(json.loads((CONFIGS / f"{cfg}.json").read_text(encoding="utf-8")))
    assert len(ref) < 2000
    r = client.get(f"/api/cards/{cid}", params={name: ref})
    assert r.status_code == 200, r.text
    assert client.get(f"/cards/{cid}", params={name: ref}).status_code == 200


@pytest.mark.parametrize("cid", MODEL_CARDS)
def test_bad_custom_model(client, cid):
    name = next(s.name for s in controls_of(REGISTRY[cid].params) if s.custom == "model")
    bad = encode_config({"model_type": "llama", "hidden_size": 4096})
    r = client.get(f"/api/cards/{cid}", params={name: bad})
    assert r.status_code == 422 and "num_hidden_layers" in r.json()["detail"][0]["msg"]
    assert client.get(f"/api/cards/{cid}", params={name: "cfg:!!!notbase64"}).status_code == 422
