"""The event stream against a real uvicorn process (SQLite): headers, one event per change with
``id: {seq}``, Last-Event-ID resume without replay, keep-alive comments, follower counting,
restart, and the instructor's token in no follower page and no access-log line."""

from __future__ import annotations

import json
import time

import httpx
import pytest
from app.live.hub import Hub
from app.live.sqlite_store import SQLiteStore
from bench.live_cluster import call, run_coroutine, start_uvicorn

from .conftest import api_class, api_join


class Stream:
    """A follower's stream read line by line: events as (id, data) and comment lines."""

    def __init__(self, base: str, code: str, participant: str, last: int | None = None, headers: dict | None = None):
        headers = (
            {"Accept": "text/event-stream"}
            | ({"Last-Event-ID": str(last)} if last is not None else {})
            | (headers or {})
        )
        self.client = httpx.Client(timeout=httpx.Timeout(10.0))
        url = f"{base}/api/live/{code}/events"
        self.cm = self.client.stream("GET", url, params={"participant": participant}, headers=headers)
        self.resp = self.cm.__enter__()
        self.lines = self.resp.iter_lines()
        self.comments: list[str] = []
        self.retry: int | None = None
        self.kind: str | None = None  # the last event's type (None: the default, a state)

    def next_event(self, within: float = 5.0) -> tuple[int, dict] | None:
        """The next event, or None when only comments arrived for ``within`` seconds."""
        end, eid, data, kind = time.time() + within, None, None, None
        for line in self.lines:
            if line.startswith(":"):
                self.comments.append(line)
            elif line.startswith("event:"):
                kind = line[6:].strip()
            elif line.startswith("id:"):
                eid = int(line[3:].strip())
            elif line.startswith("retry:"):
                self.retry = int(line[6:].strip())
            elif line.startswith("data:"):
                data = json.loads(line[5:])
            elif line == "" and data is not None:
                self.kind = kind
                return eid, data
            if time.time() > end:
                return None
        return None

    def close(self):
        self.cm.__exit__(None, None, None)
        self.client.close()


@pytest.fixture
def base(sqlite_server):
    return sqlite_server["base"]


def follow(base, k, **kw) -> Stream:
    """A student joins (a participant credential) and opens the stream with it."""
    return Stream(base, k.code, api_join(base, k), **kw)


def put(base, k, query, card="eg-1-1"):
    status, body = call(base, "PUT", f"/api/live/{k.code}/state", {"card": card, "query": query}, k.token)
    assert status == 200, body
    return body["seq"]


def test_stream_headers_and_first_event(base):
    k = api_class(base, "eg-1-1", "batch=4")
    s = follow(base, k)
    try:
        h = s.resp.headers
        assert h["content-type"].startswith("text/event-stream")
        assert h["cache-control"] == "no-store" and h["x-accel-buffering"] == "no"
        assert "content-encoding" not in h
        eid, data = s.next_event()
        assert eid == data["seq"] == 1
        assert {"card", "query", "seq", "locked"} <= set(data)
        assert (data["card"], data["query"], data["locked"]) == ("eg-1-1", "batch=4", False)
        assert s.retry and s.retry > 0
    finally:
        s.close()


def test_every_change_is_one_event_in_order(base):
    k = api_class(base)
    s = follow(base, k)
    try:
        assert s.next_event()[0] == 1
        seqs = [put(base, k, f"batch={b}") for b in (2, 3, 4)]
        call(base, "POST", f"/api/live/{k.code}/lock", token=k.token)
        got = [s.next_event() for _ in range(4)]
        assert [g[0] for g in got] == seqs + [5]
        assert [g[1]["query"] for g in got[:3]] == ["batch=2", "batch=3", "batch=4"]
        assert got[3][1]["locked"] is True and got[3][1]["query"] == "batch=4"
    finally:
        s.close()


def test_last_event_id_behind_gets_the_current_state_at_once_not_a_replay(base):
    k = api_class(base)
    for b in range(2, 12):
        put(base, k, f"batch={b}")
    s = follow(base, k, last=3)
    try:
        eid, data = s.next_event()
        assert eid == 11 and data["query"] == "batch=11"  # one event: the state now
        assert s.next_event(within=1.5) is None  # …and no replay of 4…10
    finally:
        s.close()


def test_last_event_id_up_to_date_waits_for_the_next_change(base):
    k = api_class(base)
    put(base, k, "batch=2")
    s = follow(base, k, last=2)
    try:
        assert s.next_event(within=1.5) is None
        put(base, k, "batch=5")
        eid, data = s.next_event()
        assert eid == 3 and data["query"] == "batch=5"
    finally:
        s.close()


def test_keep_alive_comments(base):
    k = api_class(base)
    s = follow(base, k, last=1)
    try:
        assert s.next_event(within=2.5) is None
        assert s.comments, "no keep-alive comment within 2.5 s (the server pings every 1 s here)"
    finally:
        s.close()


def test_followers_counted_while_connected(base):
    k = api_class(base)
    streams = [follow(base, k) for _ in range(3)]
    try:
        for st in streams:
            st.next_event()
        assert call(base, "GET", f"/api/live/{k.code}")[1]["followers"] == 3
    finally:
        for st in streams:
            st.close()
    for _ in range(50):
        if call(base, "GET", f"/api/live/{k.code}")[1]["followers"] == 0:
            break
        time.sleep(0.1)
    assert call(base, "GET", f"/api/live/{k.code}")[1]["followers"] == 0


