"""Apps for tests, each built from its own settings (flaskr's factory pattern): no start-up
rendering, the live class on a throw-away SQLite file, Redis off unless a test asks for it."""

from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path

from fastapi import FastAPI

_tmp = tempfile.mkdtemp(prefix="aiinfra-test-")
atexit.register(shutil.rmtree, _tmp, True)


def settings_for_tests(**overrides):
    """Settings for an in-process test app; ``overrides`` are Settings fields."""
    from app.settings import Settings

    fields = {"warm": False, "live_db": Path(_tmp) / "live.db", "redis_url": "", **overrides}
    return Settings(**fields)


def build_app(**overrides) -> FastAPI:
    """A new app from :func:`settings_for_tests`."""
    from app.main import create_app

    return create_app(settings_for_tests(**overrides))
