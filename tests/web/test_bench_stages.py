"""`make bench`'s breakdown of a new state (bench/stages.py): its states are new and valid, and every
row is measured (each whole request answered 200, asserted inside). The tool builds its own warmed
app, so it runs in its own process here (warming freezes the garbage collector and sets its thresholds
for the whole process)."""

from __future__ import annotations

import math
import re
import subprocess
import sys
from pathlib import Path

from app.cards import REGISTRY
from app.state import parse_query
from bench.stages import fresh_queries

ROOT = Path(__file__).resolve().parents[2]


def test_fresh_queries_are_distinct_valid_states():
    card = REGISTRY["eg-1-1"]
    queries = fresh_queries(card, 200)
    assert len({tuple(q) for q in queries}) == 200
    assert {k for q in queries for k, _ in q} == {"params_billion", "bytes_per_param"}  # its first two sliders
    for q in queries:
        parse_query(card, q)  # raises on a rejected state


def test_every_row_is_measured(tmp_path):
    out = subprocess.run(
        [sys.executable, "bench/stages.py", "--n", "20", "--rounds", "2"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=240,
        env={"PATH": "/usr/bin:/bin", "AIINFRA_LIVE_DB": str(tmp_path / "live.db")},
        check=True,
    ).stdout
    rows = {m[1].strip(): float(m[2]) for m in re.finditer(r"^(.+?)\s+([-\d.]+) ms$", out, re.M)}
    assert len(rows) == 11, out
    steps = list(rows)[:6]
    assert steps[1].startswith("compute") and steps[3].startswith("template")
    assert all(math.isfinite(ms) and ms > 0 for name, ms in rows.items() if not name.startswith("stack"))
    assert math.isclose(rows["sum of the steps, each timed alone"], sum(rows[k] for k in steps), abs_tol=0.003)
    assert rows["whole request through the app (ASGI)"] > rows["bare route through its app (ASGI)"]
