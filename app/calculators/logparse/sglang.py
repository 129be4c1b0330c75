"""SGLang: the server's start-up lines and ``python -m sglang.bench_serving`` output.

Start-up (python/sglang/srt/mem_cache/memory_pool.py and model_runner.py):

* ``KV Cache is allocated. #tokens: 367404, K size: 8.23 GB, V size: 8.23 GB`` (MLA: ``KV size: …``)
* ``max_total_num_tokens=2086558, chunked_prefill_size=8192, max_prefill_tokens=16384,
  max_running_requests=33, context_len=256000, available_gpu_mem=17.22 GB``
* ``mem_fraction_static=0.93`` in the printed server arguments

SGLang divides by 2**30 and prints "GB" (``GB = 1024 * 1024 * 1024`` in its memory pool; the free memory
comes from ``get_available_gpu_memory``, also in 2**30), so these GB are GiB.

Fields: kv_tokens, kv_cache_bytes (K + V per GPU), context_len, max_running_requests, chunked_prefill_size,
max_prefill_tokens, available_gpu_bytes, mem_util. The benchmark's table is vLLM's plus ``Concurrency``
(mean requests in flight) and ``E2E Latency``: :func:`.vllm_bench.table` reads both."""

from __future__ import annotations

import re

from .common import FLAGS, NUM, UNIT, Found, Value, number, to_bytes, whole
from .vllm_bench import blocks, is_sglang, table

ALLOCATED = re.compile(
    rf"KV Cache is allocated\.?\s*#tokens:\s*({NUM})\s*,\s*(?:K size:\s*({NUM})\s*({UNIT})\s*,\s*V size:\s*({NUM})\s*({UNIT})"
    rf"|KV size:\s*({NUM})\s*({UNIT}))",
    FLAGS,
)
ARGS = {
    "max_total_num_tokens": "kv_tokens",
    "context_len": "context_len",
    "max_running_requests": "max_running_requests",
    "chunked_prefill_size": "chunked_prefill_size",
    "max_prefill_tokens": "max_prefill_tokens",
}
ARG = re.compile(rf"\b({'|'.join(ARGS)})=({NUM})\b", FLAGS)
AVAILABLE = re.compile(rf"\bavailable_gpu_mem=({NUM})\s*({UNIT})", FLAGS)
FRACTION = re.compile(rf"\bmem_fraction_static=({NUM})", FLAGS)


def parse_startup(text: str) -> Found | None:
    f: dict[str, Value] = {}
    if m := ALLOCATED.search(text):
        f["kv_tokens"] = whole(m[1])
        if m[2]:
            f["kv_cache_bytes"] = to_bytes(m[2], m[3], gb_is_gib=True) + to_bytes(m[4], m[5], gb_is_gib=True)
        else:
            f["kv_cache_bytes"] = to_bytes(m[6], m[7], gb_is_gib=True)
    for m in ARG.finditer(text):
        f.setdefault(ARGS[m[1].lower()], whole(m[2]))
    if not f:
        return None
    if m := AVAILABLE.search(text):
        f["available_gpu_bytes"] = to_bytes(m[1], m[2], gb_is_gib=True)
    if (m := FRACTION.search(text)) and 0 < number(m[1]) <= 1:
        f["mem_util"] = number(m[1])
    return Found("sglang_startup", f)


def parse_bench(text: str) -> Found | None:
    """The first result block printed by ``sglang.bench_serving``."""
    for _, b in blocks(text):
        if is_sglang(b) and (f := table(b)):
            return Found("sglang_bench", f)
    return None
