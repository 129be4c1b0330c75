from __future__ import annotations

import atexit
import os
import shutil
import tempfile
import warnings
from pathlib import Path

import pytest

warnings.filterwarnings("ignore", category=DeprecationWarning)

# The live class writes its SQLite store on the first 开课: test runs keep it out of the project tree
# (tests/web/test_stateless.py runs its server on the default path, to see that nothing is written).
_live_tmp = tempfile.mkdtemp(prefix="aiinfra-live-")
atexit.register(shutil.rmtree, _live_tmp, True)
os.environ.setdefault("AIINFRA_LIVE_DB", str(Path(_live_tmp) / "live.db"))

from app.main import app  # noqa: E402
from fastapi.testclient import TestClient  # noqa: E402


def pytest_configure(config):
    from tests.skip_report import register

    register(config)


@pytest.fixture(scope="session")
def client() -> TestClient:
    return TestClient(app)
