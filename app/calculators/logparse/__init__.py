"""Serving-engine logs as typed fields (pure: text in, numbers out, base units: s, bytes, tokens, tokens/s).

One module per format, each reading the exact field names its tool prints (case-insensitive, tolerant
of the variations between releases; docs/lab-log.md lists them with a cited real example):

* ``vllm_startup``: ``GPU KV cache size: N tokens``, ``Maximum concurrency for N tokens per request: Xx``,
  ``Available KV cache memory: X GiB``, older ``# GPU blocks: N`` and ``kv_cache_size=``, weights loaded;
* ``vllm_bench``: ``vllm bench serve`` (and ``benchmark_serving.py``) text, and the saved JSON result;
* ``sglang``: start-up (``KV Cache is allocated. #tokens: N``, ``max_total_num_tokens=``) and
  ``bench_serving`` (text and JSON);
* ``llama_cpp``: ``llama-bench`` markdown tables (``pp512`` / ``tg128`` rows, t/s ± sd) and
  ``llama-batched-bench``;
* ``mlperf``: MLPerf Inference ``mlperf_log_summary.txt``.

Only numbers and a few closed vocabularies (an MLPerf scenario, VALID / INVALID) ever leave a parser:
no name, path, host or token in the pasted text can reach a result or an address."""

from __future__ import annotations

from dataclasses import dataclass, field

from . import llama_cpp, mlperf, sglang, vllm_bench, vllm_startup
from .common import MAX_FIGURE, Found, LogError, Value, check_text

FORMATS = (
    "vllm_startup",
    "vllm_bench",
    "sglang_startup",
    "sglang_bench",
    "llama_bench",
    "llama_batched_bench",
    "mlperf",
)
PARSERS = (vllm_bench.parse_json, vllm_startup.parse, vllm_bench.parse, sglang.parse_startup, sglang.parse_bench,
           llama_cpp.parse_bench, llama_cpp.parse_batched, mlperf.parse)  # fmt: skip


@dataclass(frozen=True)
class Parsed:
    """Every format found in one paste, and their fields merged (the first format to give a field keeps it)."""

    found: tuple[Found, ...]
    fields: dict[str, Value] = field(default_factory=dict)

    @property
    def formats(self) -> tuple[str, ...]:
        return tuple(f.format for f in self.found)


def parse(text: str) -> Parsed:
    """All the formats in ``text``; ``LogError`` when the text is not text, a table is cut short, or
    nothing recognisable is there (its ``kind`` says which, its ``detail`` what was seen)."""
    check_text(text)
    found: list[Found] = []
    truncated: list[str] = []
    for p in PARSERS:
        try:
            f = p(text)
        except LogError as e:
            if e.kind != "truncated":
                raise
            truncated.append(e.detail)
            continue
        except ValueError:  # a figure beyond MAX_FIGURE: this format's reading is not trusted
            continue
        if f is not None and f.fields:
            found.append(f)
    if not found:
        if truncated:
            raise LogError("truncated", truncated[0])
        raise LogError("nothing")
    merged: dict[str, Value] = {}
    for f in found:
        for k, v in f.fields.items():
            merged.setdefault(k, v)
    return Parsed(tuple(found), merged)


__all__ = ["FORMATS", "MAX_FIGURE", "Found", "LogError", "Parsed", "Value", "parse"]
