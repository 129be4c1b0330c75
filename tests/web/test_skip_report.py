"""Without Chromium the browser tests skip, and the run ends with one line saying how many and the
command that installs Chromium; under CI=true a skipped browser test fails the run."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
pytest_plugins = ["pytester"]


def test_run_without_chromium_ends_with_the_skip_line():
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env.update(CHROMIUM="/nonexistent/chromium", PYTHONDONTWRITEBYTECODE="1")
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "tests/browser/test_checkable_browser.py",
            "tests/browser/test_security.py",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    last = [x for x in out.stdout.splitlines() if x.strip()][-1]
    assert last.startswith("2 browser tests skipped"), out.stdout
    assert "sudo apt-get install chromium" in last and ".ci/run" in last


CONFTEST = """
from tests.skip_report import register
def pytest_configure(config):
    register(config)
"""
TESTS = """
import pytest

@pytest.mark.browser
def test_skips_for_any_reason():
    pytest.skip("no display")

def test_plain():
    assert 1 + 1 == 2
"""


def test_ci_fails_on_a_skipped_browser_test(pytester, monkeypatch):
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(TESTS)
    monkeypatch.delenv("CI", raising=False)
    r = pytester.runpytest("-p", "no:cacheprovider")
    assert r.ret == 0
    r.assert_outcomes(passed=1, skipped=1)
    assert r.outlines[-1].startswith("1 browser test skipped (no Chromium)")
    monkeypatch.setenv("CI", "true")
    r = pytester.runpytest("-p", "no:cacheprovider")
    assert r.ret == 1
    r.assert_outcomes(passed=1, skipped=1)
    assert r.outlines[-1].startswith("FAILED: 1 browser test skipped under CI=true")
