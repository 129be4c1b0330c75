"""Browser tests: Playwright for Python driving Debian's Chromium (never a downloaded browser).
The app runs in a real uvicorn process on a free loopback port. Under CI=true a missing browser
fails the run instead of skipping."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlparse

import pytest

from tests.chromium import ARGS, CHROMIUM  # noqa: F401  (the browser fixture itself: tests/conftest.py)

ROOT = Path(__file__).resolve().parents[2]


def pytest_collection_modifyitems(items):
    for it in items:
        if "tests/browser" in str(it.fspath):
            it.add_marker(pytest.mark.browser)


def _free_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


@pytest.fixture(scope="session")
def server():
    port = _free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uvicorn",
            "--factory",
            "app.main:create_app",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--log-level",
            "warning",
        ],
        cwd=ROOT,
    )
    url = f"http://127.0.0.1:{port}"
    for _ in range(1200):  # up to 60 s: a loaded machine imports slowly
        try:
            urllib.request.urlopen(url + "/healthz", timeout=1)
            break
        except Exception:
            time.sleep(0.05)
    else:
        proc.kill()
        raise RuntimeError("server did not start")
    yield url
    proc.terminate()
    proc.wait(timeout=10)


class Watch:
    """Records console errors, page errors, CSP violations and any request that leaves 127.0.0.1."""

    def __init__(self, page):
        self.errors: list[str] = []
        self.outside: list[str] = []
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        page.on("request", self._req)

    def _req(self, req):
        u = urlparse(req.url)
        if u.scheme in ("data", "blob", "about"):
            return
        if u.hostname not in ("127.0.0.1",):
            self.outside.append(req.url)

    def assert_clean(self):
        assert not self.errors, self.errors
        assert not self.outside, self.outside


@pytest.fixture
def page(browser):
    # a Chinese reader (the root edition's); an English-preferring browser is offered the English twin
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, service_workers="block", locale="zh-CN")
    pg = ctx.new_page()
    pg.watch = Watch(pg)
    yield pg
    ctx.close()
