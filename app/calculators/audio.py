"""Real-time audio playback: chunk bytes, arrivals with jitter, a jitter buffer B(t) = A(t) − P(t),
stalls, interruption timing and the drain time of a buffer fed slower than real time.

Base units: seconds (of wall time or of audio), bytes.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import Any

from ..trace import name, rule, tmax
from ..words import words_for

W = words_for(__name__)

EPS = 1e-9  # s: two instants closer than this are the same instant


def chunk_bytes(sample_rate_hz: float, chunk_s: float, channels: int, bytes_per_sample: int) -> float:
    """PCM bytes per chunk: rate · duration · channels · bytes per sample."""
    return sample_rate_hz * chunk_s * channels * bytes_per_sample


def arrivals(
    n_chunks: int,
    chunk_s: float,
    proc_s: float,
    send_s: float,
    net_s: float,
    late_chunk: int = -1,
    late_net_s: float = 0.0,
) -> list[float]:
    """Chunk k (0-based) arrives at (k+1)·chunk + proc + send + net_k; net_k = late_net for k = late_chunk."""
    return [(k + 1) * chunk_s + proc_s + send_s + (late_net_s if k == late_chunk else net_s) for k in range(n_chunks)]


def arrival(k: int, chunk: float, proc: float, send: float, net: float, unit: str = "") -> float:
    """Chunk k (0-based) arrives at (k+1)·chunk + proc + send + net (any one time unit)."""
    return name((chunk if k == 0 else (k + 1) * chunk) + proc + send + net, f"t_{{{k + 1}}}", unit)


@dataclass(frozen=True)
class Playout:
    starts: list[float]
    ends: list[float]
    stalls: list[tuple[float, float]]  # (from, to) gaps in playback

    @property
    def n_stalls(self) -> int:
        return len(self.stalls)

    @property
    def stall_total(self) -> float:
        return sum(b - a for a, b in self.stalls)

    @property
    def last_end(self) -> float:
        return self.ends[-1] if self.ends else 0.0


def playout(arr: Sequence[float], chunk_s: float, play_start: float) -> Playout:
    """In order: start_0 = play_start, start_k = max(arrival_k, end_{k−1}), end_k = start_k + chunk; a stall is start_k > end_{k−1}."""
    starts: list[float] = []
    ends: list[float] = []
    stalls: list[tuple[float, float]] = []
    prev_end = play_start  # the first chunk waits for play_start, as for an earlier chunk's end
    for a in arr:
        s = max(a, prev_end)
        if ends and s > prev_end + EPS:
            stalls.append((prev_end, s))
        starts.append(s)
        prev_end = s + chunk_s
        ends.append(prev_end)
    return Playout(starts, ends, stalls)


def arrived_audio(arr: Sequence[float], chunk_s: float, t: float) -> float:
    """Audio (s) that has arrived by t, in any order."""
    return chunk_s * sum(1 for a in arr if a <= t + EPS)


def playable_times(arr: Sequence[float]) -> list[float]:
    """When chunk k becomes playable in order: max(arrival_0 … arrival_k)."""
    return list(accumulate(arr, max))


def playable_audio(arr: Sequence[float], chunk_s: float, t: float, strict: bool = False) -> float:
    """A(t): playable audio (s) by t = chunk · (chunks 0…k−1 all arrived); a chunk that overtakes a late one waits."""
    ready = playable_times(arr)
    n = bisect_left(ready, t - EPS) if strict else bisect_right(ready, t + EPS)
    return chunk_s * n


def played_audio(po: Playout, t: float) -> float:
    """P(t): audio (s) played by t (grows at slope 1 while playing; segments are in order, back to back or with gaps)."""
    i = bisect_right(po.starts, t)
    if i == 0:
        return 0.0
    done = sum(e - s for s, e in zip(po.starts[: i - 1], po.ends[: i - 1]))
    return done + min(po.ends[i - 1], t) - po.starts[i - 1]


def _audio(seconds: float) -> float:
    """A difference of audio amounts: within EPS of zero it is zero (A − P of equal amounts summed in a
    different order leaves ~1e-17 s, which would read as −1.4×10⁻¹⁴ ms of buffer)."""
    return 0.0 if abs(seconds) < EPS else seconds


def buffer_level(arr: Sequence[float], po: Playout, chunk_s: float, t: float, strict: bool = False) -> float:
    """B(t) = A(t) − P(t) (A = playable audio arrived, P = audio played); ``strict``: A just before t."""
    return _audio(playable_audio(arr, chunk_s, t, strict) - played_audio(po, t))


def buffer_curve(
    arr: Sequence[float], po: Playout, chunk_s: float, t_end: float | None = None
) -> tuple[list[float], list[float]]:
    """B(t) as an exact polyline: linear between events, jumping when in-order chunks become playable."""
    t_end = po.last_end if t_end is None else t_end
    events = sorted({0.0, t_end, *arr, *po.starts, *po.ends})
    ts: list[float] = []
    bs: list[float] = []
    for t in events:
        if t > t_end + EPS:
            break
        before = buffer_level(arr, po, chunk_s, t, strict=True)
        after = buffer_level(arr, po, chunk_s, t)
        if after - before > EPS:
            ts.append(t)  # just before the jump
            bs.append(before)
        ts.append(t)
        bs.append(after)
    return ts, bs


@dataclass(frozen=True)
class Interrupt:
    decided: float
    mute: float  # device goes silent at its next command poll
    stop: float  # backend stops generating
    release: float  # buffers and state released

    @property
    def mute_latency(self) -> float:
        return self.mute - self.decided


def interrupt(t_int: float, control_s: float, poll_s: float, release_s: float, unit: str = "") -> Interrupt:
    """mute = ⌈(t_int + control)/poll⌉·poll; stop = t_int + control; release = max(mute, stop) + release."""
    heard = t_int + control_s
    mute = name(math.ceil(round(heard / poll_s, 9)) * poll_s, "t_{mute}", unit)
    stop = name(heard, "t_{stop}", unit)
    return Interrupt(t_int, mute, stop, tmax(mute, stop) + release_s)


def mute_latency_range(control_s: float, poll_s: float) -> tuple[float, float]:
    """Best and worst mute − t_int: control (a poll lands just then) … control + poll."""
    return control_s, control_s + poll_s


def discarded_audio(arr: Sequence[float], po: Playout, chunk_s: float, t: float) -> float:
    """Audio that had arrived by t but was never played: A(t) − P(t) at the mute instant."""
    return max(0.0, _audio(arrived_audio(arr, chunk_s, t) - played_audio(po, t)))


@dataclass(frozen=True)
class JitterRun:
    """One simulated playback (seconds): stalls, when the last chunk ends, audio discarded at the mute."""

    n_stalls: int
    stall_total: float
    last_end: float
    discarded: float
    arrivals: tuple[float, ...]
    playout: Playout


@rule(W["k_k_1__k_max__k.rule"])
def jitter_run(
    n_chunks: int,
    chunk_ms: float,
    proc_ms: float,
    send_ms: float,
    net_ms: float,
    late_chunk: int,
    late_net_ms: float,
    play_start_ms: float,
    mute_ms: float,
) -> JitterRun:
    """Arrivals → in-order playout from ``play_start_ms`` → stalls; audio discarded at ``mute_ms``.
    Settings in ms (as the card's controls); the run in seconds."""
    ms = 1e-3
    arr = arrivals(n_chunks, chunk_ms * ms, proc_ms * ms, send_ms * ms, net_ms * ms, late_chunk, late_net_ms * ms)
    po = playout(arr, chunk_ms * ms, play_start_ms * ms)
    return JitterRun(
        po.n_stalls, po.stall_total, po.last_end, discarded_audio(arr, po, chunk_ms * ms, mute_ms * ms), tuple(arr), po
    )


@dataclass(frozen=True)
class Jitter:
    """图 3-18 / 3-19 for one setting: the outputs (ms, B) and what the figures draw."""

    outputs: dict
    run: JitterRun
    interrupt: Interrupt
    late: int


def jitter(p: Any) -> Jitter:
    """Chunk bytes f_s·T·n_ch·b; first arrival T + proc + send + net; playback starts one initial buffer
    later; the interrupt's mute, stop and release. ``p`` carries the 图 3-18 settings (ms, Hz, counts)."""
    late = p.late_chunk if 0 <= p.late_chunk < p.n_chunks else -1
    first = arrival(0, p.chunk_ms, p.proc_ms, p.send_ms, p.late_net_ms if late == 0 else p.net_ms, "ms")
    start = name(first + p.initial_buffer_ms, "t_{play}", "ms")
    it = interrupt(p.interrupt_ms, p.control_ms, p.poll_ms, p.release_ms, "ms")
    best, worst = mute_latency_range(p.control_ms, p.poll_ms)
    ms = 1e-3
    run = jitter_run(p.n_chunks, p.chunk_ms, p.proc_ms, p.send_ms, p.net_ms, late, p.late_net_ms, start, it.mute)
    o = {
        "chunk_bytes": chunk_bytes(p.sample_rate_hz, p.chunk_ms * ms, p.channels, p.bytes_per_sample),
        "first_arrival_ms": first,
        "play_start_ms": start,
        "n_stalls": run.n_stalls,
        "stall_total_ms": run.stall_total / ms,
        "last_play_end_ms": run.last_end / ms,
        "mute_ms": it.mute,
        "mute_latency_ms": it.mute_latency,
        "best_mute_latency_ms": best,
        "worst_mute_latency_ms": worst,
        "backend_stop_ms": it.stop,
        "release_ms": it.release,
        "discarded_audio_ms": run.discarded / ms,
    }
    return Jitter(o, run, it, late)


# ---------------------------------------------------------------------------------------------
# Sustained shortfall: arrivals slower than real time
# ---------------------------------------------------------------------------------------------


def buffer_linear(b0_s: float, rate: float, t: float) -> float:
    """B(t) = B₀ − (1 − r)·t while playing (A(t) = B₀ + r·t, P(t) = t)."""
    return b0_s - (1.0 - rate) * t


def drain_time(b0_s: float, rate: float) -> float:
    """Time until the buffer empties: B₀ / (1 − r); ∞ when r ≥ 1."""
    if rate >= 1.0:
        return math.inf
    return b0_s / (1.0 - rate)
