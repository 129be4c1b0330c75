"""What vLLM keeps on each GPU before its KV cache (issue 38), in bytes.

Read from vLLM's code at commit 35d5cda123ec28581759b6d34cde8052314fb1e6 (V1 engine, vllm-project/vllm):

* ``vllm/v1/worker/gpu_worker.py`` ``Worker.init_device`` takes a ``MemorySnapshot`` after NCCL is set up and
  sets ``requested_memory = total_memory × gpu_memory_utilization`` (total = what ``cudaMemGetInfo`` reports:
  the runtime-visible memory, not the marketed figure);
* ``Worker.determine_available_memory`` runs ``model_runner.profile_run()`` inside ``memory_profiling`` and
  returns ``requested_memory − non_kv_cache_memory``;
* ``vllm/utils/mem_utils.py`` ``memory_profiling``: ``non_kv_cache_memory = weights_memory +
  torch_peak_increase + non_torch_increase`` — the weights as loaded, the activation peak of the profile run
  (a forward pass of ``max_num_batched_tokens`` tokens, then the dummy sampler on one row per request,
  ``min(max_num_seqs, max_num_batched_tokens)`` rows × the whole vocabulary, logits gathered on every rank),
  and the memory outside PyTorch's allocator that grew meanwhile (cuBLAS/attention workspaces, NCCL and
  custom all-reduce buffers at tp > 1);
* ``Worker.compile_or_warm_up_model`` captures CUDA graphs *after* the KV cache is allocated
  (``capture_model``); at this commit their memory is not subtracted from the KV budget — it comes out of the
  1 − η headroom (the term is shown, as 0 in the budget).

Constants the code does not fix (they depend on kernels) are calibrated on cited public logs, and said so:

* ``FWD_FACTOR`` = 3: bytes per token of the forward peak = 2 B × 3 × (FFN width per GPU + hidden size)
  (gate/up output, activation output and the residual streams alive at the MLP) — vllm#10517's two profiles
  of Llama-3.1-8B on an RTX 3090 (activation 2.07 GiB at 20,000 tokens and 2.99 GiB at 29,000) give 111 KB
  per token, this rule 110.6 KB. MoE adds fused-MoE's per-(token, expert) output cache, T · k · h · 2 B.
* ``SAMPLER_BYTES_PER_LOGIT`` = 37.3 B: the dummy sampler's peak per logit (logits, their FP32 copy, the
  top-k/top-p sort's values and int64 indices, probabilities): gpt-oss-120b on one H100 (vllm#23278:
  weights 65.97 GiB, 0.90 × 79.22 GiB, KV −2.14 GiB at 8,192 batched tokens; vllm#27508: 1.71 GiB at 0.95
  and 1,024) leaves 7.5 GiB for 1,024 rows × 201,088 logits plus non-torch memory.
* ``NON_TORCH_BASE`` = 0.35 GiB and ``NON_TORCH_PER_TP_DOUBLING`` = 1.2 GiB: non-torch growth at tp = 1
  (vllm#10517: 0.35 GiB) and with each doubling of tp over NVLink / NVSwitch (NCCL buffers: vllm PR #10511
  logs non_torch_memory 1.79 GiB at tp 1 and 3.58 GiB at tp 2 on H100s; Qwen3-235B-FP8 on 4 × H100 of
  vllm#21348). ``NON_TORCH_PER_TP_DOUBLING_PCIE`` = 0.2 GiB over PCIe (``topology="pcie"``: no NVLink
  buffers): DeepSeek-V2-Lite on 4 × L4, tp 2 × pp 2 (vllm PR #20665) and the 14B distill on 2 × RTX 4090
  (vllm#13061). A point-to-point mesh (MI300X / MI325X Infinity Fabric) has no calibrating log and a caller
  that names no topology (a reader's own GPU) gets the NVLink value too (the smaller, safer KV budget); each
  case says so in the derivation. The fit card passes each preset's ``topology`` from data/gpus.json.
* MXFP4 experts on a GPU without FP4 tensor cores are repacked for vLLM's Marlin kernel: vllm#23278 logs
  65.97 GiB for the 60.77 GiB checkpoint (``MXFP4_MARLIN_LOADED``).

``profile = "v0"`` reproduces the V0 engine's profile (vLLM ≤ 0.7, the engine of several cited logs): the
sampler saw ``V0_SEQS`` = 256 sequences at the same bytes per logit as V1 — vllm PR #10511 logs an activation
peak of 1.26 GiB for Llama-3-8B at 8,192 tokens (forward 0.84 GiB by this model; hidden states kept 0.06 GiB
+ 256 × 128,256 logits × 37.3 B = 1.20 GiB), and vllm#13061's two ranks differ by 1.23 GiB (the driver rank
samples: 256 × 152,064 × 37.3 B = 1.35 GiB). This term used to hold FP32 logits only (4 B); the NVLink
non-torch constant then absorbed the driver rank's sampler on the 2 × RTX 4090 log.

Pipeline parallelism (``last_pp_rank``, ``pp_stage_layers``): each pp stage holds its own layers
(``vllm/distributed/utils.py`` ``get_pp_indices``: L // pp each, the remainder to the stages just before the last),
the embedding on the first stage and the LM head on the last (``vllm/model_executor/models/deepseek_v2.py``:
``lm_head`` only ``if get_pp_group().is_last_rank``, else ``PPMissingLayer``); only the last stage runs the dummy
sampler in ``profile_run`` (``vllm/v1/worker/gpu_model_runner.py``, the ``is_last_rank`` branch). The engine
keeps the smallest block count over the workers (``vllm/v1/core/kv_cache_utils.py``
``unify_kv_cache_configs``)."""

