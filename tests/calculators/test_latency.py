"""The 2009 latency table and serial waits (1.2.1)."""

from __future__ import annotations

from app.calculators import latency
from app.data import read_json

ROWS = read_json("latency_numbers_2009.json")["rows"]  # the test reads the file; the calculator does not


def test_table_has_twelve_rows_in_slide_order():
    ops = latency.numbers_2009(ROWS)
    assert len(ops) == 12
    assert [o.ns for o in ops] == [0.5, 5, 7, 25, 100, 3000, 20000, 250000, 500000, 1e7, 2e7, 1.5e8]
    assert {o.category for o in ops} == {"compute", "sync", "storage", "network"}
    # the LADIS 2009 version, not the older 13-row list
    ops_ = latency.numbers_2009(ROWS)
    assert latency.op(ops_, "mutex-lock-unlock").ns == 25 and latency.op(ops_, "compress-1k-zippy").ns == 3000


def test_rows_are_passed_in_not_read():
    """latency.py reads no file: the rows it gets are the rows it returns."""
    import inspect

    rows = [{"id": "x", "label": "X", "zh": "某操作", "ns": 42.0, "category": "compute"}]
    assert latency.numbers_2009(rows) == (latency.Op("x", "X", "某操作", 42.0, "compute"),)
    assert "read_json" not in inspect.getsource(latency) and "open(" not in inspect.getsource(latency)


def test_ratios():
    ops = latency.numbers_2009(ROWS)

    def op(op_id):
        return latency.op(ops, op_id)

    assert latency.ratio(op("main-memory-reference").ns, op("disk-seek").ns) == 100_000
    assert latency.ratio(op("round-trip-datacenter").ns, op("l1-cache-reference").ns) == 1_000_000
    assert latency.ratio(op("read-1mb-memory").ns, op("read-1mb-disk").ns) == 80


def test_serial_wait():
    s = latency.serial_wait(20, 10e-3, 1e-3)
    assert abs(s.wait - 0.2) < 1e-12 and abs(s.total - 0.201) < 1e-12
    assert round(100 * s.wait_frac, 2) == 99.50
    assert round(s.wait_to_compute) == 200
    assert latency.serial_wait(0, 10e-3, 1e-3).wait_frac == 0
