"""One generation request, step by step: KV growth, weight reads, old-KV reads and the hand-off
across a pipeline split (图 1-3 ~ 1-5 and 练习 1-1's ledger). Base units: bytes, tokens, counts.

Step convention (练习 1-1, chapter 3 alike): one prefill (writes the input's KV and emits the first
token) and then G − 1 decode steps; decode step j (1-based) reads the KV of input + j − 1 tokens and
appends one token's KV. So a request of G output tokens makes G weight-reading passes and ends with
input + G − 1 tokens of KV.
"""

from __future__ import annotations

from dataclasses import dataclass

from .units import KIB, MIB


def weight_passes(output_tokens: int) -> int:
    """Weight-reading passes for G outputs: 1 prefill + (G − 1) decode = G."""
    return output_tokens


def decode_steps(output_tokens: int) -> int:
    """Decode steps for G outputs: G − 1 (the prefill emits the first token)."""
    return max(output_tokens - 1, 0)


def kv_tokens_after(input_tokens: int, emitted: int) -> int:
    """KV length once `emitted` outputs are out: 0 before prefill, input + emitted − 1 after."""
    return 0 if emitted <= 0 else input_tokens + emitted - 1


def frame_state(input_tokens: int, output_tokens: int, frame: int) -> tuple[int, int]:
    """图 1-3 frame k: (KV tokens, outputs streamed). Frame 0 = before prefill, 1 = after prefill,
    k = after k − 1 decode steps; frames past G stay at the end."""
    emitted = min(max(frame, 0), output_tokens)
    return kv_tokens_after(input_tokens, emitted), emitted


def old_kv_read_tokens(input_tokens: int, output_tokens: int) -> int:
    """Token-reads of cached KV over all decode steps: Σ_{j=1}^{G−1}(input + j − 1)
    = (G−1)·input + (G−1)(G−2)/2."""
    d = decode_steps(output_tokens)
    return d * input_tokens + d * (d - 1) // 2


def pipeline_handoff_bytes(hidden: int, gpus_per_instance: int, act_bytes: float = 2) -> float:
    """Bytes per token per step crossing a pipeline split: hidden × act_bytes per boundary
    (gpus − 1 boundaries; 0 on one GPU)."""
    return (gpus_per_instance - 1) * hidden * act_bytes


@dataclass(frozen=True)
class Ledger:
    """练习 1-1's ledger for one request (B = 1) on one model."""

    weights_bytes: float  # model file per instance
    instances: int
    read_per_step_bytes: float  # weights read per weight pass
    kv_per_token_bytes: float
    input_tokens: int
    output_tokens: int
    handoff_per_token_bytes: float  # per token per step across the split(s)

    @property
    def weights_total_bytes(self) -> float:
        """Resident weights over all instances: instances × file size."""
        return self.instances * self.weights_bytes

    @property
    def weight_loads(self) -> int:
        """Loads at start-up: one per instance."""
        return self.instances

    @property
    def steps(self) -> int:
        return weight_passes(self.output_tokens)

    @property
    def decode_steps(self) -> int:
        return decode_steps(self.output_tokens)

    @property
    def weight_read_total_bytes(self) -> float:
        """G × per-step read."""
        return self.steps * self.read_per_step_bytes

    @property
    def kv_final_tokens(self) -> int:
        return kv_tokens_after(self.input_tokens, self.output_tokens)

    @property
    def kv_final_bytes(self) -> float:
        return self.kv_final_tokens * self.kv_per_token_bytes

    @property
    def kv_prefill_bytes(self) -> float:
        """KV the prefill writes: input × per-token KV."""
        return self.input_tokens * self.kv_per_token_bytes

    @property
    def kv_read_total_bytes(self) -> float:
        """Old KV read by all decode steps: per-token KV × [(G−1)·input + (G−1)(G−2)/2]."""
        return self.kv_per_token_bytes * old_kv_read_tokens(self.input_tokens, self.output_tokens)

    @property
    def handoff_total_bytes(self) -> float:
        """Hand-off over the request: prefill passes input tokens, each decode step one token."""
        return self.handoff_per_token_bytes * (self.input_tokens + self.decode_steps)

    @property
    def router_choices(self) -> int:
        return self.instances


def ledger(
    weights_bytes: float,
    read_per_step_bytes: float,
    kv_per_token_bytes: float,
    hidden: int,
    input_tokens: int,
    output_tokens: int,
    instances: int = 1,
    gpus_per_instance: int = 1,
    act_bytes: float = 2,
) -> Ledger:
    """Build the ledger; the hand-off is hidden × act_bytes per split boundary."""
    return Ledger(
        weights_bytes,
        instances,
        read_per_step_bytes,
        kv_per_token_bytes,
        input_tokens,
        output_tokens,
        pipeline_handoff_bytes(hidden, gpus_per_instance, act_bytes),
    )


def ledger_outputs(lg: Ledger) -> dict:
    """练习 1-1's ledger as its card's outputs (GB, KiB, MiB, tokens, counts)."""
    return {
        "weights_gb": lg.weights_bytes / 1e9,
        "weights_total_gb": lg.weights_total_bytes / 1e9,
        "weight_loads": lg.weight_loads,
        "kv_per_token_kib": lg.kv_per_token_bytes / KIB,
        "weight_read_per_step_gb": lg.read_per_step_bytes / 1e9,
        "steps": lg.steps,
        "decode_steps": lg.decode_steps,
        "weight_read_total_gb": lg.weight_read_total_bytes / 1e9,
        "kv_append_per_step_kib": lg.kv_per_token_bytes / KIB,
        "kv_final_tokens": lg.kv_final_tokens,
        "kv_final_gb": lg.kv_final_bytes / 1e9,
        "kv_read_total_gb": lg.kv_read_total_bytes / 1e9,
        "inter_gpu_per_step_kib": lg.handoff_per_token_bytes / KIB,
        "inter_gpu_total_mib": lg.handoff_total_bytes / MIB,
        "router_choices": lg.router_choices,
    }
