"""``vllm bench serve`` (and ``benchmarks/benchmark_serving.py``) output, text and saved JSON.

Text: the block after ``============ Serving Benchmark Result ============``, one ``Label: value`` a line
(a leading ``#`` or indentation is tolerated). The labels and the JSON keys (vllm/benchmarks/serve.py,
``result_json`` and the printed table):

* ``Successful requests`` / ``completed``, ``Failed requests`` / ``failed``
* ``Maximum request concurrency`` / ``max_concurrency`` (``None`` or ``not set``: no limit)
* ``Benchmark duration (s)`` / ``duration``
* ``Total input tokens`` / ``total_input_tokens``, ``Total generated tokens`` / ``total_output_tokens``
* ``Request throughput (req/s)`` / ``request_throughput``, ``Output token throughput (tok/s)`` /
  ``output_throughput``, ``Total Token throughput (tok/s)`` / ``total_token_throughput``
* ``{Mean,Median,P99} {TTFT,TPOT,ITL,E2EL} (ms)`` / ``{mean,median,p99}_{ttft,tpot,itl,e2el}_ms``

Times become seconds: ``median_tpot_s`` is ``Median TPOT (ms)`` / 1000. SGLang's ``bench_serving`` prints
the same table with a few more lines; :mod:`.sglang` reuses :func:`table`."""

from __future__ import annotations

import json
import math
import re

from .common import FLAGS, NUM, Found, Value, number

HEADER = re.compile(r"=+\s*Serving Benchmark Result\s*=+", re.I)
LINE = re.compile(r"^[ \t#]*([A-Za-z][A-Za-z0-9 ./()%-]*?)\s*:\s*(\S+)", re.M)
STAT = re.compile(r"(mean|median|p\d{2}(?:\.\d+)?)\s+(ttft|tpot|itl|e2el|e2e latency)\s*\(ms\)", re.I)

LABELS = {
    "successful requests": ("completed", "int"),
    "failed requests": ("failed", "int"),
    "maximum request concurrency": ("max_concurrency", "int"),
    "max request concurrency": ("max_concurrency", "int"),
    "max reqeuest concurrency": ("max_concurrency", "int"),  # SGLang's spelling before late 2025
    "benchmark duration (s)": ("duration_s", "float"),
    "total input tokens": ("total_input_tokens", "int"),
    "total generated tokens": ("total_output_tokens", "int"),
    "request throughput (req/s)": ("request_throughput", "float"),
    "input token throughput (tok/s)": ("input_throughput", "float"),
    "output token throughput (tok/s)": ("output_throughput", "float"),
    "total token throughput (tok/s)": ("total_token_throughput", "float"),
    "concurrency": ("concurrency_measured", "float"),  # SGLang: mean requests in flight
}
METRICS = {"ttft": "ttft", "tpot": "tpot", "itl": "itl", "e2el": "e2el", "e2e latency": "e2el"}
JSON_STATS = re.compile(r"^(mean|median|p\d{2}(?:\.\d+)?)_(ttft|tpot|itl|e2el|e2e_latency)_ms$")
JSON_KEYS = {
    "completed": ("completed", "int"),
    "failed": ("failed", "int"),
    "max_concurrency": ("max_concurrency", "int"),
    "duration": ("duration_s", "float"),
    "total_input_tokens": ("total_input_tokens", "int"),
    "total_output_tokens": ("total_output_tokens", "int"),
    "request_throughput": ("request_throughput", "float"),
    "input_throughput": ("input_throughput", "float"),
    "output_throughput": ("output_throughput", "float"),
    "total_token_throughput": ("total_token_throughput", "float"),
    "concurrency": ("concurrency_measured", "float"),
}
NUMBER = re.compile(rf"^{NUM}$")


def _stat_key(stat: str, metric: str) -> str:
    stat = stat.lower()
    stat = {"p50": "median"}.get(stat, stat).replace(".", "_")
    return f"{stat}_{METRICS.get(metric.lower().replace('_', ' '), metric.lower())}_s"


def table(block: str) -> dict[str, Value]:
    """The ``Label: value`` lines of one result block as fields (unknown labels and non-numbers skipped)."""
    f: dict[str, Value] = {}
    for m in LINE.finditer(block):
        label, raw = m[1].strip().lower(), m[2]
        if not NUMBER.match(raw):
            continue  # "not set", "inf", a backend's name
        if s := STAT.fullmatch(label):
            f.setdefault(_stat_key(s[1], s[2]), number(raw) / 1000)
        elif label in LABELS:
            key, kind = LABELS[label]
            f.setdefault(key, int(number(raw)) if kind == "int" else number(raw))
    return f


def blocks(text: str) -> list[tuple[int, str]]:
    """Each result block (where its header starts, its text): from one header to the next (or the end)."""
    heads = [(m.start(), m.end()) for m in HEADER.finditer(text)]
    return [(s, text[e : (heads[i + 1][0] if i + 1 < len(heads) else len(text))]) for i, (s, e) in enumerate(heads)]


def is_sglang(block: str) -> bool:
    """SGLang's ``bench_serving`` names its backend and counts retokenized tokens inside the block."""
    return bool(re.search(r"^[ \t#]*(Backend\s*:|Total generated tokens \(retokenized\))", block, FLAGS))


PRELUDE = re.compile(rf"^[ \t#]*Maximum request concurrency\s*:\s*({NUM})\s*$", FLAGS)


def parse(text: str) -> Found | None:
    """The first result block printed by vLLM (SGLang's are :func:`.sglang.parse_bench`). Releases before
    mid-2025 print ``Maximum request concurrency`` above the block, not in it: the last one above counts."""
    for start, b in blocks(text):
        if not is_sglang(b) and (f := table(b)):
            if "max_concurrency" not in f and (pre := list(PRELUDE.finditer(text, 0, start))):
                f["max_concurrency"] = int(number(pre[-1][1]))
            return Found("vllm_bench", f)
    return None


def _json_object(text: str) -> dict | None:
    s = text.strip()
    if not s.startswith("{"):
        return None
    try:
        obj = json.loads(s)
    except ValueError:
        try:  # a JSON-lines file: its first object
            obj = json.loads(s.splitlines()[0])
        except (ValueError, IndexError):
            return None
    return obj if isinstance(obj, dict) else None


def json_fields(obj: dict) -> dict[str, Value]:
    f: dict[str, Value] = {}
    for k, v in obj.items():
        if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v) or v < 0:
            continue
        if s := JSON_STATS.match(k):
            f[_stat_key(s[1], s[2])] = v / 1000
        elif k in JSON_KEYS:
            key, kind = JSON_KEYS[k]
            f[key] = int(v) if kind == "int" else float(v)
    return f


def parse_json(text: str) -> Found | None:
    """A saved result (``--save-result``; SGLang's ``--output-file`` line): the numbers under the same names
    as the text. SGLang's marks itself with ``total_output_tokens_retokenized`` or ``*_e2e_latency_ms``."""
    obj = _json_object(text)
    if obj is None:
        return None
    f = json_fields(obj)
    sg = "total_output_tokens_retokenized" in obj or any(k.endswith("_e2e_latency_ms") for k in obj)
    return Found("sglang_bench" if sg else "vllm_bench", f) if f else None
