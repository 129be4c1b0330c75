"""No participant credential reaches the server's access log: the event stream can carry it only in
its URL (EventSource sends no headers), so the access log writes each ``participant=`` value as ``…``.
Against a real uvicorn with its access log on, as `make run` serves."""

from __future__ import annotations

import json
import logging
import time
import urllib.request

from app.live.serving import CredentialsOutOfLogs, redacted
from bench.live_cluster import free_port, start_uvicorn


def test_redacted_rewrites_only_the_credential():
    assert redacted("/api/live/AB12/events?participant=x.y%2Bz") == "/api/live/AB12/events?participant=…"
    assert redacted("/s?full=1&participant=abc&n=2") == "/s?full=1&participant=…&n=2"
    assert redacted("/cards/eg-1-1?batch=8") == "/cards/eg-1-1?batch=8"


def test_the_filter_keeps_the_record_and_drops_the_secret():
    rec = logging.LogRecord(
        "uvicorn.access",
        logging.INFO,
        "",
        0,
        '%s - "%s %s HTTP/%s" %d',
        ("1.2.3.4:5", "GET", "/e?participant=SECRET", "1.1", 200),
        None,
    )
    assert CredentialsOutOfLogs().filter(rec) is True
    assert "SECRET" not in rec.getMessage() and "participant=…" in rec.getMessage()


def _post(url: str, body: dict) -> dict:
    req = urllib.request.Request(url, json.dumps(body).encode(), {"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())


def test_the_access_log_of_a_real_server_holds_no_credential(tmp_path):
    port, log = free_port(), tmp_path / "access.log"
    proc = start_uvicorn(
        port, {"AIINFRA_LIVE_DB": str(tmp_path / "live.db"), "AIINFRA_REDIS_URL": "", "AIINFRA_WARM": "0"}, log, True
    )
    try:
        base = f"http://127.0.0.1:{port}"
        code = _post(base + "/api/live", {"card": "eg-1-1"})["code"]
        cred = _post(f"{base}/api/live/{code}/join", {})["participant"]
        with urllib.request.urlopen(f"{base}/api/live/{code}/events?participant={cred}", timeout=10) as r:
            assert r.status == 200
            r.readline()  # the stream is open: its request line is logged
        time.sleep(0.5)
    finally:
        proc.stop()
    text = log.read_text()
    assert f"/api/live/{code}/events?participant=…" in text, text[-2000:]
    assert cred not in text and cred.split(".")[0] not in text