from __future__ import annotations

from dataclasses import dataclass

from ..trace import leaf, name, tlog2, tmax, tmin
from ..words import words_for
from . import parallel as par
from .model_config import ModelShape

W = words_for(__name__)

GiB = 2**30
VLLM_COMMIT = "35d5cda123ec28581759b6d34cde8052314fb1e6"
CODE = f"vllm-project/vllm@{VLLM_COMMIT[:8]}"
CAL = W["cal"]
FWD_FACTOR = 3
SAMPLER_BYTES_PER_LOGIT = 37.3
V0_SAMPLER_BYTES_PER_LOGIT = SAMPLER_BYTES_PER_LOGIT  # vllm PR #10511: activation 1.26 GiB (module docstring)
V0_SEQS = 256
NON_TORCH_BASE = 0.35 * GiB
NON_TORCH_PER_TP_DOUBLING = 1.2 * GiB  # NVLink / NVSwitch (or topology unknown)
NON_TORCH_PER_TP_DOUBLING_PCIE = 0.2 * GiB  # PCIe: vllm PR #20665 (4 × L4), vllm#13061 (2 × RTX 4090)
TOPOLOGIES = (None, "switch", "mesh", "pcie")
MXFP4_MARLIN_LOADED = 65.9651 / 60.7677  # vllm#23278 "Model loading took 65.9651 GiB" / the stored 60.77 GiB
BIG_GPU = 70 * GiB  # vllm/engine/arg_utils.py: ≥ 70 GiB (not A100) gets the larger batch defaults
PROFILES = ("v1", "v0")
MAX_BATCHED_TOKENS = 1 << 20
MAX_SEQS = 1 << 16


def default_max_num_batched_tokens(mem_bytes: float) -> int:
    """vLLM's default ``max_num_batched_tokens`` for ``vllm serve`` (EngineArgs batch defaults, OpenAI server):
    8,192 on a GPU of ≥ 70 GiB, 2,048 below."""
    return 8192 if mem_bytes >= BIG_GPU else 2048


def default_max_num_seqs(mem_bytes: float) -> int:
    """vLLM's default ``max_num_seqs`` for ``vllm serve``: 1,024 on a GPU of ≥ 70 GiB, 256 below."""
    return 1024 if mem_bytes >= BIG_GPU else 256


