"""Tests that measure a speed (marked ``alone``: the drag) run by themselves, after the rest: every run
leaves them out unless ``--alone``, which runs nothing else (tests/conftest.py; make test's last step)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FILE = "tests/browser/test_drag.py"


def collected(*args: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return [line for line in done.stdout.splitlines() if "::" in line]


def test_a_speed_test_runs_only_alone_and_alone_runs_only_those():
    without, alone = collected(FILE), collected("--alone", FILE)
    assert alone == [f"{FILE}::test_dragging_b_follows_the_hand_and_ends_on_the_final_value"]
    assert without and not set(without) & set(alone)  # the file's other tests run with the rest
