"""/tools/log, "bring your lab log" (issue 41): the page's declaration — its settings, the fields a result
address may carry, and its words (log_page.toml; a second language is a second file of the same keys). The
parsing is ``calculators.logparse``, the bounds ``calculators.reconcile``; this module turns settings into a
:class:`reconcile.Setup` and rows into words. No card is registered: the page is not a slider card."""

from __future__ import annotations

import dataclasses
import math
import re
from typing import Any, Literal

from pydantic import BaseModel, Field

from ...calculators import parallel, planner, reconcile
from ...calculators.formats import KV_FORMATS, WEIGHT_FORMATS
from ...calculators.logparse import MAX_FIGURE, Parsed, Value
from ...calculators.model_config import ConfigError, shape_of
from ...data import extended_gpu_ids, extended_gpu_options, gpu, model_config, model_ids
from ...format import compact, decimals, num, with_unit, with_unit_text
from ...params_domain import gpu_type, model_type
from ...words import localize
from .. import words

WORDS = words("tools", "log_page")
STORED = "stored"


def _readable(mid: str) -> bool:
    try:
        shape_of(model_config(mid))
        return True
    except (ConfigError, KeyError, TypeError, ValueError):
        return False


MODELS = [m for m in model_ids() if _readable(m)]
WEIGHT_CHOICES = (STORED, *WEIGHT_FORMATS)
GPU_OPTIONS = extended_gpu_options()


class LogSettings(BaseModel):
    """What the log may not say (the planner's inputs); each has a default, shown as an assumption."""

    model: model_type(MODELS) = "qwen3-8b"  # type: ignore[valid-type]
    gpu: gpu_type(extended_gpu_ids()) = "h100-sxm"  # type: ignore[valid-type]
    tp: int = Field(1, ge=1, le=64)
    count: int | None = Field(None, ge=1, le=4096)
    mem_util: float | None = Field(None, gt=0, le=1)
    weight_format: Literal[WEIGHT_CHOICES] = "bf16"  # type: ignore[valid-type]
    kv_format: Literal[tuple(KV_FORMATS)] = "bf16"  # type: ignore[valid-type]
    context: int = Field(1024, ge=1, le=1_048_576)


SETTING_KEYS = tuple(LogSettings.model_fields)
DEFAULTS = LogSettings()

# --- the fields a result address may carry: numbers, or a word from a closed vocabulary ---------------
WORD_FIELDS = {
    "scenario": ("Offline", "Server", "SingleStream", "MultiStream", "Interactive"),
    "mode": ("PerformanceOnly", "AccuracyOnly", "SubmissionRun", "FindPeakPerformance"),
    "validity": ("VALID", "INVALID"),
    "tokens_inferred": ("yes",),
}
FIELD_NAME = re.compile(r"^[a-z][a-z0-9_]{0,47}$")
FORMAT_NAMES = tuple(WORDS["formats"])


def field_value(name: str, raw: str) -> Value:
    """One address field back to its value; ValueError when it is not a finite non-negative number (or, for a
    word field, not one of its words)."""
    if name in WORD_FIELDS:
        if raw not in WORD_FIELDS[name]:
            raise ValueError(name)
        return raw
    if not FIELD_NAME.match(name) or len(raw) > 32:
        raise ValueError(name)
    x = float(raw)
    if not math.isfinite(x) or x < 0 or x > MAX_FIGURE:
        raise ValueError(name)
    return int(x) if re.fullmatch(r"\d{1,16}", raw) else x


def encode_value(v: Value) -> str:
    return v if isinstance(v, str) else (str(v) if isinstance(v, int) else compact(v, 10))


# --- settings → the reconciler's setup -------------------------------------------------------------------


def accelerator(ref: str, tp: int) -> planner.Accelerator:
    """One accelerator as the planner takes it: runtime memory, bandwidth, peaks, the link at this tp."""
    g = gpu(ref)
    link = parallel.link_for_tp(g.topology, g.interconnect_bytes_s, g.link_peer_bytes_s, tp)
    return planner.Accelerator(g.runtime_mem_bytes, g.bw_bytes_s, g.peaks_flops(), link)


def setup(st: LogSettings, fields: dict[str, Value]) -> reconcile.Setup:
    """The log's own η (gpu_memory_utilization / mem_fraction_static) wins over the default, and the memory the
    runtime reported (vLLM's total_gpu_memory) over the preset's or the custom card's figure."""
    util = st.mem_util or fields.get("mem_util") or planner.DEFAULT_MEM_UTIL
    acc = accelerator(st.gpu, st.tp)
    total = fields.get("total_gpu_bytes")
    if isinstance(total, int | float) and not isinstance(total, bool) and total > 0:
        acc = dataclasses.replace(acc, mem_bytes=float(total))
    return reconcile.Setup(
        shape_of(model_config(st.model)),
        acc,
        tp=st.tp,
        count=st.count or st.tp,
        mem_util=float(util),
        weight_format=st.weight_format,
        kv_format=st.kv_format,
        context=st.context,
    )


# --- words -----------------------------------------------------------------------------------------------


def fill(template: str, **values: Any) -> str:
    """``template`` (a word in the edition served) with its ``[[name]]`` slots filled from ``values``."""
    return re.sub(r"\[\[(\w+)\]\]", lambda m: str(localize(values.get(m[1], m[0]))), localize(template))


