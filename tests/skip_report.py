"""Browser tests skip on a machine without Chromium; the run then ends with one line saying how many
were skipped and how to install it. Under ``CI=true`` (``.ci/run``) a skipped browser test fails the
run: CI must drive the browser."""

from __future__ import annotations

import os

import pytest

INSTALL = "sudo apt-get install chromium chromium-headless-shell (or .ci/run, which installs it and runs everything)"


class BrowserSkipReport:
    def __init__(self) -> None:
        self.skipped: set[str] = set()

    def pytest_runtest_logreport(self, report) -> None:
        if report.skipped and "browser" in report.keywords:
            self.skipped.add(report.nodeid)

    def line(self) -> str:
        n = len(self.skipped)
        what = f"{n} browser test{'s' if n != 1 else ''} skipped"
        if os.environ.get("CI") == "true":
            return f"FAILED: {what} under CI=true; CI must run them. Install Chromium: {INSTALL}"
        return f"{what} (no Chromium): install it with {INSTALL}"

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session) -> None:
        if self.skipped and os.environ.get("CI") == "true" and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_unconfigure(self, config) -> None:
        tr = config.pluginmanager.get_plugin("terminalreporter")
        if self.skipped and tr is not None:
            tr.write_line(
                self.line(), yellow=os.environ.get("CI") != "true", red=os.environ.get("CI") == "true", bold=True
            )


def register(config) -> None:
    config.pluginmanager.register(BrowserSkipReport(), "browser-skip-report")
