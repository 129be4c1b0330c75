from __future__ import annotations

import os
import warnings
from pathlib import Path

import pytest

warnings.filterwarnings("ignore", category=DeprecationWarning)

# Servers the tests start read the environment: their live store stays out of the project tree
# (tests/web/test_stateless.py runs its server on the default path, to see that nothing is written).
from tests.apps import _tmp  # noqa: E402

os.environ.setdefault("AIINFRA_LIVE_DB", os.path.join(_tmp, "server-live.db"))

from app.chapters import load_all  # noqa: E402
from fastapi import FastAPI  # noqa: E402
from fastapi.testclient import TestClient  # noqa: E402

from tests.apps import build_app  # noqa: E402
from tests.chromium import ARGS, chromium_for  # noqa: E402

load_all()  # every card registers before tests are collected (they are parametrised over the registry)


def pytest_addoption(parser):
    parser.addoption(
        "--full",
        action="store_true",
        help="also run the exhaustive grids (tests marked full; make test-full): make test runs their samples",
    )
    parser.addoption(
        "--alone",
        action="store_true",
        help="run only the tests that measure speed (marked alone), with nothing beside them: make test's last step",
    )


def pytest_configure(config):
    from tests import sampling
    from tests.skip_report import register

    register(config)
    sampling.FULL = config.getoption("--full")


def pytest_terminal_summary(terminalreporter, config):
    """The shuffled order's seed (pytest-randomly), so a failure that depends on the order can be rerun."""
    seed = getattr(config.option, "randomly_seed", None)
    if isinstance(seed, int) and config.pluginmanager.has_plugin("randomly"):
        terminalreporter.write_line(f"order shuffled by pytest-randomly; repeat it: PYTEST_ARGS=--randomly-seed={seed}")


def pytest_collection_modifyitems(config, items):
    """Without ``--full``, the exhaustive parts of sampled grids are deselected (reported as such). A test
    that measures speed (marked ``alone``) runs only under ``--alone``, and ``--alone`` runs nothing else:
    on two cores a neighbouring test's load would decide it (a drag drew 24–45 states a second beside
    other browser tests, 33–45 alone)."""
    alone = config.getoption("--alone")
    out = [
        it
        for it in items
        if (config.getoption("--full") or not it.get_closest_marker("full"))
        and bool(it.get_closest_marker("alone")) == alone
    ]
    if len(out) < len(items):
        kept = set(map(id, out))
        config.hook.pytest_deselected(items=[it for it in items if id(it) not in kept])
        items[:] = out


@pytest.fixture(scope="session")
def app() -> FastAPI:
    """One app for the session's in-process tests, built from test settings."""
    return build_app()


@pytest.fixture(scope="session")
def client(app) -> TestClient:
    return TestClient(app)


@pytest.fixture(scope="session")
def browser(pytestconfig):
    """One Chromium for every test of this process that drives a page (see tests/chromium.py): the
    headless shell, or under ``--alone`` the full browser a reader has (unless $CHROMIUM names one)."""
    path = chromium_for(alone=pytestconfig.getoption("--alone"))
    if not Path(path).exists():
        if os.environ.get("CI") == "true":
            pytest.fail(f"Chromium not found at {path}: CI must run the browser tests")
        pytest.skip("Chromium not installed (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=path, args=ARGS)
        yield b
        b.close()
