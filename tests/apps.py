"""Apps for tests, each built from its own settings (flaskr's factory pattern)."""

from __future__ import annotations


def build_app(**overrides):
    from app.main import app

    return app
