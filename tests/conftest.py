from __future__ import annotations

import warnings

import pytest

warnings.filterwarnings("ignore", category=DeprecationWarning)

from fastapi.testclient import TestClient  # noqa: E402

from app.main import app  # noqa: E402


def pytest_configure(config):
    from tests.skip_report import register
    register(config)


@pytest.fixture(scope="session")
def client() -> TestClient:
    return TestClient(app)
