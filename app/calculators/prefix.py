"""Prefix reuse and cache hits: how much of a context can be restored after an edit, what a cache
hit saves in projection rows and attention pairs, the state of branches that share a prefix, and
the prompt work of a causal-encoder + decoder (CED) split. Token counts in, token counts out;
multiply by KV bytes per token at the edge."""

from __future__ import annotations

from dataclasses import dataclass

from ..trace import name, tmax, tmin, tsum
from .units import MIB


def _clamp(x: int, lo: int, hi: int) -> int:
    """x within [lo, hi]; written as min/max only when it actually clamps (formulas stay short)."""
    return x if lo <= x <= hi else tmax(lo, tmin(x, hi))


@dataclass(frozen=True)
class Edit:
    """An edit of an existing context: the first changed token and the length afterwards."""

    first_change: int  # index of the first token that differs from the old context
    new_length: int  # tokens in the context after the edit


def edit_append(context: int, appended: int) -> Edit:
    """Append n tokens at the end: nothing before ``context`` changes; new length = context + n."""
    return Edit(context, context + appended)


def edit_replace(context: int, start: int, end: int, summary: int) -> Edit:
    """Replace [start, end) by a summary of s tokens: first change = start; new length = context − (end − start) + s.
    Positions are clamped to the context; an empty span with an empty summary changes nothing."""
    start = _clamp(start, 0, context)
    end = _clamp(end, start, context)
    if end == start and summary == 0:
        return Edit(context, context)
    return Edit(start, context - (end - start) + summary)


def edit_template(context: int, pos: int, delta: int) -> Edit:
    """Change the template/tool block that starts at ``pos``: first change = pos; new length = context + Δ (≥ pos)."""
    pos = _clamp(pos, 0, context)
    return Edit(pos, context + delta if context + delta >= pos else pos)


