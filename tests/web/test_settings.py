"""Every setting is one field of app/settings.py, read from its AIINFRA_* variable, documented in the
README, and each app is built from the settings it is given."""

from __future__ import annotations

import re
from pathlib import Path

from app.settings import Settings
from fastapi.testclient import TestClient

from tests.apps import build_app

README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")


def test_every_setting_is_documented_in_the_readme():
    table = README[README.index("## Settings") :]
    documented = set(re.findall(r"^\| `(AIINFRA_[A-Z_0-9]+)` \|", table, re.M))
    fields = {"AIINFRA_" + name.upper() for name in Settings.model_fields}
    assert fields == documented


def test_settings_come_from_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("AIINFRA_EDGE_MB", "7")
    monkeypatch.setenv("AIINFRA_SOLUTIONS", "off")
    monkeypatch.setenv("AIINFRA_LIVE_DB", "")
    s = Settings()
    assert s.edge_mb == 7 and s.solutions == "off" and s.live_db.name == "live.db"


def test_an_app_follows_its_own_settings():
    on, off = TestClient(build_app()), TestClient(build_app(solutions="off"))
    assert "查看解答" in on.get("/cards/ex-1-1/fragment").text
    assert "查看解答" not in off.get("/cards/ex-1-1/fragment").text
    assert off.app.state.settings.solutions == "off"