def sig(x: float, n: int = 4) -> str:
    if x == 0:
        return "0"
    digits = max(0, n - 1 - math.floor(math.log10(abs(x))))
    s = num(x, digits)
    return s.rstrip("0").rstrip(".") if "." in s else s


def show(x: float | None, unit: str) -> str:
    """A base-unit value at the edge: seconds as ms (or s), bytes as GB (10⁹ B), rates as token/s."""
    if x is None:
        return "—"
    if unit == "s":
        return f"{sig(x * 1e3)} ms" if x < 10 else f"{sig(x)} s"
    if unit == "B":
        return f"{sig(x / 1e9)} GB"
    if unit == "token/s":
        return f"{sig(x)} token/s"
    if unit == "token":
        return with_unit(x, "token", 0)
    if unit == "req/s":
        return with_unit_text(sig(x), WORDS["units"]["req_per_s"])
    if unit == "req":
        return with_unit_text(sig(x, 3), WORDS["units"]["req"])
    if unit == "FLOP/s":
        return f"{sig(x / 1e12)} TFLOP/s"
    if unit == "B/s":
        return f"{sig(x / 1e12)} TB/s"
    return sig(x)


def field_unit(name: str) -> str:
    if name.endswith("_bytes"):
        return "B"
    if name.endswith("_s") and not name.endswith("per_s") and name != "samples_per_s":
        return "s"
    if name == "request_throughput" or name == "samples_per_s":
        return "req/s"
    if "tokens_per_s" in name or name.endswith("throughput"):
        return "token/s"
    return ""


def pct_text(p: float | None) -> str:
    if p is None:
        return "—"
    return f"{compact(p * 100, 2)} %" if p < 0.1 else f"{decimals(p * 100, 0)} %"


def _derivation(r: reconcile.Row) -> str:
    t = r.terms
    key = "batched" if r.key.startswith("batched_b") else r.key
    vals: dict[str, Any] = {"bound": show(r.bound, r.unit), "measured": show(r.measured, r.unit)}
    vals |= {
        "usable": show(t.get("usable_bytes"), "B"),
        "weights": show(t.get("weights_bytes"), "B"),
        "reserve": show(t.get("reserve_bytes"), "B"),
        "budget": show(t.get("budget_bytes"), "B"),
        "per_token": f"{sig(t.get('kv_bytes_per_token', 0) / 1e3)} KB",
        "b": sig(t.get("b", 0), 3),
        "context": num(t.get("context", 0), 0),
        "read": show(t.get("read_bytes"), "B"),
        "t_mem": show(t.get("t_mem_s"), "s"),
        "t_compute": show(t.get("t_compute_s"), "s"),
        "t_ar": show(t.get("t_allreduce_s"), "s"),
        "tpot": show(t.get("tpot_s"), "s"),
        "lambda": with_unit_text(sig(t.get("lambda", 0)), WORDS["units"]["req_per_s"]),
        "w": show(t.get("w_s"), "s"),
        "t1": show(t.get("t1_s"), "s"),
        "c": sig(t.get("c", 0), 3),
        "n_in": num(t.get("n_in", 0), 0),
        "bw": show(t.get("bw"), "B/s"),
        "params": f"{sig(t.get('params', 0) / 1e9)} B",
        "peak": show(t.get("peak"), "FLOP/s"),
        "count": sig(t.get("count", 1)),
        "model_bytes": show(t.get("w_bytes"), "B"),
    }
    return fill(WORDS["derivations"][key], **vals)


def row_view(r: reconcile.Row) -> dict[str, Any]:
    """One reconciled row in words (the same dict for the page and the API)."""
    key = "batched" if r.key.startswith("batched_b") else r.key
    b = r.terms.get("b", 0)
    return {
        "key": r.key,
        "item": fill(WORDS["items"][key], b=sig(b, 3)),
        "kind": r.kind,
        "measured": r.measured,
        "bound": r.bound,
        "unit": r.unit,
        "pct": r.pct,
        "measured_text": show(r.measured, r.unit) if r.key != "fit" else "—",
        "bound_text": fill(WORDS["joins"]["bound"], value=show(r.bound, r.unit), name=WORDS["bounds"][key])
        if r.bound is not None
        else "—",
        "pct_text": pct_text(r.pct),
        "card": r.card,
        "card_url": f"/cards/{r.card}",
        "verdict": fill(
            WORDS["verdicts"][r.verdict], pct=pct_text(r.pct), b=sig(b, 3), measured=show(r.measured, r.unit)
        ),
        "derivation": _derivation(r),
    }


def batch_note(rec: reconcile.Reconciled) -> str:
    if rec.batch is None or not rec.batch_source:
        return ""
    return fill(WORDS[f"batch_{rec.batch_source}"], b=sig(rec.batch, 3))


def error_text(kind: str, **values: Any) -> str:
    return fill(WORDS["errors"][kind], **values)


def formats_text(parsed_formats: tuple[str, ...]) -> str:
    sep = localize(WORDS["joins"]["list_sep"])
    return sep.join(localize(WORDS["formats"].get(f, f)) for f in parsed_formats)


def parsed_view(p: Parsed) -> list[dict[str, Any]]:
    return [
        {"name": k, "value": v, "text": v if isinstance(v, str) else show(float(v), field_unit(k))}
        for k, v in p.fields.items()
    ]