@dataclass(frozen=True)
class EngineReserve:
    """Per GPU, bytes: what the profile run and the runtime keep before the KV cache (``total``)."""

    forward_peak: float
    sampler_peak: float
    activation: float  # the profiled activation peak: max(forward, hidden states kept + sampler)
    non_torch: float
    cuda_graph: float  # counted in the KV budget: 0 at the commit read (captured after the KV cache)
    loaded_extra: float  # weights as loaded minus the text model as stored (MXFP4 for Marlin, vision tower, MTP)
    max_num_batched_tokens: int
    sampler_rows: int
    profile: str

    @property
    def total(self) -> float:
        return self.activation + self.non_torch + self.cuda_graph + self.loaded_extra


def pp_stage_layers(n_layers: int, pp: int) -> tuple[int, ...]:
    """Decoder layers per pipeline stage as vLLM splits them (``get_pp_indices``): L // pp on each stage, the
    remainder one each to the stages just before the last, counting back (27 layers, pp 2 → (14, 13))."""
    if isinstance(pp, bool) or not isinstance(pp, int) or not 1 <= pp <= n_layers:
        raise ValueError(W.f("check.valueerror", label="pp", top=n_layers, v=pp))
    parts = [n_layers // pp] * pp
    for i in range(2, n_layers % pp + 2):
        parts[-i] += 1
    return tuple(parts)


# The non-torch growth per tp doubling by interconnect, and the words that say where it was calibrated:
# leaf_7 NVLink / NVSwitch (PR #10511 tp 2, #21348 tp 4), leaf_13 PCIe (PR #20665 4 × L4, #13061 2 × RTX 4090),
# leaf_14 a point-to-point mesh (not calibrated: the NVLink value), leaf_15 interconnect unknown (the NVLink value).
def _calibration(topology: str | None) -> str:
    """The words of the calibration ``topology``'s M_nt,2× rests on (each key written out: the words
    check finds the keys code uses)."""
    if topology == "switch":
        return W.f("vllm_reserve.leaf_7", cal=CAL)
    if topology == "pcie":
        return W.f("vllm_reserve.leaf_13", cal=CAL)
    if topology == "mesh":
        return W.f("vllm_reserve.leaf_14", cal=CAL)
    return W.f("vllm_reserve.leaf_15", cal=CAL)


def non_torch_per_doubling(topology: str | None) -> tuple[float, str]:
    """M_nt,2× for this interconnect (bytes) and the calibration it rests on: PCIe 0.2 GiB; NVLink / NVSwitch,
    a mesh and an unknown link 1.2 GiB (the smaller KV budget where no PCIe log says otherwise)."""
    if topology not in TOPOLOGIES:
        raise ValueError(W.f("check.valueerror_3", topology=topology))
    value = NON_TORCH_PER_TP_DOUBLING_PCIE if topology == "pcie" else NON_TORCH_PER_TP_DOUBLING
    return value, _calibration(topology)


def _with_link(topology: str | None, link: str | None) -> str:
    """The source of M_nt,2×: the calibration, then where this GPU's interconnect was read."""
    source = non_torch_per_doubling(topology)[1]
    return W.f("vllm_reserve.link", source=source, link=link) if link else source


def _check(tokens: int, seqs: int, tp: int, profile: str) -> None:
    par.check_tp(tp)
    for label, v, top in (("max_num_batched_tokens", tokens, MAX_BATCHED_TOKENS), ("max_num_seqs", seqs, MAX_SEQS)):
        if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= top:
            raise ValueError(W.f("check.valueerror", label=label, top=top, v=v))
    if profile not in PROFILES:
        raise ValueError(W.f("check.valueerror_2", join=" / ".join(PROFILES), profile=profile))


def ffn_width_per_gpu(s: ModelShape, tp: int) -> float:
    """F_gpu: the FFN width one token runs through on one GPU — dense ff / tp; MoE (k · ff_e + shared) / tp."""
    if s.n_experts:
        return (s.experts_per_token * s.expert_ff + s.shared_ff) / tp
    return s.dense_ff / tp


def forward_peak(s: ModelShape, tokens: int, tp: int) -> float:
    """A_fwd = T · 2 B · c · (F_gpu + h) (+ MoE: T · k · h · 2 B, fused-MoE's output cache)."""
    c = leaf(FWD_FACTOR, "c_{fwd}", "", W.f("forward_peak.leaf", cal=CAL))
    h = leaf(s.hidden, "h", "", "config.json hidden_size")
    f = name(ffn_width_per_gpu(s, tp), "F_{gpu}", "")
    fwd = tokens * 2 * c * (f + h)
    if s.n_experts:
        fwd = fwd + tokens * leaf(s.experts_per_token, "k", "", "config.json") * h * 2
    return name(fwd, "A_{fwd}", "B")


def vllm_reserve(
    s: ModelShape,
    *,
    tp: int,
    max_num_batched_tokens: int,
    max_num_seqs: int,
    stored_weight_bytes_per_gpu: float,
    mxfp4_marlin: bool = False,
    vision_params: int = 0,
    mtp_bytes: float = 0.0,
    profile: str = "v1",
    topology: str | None = None,
    link: str | None = None,
    last_pp_rank: bool = True,
) -> EngineReserve:
    """Everything vLLM subtracts from η·M besides the weights as stored (see the module docstring).
    ``topology`` (the GPU's interconnect: "pcie", "switch", "mesh" or None for unknown) picks the non-torch
    growth per tp doubling; ``link`` says where the topology was read (shown beside that term's source);
    ``last_pp_rank`` False is a pipeline stage before the last (no dummy sampler in its profile run)."""
    _check(max_num_batched_tokens, max_num_seqs, tp, profile)
    if topology not in TOPOLOGIES:
        raise ValueError(W.f("check.valueerror_3", topology=topology))
    T = leaf(max_num_batched_tokens, "T_{batch}", "token", W.f("vllm_reserve.leaf", code=CODE))
    fwd = forward_peak(s, T, tp)
    V = leaf(s.vocab, "V", "", W["vllm_reserve.leaf_2"])
    if profile == "v0":
        rows = tmin(V0_SEQS, T)
        per_logit = leaf(V0_SAMPLER_BYTES_PER_LOGIT, "b_{logit}", "B", W["vllm_reserve.leaf_3"])
    else:
        seqs = leaf(max_num_seqs, "R_{max}", "", W["vllm_reserve.leaf_4"])
        rows = name(tmin(seqs, T), "R", "")
        per_logit = leaf(SAMPLER_BYTES_PER_LOGIT, "b_{logit}", "B", W.f("vllm_reserve.leaf_5", cal=CAL))
    sampler = name(rows * V * per_logit if last_pp_rank else 0.0, "A_{samp}", "B")
    kept = T * leaf(s.hidden, "h", "", "config.json hidden_size") * 2
    activation = name(tmax(fwd, kept + sampler), "A_{peak}", "B")
    base = leaf(NON_TORCH_BASE, "M_{nt,1}", "B", W.f("vllm_reserve.leaf_6", cal=CAL))
    per_doubling = leaf(non_torch_per_doubling(topology)[0], "M_{nt,2×}", "B", _with_link(topology, link))
    non_torch = name(base + per_doubling * tlog2(tp), "M_{nt}", "B")
    graph = leaf(0.0, "M_{graph}", "B", W.f("vllm_reserve.leaf_8", code=CODE))
    parts = []
    if mxfp4_marlin:
        factor = leaf(MXFP4_MARLIN_LOADED, "f_{Marlin}", "", W.f("vllm_reserve.leaf_9", cal=CAL))
        parts.append(stored_weight_bytes_per_gpu * (factor - 1))
    if vision_params:
        n_vis = leaf(vision_params, "N_{vision}", "", W["vllm_reserve.leaf_10"])
        parts.append(n_vis * 2 / tp)
    if mtp_bytes:
        w_mtp = leaf(mtp_bytes, "W_{MTP}", "B", W["vllm_reserve.leaf_11"])
        parts.append(w_mtp / tp)
    extra = (
        name(sum(parts[1:], parts[0]), "ΔW_{load}", "B")
        if parts
        else leaf(0.0, "ΔW_{load}", "B", W["vllm_reserve.leaf_12"])
    )
    return EngineReserve(fwd, sampler, activation, non_torch, graph, extra, T, int(rows), profile)
