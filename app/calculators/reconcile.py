"""Measured figures from a serving log beside the bounds the book teaches (pure; base units: s, bytes,
tokens, tokens/s). Each :class:`Row` holds the measured value, its bound, ``pct`` (how much of the bound
the run reached: floor / measured for a time, measured / ceiling for a rate, measured / predicted for a
capacity), the card that explains the gap and a verdict key; the words live with the page
(app/chapters/tools/log_page.toml).

Every planner call goes through :func:`plan_at` — the one adapter to ``planner.plan`` — so a change of the
planner's memory model is a change here only. The rows:

* ``kv_tokens`` / ``kv_memory`` / ``weights``: the engine's KV tokens, KV bytes and weight bytes against the
  planner's capacity, budget and weights per GPU (:func:`kv_capacity_bound`);
* ``tpot``: median TPOT against the decode-step floor max((W + KV)/β, F/Π) at the run's concurrency B and
  mean context (input + output / 2) — 例题 1-1, 图 1-11;
* ``throughput``: output tokens/s against B / TPOT; ``little``: Little's law, requests in flight
  L = request rate × mean end-to-end latency, against the configured concurrency (chapter 3);
* ``ttft``: median TTFT against one prompt's prefill floor max(2·N·L_in/Π, W/β), times (C + 1)/2 when C
  prompts arrive together and are prefilled one after another (the mean wait of a compute-bound queue);
* ``llama_tg`` / ``llama_pp``: llama-bench rates against β / model bytes and count·Π / (2 · params);
  ``batched_b{B}``: llama-batched-bench's S_TG against B / floor(B);
* ``mlperf_tokens``: MLPerf tokens/s against the compute ceiling count · Π / (2 · N_active)."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field

from . import planner
from .logparse import Value
from .model_config import ModelShape

CLOSE = 0.15  # a capacity within ±15 % of the planner's counts as agreeing


@dataclass(frozen=True)
class Setup:
    """What the log may not say: the model, one accelerator, tp, accelerators in all, the engine's memory share,
    the formats, and the context to assume when the log gives no token counts."""

    shape: ModelShape | None
    acc: planner.Accelerator | None
    tp: int = 1
    count: int = 1
    mem_util: float = planner.DEFAULT_MEM_UTIL
    weight_format: str = "bf16"
    kv_format: str = "bf16"
    context: int = 1024

    @property
    def replicas(self) -> int:
        return max(1, self.count // self.tp)


@dataclass(frozen=True)
class Row:
    key: str
    measured: float
    bound: float | None
    unit: str  # token · B · s · token/s · req
    kind: str  # floor (a time the run cannot beat) · ceiling (a rate it cannot beat) · estimate · info
    pct: float | None
    card: str
    verdict: str
    terms: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class Curve:
    """The decode floor against the batch at the run's context, and the measured points (B, s per token)."""

    batches: tuple[int, ...]
    floor_s: tuple[float, ...]
    read_s: tuple[float, ...]
    compute_s: tuple[float, ...]
    points: tuple[tuple[float, float, str], ...]


@dataclass(frozen=True)
class Reconciled:
    rows: tuple[Row, ...]
    missing: tuple[str, ...]  # what the rows needed and the setup lacked: model, accelerator, planner
    curve: Curve | None
    batch: float | None = None
    batch_source: str = ""  # configured · measured · little
    context: int | None = None


def plan_at(s: Setup, context: int, concurrency: int) -> planner.Plan:
    """The one adapter to the fit planner (today's public API: a fixed per-GPU reserve)."""
    assert s.shape is not None and s.acc is not None
    return planner.plan(
        s.shape,
        s.acc,
        tp=s.tp,
        weight_format=s.weight_format,
        kv_format=s.kv_format,
        context=max(1, int(context)),
        concurrency=max(1, int(concurrency)),
        mem_util=s.mem_util,
    )


def kv_capacity_bound(s: Setup) -> planner.Plan:
    """The planner's KV capacity (tokens, bytes) and weights per GPU for this setup."""
    return plan_at(s, 1, 1)


