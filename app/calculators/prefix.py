"""Prefix reuse and cache hits: how much of a context can be restored after an edit, what a cache
hit saves in projection rows and attention pairs, the state of branches that share a prefix, and
the prompt work of a causal-encoder + decoder (CED) split. Token counts in, token counts out;
multiply by KV bytes per token at the edge."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Edit:
    """An edit of an existing context: the first changed token and the length afterwards."""

    first_change: int      # index of the first token that differs from the old context
    new_length: int        # tokens in the context after the edit


def edit_append(context: int, appended: int) -> Edit:
    """Append n tokens at the end: nothing before ``context`` changes; new length = context + n."""
    return Edit(context, context + appended)


def edit_replace(context: int, start: int, end: int, summary: int) -> Edit:
    """Replace [start, end) by a summary of s tokens: first change = start; new length = context − (end − start) + s.
    Positions are clamped to the context; an empty span with an empty summary changes nothing."""
    start = max(0, min(start, context))
    end = max(start, min(end, context))
    if end == start and summary == 0:
        return Edit(context, context)
    return Edit(start, context - (end - start) + summary)


def edit_template(context: int, pos: int, delta: int) -> Edit:
    """Change the template/tool block that starts at ``pos``: first change = pos; new length = context + Δ (≥ pos)."""
    pos = max(0, min(pos, context))
    return Edit(pos, max(pos, context + delta))


def reused_tokens(first_change: int, new_length: int, block: int = 1) -> int:
    """K = ⌊min(first change, new length)/b⌋·b: the cache keeps whole blocks before the first change."""
    k = min(first_change, new_length)
    return (k // block) * block


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
    shared_tokens: int     # H₀ + Σh: one copy of the prefix plus every branch
    unshared_tokens: int   # Σ(H₀ + h_i): each branch keeps its own prefix copy
    serial_peak_tokens: int  # H₀ + max h: one branch at a time


def branch_state(h0: int, branches: list[int]) -> Branches:
    """Total state of k branches on a prefix H₀: shared c(H₀ + Σh_i), unshared c·Σ(H₀ + h_i), serial c(H₀ + max h)."""
    return Branches(h0 + sum(branches), sum(h0 + h for h in branches),
                    h0 + (max(branches) if branches else 0))


def ced_prompt_work(prompt: int, encoder_layers: int, decoder_layers: int, resend: int) -> int:
    """Expert-layer token passes of a P-token prompt in CED: L_enc·P + L_dec·min(P, resend)."""
    return encoder_layers * prompt + decoder_layers * min(prompt, resend)


def decoder_only_prompt_work(prompt: int, layers: int) -> int:
    """Expert-layer token passes of a P-token prompt in a decoder-only model: L·P."""
    return layers * prompt


def decode_work(output_tokens: int, layers: int) -> int:
    """Expert-layer passes of the G − 1 decode steps (the first output comes from the prefill): L·(G − 1)."""
    return layers * max(output_tokens - 1, 0)
