"""The capacity card (图 1-7) offers a model's own stored format: a quantized checkpoint is sized as it
is stored (gpt-oss-120b: MXFP4 experts, ≈ 65 GB), not as BF16 (≈ 234 GB)."""

from __future__ import annotations

import json
from pathlib import Path

from app.data import encode_config

CONFIG = Path(__file__).resolve().parents[1] / "data" / "configs" / "gpt-oss-120b.json"


def test_a_quantized_checkpoint_is_sized_as_stored(client):
    cfg = {k: v for k, v in json.loads(CONFIG.read_text()).items() if not k.startswith("_")}
    ref = encode_config(cfg)
    bf16 = client.get("/api/cards/fig-1-7", params={"model": ref, "precision": "bf16"}).json()["outputs"]
    stored = client.get("/api/cards/fig-1-7", params={"model": ref, "precision": "stored"}).json()["outputs"]
    assert round(bf16["weights_gb"], 1) == 233.7 and round(stored["weights_gb"], 1) == 65.2
    page = client.get("/cards/fig-1-7").text
    assert 'value="stored"' in page