def _num(f: dict[str, Value], *keys: str) -> float | None:
    for k in keys:
        v = f.get(k)
        if isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) and v > 0:
            return float(v)
    return None


def _estimate(key: str, measured: float, predicted: float, unit: str, terms: dict[str, float]) -> Row:
    pct = measured / predicted if predicted > 0 else None
    verdict = "close" if pct is not None and abs(pct - 1) <= CLOSE else ("less" if (pct or 0) < 1 else "more")
    return Row(key, measured, predicted, unit, "estimate", pct, "fit-planner", f"{key}_{verdict}", terms)


def memory_rows(f: dict[str, Value], s: Setup) -> list[Row]:
    pl = kv_capacity_bound(s)
    t = {
        "usable_bytes": pl.usable_bytes,
        "weights_bytes": pl.weights_per_gpu_bytes,
        "reserve_bytes": pl.memory.reserve,
        "budget_bytes": pl.kv_budget_bytes,
        "kv_bytes_per_token": pl.kv_bytes_per_token_per_gpu,
        "mem_util": s.mem_util,
    }
    rows = []
    if (m := _num(f, "kv_tokens")) is not None and pl.model_fits:
        rows.append(_estimate("kv_tokens", m, float(pl.kv_capacity_tokens), "token", t))
    if (m := _num(f, "kv_cache_bytes")) is not None and pl.model_fits:
        rows.append(_estimate("kv_memory", m, pl.kv_budget_bytes, "B", t))
    if (m := _num(f, "weights_bytes")) is not None:
        rows.append(_estimate("weights", m, pl.weights_per_gpu_bytes, "B", t))
    return rows


def run_shape(f: dict[str, Value], s: Setup) -> tuple[float | None, str, int, float | None, float | None]:
    """(B, where B came from, mean context, mean input, mean output) of a serving benchmark."""
    done = _num(f, "completed")
    tin, tout = _num(f, "total_input_tokens"), _num(f, "total_output_tokens")
    mean_in = tin / done if done and tin else None
    mean_out = tout / done if done and tout else None
    ctx = int(mean_in + (mean_out or 0) / 2) if mean_in else s.context
    tpot = _num(f, "median_tpot_s", "mean_tpot_s")
    if (c := _num(f, "max_concurrency")) is not None:
        b, src = min(c, done or c), "configured"
    elif (c := _num(f, "concurrency_measured")) is not None:
        b, src = c, "measured"
    elif tpot and (thr := _num(f, "output_throughput", "tokens_per_s")):
        b, src = thr * tpot / s.replicas, "little"  # sequences decoding at once = token rate × time per token
    else:
        return None, "", ctx, mean_in, mean_out
    return max(1.0, b), src, max(1, ctx), mean_in, mean_out


def _tpot_verdict(pct: float, b: float) -> tuple[str, str]:
    if pct > 1.05:
        return "tpot_faster", "fit-planner"
    if pct >= 0.7:
        return "tpot_near", "eg-1-1"
    if pct >= 0.4:
        return "tpot_mid", "gap-analysis"
    return ("tpot_low_small_b", "fig-1-13") if b <= 4 else ("tpot_low_big_b", "gap-analysis")


def decode_rows(f: dict[str, Value], s: Setup, b: float, src: str, ctx: int) -> list[Row]:
    rows: list[Row] = []
    tpot = _num(f, "median_tpot_s", "mean_tpot_s")
    if tpot is None:
        return rows
    pl = plan_at(s, ctx, round(b))
    if not pl.model_fits:
        return rows
    floor = pl.t_step_lb_s
    verdict, card = _tpot_verdict(floor / tpot, b)
    terms = {"b": b, "context": ctx, "t_mem_s": pl.t_mem_s, "t_compute_s": pl.t_compute_s,
             "t_allreduce_s": pl.t_allreduce_s, "read_bytes": pl.weight_read_bytes_per_gpu + pl.kv_read_bytes_per_gpu,
             "flops": pl.flops_per_gpu, "bw": s.acc.bw_bytes_s if s.acc else 0.0, "peak": pl.peak.flops}  # fmt: skip
    rows.append(Row("tpot", tpot, floor, "s", "floor", floor / tpot, card, verdict, terms))
    thr = _num(f, "output_throughput")
    if thr is not None and src != "little":
        ceiling = b / tpot * s.replicas
        pct = thr / ceiling
        rows.append(Row("throughput", thr, ceiling, "token/s", "ceiling", pct, "fig-1-13",
                        "throughput_full" if pct >= 0.8 else "throughput_gaps", {"b": b, "tpot_s": tpot}))  # fmt: skip
    return rows


