"""Each app owns its live class: two apps built in one process from different settings keep their own
classes, stores and signing keys (the app factory's rule: an app follows the settings it was built
from, whatever other app the process builds later)."""

from __future__ import annotations

from app.live.sqlite_store import SQLiteStore
from fastapi.testclient import TestClient
from pydantic import SecretStr

from tests.apps import build_app

from .conftest import PROXY, start_class


def test_two_apps_in_one_process_keep_their_own_live_classes(tmp_path):
    a = build_app(live_db=tmp_path / "a.db", secret=SecretStr("a" * 40))
    b = build_app(live_db=tmp_path / "b.db", secret=SecretStr("b" * 40))  # built last: A must not follow it
    with TestClient(a, client=PROXY) as on_a, TestClient(b, client=PROXY) as on_b:
        ka, kb = start_class(on_a), start_class(on_b)
        assert on_a.get(f"/api/live/{ka.code}").status_code == 200
        assert on_b.get(f"/api/live/{ka.code}").status_code == 404  # A's class is not on B…
        assert on_b.get(f"/api/live/{kb.code}").status_code == 200
        assert on_a.get(f"/api/live/{kb.code}").status_code == 404  # …nor B's on A
        assert on_b.get(f"/live/{ka.code}").status_code == 404
        assert (tmp_path / "a.db").exists() and (tmp_path / "b.db").exists()

        # B reading A's very file still signs with its own secret: A's participant is not B's
        cred = ka.who(on_a, "me")
        share = {"participant": cred, "card": "eg-1-1"}
        assert on_a.post(f"/api/live/{ka.code}/share", json=share).status_code == 201
        b.state.live.store = SQLiteStore(tmp_path / "a.db", b.state.live.hub.deliver)
        assert on_b.get(f"/api/live/{ka.code}").status_code == 200
        refused = on_b.post(f"/api/live/{ka.code}/share", json=share)
        assert refused.status_code == 403 and refused.json()["detail"][0]["field"] == "participant"