def reused_tokens(first_change: int, new_length: int, block: int = 1) -> int:
    """K = ⌊min(first change, new length)/b⌋·b: the cache keeps whole blocks before the first change."""
    k = first_change if first_change <= new_length else new_length
    return k if block == 1 else (k // block) * block


def new_tokens(input_tokens: int, hit_tokens: int) -> int:
    """P_i = I_i − K_i: tokens a round must process; S_i = K_i is restored."""
    return input_tokens - hit_tokens


def attn_pairs_cached(new: int, hit: int) -> int:
    """Causal query–key pairs for P new queries after a K-token prefix: P·K + P(P+1)/2."""
    return new * hit + new * (new + 1) // 2


def attn_pairs_full(n: int) -> int:
    """Causal query–key pairs of an n-token prefill without reuse: n(n+1)/2."""
    return n * (n + 1) // 2


@dataclass(frozen=True)
class Branches:
    shared_tokens: int  # H₀ + Σh: one copy of the prefix plus every branch
    unshared_tokens: int  # Σ(H₀ + h_i): each branch keeps its own prefix copy
    serial_peak_tokens: int  # H₀ + max h: one branch at a time


def branch_state(h0: int, branches: list[int]) -> Branches:
    """Total state of k branches on a prefix H₀: shared c(H₀ + Σh_i), unshared c·Σ(H₀ + h_i), serial c(H₀ + max h)."""
    return Branches(
        h0 + tsum(branches),
        tsum(h0 + h for h in branches),
        h0 + (tmax(*branches) if len(branches) > 1 else branches[0] if branches else 0),
    )


def ced_prompt_work(prompt: int, encoder_layers: int, decoder_layers: int, resend: int) -> int:
    """Expert-layer token passes of a P-token prompt in CED: L_enc·P + L_dec·min(P, resend)."""
    return encoder_layers * prompt + decoder_layers * tmin(prompt, resend)


def decoder_only_prompt_work(prompt: int, layers: int) -> int:
    """Expert-layer token passes of a P-token prompt in a decoder-only model: L·P."""
    return layers * prompt


def decode_work(output_tokens: int, layers: int) -> int:
    """Expert-layer passes of the G − 1 decode steps (the first output comes from the prefill): L·(G − 1)."""
    return layers * (output_tokens - 1 if output_tokens > 1 else tmax(output_tokens - 1, 0))


def edit_outputs(e: Edit, context: int, block: int, kv_bytes: float) -> dict:
    """prefix-edit: K reusable, P = new length − K recomputed, K/new length, KV to rebuild and resident."""
    k = name(reused_tokens(e.first_change, e.new_length, block), "K", "token")
    new = e.new_length
    return {
        "reused_tokens": k,
        "recompute_tokens": new - k,
        "new_context_tokens": new,
        "reuse_pct": 100 * k / new if new else 0 * k,
        "recompute_kv_mib": (new - k) * kv_bytes / MIB,
        "resident_kv_mib": new * kv_bytes / MIB,
    }


def round_outputs(inputs: list[int], hits: list[int], i: int, kv_bytes: float) -> dict:
    """prefix-cache-4round: totals ΣI, ΣK, ΣP and hit rate; round i's P = I − K, the projection rows and
    causal attention pairs with and without the cached prefix, and its KV."""
    total_i, total_k = name(tsum(inputs), "ΣI", "token"), name(tsum(hits), "ΣK", "token")
    n, k = inputs[i], hits[i]
    p = name(new_tokens(n, k), "P", "token")
    cached, full = attn_pairs_cached(p, k), attn_pairs_full(n)
    return {
        "total_input_tokens": total_i,
        "total_hit_tokens": total_k,
        "total_miss_tokens": total_i - total_k,
        "total_hit_pct": 100 * total_k / total_i,
        "input_tokens": n,
        "hit_tokens": k,
        "restored_tokens": k,
        "new_tokens": p,
        "hit_pct": 100 * k / n,
        "proj_rows_cached": p,
        "proj_rows_full": n,
        "attn_pairs_cached": cached,
        "attn_pairs_full": full,
        "attn_pairs_pct": 100 * cached / full,
        "resident_kv_mib": n * kv_bytes / MIB,
        "recompute_kv_mib": p * kv_bytes / MIB,
    }


def branch_outputs(h0: int, k: int, h: int, running: int, kv_bytes: float) -> dict:
    """图 3-13: k equal branches of h tokens on a shared H₀ (:func:`branch_state` with k·[h]): c_KV(H₀ + k·h)
    shared, c_KV·k(H₀ + h) unshared, c_KV(H₀ + h) one at a time, c_KV(H₀ + r·h) with r still running."""
    shared, unshared = name(h0 + k * h, "S_{shared}", "token"), name(k * (h0 + h), "S_{copies}", "token")
    return {
        "shared_tokens": shared,
        "shared_mib": shared * kv_bytes / MIB,
        "unshared_tokens": unshared,
        "unshared_mib": unshared * kv_bytes / MIB,
        "saved_mib": (unshared - shared) * kv_bytes / MIB,
        "serial_peak_mib": (h0 + h) * kv_bytes / MIB,
        "running_branches_now": running,
        "resident_now_mib": (h0 + running * h) * kv_bytes / MIB,
    }


def ced_outputs(prompt: int, output: int, encoder_layers: int, decoder_layers: int, resend: int) -> dict:
    """图 3-14: prompt work L·P (decoder-only) against L_enc·P + L_dec·min(P, 128) (CED); both add
    L·(G − 1) for the output."""
    do = name(decoder_only_prompt_work(prompt, encoder_layers + decoder_layers), "W_{dec}")
    ced = name(ced_prompt_work(prompt, encoder_layers, decoder_layers, resend), "W_{CED}")
    dec = name(decode_work(output, encoder_layers + decoder_layers), "W_{out}")
    return {
        "prompt_work_decoder_only": do,
        "prompt_work_ced": ced,
        "prompt_ratio": ced / do,
        "prompt_saved_pct": 100 * (1 - ced / do),
        "decode_work_both": dec,
        "total_ratio": (ced + dec) / (do + dec),
    }
