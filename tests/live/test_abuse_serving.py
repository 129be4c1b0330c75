"""Abuse suite, issue 39 point 7: a request body that trickles past BODY_TIMEOUT_S on any route (not
only the live API, which answers its own 408 sooner) is answered 408 before the connection closes;
before, the client saw the connection drop with no answer. The protocol is driven directly, its
deadline shortened (the real one is 30 s)."""

from __future__ import annotations

import asyncio

from app.live import limits, serving
from bench.live_cluster import run_coroutine

from .test_serving import _protocol, _reads_body


def test_a_trickling_body_is_answered_408_at_the_deadline(monkeypatch):
    assert limits.BODY_TIMEOUT_S == 30.0
    monkeypatch.setattr(serving, "BODY_TIMEOUT_S", 0.5)

    async def go():
        proto, transport = _protocol(_reads_body)
        proto.data_received(b"POST /api/cards/eg-1-1/check HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{")
        for _ in range(8):  # one byte every 0.1 s: never complete within the deadline
            await asyncio.sleep(0.1)
            proto.data_received(b" ")
        return transport

    transport = run_coroutine(go())
    assert transport.closed
    assert transport.written.startswith(b"HTTP/1.1 408 Request Timeout\r\n"), transport.written[:60]
    assert b"request body not received in time" in transport.written and b"done" not in transport.written


def test_an_answer_already_begun_is_not_followed_by_a_408(monkeypatch):
    """An app that answered before reading the whole body: the deadline only closes the connection."""
    monkeypatch.setattr(serving, "BODY_TIMEOUT_S", 0.3)

    async def early(scope, receive, send):
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"5")]})
        await send({"type": "http.response.body", "body": b"early"})
        while (await receive()).get("more_body"):
            pass

    async def go():
        proto, transport = _protocol(early)
        proto.data_received(b"POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n0123")
        await asyncio.sleep(0.6)
        return transport

    transport = run_coroutine(go())
    assert transport.written.startswith(b"HTTP/1.1 200 ") and b"408" not in transport.written