def little_row(f: dict[str, Value], mean_out: float | None) -> Row | None:
    """L = λ · W: requests completed per second times the mean time each spends in the system."""
    lam = _num(f, "request_throughput", "samples_per_s")
    w = _num(f, "mean_e2el_s", "mean_latency_s")
    if w is None and (ttft := _num(f, "mean_ttft_s")) and (tp := _num(f, "mean_tpot_s")) and mean_out:
        w = ttft + tp * max(0.0, mean_out - 1)
    if lam is None or w is None:
        return None
    implied = lam * w
    c = _num(f, "max_concurrency", "concurrency_measured")
    t = {"lambda": lam, "w_s": w}
    if c is None:
        return Row("little", implied, None, "req", "info", None, "fig-3-3", "little_info", t)
    pct = implied / c
    return Row(
        "little", implied, c, "req", "estimate", pct, "fig-3-3", "little_full" if pct >= 0.9 else "little_short", t
    )


def ttft_row(f: dict[str, Value], s: Setup, mean_in: float | None) -> Row | None:
    ttft = _num(f, "median_ttft_s", "mean_ttft_s")
    if ttft is None or not mean_in or s.acc is None:
        return None
    n_in = max(1, round(mean_in))
    pl = plan_at(s, max(1, n_in // 2), n_in)  # n_in tokens, each attending to n_in / 2 on average
    if not pl.model_fits:
        return None
    t1 = max(pl.t_compute_s, pl.weight_read_bytes_per_gpu / s.acc.bw_bytes_s)
    c = _num(f, "max_concurrency") or 1.0
    floor = t1 * (c + 1) / 2
    pct = floor / ttft
    verdict = "ttft_faster" if pct > 1.05 else "ttft_near" if pct >= 0.5 else "ttft_wait"
    return Row("ttft", ttft, floor, "s", "floor", pct, "fig-3-3", verdict, {"t1_s": t1, "c": c, "n_in": n_in})


def llama_rows(f: dict[str, Value], s: Setup) -> list[Row]:
    rows: list[Row] = []
    acc = s.acc
    if acc is None:
        return rows
    w = _num(f, "model_bytes")
    params = _num(f, "params")
    if s.shape is not None:
        w = w or plan_at(s, 1, 1).weights_per_gpu_bytes * s.tp
        params = params or float(s.shape.params_active)
    peak = acc.peaks.get("bf16", 0.0)
    if (m := _num(f, "tg_tokens_per_s")) is not None and w:
        ceiling = acc.bw_bytes_s / w
        pct = m / ceiling
        rows.append(Row("llama_tg", m, ceiling, "token/s", "ceiling", pct, "eg-1-1" if pct >= 0.5 else "gap-analysis",
                        "tg_near" if pct >= 0.7 else "tg_low", {"w_bytes": w, "bw": acc.bw_bytes_s}))  # fmt: skip
    if (m := _num(f, "pp_tokens_per_s")) is not None and params and peak:
        ceiling = s.count * peak / (2 * params)
        pct = m / ceiling
        rows.append(Row("llama_pp", m, ceiling, "token/s", "ceiling", pct, "eg-1-1",
                        "pp_near" if pct >= 0.5 else "pp_low", {"params": params, "peak": peak, "count": s.count}))  # fmt: skip
    return rows


def batched_rows(f: dict[str, Value], s: Setup) -> tuple[list[Row], list[tuple[float, float, str]]]:
    rows: list[Row] = []
    pts: list[tuple[float, float, str]] = []
    pp, tg = _num(f, "batched_pp"), _num(f, "batched_tg")
    if s.shape is None or s.acc is None or pp is None or tg is None:
        return rows, pts
    ctx = int(pp + tg / 2)
    for k, v in f.items():
        if not k.startswith("batched_tg_tokens_per_s_b") or not isinstance(v, int | float):
            continue
        b = int(k.rsplit("b", 1)[1])
        pl = plan_at(s, ctx, b)
        if not pl.model_fits:
            continue
        ceiling = b / pl.t_step_lb_s
        pct = v / ceiling
        rows.append(Row(f"batched_b{b}", float(v), ceiling, "token/s", "ceiling", pct, "eg-1-1",
                        "tg_near" if pct >= 0.7 else "tg_low", {"b": b, "context": ctx}))  # fmt: skip
        pts.append((float(b), b / float(v), "batched"))
    return rows, pts


def mlperf_row(f: dict[str, Value], s: Setup) -> Row | None:
    m = _num(f, "tokens_per_s")
    if m is None or s.shape is None or s.acc is None:
        return None
    peak = plan_at(s, 1, 1).peak.flops
    ceiling = s.count * peak / (2 * s.shape.params_active)
    pct = m / ceiling
    return Row("mlperf_tokens", m, ceiling, "token/s", "ceiling", pct, "eg-1-1",
               "mlperf_near" if pct >= 0.5 else "mlperf_low", {"count": s.count, "peak": peak, "params": s.shape.params_active})  # fmt: skip


def curve(s: Setup, ctx: int, points: list[tuple[float, float, str]]) -> Curve | None:
    if not points:
        return None
    top = max(8, 2 ** math.ceil(math.log2(max(p[0] for p in points) * 2)))
    bs = tuple(2**i for i in range(int(math.log2(top)) + 1))
    plans = [plan_at(s, ctx, b) for b in bs]
    if not all(p.model_fits for p in plans):
        return None
    return Curve(
        bs,
        tuple(p.t_step_lb_s for p in plans),
        tuple(p.t_mem_s for p in plans),
        tuple(p.t_compute_s for p in plans),
        tuple(points),
    )


def reconcile(f: dict[str, Value], s: Setup) -> Reconciled:
    """Every row the fields and the setup allow, and what was missing for the others."""
    missing: list[str] = []
    rows: list[Row] = []
    pts: list[tuple[float, float, str]] = []
    b, src, ctx, mean_in, mean_out = run_shape(f, s)
    ready = s.shape is not None and s.acc is not None
    if not ready:
        missing.append("model" if s.shape is None else "accelerator")
    if ready:
        try:
            rows += _planned_rows(f, s, b, src, ctx, mean_in, pts)
        except ValueError:  # the planner's own refusal (e.g. tp > 1 on a card without a recorded link)
            missing.append("planner")
            ready = False
    if (r := little_row(f, mean_out)) is not None:
        rows.append(r)
    rows += llama_rows(f, s if ready else dataclasses.replace(s, shape=None))
    pp_ctx = int(_num(f, "batched_pp") or 0) + int((_num(f, "batched_tg") or 0) / 2) or ctx
    cv = curve(s, pp_ctx if "batched_pp" in f else ctx, pts) if ready else None
    rows = [r for r in rows if all(x is None or math.isfinite(x) for x in (r.measured, r.bound, r.pct))]
    return Reconciled(tuple(rows), tuple(missing), cv, b, src, ctx)


def _planned_rows(
    f: dict[str, Value], s: Setup, b: float | None, src: str, ctx: int, mean_in: float | None, pts: list
) -> list[Row]:
    rows = memory_rows(f, s)
    fits = kv_capacity_bound(s).model_fits
    if fits and b is not None:
        dec = decode_rows(f, s, b, src, ctx)
        rows += dec
        pts += [(b, r.measured, "tpot") for r in dec if r.key == "tpot"]
    if (r := ttft_row(f, s, mean_in)) is not None:
        rows.append(r)
    br, bp = batched_rows(f, s)
    rows += br
    pts += bp
    if (r := mlperf_row(f, s)) is not None:
        rows.append(r)
    if not fits:
        rows.append(Row("fit", 0.0, None, "", "info", None, "fit-planner", "model_too_big"))
    return rows
