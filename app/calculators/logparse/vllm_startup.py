"""vLLM start-up lines (the engine's own log, any release since 0.4):

* ``GPU KV cache size: 2,042,016 tokens`` (V1, vllm PR #13596; before it ``# GPU blocks: 127626``)
* ``Maximum concurrency for 2,048 tokens per request: 997.08x``
* ``Available KV cache memory: 8.11 GiB`` (V1 worker) or ``kv_cache_size=3.81GiB`` (V0 memory profile)
* ``Model loading took 11.55 GiB memory`` (V1) or ``Loading model weights took 14.9888 GB`` (V0: the
  figure is bytes / 2**30, vllm/worker/model_runner.py, so its "GB" is a GiB)
* ``maximum number of tokens that can be stored in KV cache (23648)`` (V0's refusal to start)
* ``total_gpu_memory=23.58GiB`` and ``gpu_memory_utilization=0.90`` (V0 memory profile)

Fields: kv_tokens, gpu_blocks, max_model_len, max_concurrency_x, kv_cache_bytes, weights_bytes,
total_gpu_bytes, mem_util."""

from __future__ import annotations

import re

from .common import FLAGS, NUM, UNIT, Found, Value, number, to_bytes, whole

KV_TOKENS = re.compile(rf"GPU KV cache size:\s*({NUM})\s*tokens", FLAGS)
BLOCKS = re.compile(rf"#?\s*GPU blocks:\s*({NUM})", FLAGS)
CONCURRENCY = re.compile(rf"Maximum concurrency for\s*({NUM})\s*tokens per request:\s*({NUM})\s*x", FLAGS)
KV_MEMORY = re.compile(rf"Available KV cache memory:\s*({NUM})\s*({UNIT})", FLAGS)
KV_SIZE = re.compile(rf"\bkv_cache_size=({NUM})\s*({UNIT})", FLAGS)
WEIGHTS_V1 = re.compile(rf"Model loading took\s*({NUM})\s*({UNIT})", FLAGS)
WEIGHTS_V0 = re.compile(rf"Loading model weights took\s*({NUM})\s*({UNIT})", FLAGS)
CAPACITY = re.compile(rf"maximum number of tokens that can be stored in KV cache \(({NUM})\)", FLAGS)
TOTAL = re.compile(rf"\btotal_gpu_memory=({NUM})\s*({UNIT})", FLAGS)
UTIL = re.compile(rf"\bgpu_memory_utilization=({NUM})", FLAGS)


def parse(text: str) -> Found | None:
    f: dict[str, Value] = {}
    if m := KV_TOKENS.search(text):
        f["kv_tokens"] = whole(m[1])
    elif m := CAPACITY.search(text):  # V0's refusal: "… can be stored in KV cache (23648)"
        f["kv_tokens"] = whole(m[1])
    if m := BLOCKS.search(text):
        f["gpu_blocks"] = whole(m[1])
    if m := CONCURRENCY.search(text):
        f["max_model_len"], f["max_concurrency_x"] = whole(m[1]), number(m[2])
    if m := KV_MEMORY.search(text) or KV_SIZE.search(text):
        f["kv_cache_bytes"] = to_bytes(m[1], m[2])
    if not f:
        return None  # the lines below alone do not make a vLLM start-up log
    if m := WEIGHTS_V1.search(text):
        f["weights_bytes"] = to_bytes(m[1], m[2])
    elif m := WEIGHTS_V0.search(text):
        f["weights_bytes"] = to_bytes(m[1], m[2], gb_is_gib=True)
    if m := TOTAL.search(text):
        f["total_gpu_bytes"] = to_bytes(m[1], m[2])
    if (m := UTIL.search(text)) and 0 < number(m[1]) <= 1:
        f["mem_util"] = number(m[1])
    return Found("vllm_startup", f)