def test_unknown_class_stream_is_404(base):
    r = httpx.get(f"{base}/api/live/ZZZZZZ/events")
    assert r.status_code == 404


def test_a_stream_needs_this_classes_participant(base):
    """Without a credential, with a forged one or with another class's, the stream is refused (403)
    and nobody is counted: a follower is a participant with an open stream."""
    k, other = api_class(base), api_class(base)
    cred = api_join(base, k)
    for bad in (None, cred[:-3] + "abc", api_join(base, other), "p1.AAAAAA.00000000.x.y"):
        r = httpx.get(f"{base}/api/live/{k.code}/events", params={} if bad is None else {"participant": bad})
        assert r.status_code == 403, bad
        assert r.json()["detail"][0]["field"] == "participant"
    assert call(base, "GET", f"/api/live/{k.code}")[1]["followers"] == 0


def test_one_participant_on_two_streams_is_one_follower(base):
    k = api_class(base)
    cred = api_join(base, k)
    a, b = Stream(base, k.code, cred), Stream(base, k.code, cred)
    try:
        a.next_event()
        b.next_event()
        assert call(base, "GET", f"/api/live/{k.code}")[1]["followers"] == 1
    finally:
        a.close()
        b.close()


def test_class_end_is_one_ended_event_with_the_summary_then_410(base):
    k = api_class(base)
    call(base, "POST", f"/api/live/{k.code}/questions", {"card": "eg-1-1", "key": "b_star", "query": ""}, k.token)
    cred = api_join(base, k)
    call(base, "POST", f"/api/live/{k.code}/questions/1/answers", {"participant": cred, "value": 148})
    call(base, "POST", f"/api/live/{k.code}/questions/1/reveal", token=k.token)
    s = Stream(base, k.code, cred)
    try:
        s.next_event()
        assert call(base, "DELETE", f"/api/live/{k.code}", token=k.token)[0] == 204
        eid, data = s.next_event()
        assert s.kind == "ended" and data["ended"] is True and eid == data["seq"]
        summary = data["summary"]
        assert (summary["asked"], summary["participants"]) == (1, 1)
        q = summary["questions"][0]
        assert (q["answered"], q["status"], q["shares"]["correct"]) == (1, "revealed", 1.0)
        assert abs(q["true_value"] - 147.67) < 0.01
        assert s.next_event(within=2) is None  # …and the stream is over
    finally:
        s.close()
    assert call(base, "GET", f"/api/live/{k.code}")[0] == 410
    assert httpx.get(f"{base}/api/live/{k.code}/events", params={"participant": cred}).status_code == 410
    assert call(base, "POST", f"/api/live/{k.code}/join", {})[0] == 410
    page = httpx.get(f"{base}/live/{k.code}")
    assert page.status_code == 410 and "课堂已结束" in page.text and "147.7" in page.text


def test_token_in_no_follower_page_and_no_access_log_line(sqlite_server):
    base, log = sqlite_server["base"], sqlite_server["log"]
    k = api_class(base, "eg-1-1")
    put(base, k, "batch=8")
    call(
        base, "POST", f"/api/live/{k.code}/questions", {"card": "eg-1-1", "key": "b_star", "query": "batch=8"}, k.token
    )
    call(base, "GET", f"/api/live/{k.code}/questions/1/results", token=k.token)
    call(base, "GET", f"/api/live/{k.code}/snapshots", token=k.token)
    pages = {
        p: httpx.get(base + p).text
        for p in (
            f"/live/{k.code}",
            f"/live/{k.code}/control",
            "/live/card/eg-1-1?batch=8",
            f"/live/{k.code}/qr.svg",
            f"/api/live/{k.code}",
            f"/api/live/{k.code}/questions/1/results",
        )
    }
    s = follow(base, k)
    try:
        pages["events"] = json.dumps(s.next_event()[1])
    finally:
        s.close()
    for path, text in pages.items():
        assert k.token not in text, path
    assert k.code in pages[f"/live/{k.code}"]
    time.sleep(0.3)
    logged = log.read_text()
    assert f"/api/live/{k.code}/state" in logged  # the access log is on…
    assert k.token not in logged  # …and never holds the token
    assert "#t=" not in logged


def test_restart_resumes_at_the_current_state(sqlite_server):
    base, env = sqlite_server["base"], sqlite_server["env"]
    k = api_class(base)
    put(base, k, "batch=7")
    put(base, k, "batch=9")
    sqlite_server["proc"].stop()
    sqlite_server["proc"] = start_uvicorn(sqlite_server["port"], env, sqlite_server["log"], access_log=True)
    st = call(base, "GET", f"/api/live/{k.code}")[1]
    assert (st["query"], st["seq"]) == ("batch=9", 3)
    s = follow(base, k, last=2)
    try:
        eid, data = s.next_event()
        assert eid == 3 and data["query"] == "batch=9"
        assert put(base, k, "batch=10") == 4
        assert s.next_event()[0] == 4
    finally:
        s.close()


def test_sqlite_file_is_created_only_by_the_first_class(tmp_path):
    path = tmp_path / "sub" / "live.db"
    store = SQLiteStore(path, Hub().deliver)

    async def go():
        assert await store.get("ABCDEF") is None
        assert await store.followers("ABCDEF") == 0
        assert await store.purge() == 0
        assert not path.exists() and not path.parent.exists()
        await store.create("ABCDEF", "h", "eg-1-1", "", "owner")
        assert path.exists()

    run_coroutine(go())
