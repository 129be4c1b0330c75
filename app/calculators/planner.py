"""“Does it fit, and how fast can it be at best”: one model on tp identical accelerators, in base units.

Memory per GPU (what a serving engine does with ``gpu_memory_utilization``): the usable share is
mem_util · memory; from it come the weights (``parallel.weight_bytes_per_gpu``) and a reserve for
activations, the runtime and CUDA graphs; what is left is the KV budget. The usable share is
rounded to whole bytes (round(mem_util · memory)); every other byte count is exact (see ``parallel``).

* ``reserve_bytes`` is one number per GPU. The fit card fills it with vLLM's profiled terms
  (``engine_memory.vllm_reserve``: activation peak at max_num_batched_tokens, non-torch memory, CUDA graphs,
  weights as loaded beyond the stored text model — docs/planner.md) unless the reader types a fixed reserve.
  ``DEFAULT_RESERVE_BYTES`` = 3.3 GB is the old fixed reserve (vllm PR #10511's profile of an 8B model on one
  H100: non-torch 1.79 GiB + activation 1.26 GiB), kept for callers that cite it.
* what vLLM prints (``vllm_report``): "GPU KV cache size" = int(budget / one request of the context × the
  context); equal to the pool's token capacity when every layer keeps every token, smaller for hybrids.
* memory is what the runtime sees (``Accelerator.mem_bytes``: the driver-reported total, e.g. 79.22 GiB on
  an "80 GB" H100), not the marketed capacity.
* the model fits when weights + reserve ≤ mem_util·memory; the batch fits when, in addition, every
  sequence's KV (and a hybrid model's constant state) fits the KV budget. When the model does not fit there
  is no step time: ``fit_alternatives`` says what would make it fit.
* ``kv_bytes_per_token_per_gpu`` counts every layer, sliding-window layers included (a token is held by a
  sliding layer while it is inside the window). ``kv_capacity_tokens`` = floor(budget / that) is therefore
  exact while no sequence is longer than the window and a lower bound beyond it, where sliding layers
  stop growing. The two answers that name a context use the exact per-sequence rule,
  full·n + window·min(n, W): ``max_context_at_concurrency`` (None when every layer is sliding and the
  window fits: memory does not bound the context) and ``max_concurrency_at_context``.

Speed (a lower bound on one decode step of ``concurrency`` sequences at ``context`` tokens, per GPU):
t_step ≥ max(F/Π, R/β) + t_allreduce, where F is the step's FLOPs, Π the peak of the weight format
(``formats.compute_peak``), R the weights read (MoE: the distinct experts the batch touches) plus every
sequence's KV, β the memory bandwidth, and t_allreduce the ring all-reduce over the interconnect."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ..trace import name, tmax
from ..words import words_for
from . import parallel as par
from .formats import ComputePeak, compute_peak
from .model_config import ModelShape

W = words_for(__name__)

DEFAULT_MEM_UTIL = 0.9
DEFAULT_RESERVE_BYTES = 3.3e9
TP_DEGREES = (1, 2, 4, 8)


@dataclass(frozen=True)
class Accelerator:
    mem_bytes: float  # what the driver / runtime reports
    bw_bytes_s: float
    peaks: dict[str, float] = field(default_factory=dict)  # FLOP/s by compute format: bf16 / fp8 / fp4
    link_bytes_s: float | None = None  # interconnect, one direction, at the planned tp


@dataclass(frozen=True)
class MemoryBreakdown:
    """Bytes on one GPU at the chosen context × concurrency (free < 0: it does not fit)."""

    weights: float
    kv: float
    reserve: float
    free: float
    outside_util: float  # (1 − mem_util) · memory, left to the engine's headroom


@dataclass(frozen=True)
class Plan:
    """One plan. ``model_fits``: weights + reserve fit the usable memory; ``fits``: the model and this batch
    (concurrency × context, plus any constant state) fit. Without ``model_fits`` the step time is None."""

    weights_per_gpu_bytes: float
    kv_bytes_per_token_per_gpu: float
    kv_bytes_per_token_per_gpu_full_layers: float
    kv_budget_bytes: float
    kv_capacity_tokens: int
    max_context_at_concurrency: int | None
    max_concurrency_at_context: int
    fits: bool
    memory: MemoryBreakdown
    kv_heads_per_gpu: int
    kv_replicated: bool
    distinct_experts: float | None
    weight_read_bytes_per_gpu: float
    kv_read_bytes_per_gpu: float
    flops_per_gpu: float
    peak: ComputePeak
    t_mem_s: float
    t_compute_s: float
    t_allreduce_s: float
    concurrency: int
    usable_bytes: float = 0.0
    model_fits: bool = True
    model_short_bytes: float = 0.0  # weights + reserve − usable, when positive
    batch_kv_bytes: float = 0.0  # the batch's KV + state, whether or not it fits
    state_bytes_per_seq_per_gpu: float = 0.0
    vllm_max_concurrency: float = 0.0  # budget / one sequence of ``context`` (KV + state), as vLLM prints it
    vllm_kv_tokens: int = 0  # vLLM's "GPU KV cache size": int(max concurrency × max model length)

    @property
    def t_step_lb_s(self) -> float:
        return name(tmax(self.t_mem_s, self.t_compute_s) + self.t_allreduce_s, "T_{step}", "s")

    @property
    def t_step_lb_ms(self) -> float | None:
        """The step bound in ms; None when the model does not fit (there is no step to bound)."""
        return self.t_step_lb_s * 1e3 if self.model_fits else None

    @property
    def tokens_per_s_ideal(self) -> float | None:
        """concurrency / t_step lower bound: the ideal decode throughput of the whole tp group (None when the
        model does not fit)."""
        return self.concurrency / self.t_step_lb_s if self.model_fits else None

    @property
    def bound(self) -> str:
        return "memory" if self.t_mem_s >= self.t_compute_s else "compute"


def _check(tp: int, mem_util: float, reserve_bytes: float, context: int, concurrency: int) -> None:
    par.check_tp(tp)
    if not 0 < mem_util <= 1:
        raise ValueError(W.f("check.valueerror", mem_util=mem_util))
    if reserve_bytes < 0:
        raise ValueError(W.f("check.valueerror_2", reserve_bytes=reserve_bytes))
    for label, v in (("context", context), ("concurrency", concurrency)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise ValueError(W.f("check.valueerror_3", label=label, v=v))


def max_context(kv: par.KvPerGpu, budget: float, concurrency: int) -> int | None:
    """Largest n with C · (full·n + window·min(n, W) + state) ≤ budget; None when memory does not bound n.
    Each answer is one division of exact byte counts, so the floor is exact."""
    if kv.state_bytes:
        budget = budget - concurrency * kv.state_bytes
        if budget < 0:
            return 0
    n = tmax(0, math.floor(budget / (concurrency * kv.bytes_per_token)))
    if not kv.window or not kv.window_bytes_per_token or n < kv.window:
        return n
    if not kv.full_bytes_per_token:
        return None
    return math.floor(
        (budget - concurrency * kv.window_bytes_per_token * kv.window) / (concurrency * kv.full_bytes_per_token)
    )


def vllm_report(budget: float, seq_bytes: float, max_model_len: int) -> tuple[float, int]:
    """What vLLM prints (vllm/v1/core/kv_cache_utils.py, ``_report_kv_cache_config``): the maximum concurrency
    budget / (bytes of one request of ``max_model_len``), and "GPU KV cache size" = int(that × max_model_len).
    For a model whose every layer keeps every token it equals the pool's token capacity; for a hybrid
    (sliding-window, linear attention) it is smaller than the pool, which counts every layer per token."""
    if budget <= 0 or seq_bytes <= 0:
        return 0.0, 0
    conc = name(budget / seq_bytes, "C_{vLLM}", "")
    return conc, name(math.floor(conc * max_model_len), "N_{vLLM}", "token")


def usable_bytes(mem_bytes: float, mem_util: float) -> int:
    """M_use = round(η·M): the share of memory the engine may allocate, in whole bytes."""
    return name(round(mem_util * mem_bytes), "M_{use}", "B")


def kv_budget(usable: float, weights: float, reserve_bytes: float) -> float:
    """M_KV = M_use − W_gpu − M_res: what is left on one GPU for the KV cache."""
    return name(usable - weights - reserve_bytes, "M_{KV}", "B")


def weight_peak(s: ModelShape, weight_format: str, peaks: dict[str, float]) -> ComputePeak:
    """The compute peak of a weight format; the checkpoint's own format (``stored``) runs at FP8 when it is
    FP8 (W8A8, dynamic activations) and at BF16 otherwise (weight-only: MXFP4 / AWQ / GPTQ / INT4 groups)."""
    if weight_format != "stored":
        return compute_peak(weight_format, peaks)
    if "bf16" not in peaks:
        raise ValueError(W["weight_peak.valueerror"])
    if s.stored_method == "fp8":
        if "fp8" in peaks:
            return ComputePeak(peaks["fp8"], "fp8", False, W["weight_peak.computepeak"])
        return ComputePeak(peaks["bf16"], "bf16", True, W["weight_peak.computepeak_2"])
    why = W["weight_peak"] if not s.stored_method else W["weight_peak_2"]
    return ComputePeak(peaks["bf16"], "bf16", False, why)


def model_fits(s: ModelShape, weight_format: str, tp: int, mem_bytes: float, mem_util: float, reserve: float) -> bool:
    """W_gpu + M_res ≤ η·M: the weights and the reserve fit one GPU's usable memory."""
    return par.weight_bytes_per_gpu(s, weight_format, tp) + reserve <= usable_bytes(mem_bytes, mem_util)


