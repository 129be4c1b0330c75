"""Debian's Chromium for Playwright (never a downloaded browser): where it is and how it starts. One
browser per test process (the ``browser`` fixture in tests/conftest.py): Playwright's sync API marks an
event loop as running for the whole process, so a second ``sync_playwright()`` in the same worker fails."""

from __future__ import annotations

import os
import shutil

CHROMIUM = os.environ.get("CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
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
