"""MLPerf Inference LoadGen's ``mlperf_log_summary.txt`` (mlcommons/inference, loadgen/results.cc).

After ``MLPerf Results Summary``: ``Scenario : Offline`` (Server, SingleStream, MultiStream, Interactive),
``Mode : PerformanceOnly``, ``Samples per second: 41.1075`` (Server: ``Completed samples per second``),
``Tokens per second: 11264.4`` (Server: ``Completed tokens per second``; ``(inferred)`` when the SUT
reports no token counts), ``Result is : VALID``; then latencies in nanoseconds: ``Mean latency (ns)``,
``50.00 percentile latency (ns)`` …, and for LLMs ``Mean First Token latency (ns)``,
``50.00 percentile first token latency (ns)``, ``Mean Time to Output Token (ns)``,
``50.00 percentile time to output token (ns)``; the test's ``ttft_latency (ns)`` / ``tpot_latency (ns)``
targets and ``samples_per_query``.

Times become seconds (ns / 1e9). The SUT's name is free text (often a host) and is never read."""

from __future__ import annotations

import re

from .common import FLAGS, NUM, Found, Value, number, whole

HEADER = re.compile(r"MLPerf Results Summary", re.I)
SCENARIOS = {s.lower(): s for s in ("Offline", "Server", "SingleStream", "MultiStream", "Interactive")}
MODES = {s.lower(): s for s in ("PerformanceOnly", "AccuracyOnly", "SubmissionRun", "FindPeakPerformance")}
WORD = {
    "scenario": re.compile(r"^\s*Scenario\s*:\s*(\w+)", FLAGS),
    "mode": re.compile(r"^\s*Mode\s*:\s*(\w+)", FLAGS),
    "validity": re.compile(r"^\s*Result is\s*:\s*(VALID|INVALID)\b", FLAGS),
}
NUMBERS = {
    "samples_per_s": r"(?:Completed\s+)?Samples per second",
    "tokens_per_s": r"(?:Completed\s+)?Tokens per second(?:\s*\(inferred\))?",
    "min_latency_s": r"Min latency \(ns\)",
    "max_latency_s": r"Max latency \(ns\)",
    "mean_latency_s": r"Mean latency \(ns\)",
    "median_latency_s": r"50\.00 percentile latency \(ns\)",
    "p90_latency_s": r"90\.00 percentile latency \(ns\)",
    "p99_latency_s": r"99\.00 percentile latency \(ns\)",
    "mean_ttft_s": r"Mean First Token latency \(ns\)",
    "median_ttft_s": r"50\.00 percentile first token latency \(ns\)",
    "p99_ttft_s": r"99\.00 percentile first token latency \(ns\)",
    "mean_tpot_s": r"Mean Time to Output Token \(ns\)",
    "median_tpot_s": r"50\.00 percentile time to output token \(ns\)",
    "p99_tpot_s": r"99\.00 percentile time to output token \(ns\)",
    "ttft_target_s": r"ttft_latency \(ns\)",
    "tpot_target_s": r"tpot_latency \(ns\)",
    "samples_per_query": r"samples_per_query",
    "target_qps": r"target_qps",
}
PATTERNS = {k: re.compile(rf"^\s*{p}\s*:\s*({NUM})\s*$", FLAGS) for k, p in NUMBERS.items()}


def parse(text: str) -> Found | None:
    h = HEADER.search(text)
    if not h:
        return None
    body = text[h.start() :]
    f: dict[str, Value] = {}
    for k, pat in WORD.items():
        if m := pat.search(body):
            word = m[1].lower()
            vocab = SCENARIOS if k == "scenario" else MODES if k == "mode" else {"valid": "VALID", "invalid": "INVALID"}
            if word in vocab:
                f[k] = vocab[word]
    for k, pat in PATTERNS.items():
        if m := pat.search(body):
            if k.endswith("_s") and k not in ("samples_per_s", "tokens_per_s"):
                f[k] = number(m[1]) / 1e9
            elif k == "samples_per_query":
                f[k] = whole(m[1])
            else:
                f[k] = number(m[1])
    if "inferred" in body[:2000].lower() and "tokens_per_s" in f:
        f["tokens_inferred"] = "yes"
    return Found("mlperf", f) if len(f) > 0 else None