@dataclass(frozen=True)
class Alternatives:
    """What would make a model that does not fit, fit — each computed, None where nothing on offer does."""

    tp: int | None  # the smallest larger tp (same accelerator, same format)
    weight_format: str | None  # the widest format that fits (same accelerator, same tp)
    accelerator: str | None  # the smallest-memory accelerator that fits (same tp, same format)


def fit_alternatives(
    s: ModelShape,
    *,
    tp: int,
    weight_format: str,
    mem_bytes: float,
    mem_util: float,
    reserve_bytes: float,
    formats: list[str],
    accelerators: dict[str, float],
) -> Alternatives:
    """``formats`` from widest to narrowest; ``accelerators`` id → memory bytes (the runtime's)."""
    tps = [t for t in TP_DEGREES if t > tp and model_fits(s, weight_format, t, mem_bytes, mem_util, reserve_bytes)]
    fmt = next((f for f in formats if model_fits(s, f, tp, mem_bytes, mem_util, reserve_bytes)), None)
    accs = sorted(
        (m, a) for a, m in accelerators.items() if model_fits(s, weight_format, tp, m, mem_util, reserve_bytes)
    )
    return Alternatives(tps[0] if tps else None, fmt, accs[0][1] if accs else None)


def plan(
    s: ModelShape,
    acc: Accelerator,
    *,
    tp: int = 1,
    weight_format: str = "bf16",
    kv_format: str = "bf16",
    context: int = 4096,
    concurrency: int = 1,
    mem_util: float = DEFAULT_MEM_UTIL,
    reserve_bytes: float = DEFAULT_RESERVE_BYTES,
) -> Plan:
    """Fit (weights + KV + reserve ≤ mem_util·memory per GPU) and the decode-step lower bound at that batch."""
    _check(tp, mem_util, reserve_bytes, context, concurrency)
    if not acc.bw_bytes_s:
        raise ValueError(W["plan.valueerror"])
    usable = usable_bytes(acc.mem_bytes, mem_util)
    weights = par.weight_bytes_per_gpu(s, weight_format, tp)
    budget = kv_budget(usable, weights, reserve_bytes)
    kv = par.kv_per_gpu(s, kv_format, tp)
    seq = name(par.seq_kv_bytes(kv, context), "KV_{seq}", "B")
    kv_held = name(concurrency * seq, "KV_{held}", "B")
    peak = weight_peak(s, weight_format, acc.peaks)
    fits_model = weights + reserve_bytes <= usable
    w_read = par.weight_read_bytes_per_gpu(s, weight_format, tp, concurrency)
    flops = par.decode_flops_per_gpu(s, context, concurrency, tp)
    vllm_conc, vllm_tokens = vllm_report(budget, seq, context)
    return Plan(
        weights_per_gpu_bytes=weights,
        kv_bytes_per_token_per_gpu=kv.bytes_per_token,
        kv_bytes_per_token_per_gpu_full_layers=kv.full_bytes_per_token,
        kv_budget_bytes=budget,
        kv_capacity_tokens=name(par.fit_count(budget, kv.bytes_per_token), "N_{KV}", "token"),
        max_context_at_concurrency=max_context(kv, budget, concurrency),
        max_concurrency_at_context=par.fit_count(budget, seq),
        fits=fits_model and kv_held <= budget,
        memory=MemoryBreakdown(weights, kv_held, reserve_bytes, budget - kv_held, acc.mem_bytes - usable),
        kv_heads_per_gpu=kv.heads_per_gpu,
        kv_replicated=kv.replicated,
        distinct_experts=(
            par.expected_distinct_experts(s.n_experts, s.experts_per_token, concurrency) if s.n_experts else None
        ),
        weight_read_bytes_per_gpu=w_read,
        kv_read_bytes_per_gpu=kv_held,
        flops_per_gpu=flops,
        peak=peak,
        t_mem_s=name((w_read + kv_held) / acc.bw_bytes_s, "T_{mem}", "s"),
        t_compute_s=name(flops / peak.flops, "T_{comp}", "s"),
        t_allreduce_s=par.allreduce_time(concurrency, s, tp, acc.link_bytes_s),
        concurrency=concurrency,
        usable_bytes=usable,
        model_fits=fits_model,
        model_short_bytes=0.0 if fits_model else name(weights + reserve_bytes - usable, "ΔM", "B"),
        batch_kv_bytes=kv_held,
        state_bytes_per_seq_per_gpu=kv.state_bytes,
        vllm_max_concurrency=vllm_conc,
        vllm_kv_tokens=vllm_tokens,
    )


def decode_context(input_tokens: int, output_tokens: int) -> int:
    """The mean position of the output tokens (what a TPOT averages over): input + output / 2."""
    return input_tokens + output_tokens // 2


def measured_over_bound_pct(measured_ms: float, bound_ms: float) -> float:
    """实测 / 下界 in percent: how far a real engine is from the bound (100 % would be the bound itself)."""
    return 100 * measured_ms / bound_ms
