"""The fit planner (/tools/fit, issues 17 and 24): no book values — the 13 hand-worked configurations of
tests/calculators/test_planner.py (each case works the per-GPU weights, KV per token, step read, FLOPs and
all-reduce out of its config's shape in the comments there), asserted here through the JSON API at the card's
defaults for memory: the memory the driver reports for the preset (data/gpus.json ``mem_bytes``; e.g. the
79.22 GiB vLLM logs for an "80 GB" H100, vllm PR #10511), η = 0.9 and the 3.3 GB reserve of vLLM's public
profile. Byte counts, token counts and the verdict exactly; the step bound and throughput to 1e-9; a model
that does not fit has no step bound and no throughput (issue 24)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from app.data import encode_config, gpu

from tests.calculators.test_planner import CASES, expected

from . import check

CONFIGS = Path(__file__).resolve().parents[1] / "data" / "configs"

WHERE = {  # case → the words of its check
    "qwen3-h100-tp1-bf16": "默认:Qwen3-8B · H100 · tp 1 · BF16",
    "qwen3-h100-tp2-fp8": "Qwen3-8B · H100 · tp 2 · FP8/FP8",
    "qwen25-h100-tp8-int4": "Qwen2.5-7B · H100 · tp 8(KV 头复制)· INT4 g128",
    "llama8-4090-int8-kvint4": "Llama-3.1-8B · RTX 4090 · INT8 · KV INT4",
    "gemma3-h200-swa": "Gemma 3 12B · H200 · 局部/全局",
    "gemma2-l40s-tp2-fp8": "Gemma 2 9B · L40S · tp 2 · FP8",
    "mixtral-h100-tp4-kvfp8": "Mixtral 8×7B · H100 · tp 4 · KV FP8",
    "qwen3moe-h20-fp8": "Qwen3-30B-A3B · H20 · FP8",
    "dsv3-b200-tp8-nvfp4": "DeepSeek-V3 · B200 · tp 8 · NVFP4 · KV FP8",
    "dsv3-h800-tp8-bf16-nofit": "DeepSeek-V3 · H800 · tp 8 · BF16 放不下",
    "qwen3-5090-nvfp4": "Qwen3-8B · RTX 5090 · NVFP4 · KV FP8",
    "mistral-mi300x-int4": "Mistral 7B · MI300X · INT4/INT4",
    "llama8-a800-tp2": "Llama-3.1-8B · A800 · tp 2",
}
DEFAULTS = {
    "model": "qwen3-8b",
    "gpu": "h100-sxm",
    "tp": 1,
    "weight_format": "bf16",
    "kv_format": "bf16",
    "context": 8192,
    "concurrency": 16,
}
CONTRACT = (
    "weights_per_gpu_bytes",
    "kv_bytes_per_token_per_gpu",
    "kv_capacity_tokens",
    "max_context_at_concurrency",
    "max_concurrency_at_context",
    "fits",
)


def cfg(name: str) -> str:
    """A test config.json as the page pastes it: ``cfg:`` + compressed JSON."""
    return encode_config(json.loads((CONFIGS / f"{name}.json").read_text(encoding="utf-8")))


def params_of(name: str) -> dict:
    """The case's parameters, leaving out those at the card's defaults (so the first case is the card as it opens)."""
    c = CASES[name]
    given = {
        "model": c.model if c.model == "qwen3-8b" else cfg(c.model),
        "gpu": c.gpu,
        "tp": c.tp,
        "weight_format": c.wf,
        "kv_format": c.kvf,
        "context": c.context,
        "concurrency": c.conc,
        "reserve_gb": 3.3,  # these hand-worked cases use the fixed 3.3 GB reserve (the card's default is now vLLM's profile)
    }
    return {k: v for k, v in given.items() if DEFAULTS.get(k) != v}


def case(name: str) -> list:
    c = dataclasses.replace(CASES[name], mem=gpu(CASES[name].gpu).mem_bytes)  # memory as the driver reports it
    want, where, params = expected(c), WHERE[name], params_of(name)
    out = [check("fit-planner", params, {k: want[k] for k in CONTRACT}, rel_tol=0, source="derived", where=where)]
    if want["model_fits"]:
        step = {"t_step_lb_ms": want["t_step_lb_ms"], "tokens_per_s_ideal": want["tokens_per_s_ideal"]}
        out.append(check("fit-planner", params, step, rel_tol=1e-9, source="derived", where=where + " · 步时"))
    return out


CHECKS = [x for name in WHERE for x in case(name)]
