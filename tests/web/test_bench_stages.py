"""`make bench`'s breakdown of a new state (bench/stages.py): its states are new and valid, and every
row is measured (each whole request answered 200, asserted inside). It runs in the suite's own process:
the tool's app is built without start-up warming (nothing process-wide changes, the collector's
settings included) and its requests run on an event loop of their own, so a worker where Playwright's
sync API is open takes it too."""

from __future__ import annotations

import gc
import math
import re
import sys

from app.cards import REGISTRY
from app.state import parse_query
from bench.stages import fresh_queries, main


def test_fresh_queries_are_distinct_valid_states():
    card = REGISTRY["eg-1-1"]
    queries = fresh_queries(card, 200)
    assert len({tuple(q) for q in queries}) == 200
    assert {k for q in queries for k, _ in q} == {"params_billion", "bytes_per_param"}  # its first two sliders
    for q in queries:
        parse_query(card, q)  # raises on a rejected state


def test_every_row_is_measured(monkeypatch, capsys):
    before = gc.get_threshold(), gc.get_freeze_count()
    monkeypatch.setattr(sys, "argv", ["bench/stages.py", "--n", "20", "--rounds", "2"])
    main()
    out = capsys.readouterr().out
    assert (gc.get_threshold(), gc.get_freeze_count()) == before  # the process's collector is as it was
    rows = {m[1].strip(): float(m[2]) for m in re.finditer(r"^(.+?)\s+([-\d.]+) ms$", out, re.M)}
    assert len(rows) == 10, out  # the practice-first mask step went with the mask (issue 36.3)
    steps = list(rows)[:5]
    assert steps[1].startswith("compute") and steps[3].startswith("template")
    assert all(math.isfinite(ms) and ms > 0 for name, ms in rows.items() if not name.startswith("stack"))
    assert math.isclose(rows["sum of the steps, each timed alone"], sum(rows[k] for k in steps), abs_tol=0.003)
    assert rows["whole request through the app (ASGI)"] > rows["bare route through its app (ASGI)"]
