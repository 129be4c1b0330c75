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
