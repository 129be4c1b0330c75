"""The server keeps no per-user state and writes nothing: a real server process handles every kind
of request (pages, fragments, JSON, answer checks, model derivation) and no file in the project
changes; the app code opens nothing for writing."""

from __future__ import annotations

import json
import os
import re
import urllib.request
from pathlib import Path

from bench.live_cluster import free_port, start_uvicorn

ROOT = Path(__file__).resolve().parents[2]
# The live class (issue 16) is the one stateful part, kept apart from the card routes: its SQLite
# store is the only module that may write, and only once a class is started.
LIVE_STORE = ROOT / "app" / "live" / "sqlite_store.py"
WRITES = re.compile(r"open\([^)]*['\"][wax]b?\+?['\"]|\.write_text\(|\.write_bytes\(|\bmkdir\(|shelve|sqlite3")
SKIP = {".venv", "node_modules", ".git", "__pycache__", ".pytest_cache", ".hypothesis", "test-results"}


def _snapshot() -> dict[str, float]:
    out = {}
    for dirpath, dirnames, filenames in os.walk(ROOT):
        dirnames[:] = [d for d in dirnames if d not in SKIP]
        for f in filenames:
            p = os.path.join(dirpath, f)
            out[p] = os.stat(p).st_mtime_ns
    return out


def test_server_writes_nothing():
    before = _snapshot()
    # the live store on its default path, inside the project ("" = unset)
    port = free_port()
    proc = start_uvicorn(port, {"AIINFRA_LIVE_DB": "", "AIINFRA_REDIS_URL": "", "PYTHONDONTWRITEBYTECODE": "1"})
    base = f"http://127.0.0.1:{port}"
    try:
        for path in (
            "/",
            "/ch/1/1.3",
            "/cards/eg-1-1?batch=8",
            "/cards/eg-1-1/fragment?batch=9",
            "/api/cards/eg-1-1",
            "/cards/eg-1-1/figure/0.csv",
            "/present/fig-1-10",
            "/jump?q=图 1-7",
            "/live",
            "/live/ABCDEF",
            "/api/live/ABCDEF",
            "/api/live/askable/eg-1-1",
        ):
            try:
                urllib.request.urlopen(base + urllib.request.quote(path, safe="/?=&"), timeout=30).read()
            except urllib.error.HTTPError as e:  # a class that does not exist: 404, and still no write
                assert e.code == 404 and "ABCDEF" in path, (path, e.code)
        req = urllib.request.Request(
            base + "/api/cards/ex-1-3/check",
            method="POST",
            data=json.dumps({"answers": {"t_step_ms_b1": 29.85}}).encode(),
            headers={"Content-Type": "application/json"},
        )
        urllib.request.urlopen(req, timeout=30).read()
        cfg = (ROOT / "data" / "models" / "qwen3-8b.json").read_bytes()
        req = urllib.request.Request(
            base + "/api/models/derive", method="POST", data=cfg, headers={"Content-Type": "application/json"}
        )
        urllib.request.urlopen(req, timeout=30).read()
    finally:
        proc.stop()
    after = _snapshot()
    changed = [p for p in after if before.get(p) != after[p]]
    assert not changed, changed[:10]


def test_app_code_opens_nothing_for_writing():
    hits = [
        f"{p}:{i}"
        for p in (ROOT / "app").rglob("*.py")
        if p != LIVE_STORE
        for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if WRITES.search(line)
    ]
    assert not hits, hits


def test_the_live_store_is_the_one_writer():
    """The exemption above names a module that really writes (a rename would not slip through)."""
    assert WRITES.search(LIVE_STORE.read_text(encoding="utf-8"))
