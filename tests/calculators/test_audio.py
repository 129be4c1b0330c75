"""Playback buffer formulas against the book's numbers (3.3.3, 练习 3-5)."""

import math

import pytest
from app.calculators import audio

MS = 1e-3


def _default(buffer_ms=40, late=3):
    arr = audio.arrivals(12, 20 * MS, 12 * MS, 1 * MS, 5 * MS, late, 55 * MS)
    return arr, audio.playout(arr, 20 * MS, arr[0] + buffer_ms * MS)


def test_chunk_bytes_and_first_arrival():
    assert audio.chunk_bytes(24000, 0.020, 1, 2) == pytest.approx(960)
    arr = audio.arrivals(3, 20 * MS, 12 * MS, 1 * MS, 5 * MS)
    assert arr[0] == pytest.approx(38 * MS)
    assert arr[1] - arr[0] == pytest.approx(20 * MS)


def test_playout_40_vs_60_ms():
    arr, po = _default(40)
    assert po.starts[0] == pytest.approx(78 * MS)
    assert po.n_stalls == 1 and po.stall_total == pytest.approx(10 * MS)
    assert po.last_end == pytest.approx(328 * MS)
    arr, po = _default(60)
    assert po.starts[0] == pytest.approx(98 * MS)
    assert po.n_stalls == 0


def test_no_jitter_no_stall_even_with_zero_buffer():
    arr, po = _default(0, late=-1)
    assert po.n_stalls == 0
    assert po.last_end == pytest.approx(278 * MS)


def test_buffer_curve_is_a_minus_p():
    arr, po = _default(40)
    ts, bs = audio.buffer_curve(arr, po, 20 * MS)
    assert min(bs) >= -1e-12
    assert bs[-1] == pytest.approx(0, abs=1e-12)
    # during the stall (138–148 ms) nothing is playable: B = 0
    assert audio.buffer_level(arr, po, 20 * MS, 0.143) == pytest.approx(0, abs=1e-12)
    # just after chunk 3 lands, chunks 3, 4, 5 are all playable
    assert audio.buffer_level(arr, po, 20 * MS, 0.148) == pytest.approx(60 * MS)


@pytest.mark.parametrize("buffer_ms", [0, 20, 40, 60, 100])
def test_an_empty_buffer_is_exactly_zero(buffer_ms):
    """B(t) never goes below zero, and where the buffer runs dry it reads 0 (the figure's table and
    CSV print it), not the −1.4×10⁻¹⁴ s a subtraction of equal sums leaves."""
    arr, po = _default(buffer_ms)
    ts, bs = audio.buffer_curve(arr, po, 20 * MS)
    assert min(bs) == 0.0
    assert all(b == 0.0 or b > 1e-9 for b in bs), [b for b in bs if 0 < abs(b) <= 1e-9]


def test_interrupt_times():
    it = audio.interrupt(183 * MS, 5 * MS, 10 * MS, 20 * MS)
    assert it.mute == pytest.approx(190 * MS)
    assert it.stop == pytest.approx(188 * MS)
    assert it.release == pytest.approx(210 * MS)
    assert audio.mute_latency_range(5 * MS, 10 * MS) == pytest.approx((5 * MS, 15 * MS))
    # mute latency always within 5–15 ms
    for t in range(0, 100):
        lat = audio.interrupt(t * MS, 5 * MS, 10 * MS, 0).mute_latency
        assert 5 * MS - 1e-12 <= lat <= 15 * MS + 1e-12


def test_discarded_audio():
    arr, po = _default(40)
    assert audio.discarded_audio(arr, po, 20 * MS, 190 * MS) == pytest.approx(58 * MS)


def test_drain():
    assert audio.drain_time(0.3, 0.9) == pytest.approx(3.0)
    assert audio.buffer_linear(0.3, 0.9, 3.0) == pytest.approx(0)
    assert math.isinf(audio.drain_time(0.3, 1.0))
    assert audio.drain_time(0.6, 0.9) == pytest.approx(2 * audio.drain_time(0.3, 0.9))


class _Setting:
    """图 3-18's defaults (ms, Hz, counts)."""

    initial_buffer_ms, chunk_ms, sample_rate_hz, channels, bytes_per_sample = 40, 20, 24000, 1, 2
    proc_ms, send_ms, net_ms, n_chunks, late_chunk, late_net_ms = 12, 1, 5, 12, 3, 55
    interrupt_ms, control_ms, poll_ms, release_ms = 183, 5, 10, 20


def test_jitter_outputs_book_and_illustration():
    j = audio.jitter(_Setting())
    o = j.outputs
    assert o["chunk_bytes"] == pytest.approx(960) and o["first_arrival_ms"] == 38 and o["play_start_ms"] == 78
    assert (
        o["n_stalls"] == 1 and o["stall_total_ms"] == pytest.approx(10) and o["last_play_end_ms"] == pytest.approx(328)
    )
    assert (o["mute_ms"], o["mute_latency_ms"], o["backend_stop_ms"], o["release_ms"]) == (190, 7, 188, 210)
    assert (o["best_mute_latency_ms"], o["worst_mute_latency_ms"]) == (5, 15)
    assert o["discarded_audio_ms"] == pytest.approx(58) and j.late == 3 and len(j.run.arrivals) == 12
    s = _Setting()
    s.initial_buffer_ms, s.late_chunk = 60, 0  # the first chunk is the late one: it sets the first arrival
    o = audio.jitter(s).outputs
    assert o["first_arrival_ms"] == 20 + 12 + 1 + 55 and o["play_start_ms"] == 88 + 60


def test_jitter_run_is_a_rule():
    from app.trace import leaf, node_of, tracing

    with tracing():
        run = audio.jitter_run(12, 20, 12, 1, leaf(5, "T_net"), 3, 55, 78, 190)
    assert node_of(run.n_stalls).kind == "rule" and run.n_stalls == 1
    assert run.stall_total == pytest.approx(0.010)


def test_one_arrival_matches_the_list():
    arr = audio.arrivals(12, 20, 12, 1, 5, 3, 55)
    assert audio.arrival(0, 20, 12, 1, 5) == arr[0] == 38
    assert audio.arrival(3, 20, 12, 1, 55) == arr[3] == 148
