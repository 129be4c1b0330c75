"""`make bench`'s "every request a new state" row must send only states never asked for before, all
valid. wrk runs its script in two threads with the same counter and random sequence; before the
thread number went into the values, half the requests repeated a state the other thread had asked
for (cache hits, counted as new renders)."""

from __future__ import annotations

import shutil
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from bench.bench import CARD, lua_new, wrk

pytestmark = pytest.mark.skipif(not shutil.which("wrk"), reason="wrk not installed (.ci/run installs it)")


def _recording_server() -> tuple[ThreadingHTTPServer, list[str]]:
    seen: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as wrk expects
        disable_nagle_algorithm = True  # small writes go out at once (no 40 ms stalls)

        def do_GET(self):  # noqa: N802 (the stdlib's name)
            seen.append(self.path)
            self.send_response(200)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, seen


def test_every_request_of_the_new_state_runs_is_a_new_state(client):
    """Within a run (two wrk threads) and across the bench's alternating rounds."""
    server, seen = _recording_server()
    try:
        runs = [wrk(f"http://127.0.0.1:{server.server_address[1]}", lua_new(CARD, i), 16, 1) for i in range(2)]
    finally:
        server.shutdown()
    assert all(r["requests"] > 200 for r in runs)
    assert len(seen) >= sum(r["requests"] for r in runs)
    assert len(set(seen)) == len(seen), f"{len(seen) - len(set(seen))} of {len(seen)} requests repeated a state"
    for path in seen[:: max(1, len(seen) // 40)]:  # and the card takes them
        assert client.get(path).status_code == 200, path
