"""Tests that measure a speed (marked ``alone``: the drag) run by themselves, after the rest: every run
leaves them out unless ``--alone``, which runs nothing else (tests/conftest.py; make test's last step)."""

from __future__ import annotations

import os
import shutil
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


def test_the_speed_tests_drive_the_full_browser_and_the_rest_the_headless_shell(monkeypatch):
    """A speed a reader feels is measured in the browser a reader has; everything else runs on the lighter
    headless build of the same Blink where Debian's chromium-headless-shell is installed."""
    from tests import chromium

    named = os.environ.get("CHROMIUM")
    assert chromium.CHROMIUM == (named or shutil.which("chromium-headless-shell") or chromium.READER_CHROMIUM)
    monkeypatch.delenv("CHROMIUM", raising=False)
    assert chromium.chromium_for(alone=True) == chromium.READER_CHROMIUM
    assert Path(chromium.READER_CHROMIUM).name == "chromium"
    assert chromium.chromium_for(alone=False) == chromium.CHROMIUM
    monkeypatch.setenv("CHROMIUM", "/elsewhere/chromium")
    assert chromium.chromium_for(alone=True) == chromium.chromium_for(alone=False) == "/elsewhere/chromium"
