"""Debian's Chromium for Playwright (never a downloaded browser): where it is and how it starts. One
browser per test process (the ``browser`` fixture in tests/conftest.py): Playwright's sync API marks an
event loop as running for the whole process, so a second ``sync_playwright()`` in the same worker fails.

Two builds of the same Blink. The tests drive Debian's ``chromium-headless-shell`` where it is installed:
the headless build without the browser's window machinery, which ran the browser tests in 117–120 s
against 196–199 s for the full ``chromium`` (two processes, two cores). The tests that measure a speed a
reader feels (marked ``alone``) and ``make bench`` drive the full ``chromium``, the browser a reader has."""

from __future__ import annotations

import os
import shutil

READER_CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
HEADLESS_SHELL = shutil.which("chromium-headless-shell") or READER_CHROMIUM


def chromium_for(alone: bool) -> str:
    """The build a test process drives: $CHROMIUM if set, the full browser for the speed tests."""
    return os.environ.get("CHROMIUM") or (READER_CHROMIUM if alone else HEADLESS_SHELL)


CHROMIUM = chromium_for(alone=False)


ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]
